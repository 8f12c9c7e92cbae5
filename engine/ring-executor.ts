// Search threads fed through shared-memory rings (ring-protocol.ts), one ring per thread: how tasks
// reach the engine's search threads. Each thread runs runTask and keeps the inline executor's error
// contract (a StrataError thrown in the thread reaches the caller whole, anything else as
// STRATA_WORKER_FAILED).
import { Worker } from 'node:worker_threads';
import { StrataError } from '../common/errors.js';
import { waitAsync } from '../common/wait-async.js';
import { fromWorker } from '../common/worker-errors.js';
import type { Executor } from './executor.js';
import { workerFile } from './executor.js';
import {
  allocateRing,
  CTL_REQUESTS,
  CTL_RESPONSES,
  CTL_STOP,
  lengthsIndex,
  type RingMemory,
  type RingShape,
  requestAt,
  resultAt,
  SLOT_DONE,
  SLOT_FAILED,
  SLOT_FREE,
  SLOT_REQUESTED,
  stateIndex,
} from './ring-protocol.js';
import { type QueryTask, resultFromBuffer, type TaskResult, taskBuffer } from './task.js';
import type { RingWorkerData } from './workers/ring-worker.js';
import type { SearchWorkerData } from './workers/worker-data.js';

interface Waiting {
  task: QueryTask;
  resolve: (r: TaskResult) => void;
  reject: (e: Error) => void;
}

/** One search thread and its ring. */
class Ring {
  readonly ctl: Int32Array;
  readonly u8: Uint8Array;
  readonly i32: Int32Array;
  readonly pending: Array<Waiting | null>;
  inFlight = 0;
  private responsesSeen = 0;
  private armed = false;
  exited = false;
  /** Set before the engine stops the thread: what its tasks in flight fail with. */
  stopping: StrataError | null = null;

  constructor(
    readonly worker: Worker,
    readonly mem: RingMemory,
    private readonly onSettled: () => void,
  ) {
    this.ctl = new Int32Array(mem.ctl);
    this.u8 = new Uint8Array(mem.data);
    this.i32 = new Int32Array(mem.data);
    this.pending = new Array<Waiting | null>(mem.shape.slots).fill(null);
    worker.on('error', (e) => this.fail(fromWorker(e, 'search thread')));
    // Results too large for their slot arrive here (SLOT_OVERFLOW), in the order the thread sent them.
    worker.on('message', (m: { slot: number; result: ArrayBuffer }) => this.settle(m.slot, resultFromBuffer(m.result)));
    worker.on('exit', (code) => {
      this.exited = true;
      this.fail(this.stopping ?? new StrataError('STRATA_WORKER_FAILED', `search thread failed: it exited (code ${code})`, {}));
    });
  }

  get shape(): RingShape {
    return this.mem.shape;
  }

  freeSlot(): number {
    return this.exited ? -1 : this.pending.indexOf(null);
  }

  post(slot: number, w: Waiting): void {
    const bytes = new Uint8Array(taskBuffer(w.task));
    if (bytes.byteLength > this.shape.requestBytes) {
      w.reject(new StrataError('STRATA_INTERNAL', `a task of ${bytes.byteLength} bytes does not fit the ring's ${this.shape.requestBytes}`, {}));
      return;
    }
    this.u8.set(bytes, requestAt(this.shape, slot));
    this.pending[slot] = w;
    this.inFlight++;
    Atomics.store(this.ctl, stateIndex(slot), SLOT_REQUESTED);
    Atomics.add(this.ctl, CTL_REQUESTS, 1);
    Atomics.notify(this.ctl, CTL_REQUESTS);
    this.arm();
  }

  /** Waits (without blocking the event loop) for the thread's next responses. */
  private arm(): void {
    if (this.armed || this.inFlight === 0) return;
    this.armed = true;
    const r = waitAsync(this.ctl, CTL_RESPONSES, this.responsesSeen);
    if (r.async) void r.value.then(() => this.collect());
    else queueMicrotask(() => this.collect());
  }

  private collect(): void {
    this.armed = false;
    // Read the counter before scanning (as the thread does with requests).
    this.responsesSeen = Atomics.load(this.ctl, CTL_RESPONSES);
    const shape = this.shape;
    for (let s = 0; s < shape.slots; s++) {
      const w = this.pending[s];
      if (!w) continue;
      const state = Atomics.load(this.ctl, stateIndex(s));
      if (state !== SLOT_DONE && state !== SLOT_FAILED) continue;
      const len = this.i32[lengthsIndex(shape, s) + 1]!;
      const at = resultAt(shape, s);
      // Copied out, so that the slot is free again at once.
      const out = this.u8.slice(at, at + len);
      if (state === SLOT_DONE) this.settle(s, resultFromBuffer(out.buffer));
      else this.settle(s, fromWorker(decodeFailure(out), 'search thread'));
    }
    this.onSettled();
    this.arm();
  }

