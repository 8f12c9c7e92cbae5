// Encoding a code's rows in the index's node order, on one thread or several. The rows are cut in
// chunks that go round the threads; every thread encodes its chunks straight into the rows' shared
// memory, so the result is the same on any number of threads. The call stays synchronous: the
// calling thread encodes its share, then waits on a shared counter for the workers' (encode-worker.ts).
import { Worker } from 'node:worker_threads';
import { StrataError } from '../../common/errors.js';
import { distWorker } from '../../common/run-worker.js';
import type { Codec, CodeSpec } from './codec.js';
import { createCodec } from './index.js';

/** Rows per chunk: a gather buffer's worth. */
const CHUNK = 4096;
/** Fewer rows than this are encoded on the calling thread: starting a worker costs more. */
export const PARALLEL_ENCODE_FROM = 32_768;
/** A worker that encodes no chunk for this long is taken for dead. */
const STALL_MS = 120_000;

/** Where the rows go: `count` rows of `spec.stride` bytes from byte `at` of `memory`'s buffer. */
export interface RowsTarget {
  buffer: ArrayBufferLike;
  at: number;
}

/** What to encode: `count` rows, node start + i from the vector of row order[start + i], into target. */
export interface EncodeInput {
  vectors: Float32Array;
  dim: number;
  order: Uint32Array;
  start: number;
  count: number;
  target: RowsTarget;
}

/** Encodes this thread's chunks of the input. */
export function encodePart(codec: Codec, input: EncodeInput, thread: number, threads: number, progress?: Int32Array): void {
  const { vectors, dim, order, start, count, target } = input;
  const stride = codec.spec.stride;
  const rows = new Uint8Array(target.buffer, target.at, count * stride);
  const buf = new Float32Array(CHUNK * dim);
  for (let from = thread * CHUNK; from < count; from += threads * CHUNK) {
    const c = Math.min(CHUNK, count - from);
    for (let r = 0; r < c; r++) {
      const old = order[start + from + r]!;
      buf.set(vectors.subarray(old * dim, old * dim + dim), r * dim);
    }
    codec.encode(buf, 0, c, rows.subarray(from * stride, (from + c) * stride));
    if (progress) Atomics.add(progress, 1, 1);
  }
}

/** What an encode worker receives. */
export interface EncodeJob {
  spec: CodeSpec;
  params: Float32Array;
  input: EncodeInput;
  thread: number;
  threads: number;
  /** [workers finished, chunks encoded, workers failed]. */
  state: Int32Array;
}

const shared = (b: ArrayBufferLike): boolean => b instanceof SharedArrayBuffer;

/** Encodes the input on up to `threads` threads when its rows are many and its arrays in shared memory. */
export function encodeRows(codec: Codec, input: EncodeInput, threads = 1): void {
  const t = Math.max(1, Math.min(threads, Math.ceil(input.count / CHUNK)));
  if (t === 1 || input.count < PARALLEL_ENCODE_FROM || !shared(input.vectors.buffer) || !shared(input.target.buffer)) {
    encodePart(codec, input, 0, 1);
    return;
  }
  const state = new Int32Array(new SharedArrayBuffer(12));
  const order = new Uint32Array(new SharedArrayBuffer(input.order.byteLength));
  order.set(input.order);
  const sharedInput = { ...input, order };
  const params = new Float32Array(codec.params);
  const file = distWorker('index', 'codes', 'encode-worker.js');
  for (let thread = 1; thread < t; thread++) {
    const job: EncodeJob = { spec: codec.spec, params, input: sharedInput, thread, threads: t, state };
    new Worker(file, { workerData: job }).unref();
  }
  encodePart(codec, sharedInput, 0, t, state);
  // Wait for the workers; one that stops making progress (or never started) fails the call.
  let seen = Atomics.load(state, 1);
  let still = 0;
  while (Atomics.load(state, 0) < t - 1) {
    Atomics.wait(state, 0, Atomics.load(state, 0), 1000);
    const now = Atomics.load(state, 1);
    still = now === seen ? still + 1000 : 0;
    seen = now;
    if (still >= STALL_MS) throw new StrataError('STRATA_WORKER_FAILED', `an encode worker made no progress for ${STALL_MS / 1000} s`);
  }
  if (Atomics.load(state, 2) > 0) throw new StrataError('STRATA_WORKER_FAILED', `${Atomics.load(state, 2)} encode worker(s) failed`);
}

/** The worker's side: its chunks, then the count of finished workers raised and the caller woken. */
export function runEncodeJob(job: EncodeJob): void {
  try {
    const codec = createCodec(job.spec, job.params);
    encodePart(codec, job.input, job.thread, job.threads, job.state);
  } catch (e) {
    // The caller is blocked on the counter: it reports the failure, this says why.
    process.stderr.write(`encode worker ${job.thread}: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    Atomics.add(job.state, 2, 1);
  } finally {
    Atomics.add(job.state, 0, 1);
    Atomics.notify(job.state, 0);
  }
}
