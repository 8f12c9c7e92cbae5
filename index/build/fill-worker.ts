// A worker thread of the parallel slot fill (fill-free-slots.ts): its share of the nodes, scored
// over the vectors every thread shares, written into the shared lists.
import { parentPort, workerData } from 'node:worker_threads';
import { toWire } from '../../common/worker-errors.js';
import { RowScorer } from '../kernels/row-scorer.js';
import { type FillWorkerInput, fillPart, fillPick } from './fill-free-slots.js';

const input = workerData as FillWorkerInput;
try {
  const { shared, part } = input;
  parentPort!.postMessage(fillPart(part, new RowScorer({ shared, thread: part.thread }, shared.dim, fillPick(part.maxM0))));
} catch (e) {
  throw toWire(e);
}
