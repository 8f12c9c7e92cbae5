// Work written as a generator that yields between its steps, run either over turns of the event loop
// (other requests, timers and health probes run at each yield) or to its end in one turn. A sparse
// search's postings and a page of points are read this way.
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Bytes a step reads, hashes or copies between two yields: a few milliseconds of a thread's time. */
export const STEP_BYTES = 2 << 20;

/** Milliseconds a step of items of uneven cost (payloads of any size) takes before it yields. */
export const STEP_MS = 10;

/** Whether a step begun at `since` (performance.now()) has had its time (STEP_MS). */
export function stepSpent(since: number): boolean {
  return performance.now() - since >= STEP_MS;
}

/**
 * Runs `steps`, giving the event loop a turn at each yield; null as soon as `moved()` says, after a
 * turn, that what it reads has changed (the caller asks again). `signal` ends it between turns with
 * its reason. Ended early, the generator is closed, so that its own `finally` runs.
 */
export async function stepsInTurns<T>(steps: Generator<void, T, void>, moved: () => boolean, signal?: AbortSignal): Promise<T | null> {
  let done = false;
  try {
    for (let r = steps.next(); ; r = steps.next()) {
      if (r.done === true) {
        done = true;
        return r.value;
      }
      await nextTurn();
      signal?.throwIfAborted();
      if (moved()) return null;
    }
  } finally {
    // The value given to return() is dropped: only the generator's cleanup matters here.
    if (!done) steps.return(undefined as never);
  }
}

/** Runs `steps` to its end without yielding to the event loop. */
export function stepsInOneTurn<T>(steps: Generator<void, T, void>): T {
  let r = steps.next();
  while (r.done !== true) r = steps.next();
  return r.value;
}
