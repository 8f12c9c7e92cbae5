// The on-disk index format (version 2): write/load round trips (one segment per store tier and
// many, with and without a code), search equivalence after reloading, detection of damaged,
// truncated, missing or foreign files (every store file and codes.bin), manifest validation
// (stores tiling each store's node ids, the plan, a version 1 manifest), the crash-safe write (no
// partial directories, no clobbering without force) and the link invariants of level 0 and of the
// compact upper layers, checked at load and by verify.
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { StrataError } from '../../../common/errors.js';
import { CODES_FILE, FORMAT_VERSION, GRAPH_FILE, HEADER_BYTES, MANIFEST, storeFileName } from '../../../index/format/constants.js';
import { loadIndex, readManifest } from '../../../index/format/load-index.js';
import type { Manifest } from '../../../index/format/manifest.js';
import { checkGraph, verifyIndex } from '../../../index/format/verify-index.js';
import { turnsWhile } from '../../helpers/turns.js';
import { intentPath, recoverInterruptedSwap } from '../../../index/format/replace-dir.js';
import { writeIndex } from '../../../index/format/write-index.js';
import { openIndex, openIndexInTurns } from '../../../index/open-index.js';
import { Searcher } from '../../../index/search/searcher.js';
import { STAT } from '../../../index/search/stats.js';
import type { NodeStore } from '../../../index/tiered/node-store.js';
import type { Segment } from '../../../index/tiered/segment.js';
import type { StoreKind, TieredIndex } from '../../../index/tiered/tiered-index.js';
import { upperIndexOf } from '../../../index/tiered/upper-layers.js';
import { buildSmallIndex, type SmallIndex } from '../../helpers/small-index.js';
import { expectStrataError, makeTempDir, thrown, type TempDir } from '../../helpers/temp.js';

/** The stores with a file per tier (codes live in codes.bin, all in DRAM). */
const FILE_STORES = ['adjacency', 'vectors', 'labels'] as const;
const STORE_FILES = FILE_STORES.flatMap((kind) => [storeFileName(kind, 'dram'), storeFileName(kind, 'cxl')]);
const DATA_FILES = [GRAPH_FILE, CODES_FILE, ...STORE_FILES] as const;
const COUNT = 2000;

let small: SmallIndex;
let tmp: TempDir;
/** A written copy of `small`, never modified: tests that damage files work on copies of it. */
let golden: string;
let goldenManifest: Manifest;
let caseNo = 0;

beforeAll(() => {
  // rq4 (not auto) so that codes.bin holds the larger rq parameters (rotation and centroids); at a
  // 30% budget the neighbour lists split between the tiers and every vector is in CXL.
  small = buildSmallIndex({ codes: 'rq4' });
  tmp = makeTempDir('strata-format-');
  golden = tmp.path('golden');
  goldenManifest = writeIndex(small.index, golden, small.info);
});

afterAll(() => tmp?.cleanup());

/** A fresh copy of the golden index directory. */
function copyGolden(): string {
  const dir = tmp.path(`case-${++caseNo}`);
  cpSync(golden, dir, { recursive: true });
  return dir;
}

const sha256 = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');

function firstDifference(a: Uint8Array, b: Uint8Array): number {
  if (a.byteLength !== b.byteLength) return Math.min(a.byteLength, b.byteLength);
  for (let i = 0; i < a.byteLength; i++) if (a[i] !== b[i]) return i;
  return -1;
}

function expectSameBytes(a: Uint8Array, b: Uint8Array, what: string): void {
  expect(firstDifference(a, b), `${what}: first differing byte`).toBe(-1);
}

/** Names in `dir` that look like writeIndex temporaries. */
function temporaries(dir: string): string[] {
  return readdirSync(dir).filter((n) => n.includes('.tmp-'));
}

function flipByte(file: string, at: (size: number) => number): void {
  const buf = readFileSync(file);
  const pos = at(buf.byteLength);
  buf[pos] = buf[pos]! ^ 0xff;
  writeFileSync(file, buf);
}

/** Rewrites a file's manifest entry (size and SHA-256) so that only the check under test can fire. */
function resealManifest(dir: string, name: string): void {
  const mf = join(dir, MANIFEST);
  const m = JSON.parse(readFileSync(mf, 'utf8')) as Manifest;
  const file = join(dir, name);
  m.files[name] = { bytes: readFileSync(file).byteLength, sha256: sha256(file) };
  writeFileSync(mf, JSON.stringify(m, null, 2));
}

/** Applies `edit` to the manifest of `dir` (as parsed JSON); returns the manifest's path. */
function editManifest(dir: string, edit: (m: Manifest) => void): string {
  const mf = join(dir, MANIFEST);
  const m = JSON.parse(readFileSync(mf, 'utf8')) as Manifest;
  edit(m);
  writeFileSync(mf, JSON.stringify(m, null, 2));
  return mf;
}

/** Overwrites header field `i` (the int32 after magic and version) of an index file. */
function setHeaderField(file: string, i: number, value: number): void {
  const buf = readFileSync(file);
  buf.writeInt32LE(value, 12 + 4 * i);
  writeFileSync(file, buf);
}

/** Position in the manifest's store list of a store's tier entry. */
function storeAt(m: Manifest, kind: StoreKind, tier: number): number {
  const i = m.stores.findIndex((s) => s.kind === kind && s.tier === tier);
  expect(i, `${kind} tier ${tier} in the manifest`).toBeGreaterThanOrEqual(0);
  return i;
}

function storesOf(index: TieredIndex): Array<[StoreKind, NodeStore]> {
  const all: Array<[StoreKind, NodeStore | null]> = [
    ['adjacency', index.adjacency],
    ['vectors', index.vectors],
    ['codes', index.codes],
    ['labels', index.labelStore],
  ];
  return all.filter((e): e is [StoreKind, NodeStore] => e[1] !== null);
}

/**
 * Segments tile each store's node ids without gaps or overlaps, none straddling the DRAM/CXL split,
 * each laid out within `maxBytes` (its region rounds that up to whole 64 KiB WASM pages).
 */
function expectSegmentsTile(index: TieredIndex, maxBytes = Infinity): void {
  for (const [kind, store] of storesOf(index)) {
    let next = 0;
    for (const s of store.segments) {
      expect(s.start, `${kind} segment start`).toBe(next);
      expect(s.tier, `${kind} segment at ${s.start}`).toBe(s.start < store.split ? 0 : 1);
      expect(s.start + s.count <= store.split || s.start >= store.split, `${kind} segment at ${s.start} straddles the split`).toBe(true);
      expect(s.layout.bytes).toBeLessThanOrEqual(maxBytes);
      next += s.count;
    }
    expect(next, `${kind} nodes`).toBe(index.meta.count);
  }
}

function expectSameIndexData(a: TieredIndex, b: TieredIndex): void {
  expect(b.meta).toEqual(a.meta);
  expect(b.plan).toEqual(a.plan);
  expect(Array.from(b.labels)).toEqual(Array.from(a.labels));
  expect(Array.from(b.upper.ids)).toEqual(Array.from(a.upper.ids));
  expect(Array.from(b.upper.levels)).toEqual(Array.from(a.upper.levels));
  expect(Array.from(b.upper.offsets)).toEqual(Array.from(a.upper.offsets));
  expect(Array.from(b.upper.links)).toEqual(Array.from(a.upper.links));
  expect(b.codeParams === null ? null : Array.from(b.codeParams)).toEqual(a.codeParams === null ? null : Array.from(a.codeParams));
  const shapes = (x: TieredIndex): Array<[StoreKind, number, number]> => storesOf(x).map(([k, s]) => [k, s.shape.stride, s.split]);
  expect(shapes(b)).toEqual(shapes(a));
}

/** Node v's record in a store (its bytes, wherever its segment is). */
function recordOf(store: NodeStore, v: number): Uint8Array {
  const seg: Segment = store.segmentOf(v);
  const stride = store.shape.stride;
  return seg.recordBytes().subarray((v - seg.start) * stride, (v - seg.start + 1) * stride);
}

