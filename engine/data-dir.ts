// The data directory: a live store for every collection served from an index directory, the
// collections created over the API (made, reopened, deleted), and the shared write log they follow.
import type { CollectionUpdate } from './types.js';
import type { ChunkMemory } from '../index/payload/chunk-memory.js';
import { quoted, StrataError } from '../common/errors.js';
import { DEFAULT_FRESH } from '../index/fresh/fresh-layer.js';
import type { OpenedIndex } from '../index/open-index.js';
import {
  type CollectionConfig,
  collectionDir,
  configSettings,
  createdCollectionDirs,
  RESTORING_DIR,
  readConfig,
  removeCollectionDir,
  writeConfig,
} from '../storage/collection-dir.js';
import { type Compacted, namedBaseDir } from '../storage/compacted.js';
import type { NamedBase } from '../index/named/named-base.js';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { LiveStore } from '../storage/live-store.js';
import { createDir } from '../common/durable-fs.js';
import type { Collection, LiveShape } from './collection.js';
import { stepsInTurns } from '../common/turns.js';
import { recoverCompactedInTurns } from './compaction.js';
import { type WriteLogOptions, WriteLogService } from './replication/jetstream-log.js';

/** What the data directory needs of the engine. */
export interface DataDirHost {
  /** Every collection served, by name. */
  readonly registry: Map<string, Collection>;
  /** A collection over the engine's current threads (no base: created over the API, not compacted). */
  newCollection(opened: OpenedIndex | null, name: string, shape: LiveShape): Collection;
  /** Opens a base as the engine opens bases (slots and lanes for its threads), over turns of the event loop. */
  openBase(dir: string): Promise<OpenedIndex>;
  /** Opens a secondary vector's base, searched on the main thread (over turns, too). */
  openNamed(dir: string): Promise<NamedBase>;
  /** Replaces the search threads by threads over every collection's current base. */
  swapThreads(): void;
  /** Makes `c` writable through `store`, with the engine's write hook (the compaction trigger). */
  attachLive(c: Collection, store: LiveStore): void;
  /** Memory for a live store's payload values (engine/payload-memory.ts). */
  payloadMemory(): ChunkMemory;
}

export class DataDir {
  /** Names being created right now: a second create of the same name fails at once. */
  private readonly creating = new Set<string>();

  private constructor(
    readonly dir: string,
    private readonly host: DataDirHost,
    /** Set when the engine follows a shared write log (OpenEngineOptions.writeLog). */
    private readonly writeLog: WriteLogService | null,
  ) {}

  /**
   * Opens the data directory: a live store for every collection in the registry (`compacted`: what
   * their last compaction left, by name), and the collections created over the API.
   */
  static async open(dir: string, host: DataDirHost, writeLog: WriteLogOptions | undefined, compacted: ReadonlyMap<string, Compacted>): Promise<DataDir> {
    const d = new DataDir(dir, host, writeLog ? await WriteLogService.open(writeLog) : null);
    try {
      await d.load(compacted);
    } catch (e) {
      await d.close();
      throw e;
    }
    return d;
  }

  private async load(compacted: ReadonlyMap<string, Compacted>): Promise<void> {
    createDir(this.dir);
    // A snapshot restore a crash interrupted: never a collection until it was moved into place.
    rmSync(join(this.dir, RESTORING_DIR), { recursive: true, force: true });
    for (const c of this.host.registry.values()) {
      const dir = collectionDir(this.dir, c.name);
      const { store } = await LiveStore.open(
        dir,
        c.dim,
        c.metric,
        c.baseIds(),
        DEFAULT_FRESH,
        compacted.get(c.name) ?? null,
        c.basePayloads(),
        this.host.payloadMemory(),
      );
      this.host.attachLive(c, store);
      await this.follow(c.name, store);
    }
    let based = false;
    for (const dir of createdCollectionDirs(this.dir)) {
      const cfg = readConfig(dir);
      if (this.host.registry.has(cfg.name))
        throw new StrataError('STRATA_INVALID_ARGUMENT', `${dir}: collection ${quoted(cfg.name)} is also served from an index directory`, { field: 'dataDir' });
      based = (await this.attach(dir, cfg)).index !== null || based;
    }
    // Created collections compacted before: their bases join the search threads.
    if (based) this.host.swapThreads();
  }

