// A snapshot's collection unpacked off the event loop (storage/snapshot-unpack.ts): checking,
// decoding and writing a collection's bytes would hold it for seconds. It posts the config, or
// throws (common/run-worker.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { toWire } from '../../common/worker-errors.js';
import { unpackSnapshot } from '../../storage/snapshot-unpack.js';

export interface RestoreJob {
  bytes: Uint8Array;
  source: string;
  dir: string;
  name: string;
  checksum?: string;
}

const job = workerData as RestoreJob;
try {
  parentPort!.postMessage(unpackSnapshot(job.bytes, job.source, job.dir, job.name, job.checksum));
} catch (e) {
  throw toWire(e);
}
