import { error } from "../values.ts";
import { type MethodTable, method } from "./types.ts";

const MAX_DIGITS = 100;

/** Rounds half away from zero at `digits` decimals, without 1.005 → 1.00 binary surprises. */
function roundTo(n: number, digits: number): number {
  const factor = 10 ** digits;
  return (Math.sign(n) * Math.round(Number(`${Math.abs(n)}e${digits}`) || Math.abs(n) * factor)) / factor;
}

export const NUMBER_METHODS: MethodTable<number> = {
  abs: method([0, 0], (n) => Math.abs(n)),
  ceil: method([0, 0], (n) => Math.ceil(n)),
  floor: method([0, 0], (n) => Math.floor(n)),
  round: method([0, 1], (n, [digits]) => {
    if (digits === undefined || digits === null) return Math.sign(n) * Math.round(Math.abs(n));
    if (typeof digits !== "number" || digits < 0 || digits > MAX_DIGITS) return error("round() takes a number of digits from 0 to 100");
    return roundTo(n, Math.trunc(digits));
  }),
  toFixed: method([1, 1], (n, [digits]) => {
    if (typeof digits !== "number" || digits < 0 || digits > MAX_DIGITS) return error("toFixed() takes a number of digits from 0 to 100");
    return n.toFixed(Math.trunc(digits));
  }),
  isEmpty: method([0, 0], () => false),
};
