// A snapshot's file, off the event loop: the entries the engine took (small ones as bytes, the log's
// durable prefix and the base's files as descriptors it opened then) read, encoded and written
// durably (storage/snapshot.ts). Read through descriptors, they are what they were when taken, even
// if a compaction has since removed the base or cut the log. It posts the description, or throws
// (common/run-worker.ts).
import { createHash } from 'node:crypto';
import { readSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { StrataError } from '../../common/errors.js';
import { toWire } from '../../common/worker-errors.js';
import { writeSnapshot } from '../../storage/snapshot.js';

/** An entry's bytes, or an open file's first `length` bytes (with `sha256`, checked against it). */
export type SnapshotSource = { bytes: Uint8Array } | { fd: number; length: number; file: string; sha256?: string };

export interface SnapshotJob {
  dir: string;
  lsn: bigint;
  entries: Array<[string, SnapshotSource]>;
}

function bytesOf(s: SnapshotSource): Uint8Array {
  if ('bytes' in s) return s.bytes;
  const out = Buffer.allocUnsafe(s.length);
  for (let done = 0; done < s.length; ) {
    const r = readSync(s.fd, out, done, s.length - done, done);
    if (r === 0) throw new StrataError('STRATA_INDEX_CORRUPT', `${s.file}: shorter than the ${s.length} bytes it held`, { file: s.file });
    done += r;
  }
  if (s.sha256 !== undefined && createHash('sha256').update(out).digest('hex') !== s.sha256)
    throw new StrataError('STRATA_INDEX_CORRUPT', `${s.file}: checksum mismatch`, { file: s.file });
  return out;
}

const job = workerData as SnapshotJob;
try {
  const entries = job.entries.map(([name, s]): [string, Uint8Array] => [name, bytesOf(s)]);
  parentPort!.postMessage(writeSnapshot(job.dir, job.lsn, entries));
} catch (e) {
  throw toWire(e);
}
