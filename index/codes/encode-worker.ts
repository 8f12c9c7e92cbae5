// A worker thread of encode-rows.ts: its chunks of a code's rows, written into shared memory.
import { workerData } from 'node:worker_threads';
import { type EncodeJob, runEncodeJob } from './encode-rows.js';

runEncodeJob(workerData as EncodeJob);