  /** Frees slot s and answers its task (an overflowed result settles here from the port). */
  private settle(s: number, outcome: TaskResult | StrataError): void {
    const w = this.pending[s];
    if (!w) return;
    this.pending[s] = null;
    this.inFlight--;
    Atomics.store(this.ctl, stateIndex(s), SLOT_FREE);
    if (outcome instanceof StrataError) w.reject(outcome);
    else w.resolve(outcome);
    this.onSettled();
  }

  /** Fails every task in flight (the thread died or was terminated). */
  fail(e: Error): void {
    for (let s = 0; s < this.pending.length; s++) {
      const w = this.pending[s];
      if (!w) continue;
      this.pending[s] = null;
      this.inFlight--;
      w.reject(e);
    }
    this.onSettled();
  }
}

/** The error a thread wrote: a WireError (rebuilt as the StrataError) or an Error's message. */
function decodeFailure(bytes: Uint8Array): unknown {
  try {
    const v = JSON.parse(new TextDecoder().decode(bytes)) as unknown;
    if (typeof v === 'object' && v !== null && 'strataWireError' in v) return v;
    const m = v as { message?: unknown; stack?: unknown };
    const e = new Error(typeof m.message === 'string' ? m.message : 'unknown failure');
    if (typeof m.stack === 'string') e.stack = m.stack;
    return e;
  } catch {
    return new Error('an undecodable failure');
  }
}

export class RingExecutor implements Executor {
  private readonly rings: Ring[];
  private readonly waiting: Waiting[] = [];
  private busy = 0;
  private closing: Promise<void> | null = null;

  constructor(
    readonly threads: number,
    data: SearchWorkerData,
    shape: RingShape,
  ) {
    this.rings = Array.from({ length: threads }, () => {
      const mem = allocateRing(shape);
      const workerData: RingWorkerData = { ...data, ring: mem };
      return new Ring(new Worker(workerFile('ring-worker.js'), { workerData }), mem, () => this.dispatch());
    });
  }

  run(task: QueryTask): Promise<TaskResult> {
    if (this.closing) return Promise.reject(new StrataError('STRATA_SHUTTING_DOWN', 'search threads are stopping', {}));
    return new Promise<TaskResult>((resolve, reject) => {
      this.waiting.push({
        task,
        resolve: (r) => {
          this.busy += r.busyMs;
          resolve(r);
        },
        reject,
      });
      this.dispatch();
    });
  }

  /** Hands waiting tasks to the least busy threads with a free slot. */
  private dispatch(): void {
    while (this.waiting.length > 0) {
      let best: Ring | null = null;
      let slot = -1;
      for (const r of this.rings) {
        if (best !== null && r.inFlight >= best.inFlight) continue;
        const s = r.freeSlot();
        if (s >= 0) {
          best = r;
          slot = s;
        }
      }
      if (best === null) {
        if (this.rings.every((r) => r.exited))
          for (const w of this.waiting.splice(0)) w.reject(new StrataError('STRATA_WORKER_FAILED', 'search thread failed: every search thread has exited', {}));
        return;
      }
      best.post(slot, this.waiting.shift()!);
    }
  }

  busyMs(): number {
    return this.busy;
  }

  /** Lets the tasks in flight finish, then stops the threads. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      while (this.waiting.length > 0 || this.rings.some((r) => r.inFlight > 0)) await new Promise((resolve) => setTimeout(resolve, 1));
      await Promise.all(
        this.rings.map(async (r) => {
          if (r.exited) return;
          const exited = new Promise<void>((resolve) => r.worker.once('exit', () => resolve()));
          Atomics.store(r.ctl, CTL_STOP, 1);
          Atomics.add(r.ctl, CTL_REQUESTS, 1);
          Atomics.notify(r.ctl, CTL_REQUESTS);
          await exited;
        }),
      );
    })();
    return this.closing;
  }

  /** Terminates the threads now: tasks in flight fail. */
  async destroy(): Promise<void> {
    this.closing ??= Promise.resolve();
    const stopped = new StrataError('STRATA_SHUTTING_DOWN', 'search threads were stopped', {});
    for (const w of this.waiting.splice(0)) w.reject(stopped);
    for (const r of this.rings) r.stopping = stopped;
    await Promise.all(this.rings.map((r) => r.worker.terminate()));
    for (const r of this.rings) r.fail(stopped);
  }
}
