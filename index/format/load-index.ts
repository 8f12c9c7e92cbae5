// Loads a tiered index directory into tier memory. Data is read straight into each segment's shared
// memory (no staging copy) and hashed on the way; a size, magic, version or checksum mismatch is an
// error naming the file. The `prepareTier` hook runs after a tier's memory is allocated and before
// any byte of it is written, so NUMA binding takes effect on first touch. The load is a generator
// that yields every STEP_BYTES read (and between the checks that follow), so that a server
// opening a base while it serves (a compaction's) runs it over turns of its event loop.
import { createHash } from 'node:crypto';
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { StrataError } from '../../common/errors.js';
import { STEP_BYTES, stepsInOneTurn } from '../../common/turns.js';
import { TieredIndex, type AllocateOptions, type Tier } from '../tiered/tiered-index.js';
import { CODES_FILE, CODES_MAGIC, GRAPH_FILE, GRAPH_MAGIC, HEADER_BYTES, LINKS_FILE, LINKS_MAGIC, MANIFEST, READ_VERSIONS, STORE_MAGIC } from './constants.js';
import { readLinkSteps } from './links-file.js';
import type { FilterLinks } from '../filter-links/filter-links.js';
import { linkErrorSteps } from './graph-check.js';
import { checkManifest, type FileEntry, type Manifest } from './manifest.js';
import type { CodeSpec } from '../codes/index.js';
import { rqParamsLength } from '../codes/rq.js';
import type { Segment } from '../tiered/segment.js';
import type { UpperLayers } from '../tiered/upper-layers.js';
import { intentPath, recoverInterruptedSwap } from './replace-dir.js';
import { CODE_KIND_CODES, METRIC_CODES, STORE_KIND_CODES } from './header-codes.js';

export interface LoadOptions extends AllocateOptions {
  prepareTier?: (tier: Tier) => void;
  /** Check the link invariants (graph-check.ts) and refuse a graph that breaks them; default true. */
  checkLinks?: boolean;
}

export interface LoadedIndex {
  index: TieredIndex;
  manifest: Manifest;
  dir: string;
}

const corrupt = (file: string, reason: string): StrataError => new StrataError('STRATA_INDEX_CORRUPT', `${file}: ${reason}`, { file, reason });

/** A build killed in the middle of replacing the index may have left it in a temporary: move it back. */
function recoverSwap(dir: string): void {
  try {
    recoverInterruptedSwap(dir);
  } catch (e) {
    throw new StrataError(
      'STRATA_INDEX_NOT_FOUND',
      `no Strata index at ${dir}: a build replacing it was interrupted and the index could not be moved back (${(e as Error).message}); ${intentPath(dir)} names the copies`,
      { path: dir },
      { cause: e },
    );
  }
}

export function readManifest(dirIn: string): Manifest {
  const dir = resolve(dirIn);
  const file = join(dir, MANIFEST);
  if (!existsSync(file)) recoverSwap(dir);
  if (!existsSync(file)) throw new StrataError('STRATA_INDEX_NOT_FOUND', `no Strata index at ${dir} (${MANIFEST} missing)`, { path: dir });
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw corrupt(file, `not valid JSON (${(e as Error).message})`);
  }
  return checkManifest(raw, file);
}

/** A binary file's header: its magic, and the version its manifest names (files of one index agree). */
function checkHeader(file: string, buf: Uint8Array, magic: string, manifestVersion: number): DataView {
  if (buf.byteLength < HEADER_BYTES) throw corrupt(file, `shorter than its ${HEADER_BYTES}-byte header`);
  const got = String.fromCharCode(...buf.subarray(0, 8));
  if (got !== magic) throw corrupt(file, `bad magic ${JSON.stringify(got)}, expected ${JSON.stringify(magic)}`);
  const dv = new DataView(buf.buffer, buf.byteOffset, HEADER_BYTES);
  const version = dv.getUint32(8, true);
  if (!READ_VERSIONS.includes(version)) {
    throw new StrataError('STRATA_INDEX_VERSION', `${file}: format version ${version}, this build reads versions ${READ_VERSIONS.join(' and ')}`, {
      file,
      version,
    });
  }
  if (version !== manifestVersion) throw corrupt(file, `format version ${version}, but the manifest says ${manifestVersion}`);
  return dv;
}