/** The same queries on two indexes give the same ids, distances and per-tier reads. */
function expectSameSearches(x: TieredIndex, y: TieredIndex, queries: Float32Array, dim: number, ef = 40): { adjCxl: number; vecCxl: number } {
  const a = new Searcher(x);
  const b = new Searcher(y);
  let adjCxl = 0;
  let vecCxl = 0;
  try {
    const nq = queries.length / dim;
    for (let q = 0; q < nq; q++) {
      const v = queries.subarray(q * dim, (q + 1) * dim);
      const ra = a.search(v, 10, ef);
      const rb = b.search(v, 10, ef);
      expect(ra.ids.length).toBe(Math.min(10, x.meta.count));
      expect(Array.from(rb.ids)).toEqual(Array.from(ra.ids));
      expect(Array.from(rb.distances)).toEqual(Array.from(ra.distances));
      for (const [name, f] of Object.entries(STAT)) {
        if (name.endsWith('Ns')) continue; // times (modelled, injected, stalled) are not reads
        expect(rb.stats[f], `query ${q}, stat ${name}`).toBe(ra.stats[f]);
      }
      adjCxl += ra.stats[STAT.adjReadsCxl]!;
      vecCxl += ra.stats[STAT.vecReadsCxl]!;
      const ea = a.exact(v, 10);
      const eb = b.exact(v, 10);
      expect(Array.from(eb.ids)).toEqual(Array.from(ea.ids));
      expect(Array.from(eb.distances)).toEqual(Array.from(ea.distances));
    }
  } finally {
    a.close();
    b.close();
  }
  return { adjCxl, vecCxl };
}

describe('writeIndex / loadIndex round trip', () => {
  it('writes exactly manifest.json, graph.bin, codes.bin and one file per store and tier, whose sizes and SHA-256 match the manifest', () => {
    expect(readdirSync(golden).sort()).toEqual([MANIFEST, ...DATA_FILES].sort());
    expect(Object.keys(goldenManifest.files).sort()).toEqual([...DATA_FILES].sort());
    for (const name of DATA_FILES) {
      const f = join(golden, name);
      expect(goldenManifest.files[name]).toEqual({ bytes: readFileSync(f).byteLength, sha256: sha256(f) });
    }
    expect(temporaries(tmp.dir)).toEqual([]);
  });

  it('records format, version, shape, plan, stores, tier bytes and placement in the manifest', () => {
    const m = readManifest(golden);
    const { index, placed, info } = small;
    expect(m).toEqual(goldenManifest);
    expect(m.format).toBe('strata-index');
    expect(m.version).toBe(FORMAT_VERSION);
    expect(FORMAT_VERSION).toBe(4);
    expect(m.plan.code?.rotation).toBe('hadamard');
    expect([m.count, m.dim, m.metric]).toEqual([COUNT, 16, 'l2']);
    expect(m.graph).toEqual({
      maxM0: 16,
      maxM: 8,
      entry: index.meta.entry,
      maxLevel: index.meta.maxLevel,
      unreachable: placed.unreachable,
      upperNodes: index.upper.ids.length,
    });
    const a = placed.plan.adjacencyInDram;
    expect(a).toBeGreaterThan(0);
    expect(a).toBeLessThan(COUNT);
    expect(placed.plan.vectorsInDram).toBe(0);
    const code = index.plan.code!;
    expect(code).toMatchObject({ kind: 'rq4', dim: 16, dims: 16, bits: 4, metric: 'l2', stride: 18 });
    // The default build gives a share of the list budget to the promotion pool (planner.ts).
    expect(placed.plan.poolLists).toBeGreaterThan(0);
    expect(index.plan.poolLists).toBe(placed.plan.poolLists);
    expect(m.plan).toEqual({ ...info.plan, code, adjacencyInDram: a, vectorsInDram: 0, poolLists: placed.plan.poolLists });
    // Each store's tiers tile the node ids at the plan's split; codes are all DRAM, labels all CXL.
    const ADJ = 4 * (1 + 16);
    const VEC = 4 * 16;
    expect(m.stores).toEqual([
      { kind: 'adjacency', tier: 0, start: 0, count: a, stride: ADJ, file: 'adjacency-dram.bin' },
      { kind: 'adjacency', tier: 1, start: a, count: COUNT - a, stride: ADJ, file: 'adjacency-cxl.bin' },
      { kind: 'vectors', tier: 0, start: 0, count: 0, stride: VEC, file: 'vectors-dram.bin' },
      { kind: 'vectors', tier: 1, start: 0, count: COUNT, stride: VEC, file: 'vectors-cxl.bin' },
      { kind: 'codes', tier: 0, start: 0, count: COUNT, stride: 18, file: 'codes.bin' },
      { kind: 'labels', tier: 0, start: 0, count: 0, stride: 8, file: 'labels-dram.bin' },
      { kind: 'labels', tier: 1, start: 0, count: COUNT, stride: 8, file: 'labels-cxl.bin' },
    ]);
    // Tier bytes: the records each tier holds, upper layers (9 bytes a node + links) and the code's
    // head (rq4's centroids) in DRAM, each by part; the same as the planner's totals, and DRAM within
    // the budget.
    const upper = 9 * index.upper.ids.length + 4 * index.upper.links.length;
    const pool = placed.plan.dram.pool;
    expect(pool).toBe(placed.plan.poolLists * (ADJ + 20));
    const none = { 'value runs': 0, 'filter links': 0, 'list codes': 0 };
    expect(m.tiers).toEqual([
      {
        index: 0,
        kind: 'dram',
        bytes: upper + COUNT * 18 + index.codec!.headBytes + a * ADJ + pool,
        parts: {
          ...none,
          codes: COUNT * 18,
          'code parameters': index.codec!.headBytes,
          'neighbour lists': a * ADJ,
          vectors: 0,
          labels: 0,
          'upper layers': upper,
          'promotion pool': pool,
        },
      },
      {
        index: 1,
        kind: 'cxl',
        bytes: (COUNT - a) * ADJ + COUNT * VEC + COUNT * 8,
        parts: {
          ...none,
          codes: 0,
          'code parameters': 0,
          'neighbour lists': (COUNT - a) * ADJ,
          vectors: COUNT * VEC,
          labels: COUNT * 8,
          'upper layers': 0,
          'promotion pool': 0,
        },
      },
    ]);
    expect(m.tiers.map((t) => t.bytes)).toEqual([placed.plan.dram.total, placed.plan.cxl.total]);
    expect(m.tiers[0]!.bytes).toBeLessThanOrEqual(m.plan.dramBudgetBytes);
    expect(m.placement).toEqual(info.placement);
    expect(m.build).toEqual(info.build);
    expect(m.name).toBe('small');
    expect(Number.isNaN(Date.parse(m.createdAt))).toBe(false);
  });

  it("loads back equal meta, plan, labels, upper layers, code parameters and every store segment's bytes", () => {
    const { index: loaded, manifest, dir } = loadIndex(golden);
    const orig = small.index;
    expect(dir).toBe(golden);
    expect(manifest).toEqual(goldenManifest);
    expectSameIndexData(orig, loaded);
    expect(loaded.codeParams!.length).toBeGreaterThan(16 * 16); // a rotation and centroids
    loaded.tiers.forEach((t, i) => {
      expect([t.index, t.kind, t.segments.length]).toEqual([orig.tiers[i]!.index, orig.tiers[i]!.kind, orig.tiers[i]!.segments.length]);
    });
    const origStores = storesOf(orig);
    expect(storesOf(loaded).map(([k]) => k)).toEqual(['adjacency', 'vectors', 'codes', 'labels']);
    storesOf(loaded).forEach(([kind, store], k) => {
      const o = origStores[k]![1];
      expect(store.segments.length, kind).toBe(o.segments.length);
      store.segments.forEach((s, i) => {
        const os = o.segments[i]!;
        expect([s.tier, s.start, s.count]).toEqual([os.tier, os.start, os.count]);
        expectSameBytes(s.recordBytes(), os.recordBytes(), `${kind} segment ${i}`);
      });
    });
    expectSegmentsTile(loaded);
  });

  it('opens over turns of the event loop, a file read at a time at most, to the same index data', async () => {
    const { value: opened, turns } = await turnsWhile(() => openIndexInTurns(golden, { mode: 'emulate' }));
    expectSameIndexData(small.index, opened.index);
    // At least one turn per data file read: other work ran between the reads.
    expect(turns).toBeGreaterThanOrEqual(DATA_FILES.length);
  });

  it('with small segments on load splits the stores over many segments holding the same lists, vectors, codes and labels', () => {
    const SEG = 16384;
    // Few slots, so that a segment's scratch leaves room for records within 16 KiB.
    const { index: loaded } = loadIndex(golden, { segmentBytes: SEG, slots: 4 });
    const orig = small.index;
    expectSameIndexData(orig, loaded);
    expectSegmentsTile(loaded, SEG);
    for (const [kind, store] of storesOf(loaded)) {
      for (const tier of [0, 1]) {
        const nodes = tier === 0 ? store.split : COUNT - store.split;
        // Every tier holding more than a segment's worth of records is split.
        if (nodes * store.shape.stride > SEG) expect(store.segments.filter((s) => s.tier === tier).length, `${kind} tier ${tier}`).toBeGreaterThan(1);
      }
    }
    expect(loaded.adjacency.segments.filter((s) => s.tier === 0).length).toBeGreaterThan(1);
    expect(loaded.adjacency.segments.filter((s) => s.tier === 1).length).toBeGreaterThan(1);
    expect(loaded.codes!.segments.length).toBeGreaterThan(1);
    expect(loaded.labelStore.segments.length).toBeGreaterThan(1);
    const words = orig.adjacency.shape.stride >>> 2;
    for (let v = 0; v < COUNT; v++) {
      const a = orig.neighbourBlock(v);
      const b = loaded.neighbourBlock(v);
      const la = Array.from(a.seg.u32.subarray(a.at, a.at + words));
      const lb = Array.from(b.seg.u32.subarray(b.at, b.at + words));
      if (la.join() !== lb.join()) expect(lb, `node ${v} neighbour list`).toEqual(la);
      expectSameBytes(new Uint8Array(loaded.vectorOf(v).slice().buffer), new Uint8Array(orig.vectorOf(v).slice().buffer), `node ${v} vector`);
      expectSameBytes(recordOf(loaded.codes!, v), recordOf(orig.codes!, v), `node ${v} code`);
    }
  });

  it('searches on the reloaded many-segment index return the ids, distances and per-tier reads of the in-memory index', () => {
    const { index: loaded } = loadIndex(golden, { segmentBytes: 16384, slots: 4 });
    const { adjCxl, vecCxl } = expectSameSearches(small.index, loaded, small.queries, 16);
    // The searches did cross into the second tier: neighbour lists, and vectors for the re-rank.
    expect(adjCxl).toBeGreaterThan(0);
    expect(vecCxl).toBeGreaterThan(0);
  });

  it.each([
    ['an empty DRAM tier (no code, no budget)', 0, 'none'],
    ['only the labels in CXL (no code, the whole index in DRAM)', 1, 'none'],
    ['no code and whole records split between the tiers', 0.3, 'none'],
    ['sq8 codes, every neighbour list and part of the vectors in DRAM', 1, 'sq8'],
  ] as const)('round-trips an index with %s', (_label, share, codes) => {
    const s = buildSmallIndex({ count: 300, dramShare: share, queries: 5, codes });
    const p = s.index.plan;
    if (codes === 'none') {
      expect(p.code).toBeNull();
      expect(p.vectorsInDram).toBe(p.adjacencyInDram); // whole records
      if (share === 0) expect(p.adjacencyInDram).toBe(0);
      else if (share === 1) expect(p.adjacencyInDram).toBe(300);
      else expect(p.adjacencyInDram > 0 && p.adjacencyInDram < 300).toBe(true);
    } else {
      expect(p.code?.kind).toBe('sq8');
      expect(p.adjacencyInDram).toBe(300);
      expect(p.vectorsInDram > 0 && p.vectorsInDram < 300).toBe(true);
    }
    const dir = tmp.path(`edge-${share}-${codes}`);
    const m = writeIndex(s.index, dir, s.info);
    expect(existsSync(join(dir, CODES_FILE))).toBe(codes !== 'none');
    expect(m.stores.some((e) => e.kind === 'codes')).toBe(codes !== 'none');
    expect(m.plan.code).toEqual(p.code);
    const { index } = loadIndex(dir);
    expectSameIndexData(s.index, index);
    expectSegmentsTile(index);
    // Segments per tier: adjacency and vectors where the plan puts them, labels always CXL, codes DRAM.
    const dramStores = [p.adjacencyInDram, p.vectorsInDram].filter((x) => x > 0).length + (p.code ? 1 : 0);
    const cxlStores = [p.adjacencyInDram, p.vectorsInDram].filter((x) => x < 300).length + 1;
    expect(index.tiers.map((t) => t.segments.length)).toEqual([dramStores, cxlStores]);
    expectSameSearches(s.index, index, s.queries, 16, 20);
    expect(verifyIndex(dir).ok).toBe(true);
  });
});

