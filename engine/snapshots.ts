// Snapshots of writable collections: taken (config, the log's durable prefix and, with a base, the
// base's files, its cut and the live state it does not hold), listed, read, deleted, and restored as
// a collection created over the API. They live beside the collections' directories, not inside.
import { closeSync, fstatSync, openSync, readdirSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { basename, join } from 'node:path';
import { invalidArgument, quoted, readOnly, StrataError } from '../common/errors.js';
import { DEFAULT_BUILD } from '../index/build/build-index.js';
import { type CollectionConfig, collectionDir, installCollection, removeCollectionDir } from '../storage/collection-dir.js';
import { baseDirName, namedBaseDir, readCompactedHead, writeCompacted } from '../storage/compacted.js';
import { decodeLiveState, emptyLiveState, encodeLiveState } from '../storage/live-store.js';
import { decodeSnapshot, deleteSnapshot, listSnapshots, type SnapshotDescription, snapshotFile } from '../storage/snapshot.js';
import { fromWorker } from '../common/worker-errors.js';
import { workerFile } from './executor.js';
import type { SnapshotJob, SnapshotSource } from './workers/snapshot-worker.js';
import { createDir, writeFileDurably } from '../common/durable-fs.js';
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
      const job = this.take(name, opened);
      return await writeOnWorker(job);
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
      ...settingsOf(c.shape ?? {}),
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
   * snapshot's source did when it was taken.
   */
  async recover(name: string, bytes: Buffer, source: string): Promise<Collection> {
    checkCollectionName(name, 'collection_name');
    const dataDir = this.host.dataDir;
    if (dataDir === null) throw readOnly('this server', 'no-data-dir', 'start it with --data-dir', { allow: 'GET' });
    const entries = decodeSnapshot(bytes, source);
    const cfgBytes = entries.get('collection.json');
    const wal = entries.get('wal.log');
    if (!cfgBytes || !wal) throw invalidArgument('location', `${source}: a snapshot needs collection.json and wal.log`);
    const src = JSON.parse(cfgBytes.toString('utf8')) as CollectionConfig;
    const existing = this.host.find(name);
    if (existing?.fromIndexDir) throw readOnly(`collection ${quoted(name)}`, 'index-dir', 'restore under another name', { allow: 'GET' });
    if (existing) await this.host.deleteCollection(name);
    const dir = collectionDir(dataDir, name);
    removeCollectionDir(dir);
    const cfg: CollectionConfig = { name, dim: src.dim, metric: src.metric, m: src.m, efConstruction: src.efConstruction, ...settingsOf(src) };
    const baseJson = entries.get('base.json');
    if (baseJson) {
      // The base's files first, then the state naming them, then the log and (last) the config:
      // a crash midway leaves a directory that is not a collection.
      const { cutLsn } = JSON.parse(baseJson.toString('utf8')) as { cutLsn: string };
      if (!/^\d+$/.test(cutLsn)) throw invalidArgument('location', `${source}: base.json has no valid cutLsn`);
      const baseName = baseDirName(BigInt(cutLsn));
      createDir(join(dir, baseName), dir);
      for (const [entry, data] of entries) {
        const m = /^base(\.vector-(?:[0-9a-f]{2})+)?\/(.*)$/.exec(entry);
        if (m === null) continue;
        const file = m[2]!;
        if (!/^[a-z0-9][a-z0-9.-]*$/.test(file)) throw invalidArgument('location', `${source}: base file ${JSON.stringify(file)} is not a plain file name`);
        const into = join(dir, `${baseName}${m[1] ?? ''}`);
        if (m[1] !== undefined) createDir(into, dir);
        writeFileDurably(join(into, file), data);
      }
      const state = entries.get('base-state.msgpack');
      writeCompacted(dir, baseName, BigInt(cutLsn), state ? decodeLiveState(state) : emptyLiveState());
    }
    installCollection(dir, cfg, wal);
    const c = await this.host.attach(dir, cfg);
    // A restored base joins the search threads.
    if (c.index !== null) this.host.swapThreads();
    return c;
  }
}

/** The settings a collection's config holds beyond its shape and build, as a snapshot carries them. */
function settingsOf(
  s: Pick<CollectionConfig, 'indexingThresholdKb' | 'codes' | 'vectorName' | 'payloadM' | 'sparse' | 'secondary'>,
): Partial<CollectionConfig> {
  return {
    ...(s.payloadM !== undefined ? { payloadM: s.payloadM } : {}),
    ...(s.indexingThresholdKb !== undefined ? { indexingThresholdKb: s.indexingThresholdKb } : {}),
    ...(s.codes !== undefined ? { codes: s.codes } : {}),
    ...(s.vectorName !== undefined ? { vectorName: s.vectorName } : {}),
    ...(s.sparse !== undefined ? { sparse: s.sparse } : {}),
    ...(s.secondary !== undefined ? { secondary: s.secondary } : {}),
  };
}

/** Writes a snapshot on a worker thread of its own; resolves with its description. */
function writeOnWorker(job: SnapshotJob): Promise<SnapshotDescription> {
  return new Promise((resolve, reject) => {
    const w = new Worker(workerFile('snapshot-worker.js'), { workerData: job });
    let answered = false;
    w.on('message', (r: { ok: boolean; description?: SnapshotDescription; error?: unknown }) => {
      answered = true;
      if (r.ok) resolve(r.description!);
      else reject(fromWorker(r.error, 'snapshot'));
    });
    w.on('error', (e) => reject(fromWorker(e, 'snapshot')));
    w.on('exit', (code) => {
      if (!answered) reject(new StrataError('STRATA_WORKER_FAILED', `snapshot thread exited (code ${code}) without an answer`, {}));
    });
  });
}