/** Reads a file (or its rest) into `into` views, hashing on the way; its SHA-256 is judged at the end. */
class HashedReader {
  private readonly fd: number;
  private readonly hash = createHash('sha256');
  pos = 0;
  /** The file's header, kept to be judged once the checksum has been. */
  header: Uint8Array | null = null;
  constructor(readonly path: string) {
    this.fd = openSync(path, 'r');
  }
  /** Fills `into`, yielding after every STEP_BYTES. */
  *read(into: Uint8Array): Generator<void, void, void> {
    for (let off = 0; off < into.byteLength; off += STEP_BYTES) {
      const part = into.subarray(off, Math.min(into.byteLength, off + STEP_BYTES));
      let got = 0;
      while (got < part.byteLength) {
        const r = readSync(this.fd, part, got, part.byteLength - got, this.pos + got);
        if (r === 0) throw corrupt(this.path, `ends early at byte ${this.pos + got}`);
        got += r;
      }
      this.hash.update(part);
      this.pos += part.byteLength;
      yield;
    }
  }
  *skipTo(pos: number): Generator<void, void, void> {
    if (pos > this.pos) yield* this.read(new Uint8Array(pos - this.pos));
  }
  /** Judges size and checksum; the file is closed either way. */
  finish(entry: FileEntry): void {
    try {
      if (this.pos !== entry.bytes) throw corrupt(this.path, `${entry.bytes - this.pos} unexpected trailing bytes`);
      if (this.hash.digest('hex') !== entry.sha256) throw corrupt(this.path, 'SHA-256 mismatch (the file is damaged)');
    } finally {
      this.close();
    }
  }
  close(): void {
    closeSync(this.fd);
  }
}

/** A whole file of the size its manifest entry gives, its checksum judged. */
function* readWhole(path: string, entry: FileEntry): Generator<void, Uint8Array, void> {
  const r = new HashedReader(path);
  const buf = new Uint8Array(entry.bytes);
  try {
    yield* r.read(buf);
  } catch (e) {
    r.close();
    throw e;
  }
  r.finish(entry);
  return buf;
}

function paramsLength(code: CodeSpec): number {
  return code.kind === 'sq8' ? 2 * code.dim : rqParamsLength(code);
}

export function loadIndex(dirIn: string, opts: LoadOptions = {}): LoadedIndex {
  return stepsInOneTurn(loadIndexSteps(dirIn, opts));
}