describe('version 3 indexes (dense rotations) still open', () => {
  /** Rewrites a version 4 index directory as the previous build wrote it: version 3 everywhere, no rotation named. */
  function asVersion3(dir: string): void {
    for (const name of Object.keys(readManifest(dir).files)) {
      const file = join(dir, name);
      const buf = readFileSync(file);
      buf.writeUInt32LE(3, 8);
      writeFileSync(file, buf);
      resealManifest(dir, name);
    }
    editManifest(dir, (m) => {
      m.version = 3;
      if (m.plan.code) delete m.plan.code.rotation;
    });
  }

  it('loads a version 3 index with an rq code as a dense rotation, searches as the index it was, and writes it back as version 4 naming the rotation', () => {
    const s = buildSmallIndex({ count: 600, queries: 8, codes: 'rq3', rotation: 'dense', dramShare: 0.2 });
    expect(s.index.plan.code?.rotation).toBe('dense');
    const dir = tmp.path('v3-dense');
    writeIndex(s.index, dir, s.info);
    asVersion3(dir);
    expect(JSON.parse(readFileSync(join(dir, MANIFEST), 'utf8')).plan.code.rotation).toBeUndefined();
    const { index, manifest } = loadIndex(dir);
    expect(manifest.version).toBe(3);
    expect(index.plan.code?.rotation).toBe('dense');
    expectSameSearches(s.index, index, s.queries, 16, 20);
    // Written again (a compaction, a snapshot restore) it is a version 4 index that says so.
    const again = tmp.path('v3-rewritten');
    const m = writeIndex(index, again, s.info);
    expect(m.version).toBe(FORMAT_VERSION);
    expect(m.plan.code?.rotation).toBe('dense');
    expectSameSearches(s.index, loadIndex(again).index, s.queries, 16, 20);
  });

  it('refuses a rotation a version cannot have, a version 4 rq code without one, and files whose versions disagree with the manifest', () => {
    const v3 = copyGolden();
    asVersion3(v3);
    editManifest(v3, (m) => {
      m.plan.code!.rotation = 'hadamard';
    });
    expect(expectStrataError(() => loadIndex(v3), 'STRATA_INDEX_CORRUPT').message).toMatch(/plan\.code\.rotation is not part of format version 3/);
    for (const bad of [undefined, 'givens']) {
      const dir = copyGolden();
      editManifest(dir, (m) => {
        (m.plan.code as unknown as Record<string, unknown>)['rotation'] = bad;
      });
      expect(expectStrataError(() => loadIndex(dir), 'STRATA_INDEX_CORRUPT').message).toMatch(/plan\.code\.rotation must be dense or hadamard/);
    }
    const mixed = copyGolden();
    const file = join(mixed, CODES_FILE);
    const buf = readFileSync(file);
    buf.writeUInt32LE(3, 8);
    writeFileSync(file, buf);
    resealManifest(mixed, CODES_FILE);
    const e = expectStrataError(() => loadIndex(mixed), 'STRATA_INDEX_CORRUPT');
    expect(e.message).toContain(file);
    expect(e.message).toMatch(/format version 3, but the manifest says 4/);
  });
});

