/**
 * The phase of each step of a graph run, one byte per step (a `Uint8Array`).
 * A leaf: the scheduler, attempts and links all read them.
 */

/** Not started: waiting for its dependencies or for a free slot. @internal */
export const PENDING = 0
/** Started: an attempt (or its fallback) is under way. @internal */
export const RUNNING = 1
/** Finished with a value (completed, skipped or fallback). @internal */
export const DONE = 2
/** Failed for good. @internal */
export const FAILED = 3
