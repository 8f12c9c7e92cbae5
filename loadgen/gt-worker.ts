// Worker thread of the ground-truth computation: exact k nearest neighbours of a slice of the
// queries by brute force (float64), over a base shared with the other workers (no copy per thread).
import { parentPort, workerData } from 'node:worker_threads';
import { toWire } from '../common/worker-errors.js';
import { bruteForceKnn, type Metric } from '../datasets/index.js';

export interface GtWorkerInput {
  base: SharedArrayBuffer;
  queries: Float32Array;
  dim: number;
  k: number;
  metric: Metric;
}

export interface GtWorkerOutput {
  k: number;
  ids: Int32Array;
  distances: Float32Array;
}

const input = workerData as GtWorkerInput;
try {
  const r = bruteForceKnn(new Float32Array(input.base), input.queries, input.dim, input.k, input.metric);
  const out: GtWorkerOutput = { k: r.k, ids: r.ids, distances: r.distances };
  // bruteForceKnn allocates plain (non-shared) arrays: their buffers move to the parent without a copy.
  parentPort!.postMessage(out, [r.ids.buffer as ArrayBuffer, r.distances.buffer as ArrayBuffer]);
} catch (e) {
  // uncaught, it reaches the parent's 'error' listener; as a WireError a StrataError keeps its class
  throw toWire(e);
}