describe('loadIndex rejects damaged indexes', () => {
  it.each(DATA_FILES)('a byte flipped in the middle of %s fails with STRATA_INDEX_CORRUPT naming that file', (name) => {
    const dir = copyGolden();
    const file = join(dir, name);
    flipByte(file, (size) => Math.floor(size / 2) + 3);
    const e = expectStrataError(() => loadIndex(dir), 'STRATA_INDEX_CORRUPT');
    expect(e.message).toContain(file);
    expect(e.message).toMatch(/SHA-256 mismatch/);
    expect(e.details['file']).toBe(file);
  });

  it.each(DATA_FILES)('a flipped last byte or magic byte of %s fails with STRATA_INDEX_CORRUPT naming that file', (name) => {
    for (const at of [(size: number) => size - 1, () => 0]) {
      const dir = copyGolden();
      const file = join(dir, name);
      flipByte(file, at);
      const e = expectStrataError(() => loadIndex(dir), 'STRATA_INDEX_CORRUPT');
      expect(e.message).toContain(file);
    }
  });

  it.each(DATA_FILES)('a truncated %s fails with STRATA_INDEX_CORRUPT naming that file and both sizes', (name) => {
    const dir = copyGolden();
    const file = join(dir, name);
    const size = goldenManifest.files[name]!.bytes;
    // A store tier without nodes is a bare 64-byte header: cut at most half of a file.
    const cut = Math.min(100, size >> 1);
    truncateSync(file, size - cut);
    const e = expectStrataError(() => loadIndex(dir), 'STRATA_INDEX_CORRUPT');
    expect(e.message).toContain(file);
    expect(e.message).toContain(`${size - cut} bytes`);
    expect(e.message).toContain(`${size}`);
  });

  it.each(DATA_FILES)('a missing %s fails with STRATA_INDEX_CORRUPT naming that file', (name) => {
    const dir = copyGolden();
    rmSync(join(dir, name));
    const e = expectStrataError(() => loadIndex(dir), 'STRATA_INDEX_CORRUPT');
    expect(e.message).toContain(join(dir, name));
    expect(e.message).toMatch(/missing/);
  });

  it('a byte flipped in the code parameters or in the code rows of codes.bin fails with STRATA_INDEX_CORRUPT naming codes.bin', () => {
    const size = goldenManifest.files[CODES_FILE]!.bytes;
    const params = small.index.codeParams!.length;
    const stride = small.index.plan.code!.stride;
    // codes.bin: header, parameters (f32), padding to 64 bytes, then a row per node.
    const rowsAt = size - COUNT * stride;
    expect(rowsAt).toBe(Math.ceil((HEADER_BYTES + 4 * params) / 64) * 64);
    for (const [what, at] of [
      ['first parameter', HEADER_BYTES + 1],
      ['middle parameter', HEADER_BYTES + 4 * (params >> 1) + 2],
      ['first row', rowsAt],
      ['middle row', rowsAt + stride * (COUNT >> 1) + 5],
    ] as const) {
      const dir = copyGolden();
      const file = join(dir, CODES_FILE);
      flipByte(file, () => at);
      const e = expectStrataError(() => loadIndex(dir), 'STRATA_INDEX_CORRUPT');
      expect(e.message, what).toContain(file);
      expect(e.message, what).toMatch(/SHA-256 mismatch/);
    }
  });

  it('a directory without manifest.json fails with STRATA_INDEX_NOT_FOUND naming the directory', () => {
    const dir = copyGolden();
    rmSync(join(dir, MANIFEST));
    const e = expectStrataError(() => loadIndex(dir), 'STRATA_INDEX_NOT_FOUND');
    expect(e.message).toContain(dir);
    expectStrataError(() => loadIndex(tmp.path('no-such-dir')), 'STRATA_INDEX_NOT_FOUND');
  });

  it('a version 1 manifest (whole records per tier, no codes) fails with STRATA_INDEX_VERSION saying how to rebuild', () => {
    const dir = copyGolden();
    const mf = join(dir, MANIFEST);
    const m = JSON.parse(readFileSync(mf, 'utf8')) as Manifest;
    // A manifest as version 1 wrote it: tiers with node ranges and a file each, no plan or stores.
    const v1 = {
      format: 'strata-index',
      version: 1,
      name: m.name,
      createdAt: m.createdAt,
      dim: m.dim,
      metric: m.metric,
      count: m.count,
      graph: { maxM0: 16, maxM: 8, entry: 0, maxLevel: m.graph.maxLevel, unreachable: 0 },
      build: { ...m.build, source: '/data/base.fvecs' },
      placement: { policy: 'hops', dramBudgetBytes: 1000, dramNodes: 600, cxlNodes: 1400, upperInCxl: 0, profileQueries: 0, predictedDramShare: null },
      tiers: [
        { index: 0, kind: 'dram', start: 0, end: 600, bytes: 600 * 132, file: 'tier-0-dram.bin' },
        { index: 1, kind: 'cxl', start: 600, end: COUNT, bytes: 1400 * 132, file: 'tier-1-cxl.bin' },
      ],
      files: { 'graph.bin': m.files[GRAPH_FILE] },
    };
    writeFileSync(mf, JSON.stringify(v1));
    for (const load of [() => readManifest(dir), () => loadIndex(dir), () => openIndex(dir, { mode: 'emulate' })]) {
      const e = expectStrataError(load, 'STRATA_INDEX_VERSION');
      expect(e.message).toContain(mf);
      expect(e.message).toMatch(/format version 1: version 1 stores whole records per tier/);
      expect(e.message).toContain('rebuild it with strata build /data/base.fvecs --out <dir>');
      expect(e.details).toEqual({ file: mf, version: '1' });
    }
    // Without a recorded source the advice still names the command.
    writeFileSync(mf, JSON.stringify({ ...v1, build: { ...v1.build, source: null } }));
    expect(expectStrataError(() => loadIndex(dir), 'STRATA_INDEX_VERSION').message).toMatch(/rebuild it with strata build$/);
  });

  it('a manifest of a later version fails with STRATA_INDEX_VERSION naming the version this build reads', () => {
    const dir = copyGolden();
    const mf = editManifest(dir, (m) => {
      m.version = 5;
    });
    const e = expectStrataError(() => loadIndex(dir), 'STRATA_INDEX_VERSION');
    expect(e.message).toContain(mf);
    expect(e.message).toMatch(/format version 5: this build reads versions 3 and 4/);
  });

  it('a version 2 manifest (rq2/rq3 rows laid out the old way) fails with STRATA_INDEX_VERSION saying how to rebuild', () => {
    const dir = copyGolden();
    const mf = editManifest(dir, (m) => {
      m.version = 2;
    });
    const e = expectStrataError(() => loadIndex(dir), 'STRATA_INDEX_VERSION');
    expect(e.message).toContain(mf);
    expect(e.message).toMatch(/format version 2: version 2 lays out .* rebuild it with strata build/);
  });

  it('a manifest that is not JSON, or of another format, fails with STRATA_INDEX_CORRUPT naming manifest.json', () => {
    const dir = copyGolden();
    const mf = join(dir, MANIFEST);
    const good = readFileSync(mf, 'utf8');
    writeFileSync(mf, good.slice(0, good.length / 2));
    expect(expectStrataError(() => loadIndex(dir), 'STRATA_INDEX_CORRUPT').message).toContain(mf);
    writeFileSync(mf, JSON.stringify({ ...(JSON.parse(good) as Manifest), format: 'other-index' }));
    expect(expectStrataError(() => loadIndex(dir), 'STRATA_INDEX_CORRUPT').message).toMatch(/other-index/);
  });

  // Every field a reader uses, removed or mistyped: each must be STRATA_INDEX_CORRUPT naming the
  // field (a tier entry without "file" used to be a raw TypeError). The golden stores are, in
  // order: adjacency dram, adjacency cxl, vectors dram, vectors cxl, codes, labels dram, labels cxl.
  it.each([
    ['stores.1.file', undefined, 'stores[1].file'],
    ['stores.0.file', '../escape.bin', 'stores[0].file'],
    ['stores.1.file', 'adjacency-nvm.bin', 'not listed in files'],
    ['stores.0', null, 'stores[0] must be an object'],
    ['stores.0.kind', 'edges', 'stores[0].kind'],
    ['stores.1.tier', 2, 'stores[1].tier'],
    ['stores.3.stride', 0, 'stores[3].stride'],
    ['stores', {}, 'stores must be a list'],
    ['tiers.0', null, 'tiers[0] must be an object'],
    ['tiers.1.kind', 'dram', 'tiers[1].kind'],
    ['tiers.1.bytes', -1, 'tiers[1].bytes'],
    ['tiers', [], 'tiers must list the dram and cxl tiers'],
    ['tiers.0.parts', { codes: 1 }, 'tiers[0].parts must add up to tiers[0].bytes'],
    ['tiers.1.parts', { vectors: -1 }, 'tiers[1].parts.vectors'],
    ['plan', undefined, 'plan must be an object'],
    ['plan.adjacencyInDram', 2001, 'plan.adjacencyInDram'],
    ['plan.vectorsInDram', -1, 'plan.vectorsInDram'],
    ['plan.reason', undefined, 'plan.reason'],
    ['plan.code.kind', 'pq', 'plan.code.kind'],
    ['plan.code.dims', 24, 'plan.code.dims must be a multiple of 16'],
    ['plan.code.dim', 32, 'plan.code.dim must equal dim'],
    ['plan.code', null, 'stores[4]: codes without plan.code'],
    ['plan.filterWalk', { ef: 64, selectivities: [0.1, 0.5], distances: [10, 5] }, 'plan.filterWalk.selectivities must descend'],
    ['plan.filterWalk', { ef: 64, selectivities: [0.5, 0.1], distances: [10] }, 'plan.filterWalk.selectivities and .distances'],
    ['plan.filterWalk', { ef: 64, selectivities: [0.5, 0.1], distances: [10, -1] }, 'plan.filterWalk.distances[1]'],
    ['plan.filterWalk', { selectivities: [0.5, 0.1], distances: [10, 20] }, 'plan.filterWalk.ef'],
    ['plan.filterWalk', { ef: 64, selectivities: [0.5, 0.1], distances: [10, 20], wide: { ef: 64, distances: [20, 40] } }, 'plan.filterWalk.wide.ef'],
    ['plan.filterWalk', { ef: 64, selectivities: [0.5, 0.1], distances: [10, 20], wide: { ef: 192, distances: [20] } }, 'plan.filterWalk.wide.distances'],
    ['files.codes.bin', undefined, 'stores[4].file "codes.bin" is not listed in files'],
    ['placement', undefined, 'placement must be an object'],
    ['placement.policy', 'psychic', 'placement.policy'],
    ['placement.predictedDramShare', 'high', 'placement.predictedDramShare'],
    ['build', undefined, 'build must be an object'],
    ['build.m', '16', 'build.m'],
    ['name', 7, 'name must be a string'],
    ['graph.entry', 2000, 'graph.entry'],
    ['graph.unreachable', undefined, 'graph.unreachable'],
    ['graph.upperNodes', 2001, 'graph.upperNodes'],
    ['files.graph.bin', 'x', 'files.graph.bin must be an object'],
  ])('a manifest with %s = %j fails with STRATA_INDEX_CORRUPT naming the field', (path, value, expected) => {
    const dir = copyGolden();
    const mf = join(dir, MANIFEST);
    const m = JSON.parse(readFileSync(mf, 'utf8')) as Record<string, unknown>;
    // "files.graph.bin": the key itself holds a dot.
    const keys = path.startsWith('files.') ? ['files', path.slice(6)] : path.split('.');
    let at = m as Record<string, unknown>;
    for (const k of keys.slice(0, -1)) at = at[k] as Record<string, unknown>;
    if (value === undefined) delete at[keys.at(-1)!];
    else at[keys.at(-1)!] = value;
    writeFileSync(mf, JSON.stringify(m));
    for (const load of [() => readManifest(dir), () => loadIndex(dir)]) {
      const e = expectStrataError(load, 'STRATA_INDEX_CORRUPT');
      expect(e.message).toContain(mf);
      expect(e.message).toContain(expected);
    }
  });

  it("a store entry that leaves a gap in, or overlaps, its store's node ids fails naming the entry and the start it must have", () => {
    const i = storeAt(goldenManifest, 'adjacency', 1);
    const split = goldenManifest.stores[i]!.start;
    for (const start of [split + 1, split - 1]) {
      const dir = copyGolden();
      const mf = editManifest(dir, (m) => {
        m.stores[i]!.start = start;
      });
      for (const load of [() => readManifest(dir), () => loadIndex(dir)]) {
        const e = expectStrataError(load, 'STRATA_INDEX_CORRUPT');
        expect(e.message).toContain(mf);
        expect(e.message).toContain(`stores[${i}].start must be ${split} (a store's tiers tile the node ids)`);
      }
    }
  });

  it('a store whose entries do not reach every node, or that is missing, fails naming the store and the nodes covered', () => {
    const cases: Array<[string, (m: Manifest) => void, string]> = [
      [
        'adjacency one node short',
        (m) => {
          m.stores[storeAt(m, 'adjacency', 1)]!.count -= 1;
        },
        `the adjacency store covers ${COUNT - 1} of ${COUNT} nodes`,
      ],
      [
        'no vectors',
        (m) => {
          m.stores = m.stores.filter((s) => s.kind !== 'vectors');
        },
        `the vectors store covers 0 of ${COUNT} nodes`,
      ],
      [
        'no codes while the plan has a code',
        (m) => {
          m.stores = m.stores.filter((s) => s.kind !== 'codes');
        },
        `the codes store covers 0 of ${COUNT} nodes`,
      ],
      [
        'labels counted twice',
        (m) => {
          m.stores.push({ ...m.stores[storeAt(m, 'labels', 1)]!, start: COUNT, count: 1 });
        },
        `stores[${goldenManifest.stores.length}].count must be an integer in 0..0`,
      ],
    ];
    for (const [what, edit, expected] of cases) {
      const dir = copyGolden();
      editManifest(dir, edit);
      for (const load of [() => readManifest(dir), () => loadIndex(dir)]) {
        expect(expectStrataError(load, 'STRATA_INDEX_CORRUPT').message, what).toContain(expected);
      }
    }
  });

  it('stores that tile the node ids at a split other than the plan’s fail the load naming the store and tier', () => {
    const cases: Array<[string, (m: Manifest) => void, string]> = [
      [
        'the split moved by one node in the stores',
        (m) => {
          m.stores[storeAt(m, 'adjacency', 0)]!.count += 1;
          m.stores[storeAt(m, 'adjacency', 1)]!.start += 1;
          m.stores[storeAt(m, 'adjacency', 1)]!.count -= 1;
        },
        'store adjacency in tier 0 disagrees with the plan',
      ],
      [
        'the split moved by one node in the plan',
        (m) => {
          m.plan.adjacencyInDram -= 1;
        },
        'store adjacency in tier 0 disagrees with the plan',
      ],
      [
        'vectors in DRAM the plan puts in CXL',
        (m) => {
          m.stores[storeAt(m, 'vectors', 0)]!.count = 10;
          m.stores[storeAt(m, 'vectors', 1)]!.start = 10;
          m.stores[storeAt(m, 'vectors', 1)]!.count = COUNT - 10;
        },
        'store vectors in tier 0 disagrees with the plan',
      ],
    ];
    for (const [what, edit, expected] of cases) {
      const dir = copyGolden();
      const mf = editManifest(dir, edit);
      // The manifest alone is consistent: only the plan and the stores disagree.
      expect(() => readManifest(dir), what).not.toThrow();
      const e = expectStrataError(() => loadIndex(dir), 'STRATA_INDEX_CORRUPT');
      expect(e.message, what).toContain(mf);
      expect(e.message, what).toContain(expected);
    }
  });

  it.each(DATA_FILES)('a bad magic number in %s (with a matching checksum) fails with STRATA_INDEX_CORRUPT "bad magic"', (name) => {
    const dir = copyGolden();
    const file = join(dir, name);
    const buf = readFileSync(file);
    buf.write('NOTSTRAT', 0, 'latin1');
    writeFileSync(file, buf);
    resealManifest(dir, name);
    const e = expectStrataError(() => loadIndex(dir), 'STRATA_INDEX_CORRUPT');
    expect(e.message).toContain(file);
    expect(e.message).toMatch(/bad magic "NOTSTRAT"/);
  });

  it.each(DATA_FILES)('a binary header of version 2 or 5 in %s (with a matching checksum) fails with STRATA_INDEX_VERSION', (name) => {
    for (const version of [2, 5]) {
      const dir = copyGolden();
      const file = join(dir, name);
      const buf = readFileSync(file);
      buf.writeUInt32LE(version, 8);
      writeFileSync(file, buf);
      resealManifest(dir, name);
      const e = expectStrataError(() => loadIndex(dir), 'STRATA_INDEX_VERSION');
      expect(e.message).toContain(file);
      expect(e.message).toContain(`format version ${version}, this build reads versions 3 and 4`);
    }
  });

  it('a graph.bin header whose node count or upper-node count disagrees with the manifest fails with STRATA_INDEX_CORRUPT', () => {
    const upper = goldenManifest.graph.upperNodes;
    for (const [field, value] of [
      [0, COUNT - 1],
      [6, upper + 1],
    ] as const) {
      const dir = copyGolden();
      const file = join(dir, GRAPH_FILE);
      setHeaderField(file, field, value);
      resealManifest(dir, GRAPH_FILE);
      const e = expectStrataError(() => loadIndex(dir), 'STRATA_INDEX_CORRUPT');
      expect(e.message).toContain(file);
      expect(e.message).toMatch(/header disagrees with the manifest/);
    }
    // The manifest's count of upper nodes is checked against the header too.
    const dir = copyGolden();
    editManifest(dir, (m) => {
      m.graph.upperNodes = upper - 1;
    });
    expect(expectStrataError(() => loadIndex(dir), 'STRATA_INDEX_CORRUPT').message).toContain(`${join(dir, GRAPH_FILE)}: header disagrees with the manifest`);
  });

  it('a graph.bin whose upper-layer sections do not fit the file (with a matching checksum) fails with STRATA_INDEX_CORRUPT', () => {
    const links = small.index.upper.links.length;
    for (const [words, why] of [
      [-1, 'header fields out of range'],
      [links + 100, 'sections run past the end of the file'],
    ] as const) {
      const dir = copyGolden();
      const file = join(dir, GRAPH_FILE);
      setHeaderField(file, 7, words);
      resealManifest(dir, GRAPH_FILE);
      const e = expectStrataError(() => loadIndex(dir), 'STRATA_INDEX_CORRUPT');
      expect(e.message).toBe(`${file}: ${why}`);
    }
  });

  it('a codes.bin header whose node count or code disagrees with the manifest (with a matching checksum) fails with STRATA_INDEX_CORRUPT', () => {
    const c = small.index.plan.code!;
    // Fields: count, kind, dim, dims, bits, centroids, stride.
    for (const [field, value] of [
      [0, COUNT + 1],
      [1, 1],
      [2, c.dim + 1],
      [3, c.dims + 16],
      [4, c.bits - 1],
      [5, c.centroids + 1],
      [6, c.stride + 2],
    ] as const) {
      const dir = copyGolden();
      const file = join(dir, CODES_FILE);
      setHeaderField(file, field, value);
      resealManifest(dir, CODES_FILE);
      const e = expectStrataError(() => loadIndex(dir), 'STRATA_INDEX_CORRUPT');
      expect(e.message, `field ${field}`).toBe(`${file}: header disagrees with the manifest (count or code)`);
    }
  });

  it('a store file header whose store, tier, node range or stride disagrees with the manifest (with a matching checksum) fails with STRATA_INDEX_CORRUPT', () => {
    const name = storeFileName('adjacency', 'cxl');
    // Fields: store kind, tier, start, count, stride.
    for (const [field, value] of [
      [0, 2],
      [1, 0],
      [2, 0],
      [3, COUNT],
      [4, 64],
    ] as const) {
      const dir = copyGolden();
      const file = join(dir, name);
      setHeaderField(file, field, value);
      resealManifest(dir, name);
      const e = expectStrataError(() => loadIndex(dir), 'STRATA_INDEX_CORRUPT');
      expect(e.message, `field ${field}`).toBe(`${file}: header disagrees with the manifest (store, tier, node range or record size)`);
    }
  });
});

