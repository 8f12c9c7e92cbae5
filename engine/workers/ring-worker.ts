// A search thread fed by the shared-memory ring (engine/ring-protocol.ts). It sleeps on the request counter, serves every requested slot, and wakes the
// engine through the response counter. A failure is written into the slot, never thrown: the thread
// keeps serving.
import { parentPort, workerData } from 'node:worker_threads';
import { toWire } from '../../common/worker-errors.js';
import {
  CTL_REQUESTS,
  CTL_RESPONSES,
  CTL_STOP,
  lengthsIndex,
  type RingMemory,
  requestAt,
  resultAt,
  SLOT_DONE,
  SLOT_FAILED,
  SLOT_OVERFLOW,
  SLOT_REQUESTED,
  stateIndex,
} from '../ring-protocol.js';
import { runTask, type SearchContext } from '../run-task.js';
import { resultBuffer, taskFromBuffer } from '../task.js';
import { searchContexts } from './search-contexts.js';
import type { SearchWorkerData } from './worker-data.js';

export interface RingWorkerData extends SearchWorkerData {
  ring: RingMemory;
}

const data = workerData as RingWorkerData;
const { shape } = data.ring;
const ctl = new Int32Array(data.ring.ctl);
const u8 = new Uint8Array(data.ring.data);
const i32 = new Int32Array(data.ring.data);
let contexts: SearchContext[] | null = null;

function writeFailure(slot: number, e: unknown): void {
  const wire = toWire(e);
  const plain = wire instanceof Error ? { message: wire.message, stack: wire.stack ?? null } : wire;
  const bytes = new TextEncoder().encode(JSON.stringify(plain)).subarray(0, shape.resultBytes);
  u8.set(bytes, resultAt(shape, slot));
  i32[lengthsIndex(shape, slot) + 1] = bytes.byteLength;
  Atomics.store(ctl, stateIndex(slot), SLOT_FAILED);
}

function serve(slot: number): void {
  try {
    contexts ??= searchContexts(data);
    // Read in place: the slot is this thread's until it marks it done.
    const task = taskFromBuffer(data.ring.data, requestAt(shape, slot));
    const result = resultBuffer(runTask(contexts[task.collection]!, task));
    if (result.byteLength > shape.resultBytes) {
      // Too large for the slot (a k in the thousands): the port carries it, the slot says so.
      parentPort!.postMessage({ slot, result }, [result]);
      Atomics.store(ctl, stateIndex(slot), SLOT_OVERFLOW);
    } else {
      u8.set(new Uint8Array(result), resultAt(shape, slot));
      i32[lengthsIndex(shape, slot) + 1] = result.byteLength;
      Atomics.store(ctl, stateIndex(slot), SLOT_DONE);
    }
  } catch (e) {
    writeFailure(slot, e);
  }
  Atomics.add(ctl, CTL_RESPONSES, 1);
  Atomics.notify(ctl, CTL_RESPONSES);
}

let seen = 0;
for (;;) {
  Atomics.wait(ctl, CTL_REQUESTS, seen);
  if (Atomics.load(ctl, CTL_STOP) !== 0) break;
  // Read the counter before scanning: a request posted during the scan changes it, so the next wait
  // returns at once and the slot is served then.
  seen = Atomics.load(ctl, CTL_REQUESTS);
  for (let s = 0; s < shape.slots; s++) if (Atomics.load(ctl, stateIndex(s)) === SLOT_REQUESTED) serve(s);
}
// Stopping (the engine closes, or a compaction replaced these threads): the searchers give back
// their query slots and traversal lanes, which live in the indexes' shared memory, not this thread's.
for (const c of (contexts as SearchContext[] | null) ?? []) {
  c.searcher.close();
  c.ndp?.close();
}