  private follow(name: string, store: LiveStore, fromNow = false): Promise<void> {
    return this.writeLog ? store.follow(this.writeLog.logOf(name), fromNow) : Promise.resolve();
  }

  /**
   * Serves the created collection in `dir` (its base, if it was compacted, and its live store).
   * `created`: made just now (not reopened, not restored), so it follows its write log from the end.
   */
  async attach(dir: string, cfg: CollectionConfig, created = false): Promise<Collection> {
    const compacted = created ? null : await recoverCompactedInTurns(dir);
    const opened = compacted ? await this.host.openBase(compacted.baseDir) : null;
    const bases = new Map<string, NamedBase>();
    if (compacted)
      for (const name of Object.keys(cfg.secondary ?? {})) {
        const d = namedBaseDir(compacted.baseDir, name);
        if (existsSync(d)) bases.set(name, await this.host.openNamed(d));
      }
    const c = this.host.newCollection(opened, cfg.name, shapeOf(cfg));
    await stepsInTurns(c.warmLookupSteps(), () => false);
    const { store } = await LiveStore.open(
      dir,
      cfg.dim,
      cfg.metric,
      opened ? c.baseIds() : null,
      { m: cfg.m, efConstruction: cfg.efConstruction, seed: 100 },
      compacted,
      null,
      this.host.payloadMemory(),
      { ...(cfg.sparse !== undefined ? { sparse: cfg.sparse } : {}), ...(cfg.secondary !== undefined ? { secondary: cfg.secondary, bases } : {}) },
    );
    this.host.attachLive(c, store);
    await this.follow(cfg.name, store, created);
    this.host.registry.set(cfg.name, c);
    return c;
  }

  /** Creates an empty writable collection (validated by the caller: dim, metric, m, efConstruction). */
  async create(cfg: CollectionConfig): Promise<Collection> {
    const registry = this.host.registry;
    if (registry.has(cfg.name) || this.creating.has(cfg.name))
      throw new StrataError('STRATA_COLLECTION_EXISTS', `collection ${quoted(cfg.name)} exists already`, { collection: cfg.name.slice(0, 64) });
    this.creating.add(cfg.name);
    try {
      const dir = collectionDir(this.dir, cfg.name);
      // A directory left by an earlier collection of this name that was not fully removed.
      removeCollectionDir(dir);
      createDir(dir);
      writeConfig(dir, cfg);
      return await this.attach(dir, cfg, true);
    } finally {
      this.creating.delete(cfg.name);
    }
  }

  /**
   * Updates a created collection's build settings: its config first (durably), then the collection,
   * so that a crash leaves the old settings or the new ones, and a restart serves what was answered.
   */
  update(c: Collection, u: CollectionUpdate): void {
    const dir = collectionDir(this.dir, c.name);
    const cfg = readConfig(dir);
    const next: CollectionConfig = {
      ...cfg,
      ...(u.m !== undefined ? { m: u.m } : {}),
      ...(u.efConstruction !== undefined ? { efConstruction: u.efConstruction } : {}),
      ...(u.indexingThresholdKb !== undefined ? { indexingThresholdKb: u.indexingThresholdKb } : {}),
      ...(u.payloadM !== undefined ? { payloadM: u.payloadM } : {}),
    };
    if (u.codes !== undefined) next.codes = u.codes;
    writeConfig(dir, next);
    c.reshape(shapeOf(next));
  }

  /** Stops serving a collection created over the API (Engine.deleteCollection checked it is one) and removes its files. */
  async delete(c: Collection): Promise<void> {
    this.host.registry.delete(c.name);
    c.refuse(new StrataError('STRATA_COLLECTION_NOT_FOUND', `collection ${quoted(c.name)} was deleted`, { collection: c.name.slice(0, 64) }));
    await c.live?.close();
    removeCollectionDir(collectionDir(this.dir, c.name));
  }

  /** Closes every live store (appends already queued are flushed and acknowledged), then the write log. */
  async close(): Promise<void> {
    await Promise.all([...this.host.registry.values()].map((c) => c.live?.close()));
    await this.writeLog?.close();
  }
}

/** A created collection's shape, as its config holds it. */
function shapeOf(cfg: CollectionConfig): LiveShape {
  return {
    dim: cfg.dim,
    metric: cfg.metric,
    m: cfg.m,
    efConstruction: cfg.efConstruction,
    ...configSettings(cfg),
  };
}