describe('writeIndex is crash-safe and never clobbers by accident', () => {
  let local: TempDir;
  afterEach(() => local?.cleanup());

  /** Every file under `p` (or `p` itself) with its SHA-256. */
  function snapshot(p: string): Record<string, string> {
    if (!statSync(p).isDirectory()) return { '.': sha256(p) };
    return listing(p);
  }

  function listing(dir: string): Record<string, string> {
    const out: Record<string, string> = {};
    for (const n of readdirSync(dir)) out[n] = sha256(join(dir, n));
    return out;
  }

  it('refuses an existing directory without force (STRATA_INDEX_EXISTS) and leaves it untouched', () => {
    local = makeTempDir('strata-write-');
    const out = local.path('idx');
    mkdirSync(out);
    writeFileSync(join(out, 'keep.txt'), 'precious');
    const e = expectStrataError(() => writeIndex(small.index, out, small.info), 'STRATA_INDEX_EXISTS');
    expect(e.message).toContain(out);
    expect(listing(out)).toEqual({ 'keep.txt': sha256(join(out, 'keep.txt')) });
    expect(readFileSync(join(out, 'keep.txt'), 'utf8')).toBe('precious');
    expect(temporaries(local.dir)).toEqual([]);

    const dir = copyGolden();
    const before = listing(dir);
    expectStrataError(() => writeIndex(small.index, dir, small.info), 'STRATA_INDEX_EXISTS');
    expect(listing(dir)).toEqual(before);
  });

  it('with force replaces an index directory wholesale and leaves no temporaries, .old directories or intent records', () => {
    local = makeTempDir('strata-write-');
    const out = local.path('idx');
    const older = buildSmallIndex({ count: 300, queries: 1 });
    writeIndex(older.index, out, older.info);
    expect(loadIndex(out).index.meta.count).toBe(300);
    const m = writeIndex(small.index, out, small.info, { force: true });
    expect(readdirSync(out).sort()).toEqual([MANIFEST, ...DATA_FILES].sort());
    expect(readdirSync(local.dir)).toEqual(['idx']);
    expect(m.files).toEqual(goldenManifest.files);
    expectSameIndexData(small.index, loadIndex(out).index);
  });

  it('with force refuses, naming the path, anything but an index directory, and leaves it untouched', () => {
    local = makeTempDir('strata-write-');
    // a directory of user files (`--out ~/mine --force`)
    const mine = local.path('mine');
    mkdirSync(mine);
    writeFileSync(join(mine, 'thesis.tex'), 'precious');
    // a plain file (`--out data.fvecs --force`)
    const file = local.path('data.fvecs');
    writeFileSync(file, 'vectors');
    // an index directory into which the user dropped a file of their own
    const mixed = local.path('mixed');
    cpSync(golden, mixed, { recursive: true });
    writeFileSync(join(mixed, 'notes.txt'), 'mine');
    // a manifest of some other program
    const other = local.path('other');
    mkdirSync(other);
    writeFileSync(join(other, MANIFEST), JSON.stringify({ format: 'not-strata' }));
    // a symbolic link to an index (renaming would replace the link, not what it points to)
    const link = local.path('link');
    symlinkSync(golden, link);
    const cases: Array<[string, RegExp]> = [
      [link, /is a symbolic link/],
      [mine, /is a directory without a Strata manifest\.json/],
      [file, /is a file, not an index directory/],
      [mixed, /not index files \(notes\.txt\)/],
      [other, /not a Strata index manifest/],
    ];
    const before = Object.fromEntries(cases.map(([p]) => [p, snapshot(p)]));
    for (const [path, why] of cases) {
      const e = expectStrataError(() => writeIndex(small.index, path, small.info, { force: true }), 'STRATA_INDEX_EXISTS');
      expect(e.message).toContain(path);
      expect(e.message).toMatch(why);
      expect(e.details['path']).toBe(path);
    }
    for (const [path] of cases) expect(snapshot(path)).toEqual(before[path]);
    expect(temporaries(local.dir)).toEqual([]);
  });

  it('with force refuses an --out that is an input file or a directory holding one', () => {
    local = makeTempDir('strata-write-');
    const idx = local.path('idx');
    cpSync(golden, idx, { recursive: true });
    const input = local.path('data.fvecs');
    writeFileSync(input, 'vectors');
    const e1 = expectStrataError(() => writeIndex(small.index, input, small.info, { force: true, inputs: [input] }), 'STRATA_INDEX_EXISTS');
    expect(e1.message).toMatch(/is the input file itself/);
    // an input kept inside a directory that is otherwise a valid index
    const inner = join(idx, GRAPH_FILE);
    const e2 = expectStrataError(() => writeIndex(small.index, idx, small.info, { force: true, inputs: [inner] }), 'STRATA_INDEX_EXISTS');
    expect(e2.message).toContain(`holds the input ${inner}`);
    expect(readFileSync(input, 'utf8')).toBe('vectors');
    expect(verifyIndex(idx).ok).toBe(true);
  });

  it('fails before writing anything, naming the path, when the parent of --out is a file', () => {
    local = makeTempDir('strata-write-');
    writeFileSync(local.path('file'), 'x');
    const e = expectStrataError(() => writeIndex(small.index, local.path('file', 'idx'), small.info), 'STRATA_INVALID_ARGUMENT');
    expect(e.message).toContain(local.path('file'));
    expect(e.message).toMatch(/is not a directory/);
    expect(readdirSync(local.dir)).toEqual(['file']);
  });

  /** The id of a process that has exited. */
  function deadPid(): number {
    return Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);
  }

  it('removes temporaries of dead builds at the next write into the same directory, and keeps live or foreign ones', () => {
    local = makeTempDir('strata-write-');
    const dead = deadPid();
    const stale = local.path(`.other.tmp-${dead}-${Date.now() - 60_000}`);
    cpSync(golden, stale, { recursive: true });
    const staleOld = local.path(`.idx.tmp-${dead}-${Date.now() - 60_000}.old`);
    cpSync(golden, staleOld, { recursive: true });
    const live = local.path(`.idx.tmp-${process.pid}-${Date.now()}`);
    cpSync(golden, live, { recursive: true });
    const foreign = local.path(`.photos.tmp-${dead}-1`);
    mkdirSync(foreign);
    writeFileSync(join(foreign, 'cat.jpg'), 'meow');
    writeIndex(small.index, local.path('idx'), small.info);
    expect(readdirSync(local.dir).sort()).toEqual(['idx', basename(foreign), basename(live)].sort());
  });

  it('recovers the new index from a swap interrupted between its two renames, at load', () => {
    local = makeTempDir('strata-write-');
    const out = local.path('idx');
    const older = buildSmallIndex({ count: 300, queries: 1 });
    writeIndex(older.index, out, older.info);
    // The state a fallback swap leaves when killed between its renames: the old index moved aside,
    // the new one complete in its temporary, the intent record naming both, the process gone.
    const dead = deadPid();
    const at = Date.now() - 1000;
    const next = `.idx.tmp-${dead}-${at}`;
    cpSync(golden, local.path(next), { recursive: true });
    renameSync(out, local.path(`${next}.old`));
    writeFileSync(intentPath(out), JSON.stringify({ next, old: `${next}.old`, pid: dead, at }));
    expect(existsSync(out)).toBe(false);
    expect(loadIndex(out).index.meta.count).toBe(2000);
    expect(existsSync(intentPath(out))).toBe(false);
    // the old copy is a stale temporary now, removed by the next write into the directory
    writeIndex(small.index, local.path('another'), small.info);
    expect(readdirSync(local.dir).sort()).toEqual(['another', 'idx']);
  });

  it('leaves a swap alone while the process that started it runs', () => {
    local = makeTempDir('strata-write-');
    const out = local.path('idx');
    const next = `.idx.tmp-${process.pid}-${Date.now()}`;
    cpSync(golden, local.path(next), { recursive: true });
    writeFileSync(intentPath(out), JSON.stringify({ next, old: `${next}.old`, pid: process.pid, at: Date.now() }));
    expect(recoverInterruptedSwap(out)).toBe('in-progress');
    expect(existsSync(out)).toBe(false);
  });

  it('does not let an intent record steer renames outside the index directory', () => {
    local = makeTempDir('strata-write-');
    const out = local.path('idx');
    const victim = local.path('victim');
    cpSync(golden, victim, { recursive: true });
    writeFileSync(intentPath(out), JSON.stringify({ next: '../victim', old: 'victim', pid: deadPid(), at: 0 }));
    expect(recoverInterruptedSwap(out)).toBe('none');
    expect(existsSync(victim)).toBe(true);
    expect(existsSync(out)).toBe(false);
  });

  /**
   * small.index whose CXL vector segments cannot be read: the write fails half-way, after graph.bin,
   * codes.bin and the neighbour-list files are written.
   */
  function failingIndex(): TieredIndex {
    const boom = (): Uint8Array => {
      throw new Error('simulated I/O failure');
    };
    const v = small.index.vectors;
    const segments = v.segments.map((s) => Object.assign(Object.create(s) as Segment, { recordBytes: boom }));
    const vectors = Object.assign(Object.create(v) as NodeStore, { segments });
    // Everything else (meta, plan, the other stores, methods) comes from small.index itself.
    return Object.assign(Object.create(small.index) as TieredIndex, { vectors });
  }

  it('removes its temporary directory and creates nothing when the write fails half-way', () => {
    local = makeTempDir('strata-write-');
    const out = local.path('idx');
    expect(() => writeIndex(failingIndex(), out, small.info)).toThrow('simulated I/O failure');
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(local.dir)).toEqual([]);
  });

  it('keeps the previous index intact when a forced replacement fails half-way', () => {
    const dir = copyGolden();
    const before = listing(dir);
    expect(() => writeIndex(failingIndex(), dir, small.info, { force: true })).toThrow('simulated I/O failure');
    expect(listing(dir)).toEqual(before);
    expect(temporaries(tmp.dir)).toEqual([]);
    expect(verifyIndex(dir).ok).toBe(true);
  });
});