/** loadIndex, yielding between steps of at most STEP_BYTES read (common/turns.ts runs it). */
export function* loadIndexSteps(dirIn: string, opts: LoadOptions = {}): Generator<void, LoadedIndex, void> {
  const dir = resolve(dirIn);
  const manifest = readManifest(dir);
  for (const [name, f] of Object.entries(manifest.files)) {
    const path = join(dir, name);
    if (!existsSync(path)) throw corrupt(path, 'missing');
    const size = statSync(path).size;
    if (size !== f.bytes) throw corrupt(path, `${size} bytes, the manifest says ${f.bytes} (truncated or overwritten)`);
  }
  const graphPath = join(dir, GRAPH_FILE);
  const graphEntry = manifest.files[GRAPH_FILE];
  if (!graphEntry) throw corrupt(join(dir, MANIFEST), `does not list ${GRAPH_FILE}`);
  const gbuf = yield* readWhole(graphPath, graphEntry);
  const dv = checkHeader(graphPath, gbuf, GRAPH_MAGIC, manifest.version);
  const f = (i: number): number => dv.getInt32(12 + 4 * i, true);
  const [count, dim, maxM0, maxM, entry, maxLevel, upperCount, upperWords, metricCode] = [0, 1, 2, 3, 4, 5, 6, 7, 8].map(f) as number[] as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const g = manifest.graph;
  if (
    count !== manifest.count ||
    dim !== manifest.dim ||
    METRIC_CODES[manifest.metric] !== metricCode ||
    entry !== g.entry ||
    maxM0 !== g.maxM0 ||
    maxM !== g.maxM ||
    maxLevel !== g.maxLevel ||
    upperCount !== g.upperNodes
  ) {
    throw corrupt(graphPath, 'header disagrees with the manifest (count, dim, metric, entry, maxM0, maxM, max level or upper nodes)');
  }
  if (upperCount < 0 || upperCount > count || upperWords < 0 || (count > 0 && (entry < 0 || entry >= count)))
    throw corrupt(graphPath, 'header fields out of range');
  const align8 = (x: number): number => Math.ceil(x / 8) * 8;
  let p = HEADER_BYTES;
  const take = (bytes: number): ArrayBuffer => {
    if (p + bytes > gbuf.byteLength) throw corrupt(graphPath, 'sections run past the end of the file');
    const ab = new ArrayBuffer(bytes);
    new Uint8Array(ab).set(gbuf.subarray(p, p + bytes));
    p = align8(p + bytes);
    return ab;
  };
  const upper: UpperLayers = {
    ids: new Int32Array(take(4 * upperCount)),
    levels: new Uint8Array(take(upperCount)),
    offsets: new Int32Array(take(4 * upperCount)),
    links: new Uint32Array(take(4 * upperWords)),
  };

  // The code's parameters come first in codes.bin; the rows follow once the stores exist.
  const plan = manifest.plan;
  let codes: HashedReader | null = null;
  let codeParams: Float32Array | null = null;
  let index: TieredIndex;
  // The links first: the fused region keeps them room, so that the WASM traversal walks them.
  const links = manifest.filterLinks !== undefined ? yield* loadLinks(dir, manifest) : null;
  try {
    if (plan.code) {
      const entryC = manifest.files[CODES_FILE];
      if (!entryC) throw corrupt(join(dir, MANIFEST), `does not list ${CODES_FILE}`);
      codes = new HashedReader(join(dir, CODES_FILE));
      const h = new Uint8Array(HEADER_BYTES);
      yield* codes.read(h);
      codeParams = new Float32Array(paramsLength(plan.code));
      yield* codes.read(new Uint8Array(codeParams.buffer));
      yield* codes.skipTo(Math.ceil(codes.pos / 64) * 64);
      codes.header = h;
    }
    index = TieredIndex.allocate(
      {
        meta: { dim, metric: manifest.metric, count, maxM0, maxM, entry, maxLevel },
        plan: {
          adjacencyInDram: plan.adjacencyInDram,
          vectorsInDram: plan.vectorsInDram,
          poolLists: plan.poolLists ?? 0,
          code: plan.code,
          ...(plan.runBytes ? { runBytes: plan.runBytes } : {}),
        },
        upper,
        codeParams,
      },
      links !== null ? { ...opts, linkBytes: links.regionBytes() } : opts,
    );
    for (const tier of index.tiers) opts.prepareTier?.(tier);
    if (codes && index.codes) {
      for (const s of index.codes.segments) yield* codes.read(s.recordBytes());
      // finish() closes the file: drop our handle first so the finally below cannot close it twice.
      const done = codes;
      codes = null;
      done.finish(manifest.files[CODES_FILE]!);
      const h = checkHeader(done.path, done.header!, CODES_MAGIC, manifest.version);
      const c = plan.code!;
      const hf = (i: number): number => h.getInt32(12 + 4 * i, true);
      if (
        hf(0) !== count ||
        hf(1) !== CODE_KIND_CODES[c.kind] ||
        hf(2) !== c.dim ||
        hf(3) !== c.dims ||
        hf(4) !== c.bits ||
        hf(5) !== c.centroids ||
        hf(6) !== c.stride
      ) {
        throw corrupt(done.path, 'header disagrees with the manifest (count or code)');
      }
    }
  } finally {
    codes?.close();
  }
  for (const e of manifest.stores) {
    if (e.kind === 'codes') continue;
    const store = e.kind === 'adjacency' ? index.adjacency : e.kind === 'vectors' ? index.vectors : index.labelStore;
    const split = e.tier === 0 ? 0 : store.split;
    const n = e.tier === 0 ? store.split : count - store.split;
    if (e.start !== split || e.count !== n || e.stride !== store.shape.stride)
      throw corrupt(join(dir, MANIFEST), `store ${e.kind} in tier ${e.tier} disagrees with the plan`);
    yield* readStore(
      join(dir, e.file),
      manifest.files[e.file]!,
      store.segments.filter((s) => s.tier === e.tier),
      [STORE_KIND_CODES[e.kind]!, e.tier, e.start, e.count, e.stride],
      manifest.version,
    );
  }
  // The pool's first tenants are copies of lists just read (the placement's next hottest).
  index.pool?.fillInitial();
  yield;
  if (opts.checkLinks !== false) {
    const errors = yield* linkErrorSteps(index, { maxErrors: 3 });
    if (errors.length > 0) {
      throw new StrataError('STRATA_INDEX_CORRUPT', `${dir}: the graph breaks its invariants: ${errors.join('; ')} (\`strata verify\` lists every problem)`, {
        file: dir,
        reason: errors[0],
      });
    }
  }
  if (links !== null) yield* index.attachLinkSteps(links);
  return { index, manifest, dir };
}

function* readStore(path: string, entry: FileEntry, segments: Segment[], expect: number[], manifestVersion: number): Generator<void, void, void> {
  const r = new HashedReader(path);
  try {
    const h = new Uint8Array(HEADER_BYTES);
    yield* r.read(h);
    r.header = h;
    // Sizes come from the manifest, so the body can be read before the header is trusted; the
    // checksum is judged first, so damage anywhere reports as damage.
    for (const s of segments) yield* r.read(s.recordBytes());
  } catch (e) {
    r.close();
    throw e;
  }
  r.finish(entry);
  const dv = checkHeader(path, r.header ?? new Uint8Array(0), STORE_MAGIC, manifestVersion);
  for (let i = 0; i < expect.length; i++) {
    if (dv.getInt32(12 + 4 * i, true) !== expect[i]) throw corrupt(path, 'header disagrees with the manifest (store, tier, node range or record size)');
  }
}

/** links.bin, checked whole: its checksum, header and every member and link in range. */
function* loadLinks(dir: string, manifest: Manifest): Generator<void, FilterLinks, void> {
  const path = join(dir, LINKS_FILE);
  const entry = manifest.files[LINKS_FILE];
  if (!entry) throw corrupt(join(dir, MANIFEST), `has filterLinks but does not list ${LINKS_FILE}`);
  const buf = yield* readWhole(path, entry);
  const dv = checkHeader(path, buf, LINKS_MAGIC, manifest.version);
  return yield* readLinkSteps(path, dv, buf.subarray(HEADER_BYTES), manifest.filterLinks!, manifest.count);
}
