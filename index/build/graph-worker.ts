// A worker thread of the parallel graph build (parallel-graph.ts): its part of every batch.
import { parentPort, workerData } from 'node:worker_threads';
import { toWire } from '../../common/worker-errors.js';
import { RowScorer } from '../kernels/row-scorer.js';
import { Inserter } from './hnsw-insert.js';
import { type GraphWorkerInput, graphPick } from './parallel-graph.js';

const input = workerData as GraphWorkerInput;
try {
  const { graph, shared, thread, js } = input;
  new Inserter(graph, new RowScorer({ shared, thread }, shared.dim, graphPick(graph.maxM0)), shared, thread, js).run();
  parentPort!.postMessage({ done: true });
} catch (e) {
  throw toWire(e);
}