describe('verifyIndex / checkGraph', () => {
  it('reports a freshly written index as ok with no errors', () => {
    const r = verifyIndex(golden);
    expect(r).toEqual({ ok: true, nodes: COUNT, errors: [], unreachable: small.placed.unreachable, checksums: 'ok', payloads: null });
  });

  it.each([storeFileName('adjacency', 'cxl'), CODES_FILE])('throws STRATA_INDEX_CORRUPT instead of reporting when %s is damaged', (name) => {
    const dir = copyGolden();
    flipByte(join(dir, name), (size) => size - 5);
    const e = expectStrataError(() => verifyIndex(dir), 'STRATA_INDEX_CORRUPT');
    expect(e.message).toContain(join(dir, name));
  });

  /** Rewrites node v's level-0 list in memory. */
  function withLinks(index: TieredIndex, v: number, links: number[], count = links.length): void {
    const { seg, at } = index.neighbourBlock(v);
    seg.u32[at] = count;
    links.forEach((u, j) => (seg.u32[at + 1 + j] = u));
  }

  it('reports a level-0 self loop and an out-of-range link by node', () => {
    const { index } = loadIndex(golden);
    expect(checkGraph(index).errors).toEqual([]);
    const self = 5;
    const far = 1500;
    expect(index.adjacency.tierOf(far)).toBe(1); // a node whose list is in CXL
    withLinks(index, self, [self]);
    withLinks(index, far, [COUNT + 7]);
    const { errors } = checkGraph(index);
    expect(errors).toEqual([`node ${self}: level-0 self loop`, `node ${far}: level-0 link to 2007, out of range`]);
  });

  it('reports a list longer than maxM0, an entry point below the top level and a bad upper link', () => {
    const { index } = loadIndex(golden);
    withLinks(index, 10, [], 17);
    const m = index.meta;
    const u = index.upper;
    // A node of level >= 1 that is not the entry: point its first level-1 link at itself.
    const { v: upper, block } = upperNode(index);
    u.links[block + 1] = upper;
    const errors = checkGraph(index).errors;
    expect(errors).toContain('node 10: 17 level-0 links, more than 16');
    expect(errors).toContain(`node ${upper}: self loop on level 1`);
    expect(errors).toHaveLength(2);

    const lowEntry = levelZeroNode(index);
    (index.meta as { entry: number }).entry = lowEntry;
    expect(checkGraph(index).errors[0]).toBe(`entry point ${lowEntry} is on level 0, expected the top level ${m.maxLevel}`);
  });

  it('counts nodes cut off from the entry as unreachable, and verifyIndex reports a written broken graph as not ok', () => {
    const { index } = loadIndex(golden);
    // Make node v unreachable: remove it from every level-0 list that holds it.
    const v = 1234;
    const words = index.adjacency.shape.stride >>> 2;
    for (let u = 0; u < index.meta.count; u++) {
      const { seg, at } = index.neighbourBlock(u);
      const n = seg.u32[at]!;
      const kept = Array.from(seg.u32.subarray(at + 1, at + 1 + n)).filter((x) => x !== v);
      seg.u32.fill(0, at, at + words);
      withLinks(index, u, kept);
    }
    expect(v).not.toBe(index.meta.entry);
    // Independent BFS over the modified level-0 lists.
    const seen = new Uint8Array(index.meta.count);
    const queue = [index.meta.entry];
    seen[index.meta.entry] = 1;
    while (queue.length > 0) {
      const u = queue.pop()!;
      const { seg, at } = index.neighbourBlock(u);
      for (let j = 1; j <= seg.u32[at]!; j++) {
        const w = seg.u32[at + j]!;
        if (!seen[w]) {
          seen[w] = 1;
          queue.push(w);
        }
      }
    }
    const expected = index.meta.count - seen.reduce((a, b) => a + b, 0);
    expect(seen[v]).toBe(0);
    expect(checkGraph(index).unreachable).toBe(expected);
    expect(expected).toBeGreaterThan(checkGraph(loadIndex(golden).index).unreachable);

    withLinks(index, 3, [3]);
    const dir = tmp.path('broken-graph');
    writeIndex(index, dir, small.info);
    const r = verifyIndex(dir);
    expect(r.ok).toBe(false);
    expect(r.checksums).toBe('ok');
    expect(r.errors).toEqual(['node 3: level-0 self loop']);
  });

  it('stops collecting errors at maxErrors', () => {
    const { index } = loadIndex(golden);
    for (let v = 0; v < 30; v++) withLinks(index, v, [v]);
    expect(checkGraph(index).errors).toHaveLength(20);
    expect(checkGraph(index, 3).errors).toEqual(['node 0: level-0 self loop', 'node 1: level-0 self loop', 'node 2: level-0 self loop']);
  });
});

