import { readlinkSync } from "node:fs";
import { getPriority, setPriority } from "node:os";

/** The highest nice value: the lowest priority a thread can have. */
const NICEST = 19;

/**
 * Lowers the calling thread's CPU priority by `steps` nice levels, and returns whether it did.
 * On Linux a thread's nice value is its own, set through its thread id (/proc/thread-self names
 * it); elsewhere, or where the system refuses, nothing changes. Lowering needs no privilege, and a
 * thread can never raise itself back: use it only for threads that stay second for their life.
 */
export function lowerThreadPriority(steps: number): boolean {
  if (process.platform !== "linux" || steps <= 0) return false;
  try {
    const tid = Number(readlinkSync("/proc/thread-self").split("/").pop());
    if (!Number.isInteger(tid) || tid <= 0 || tid === process.pid) return false;
    setPriority(tid, Math.min(NICEST, getPriority(tid) + steps));
    return true;
  } catch {
    return false;
  }
}
