// Snapshots of writable collections: taken (config, the log's durable prefix and, with a base, the
// base's files, its cut and the live state it does not hold), listed, read, deleted, and restored as
// a collection created over the API. They live beside the collections' directories, not inside.
import { randomBytes } from 'node:crypto';
import { closeSync, fstatSync, openSync, readdirSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { quoted, readOnly } from '../common/errors.js';
import { DEFAULT_BUILD } from '../index/build/build-index.js';
import { type CollectionConfig, collectionDir, configSettings, removeCollectionDir, RESTORING_DIR } from '../storage/collection-dir.js';
import { namedBaseDir, readCompactedHead } from '../storage/compacted.js';
import { emptyLiveState, encodeLiveState } from '../storage/live-store.js';
import { deleteSnapshot, listSnapshots, type SnapshotDescription, snapshotFile } from '../storage/snapshot.js';
import { runWorker } from '../common/run-worker.js';
import { workerFile } from './executor.js';
import type { SnapshotJob, SnapshotSource } from './workers/snapshot-worker.js';
import type { RestoreJob } from './workers/restore-worker.js';
import { renameDurably } from '../common/durable-fs.js';
import { checkCollectionName } from './collection-name.js';
import type { Collection } from './collection.js';

/** What snapshots need of the engine. */
export interface SnapshotHost {
  /** The data directory, or null (no writable collections). */
  readonly dataDir: string | null;
  collection(name: string): Collection;
  /** The collection of that name, or undefined (no error). */
  find(name: string): Collection | undefined;
  deleteCollection(name: string): Promise<boolean>;
  /** Serves the created collection in `dir` (DataDir.attach). */
  attach(dir: string, cfg: CollectionConfig): Promise<Collection>;
  /** Replaces the search threads by threads over every collection's current base. */
  swapThreads(): void;
}

export class Snapshots {
  constructor(private readonly host: SnapshotHost) {}

  /** Where a collection's snapshots live: beside, not inside, its directory (they outlive it). */
  private dirOf(dataDir: string, name: string): string {
    return join(dataDir, 'snapshots', basename(collectionDir(dataDir, name)));
  }

  /** A writable collection's snapshot directory, or STRATA_READ_ONLY naming why snapshots do not apply. */
  private writable(name: string): { c: Collection; dataDir: string; dir: string } {
    const c = this.host.collection(name);
    const dataDir = this.host.dataDir;
    if (dataDir === null || c.live === null)
      throw readOnly(`collection ${quoted(name)}`, 'no-data-dir', 'snapshots are of writable collections', { allow: 'GET' });
    return { c, dataDir, dir: this.dirOf(dataDir, name) };
  }

  /**
   * A snapshot of a writable collection: its config and every acknowledged write (the log's durable
   * prefix) and, when it has a base index (built, or compacted), the base's files with the cut the
   * log is replayed from and the live state the base does not hold. Taken in one synchronous step
   * (the files opened then, so that no compaction's swap or log cut changes them), and written on
   * a worker thread (workers/snapshot-worker.ts): reading, hashing and writing a collection's bytes
   * would hold the event loop for seconds.
   */
  async create(name: string): Promise<SnapshotDescription> {
    const opened: number[] = [];
    try {
      return await runWorker<SnapshotDescription>(workerFile('snapshot-worker.js'), this.take(name, opened), 'snapshot');
    } finally {
      for (const fd of opened) closeSync(fd);
    }
  }

  /** What create writes, taken now: small entries as bytes, the rest as files opened (their descriptors also go in `opened`). */
  private take(name: string, opened: number[]): SnapshotJob {
    const { c, dataDir, dir } = this.writable(name);
    const open = (file: string, sha256?: string): SnapshotSource => {
      const fd = openSync(file, 'r');
      opened.push(fd);
      return { fd, length: fstatSync(fd).size, file, ...(sha256 !== undefined ? { sha256 } : {}) };
    };
    const live = c.live!;
    const m = c.base?.manifest;
    const cfg: CollectionConfig = {
      name,
      dim: c.dim,
      metric: c.metric,
      m: c.shape?.m ?? m?.build.m ?? DEFAULT_BUILD.m,
      efConstruction: c.shape?.efConstruction ?? m?.build.efConstruction ?? DEFAULT_BUILD.efConstruction,
      ...configSettings(c.shape ?? {}),
    };
    const log = live.openLogPrefix();
    opened.push(log.fd);
    const entries: Array<[string, SnapshotSource]> = [
      ['collection.json', { bytes: Buffer.from(JSON.stringify(cfg)) }],
      ['wal.log', log],
    ];
    const base = c.base;
    if (base !== null) {
      // The base is the compacted one (its cut and saved state) or the directory it was built in
      // (cut 0: the whole log applies on top of it).
      // Its saved state goes as its file, checked on the worker: decoding it here would cost a pass
      // over every payload on the event loop.
      const compacted = readCompactedHead(collectionDir(dataDir, name));
      const mine = compacted !== null && compacted.baseDir === base.dir ? compacted : null;
      entries.push(['base.json', { bytes: Buffer.from(JSON.stringify({ cutLsn: String(mine?.cutLsn ?? 0n) })) }]);
      entries.push(['base-state.msgpack', mine !== null ? open(mine.stateFile, mine.stateSha256) : { bytes: encodeLiveState(emptyLiveState()) }]);
      for (const f of readdirSync(base.dir).sort()) entries.push([`base/${f}`, open(join(base.dir, f))]);
      // The secondary vectors' bases beside it, each under its directory's name with the base's own as `base`.
      for (const [name, col] of live.secondary) {
        const named = col.tiered;
        if (named === null) continue;
        const at = `base${namedBaseDir('', name)}`;
        for (const f of readdirSync(named.dir).sort()) entries.push([`${at}/${f}`, open(join(named.dir, f))]);
      }
    }
    return { dir, lsn: live.appliedLsn, entries };
  }

  list(name: string): SnapshotDescription[] {
    return listSnapshots(this.writable(name).dir);
  }

  file(name: string, snapshot: string): string {
    return snapshotFile(this.writable(name).dir, snapshot);
  }

  delete(name: string, snapshot: string): void {
    deleteSnapshot(this.writable(name).dir, snapshot);
  }

  /**
   * Restores a snapshot (its bytes) as collection `name`, replacing a collection of that name
   * created over the API: its log is written and replayed, so the collection answers as the
   * snapshot's source did when it was taken. It is checked and written into a directory of its own
   * on a worker thread (workers/restore-worker.ts), which then takes the collection's place; a
   * damaged snapshot changes nothing. With `checksum`, the file's SHA-256 must be it. `bytes` move to
   * that thread when they own their memory (a snapshot may be gigabytes): the caller's copy is then
   * empty.
   */
  async recover(name: string, bytes: Buffer, source: string, checksum?: string): Promise<Collection> {
    checkCollectionName(name, 'collection_name');
    const dataDir = this.host.dataDir;
    if (dataDir === null) throw readOnly('this server', 'no-data-dir', 'start it with --data-dir', { allow: 'GET' });
    const refuseBuilt = (): void => {
      if (this.host.find(name)?.fromIndexDir) throw readOnly(`collection ${quoted(name)}`, 'index-dir', 'restore under another name', { allow: 'GET' });
    };
    refuseBuilt();
    const staging = join(dataDir, RESTORING_DIR, randomBytes(8).toString('hex'));
    try {
      const job: RestoreJob = { bytes, source, dir: staging, name, ...(checksum !== undefined ? { checksum } : {}) };
      // The bytes move to the worker rather than being copied, when they own their memory.
      const owned = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer;
      const cfg = await runWorker<CollectionConfig>(workerFile('restore-worker.js'), job, 'snapshot restore', owned ? [bytes.buffer] : []);
      refuseBuilt();
      if (this.host.find(name)) await this.host.deleteCollection(name);
      const dir = collectionDir(dataDir, name);
      removeCollectionDir(dir);
      renameDurably(staging, dir);
      const c = await this.host.attach(dir, cfg);
      // A restored base joins the search threads.
      if (c.index !== null) this.host.swapThreads();
      return c;
    } finally {
      rmSync(staging, { recursive: true, force: true });
    }
  }
}