/**
 * A node of level >= `level` other than the entry point with links on level 1 (and on `level`):
 * its position k in the upper layers and the u32 index of its level-`level` block in the links.
 */
function upperNode(index: TieredIndex, level = 1): { v: number; k: number; block: number } {
  const u = index.upper;
  const words = 1 + index.meta.maxM;
  for (let k = 0; k < u.ids.length; k++) {
    const v = u.ids[k]!;
    const block = u.offsets[k]! + (level - 1) * words;
    if (v !== index.meta.entry && u.levels[k]! >= level && u.links[u.offsets[k]!]! > 0 && u.links[block]! > 0) return { v, k, block };
  }
  throw new Error(`no upper-layer node of level ${level}`);
}

/** A node of level 0 only (not in the upper layers). */
function levelZeroNode(index: TieredIndex): number {
  for (let v = 0; v < index.meta.count; v++) if (upperIndexOf(index.upper, v) < 0) return v;
  throw new Error('no level-0 node');
}

/**
 * Points every upper-layer link to v at the entry point instead (on every level), so that damage
 * to v's own entry reports on v alone and not first on the nodes linking to it.
 */
function detach(index: TieredIndex, v: number): void {
  const u = index.upper;
  const words = 1 + index.meta.maxM;
  expect(v).not.toBe(index.meta.entry);
  for (let k = 0; k < u.ids.length; k++) {
    for (let l = 0; l < u.levels[k]!; l++) {
      const b = u.offsets[k]! + l * words;
      for (let j = 1; j <= u.links[b]!; j++) if (u.links[b + j] === v) u.links[b + j] = index.meta.entry;
    }
  }
}

