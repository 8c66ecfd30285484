/** Progress of a long operation: `done` of `total` units (files indexed, chunks embedded). */
export type ProgressFn = (done: number, total: number) => void;
