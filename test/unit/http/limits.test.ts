import { describe, expect, test } from "bun:test";
import { AuthFailureThrottle } from "../../../src/http/auth-throttle.ts";
import { RateLimiter } from "../../../src/http/rate-limit.ts";

/** A clock the test moves by hand, in milliseconds. */
function clock() {
  let t = 0;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe("RateLimiter", () => {
  test("allows a burst, then one request per refill interval, per key", () => {
    const c = clock();
    const limiter = new RateLimiter(2, 3, c.now);
    expect([limiter.take("a"), limiter.take("a"), limiter.take("a")]).toEqual([0, 0, 0]);
    expect(limiter.take("a")).toBe(1);
    expect(limiter.take("b")).toBe(0);
    c.advance(500);
    expect(limiter.take("a")).toBe(0);
    expect(limiter.take("a")).toBe(1);
    c.advance(60_000);
    expect([limiter.take("a"), limiter.take("a"), limiter.take("a"), limiter.take("a")]).toEqual([0, 0, 0, 1]);
  });

  test("the wait is in whole seconds, rounded up, for slow rates", () => {
    const c = clock();
    const limiter = new RateLimiter(0.1, 1, c.now);
    expect(limiter.take("a")).toBe(0);
    expect(limiter.take("a")).toBe(10);
  });

  test("a rate of 0 never limits", () => {
    const limiter = new RateLimiter(0, 1);
    for (let i = 0; i < 1000; i++) expect(limiter.take("a")).toBe(0);
  });
});

describe("AuthFailureThrottle", () => {
  test("blocks an address at the limit until its oldest failure leaves the window", () => {
    const c = clock();
    const throttle = new AuthFailureThrottle(3, 60_000, c.now);
    throttle.recordFailure("1.2.3.4");
    c.advance(10_000);
    throttle.recordFailure("1.2.3.4");
    expect(throttle.blockedFor("1.2.3.4")).toBe(0);
    throttle.recordFailure("1.2.3.4");
    expect(throttle.blockedFor("1.2.3.4")).toBe(50);
    expect(throttle.blockedFor("5.6.7.8")).toBe(0);
    c.advance(50_001);
    expect(throttle.blockedFor("1.2.3.4")).toBe(0);
    throttle.recordFailure("1.2.3.4");
    expect(throttle.blockedFor("1.2.3.4")).toBe(10);
  });

  test("a limit of 0 never blocks", () => {
    const throttle = new AuthFailureThrottle(0, 60_000);
    for (let i = 0; i < 100; i++) throttle.recordFailure("a");
    expect(throttle.blockedFor("a")).toBe(0);
  });
});