describe('loading refuses a graph that breaks the link invariants, even with valid checksums', () => {
  /** Writes the golden index with one defect applied in memory: the checksums are computed over the bad bytes. */
  function writeDamaged(name: string, damage: (index: TieredIndex) => string): { dir: string; expected: string } {
    const { index } = loadIndex(golden);
    const expected = damage(index);
    const dir = tmp.path(`damaged-${name}`);
    writeIndex(index, dir, small.info);
    return { dir, expected };
  }

  function setLevel0(index: TieredIndex, v: number, count: number, links: number[] = []): void {
    const { seg, at } = index.neighbourBlock(v);
    seg.u32[at] = count;
    links.forEach((u, j) => (seg.u32[at + 1 + j] = u));
  }

  const CXL_NODE = 1500;
  it.each([
    [
      'an out-of-range level-0 link',
      (ix: TieredIndex) => {
        expect(ix.adjacency.tierOf(CXL_NODE)).toBe(1);
        setLevel0(ix, CXL_NODE, 1, [COUNT + 7]);
        return `node ${CXL_NODE}: level-0 link to 2007, out of range`;
      },
    ],
    [
      // The largest a file can hold: the writer keeps only the count word's low half (the high half
      // is an access counter in memory: list-pool.ts).
      'a level-0 link count of 2^16 - 1',
      (ix: TieredIndex) => {
        setLevel0(ix, 42, 0xffff);
        return 'node 42: 65535 level-0 links, more than 16';
      },
    ],
    [
      'a level-0 link count just above maxM0',
      (ix: TieredIndex) => {
        setLevel0(ix, 43, 17);
        return 'node 43: 17 level-0 links, more than 16';
      },
    ],
    [
      'an upper-layer link to a node not on that layer',
      (ix: TieredIndex) => {
        const { v, block } = upperNode(ix);
        const low = levelZeroNode(ix);
        ix.upper.links[block + 1] = low;
        return `node ${v}: level-1 link to ${low}, which is not on level 1`;
      },
    ],
    [
      'an upper-layer link out of range',
      (ix: TieredIndex) => {
        const { v, block } = upperNode(ix);
        ix.upper.links[block + 1] = COUNT + 3;
        return `node ${v}: level-1 link to 2003, which is not on level 1`;
      },
    ],
    [
      'a level-2 link to a node only on level 1',
      (ix: TieredIndex) => {
        const { v, block } = upperNode(ix, 2);
        const k1 = ix.upper.levels.indexOf(1);
        const w = ix.upper.ids[k1]!;
        ix.upper.links[block + 1] = w;
        return `node ${v}: level-2 link to ${w}, which is not on level 2`;
      },
    ],
    [
      'an upper-layer link count above maxM',
      (ix: TieredIndex) => {
        const { v, block } = upperNode(ix);
        ix.upper.links[block] = 1000;
        return `node ${v}: 1000 links on level 1, more than 8`;
      },
    ],
    [
      'an upper-layer offset past the end of the links',
      (ix: TieredIndex) => {
        const { v, k } = upperNode(ix);
        const words = ix.upper.links.length;
        ix.upper.offsets[k] = words;
        return `node ${v}: level ${ix.upper.levels[k]} without upper links (offset ${words} of ${words} words)`;
      },
    ],
    [
      'a negative upper-layer offset',
      (ix: TieredIndex) => {
        const { v, k } = upperNode(ix);
        ix.upper.offsets[k] = -1;
        return `node ${v}: level ${ix.upper.levels[k]} without upper links (offset -1 of`;
      },
    ],
    [
      'an upper-layer node listed with level 0',
      (ix: TieredIndex) => {
        const { v, k } = upperNode(ix);
        detach(ix, v);
        ix.upper.levels[k] = 0;
        return `node ${v}: level 0 outside 1..${ix.meta.maxLevel}`;
      },
    ],
    [
      'an upper-layer node above the top level',
      (ix: TieredIndex) => {
        const { v, k } = upperNode(ix);
        ix.upper.levels[k] = ix.meta.maxLevel + 1;
        return `node ${v}: level ${ix.meta.maxLevel + 1} outside 1..${ix.meta.maxLevel}`;
      },
    ],
    [
      'upper-layer node ids out of order',
      (ix: TieredIndex) => {
        const u = ix.upper;
        // Two neighbouring entries, neither the entry point, swapped: the second is then smaller.
        const k = u.ids.findIndex((id, i) => i > 0 && id !== ix.meta.entry && u.ids[i + 1] !== undefined && u.ids[i + 1] !== ix.meta.entry);
        const [a, b] = [u.ids[k]!, u.ids[k + 1]!];
        detach(ix, a);
        detach(ix, b);
        u.ids[k] = b;
        u.ids[k + 1] = a;
        return `upper layers: node ${a} out of range or out of order`;
      },
    ],
    [
      'an upper-layer node id out of range',
      (ix: TieredIndex) => {
        const u = ix.upper;
        const last = u.ids.length - 1;
        detach(ix, u.ids[last]!);
        u.ids[last] = COUNT + 5;
        return `upper layers: node ${COUNT + 5} out of range or out of order`;
      },
    ],
  ])('%s: loadIndex and openIndex fail with STRATA_INDEX_CORRUPT naming the node; verify reports it', (name, damage) => {
    const { dir, expected } = writeDamaged(name.replace(/\W+/g, '-'), damage);
    for (const load of [() => loadIndex(dir), () => openIndex(dir, { mode: 'emulate' })]) {
      const e = expectStrataError(load, 'STRATA_INDEX_CORRUPT');
      expect(e.message).toContain(dir);
      expect(e.message).toContain(expected);
    }
    const r = verifyIndex(dir);
    expect(r.ok).toBe(false);
    expect(r.errors.some((x) => x.includes(expected))).toBe(true);
  });

  it('an entry point on level 0, or whose level is below the top level, fails the load', () => {
    const { dir: low } = writeDamaged('entry-level-0', (ix) => {
      const v = levelZeroNode(ix);
      (ix.meta as { entry: number }).entry = v;
      return '';
    });
    expect(expectStrataError(() => loadIndex(low), 'STRATA_INDEX_CORRUPT').message).toMatch(/entry point \d+ is on level 0, expected the top level/);
    const { dir: lowered } = writeDamaged('entry-level-lowered', (ix) => {
      const k = upperIndexOf(ix.upper, ix.meta.entry);
      expect(ix.meta.maxLevel).toBeGreaterThanOrEqual(2);
      ix.upper.levels[k] = ix.meta.maxLevel - 1;
      return '';
    });
    const e = expectStrataError(() => loadIndex(lowered), 'STRATA_INDEX_CORRUPT');
    expect(e.message).toContain(`is on level ${small.index.meta.maxLevel - 1}, expected the top level ${small.index.meta.maxLevel}`);
  });

  it('still loads a graph whose only defect is a self loop (harmless to a search; verify reports it)', () => {
    const { dir } = writeDamaged('self-loop', (ix) => {
      setLevel0(ix, 7, 1, [7]);
      return '';
    });
    expect(loadIndex(dir).index.meta.count).toBe(COUNT);
    expect(verifyIndex(dir).errors).toEqual(['node 7: level-0 self loop']);
  });
});

describe('StrataError shape of load failures', () => {
  it('carries the file in details and is an Error subclass', () => {
    const dir = copyGolden();
    truncateSync(join(dir, GRAPH_FILE), 10);
    const e = thrown(() => loadIndex(dir));
    expect(e).toBeInstanceOf(StrataError);
    expect(e).toBeInstanceOf(Error);
    expect((e as StrataError).details['file']).toBe(join(dir, GRAPH_FILE));
  });
});
