// The shared-memory ring between the engine and one search thread (ring-executor.ts, and its worker
// workers/ring-worker.ts). Posting a task through piscina cost a structured clone, a message-port
// event and piscina's bookkeeping each way; here a task is bytes written into a slot, a counter and
// one futex wake, and the answer comes back the same way (Atomics.waitAsync on the engine's side).
//
// Control block (i32): requests posted, responses written, stop flag, then one state per slot.
// Each slot: 4 bytes spare, result length (i32), 8 bytes spare, the request area (a task as
// engine/task.ts lays it out, read in place), the result area. Sizes are fixed when the ring is
// made: the largest task (batch × dim), and results of up to `hitsPerQuery` hits per query; a larger
// result (k up to MAX_K) travels as a message on the worker's port instead (SLOT_OVERFLOW), so that
// slots stay small whatever k a request may ask.
import { STAT_FIELDS } from '../index/search/stats.js';
import { taskBytes } from './task.js';

export const CTL_REQUESTS = 0;
export const CTL_RESPONSES = 1;
export const CTL_STOP = 2;
const CTL_SLOTS = 4;

export const SLOT_FREE = 0;
export const SLOT_REQUESTED = 1;
export const SLOT_DONE = 2;
/** The result area holds a JSON error (a WireError, or {message, stack}). */
export const SLOT_FAILED = 3;
/** The result did not fit the result area: it comes as a message on the worker's port instead. */
export const SLOT_OVERFLOW = 4;

const SLOT_HEAD = 16;
const align8 = (x: number): number => Math.ceil(x / 8) * 8;

export interface RingShape {
  slots: number;
  requestBytes: number;
  resultBytes: number;
}

/** Hits per query a slot's result area holds; larger results overflow to a message. */
export const RING_HITS_PER_QUERY = 1024;

/** The shape that holds any task of at most `batch` queries of at most `dim` dimensions, and results of up to `hitsPerQuery` hits per query in place. */
export function ringShape(slots: number, batch: number, dim: number, hitsPerQuery: number): RingShape {
  const requestBytes = taskBytes(batch, dim) + 8;
  // Result: 24-byte header, f64 label + f32 distance per hit, the stats.
  const resultBytes = 24 + 12 * batch * hitsPerQuery + 8 * batch * STAT_FIELDS + 8;
  return { slots, requestBytes: align8(requestBytes), resultBytes: align8(resultBytes) };
}

export function slotStride(s: RingShape): number {
  return SLOT_HEAD + s.requestBytes + s.resultBytes;
}

export const stateIndex = (slot: number): number => CTL_SLOTS + slot;
export const requestAt = (s: RingShape, slot: number): number => slot * slotStride(s) + SLOT_HEAD;
export const resultAt = (s: RingShape, slot: number): number => requestAt(s, slot) + s.requestBytes;
/** i32 index (into the data as Int32Array) of a slot's header; its result length is the next word. */
export const lengthsIndex = (s: RingShape, slot: number): number => (slot * slotStride(s)) >>> 2;

export interface RingMemory {
  shape: RingShape;
  ctl: SharedArrayBuffer;
  data: SharedArrayBuffer;
}

export function allocateRing(shape: RingShape): RingMemory {
  return {
    shape,
    ctl: new SharedArrayBuffer(4 * (CTL_SLOTS + shape.slots)),
    data: new SharedArrayBuffer(shape.slots * slotStride(shape)),
  };
}
