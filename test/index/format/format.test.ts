// The on-disk index format: write/load round trips (one segment per tier and many), search
// equivalence after reloading, detection of damaged, truncated, missing or foreign files, the
// crash-safe write (no partial directories, no clobbering without force) and graph verification.
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { StrataError } from '../../../common/errors.js';
import { FORMAT_VERSION, GRAPH_FILE, MANIFEST, tierFileName } from '../../../index/format/constants.js';
import { loadIndex, readManifest } from '../../../index/format/load-index.js';
import type { Manifest } from '../../../index/format/manifest.js';
import { checkGraph, verifyIndex } from '../../../index/format/verify-index.js';
import { intentPath, recoverInterruptedSwap } from '../../../index/format/replace-dir.js';
import { writeIndex } from '../../../index/format/write-index.js';
import { openIndex } from '../../../index/open-index.js';
import { Searcher } from '../../../index/search/searcher.js';
import { STAT } from '../../../index/search/stats.js';
import type { TieredIndex } from '../../../index/tiered/tiered-index.js';
import { buildSmallIndex, type SmallIndex } from '../../helpers/small-index.js';
import { expectStrataError, makeTempDir, thrown, type TempDir } from '../../helpers/temp.js';

const DATA_FILES = [GRAPH_FILE, tierFileName(0, 'dram'), tierFileName(1, 'cxl')] as const;

let small: SmallIndex;
let tmp: TempDir;
/** A written copy of `small`, never modified: tests that damage files work on copies of it. */
let golden: string;
let goldenManifest: Manifest;
let caseNo = 0;

beforeAll(() => {
  small = buildSmallIndex();
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

function expectSameIndexData(a: TieredIndex, b: TieredIndex): void {
  expect(b.meta).toEqual(a.meta);
  expect(Array.from(b.labels)).toEqual(Array.from(a.labels));
  expect(Array.from(b.levels)).toEqual(Array.from(a.levels));
  expect(Array.from(b.upperOffset)).toEqual(Array.from(a.upperOffset));
  expect(Array.from(b.upperLinks)).toEqual(Array.from(a.upperLinks));
  expect(b.shape.adjStride).toBe(a.shape.adjStride);
}

describe('writeIndex / loadIndex round trip', () => {
  it('writes exactly manifest.json, graph.bin and one file per tier, whose sizes and SHA-256 match the manifest', () => {
    expect(readdirSync(golden).sort()).toEqual([MANIFEST, ...DATA_FILES].sort());
    expect(Object.keys(goldenManifest.files).sort()).toEqual([...DATA_FILES].sort());
    for (const name of DATA_FILES) {
      const f = join(golden, name);
      expect(goldenManifest.files[name]).toEqual({ bytes: readFileSync(f).byteLength, sha256: sha256(f) });
    }
    expect(temporaries(tmp.dir)).toEqual([]);
  });

  it('records format, version, shape, tier ranges and placement in the manifest', () => {
    const m = readManifest(golden);
    const { index, placement, info } = small;
    expect(m).toEqual(goldenManifest);
    expect(m.format).toBe('strata-index');
    expect(m.version).toBe(FORMAT_VERSION);
    expect([m.count, m.dim, m.metric]).toEqual([2000, 16, 'l2']);
    expect(m.graph).toEqual({ maxM0: 16, maxM: 8, entry: index.meta.entry, maxLevel: index.meta.maxLevel, unreachable: placement.unreachable });
    const perNode = (1 + 16 + 16) * 4;
    const d = placement.dramCount;
    expect(d).toBeGreaterThan(0);
    expect(d).toBeLessThan(2000);
    expect(m.tiers).toEqual([
      { index: 0, kind: 'dram', start: 0, end: d, bytes: d * perNode, file: 'tier-0-dram.bin' },
      { index: 1, kind: 'cxl', start: d, end: 2000, bytes: (2000 - d) * perNode, file: 'tier-1-cxl.bin' },
    ]);
    expect(m.placement).toEqual(info.placement);
    expect(m.build).toEqual(info.build);
    expect(m.name).toBe('small');
    expect(Number.isNaN(Date.parse(m.createdAt))).toBe(false);
  });

  it("loads back equal meta, labels, levels, upper links and every segment's adjacency and vector bytes", () => {
    const { index: loaded, manifest, dir } = loadIndex(golden);
    const orig = small.index;
    expect(dir).toBe(golden);
    expect(manifest).toEqual(goldenManifest);
    expectSameIndexData(orig, loaded);
    expect(loaded.segments.length).toBe(orig.segments.length);
    loaded.tiers.forEach((t, i) => {
      expect([t.start, t.end, t.kind]).toEqual([orig.tiers[i]!.start, orig.tiers[i]!.end, orig.tiers[i]!.kind]);
    });
    loaded.segments.forEach((s, i) => {
      const o = orig.segments[i]!;
      expect([s.tier, s.start, s.count]).toEqual([o.tier, o.start, o.count]);
      expectSameBytes(s.adjacencyBytes(), o.adjacencyBytes(), `segment ${i} adjacency`);
      expectSameBytes(s.vectorBytes(), o.vectorBytes(), `segment ${i} vectors`);
    });
  });

  it('with segmentBytes 65536 on load splits each tier over several segments holding the same lists and vectors', () => {
    const { index: loaded } = loadIndex(golden, { segmentBytes: 65536 });
    const orig = small.index;
    expectSameIndexData(orig, loaded);
    expect(loaded.tiers[0]!.segments.length).toBeGreaterThan(1);
    expect(loaded.tiers[1]!.segments.length).toBeGreaterThan(1);
    // Segments tile each tier's id range without gaps or overlaps.
    for (const t of loaded.tiers) {
      let next = t.start;
      for (const s of t.segments) {
        expect(s.start).toBe(next);
        expect(s.region.bytes).toBeLessThanOrEqual(65536);
        next += s.count;
      }
      expect(next).toBe(t.end);
    }
    const stride = orig.shape.adjStride;
    for (let v = 0; v < orig.meta.count; v++) {
      const a = orig.neighbourBlock(v);
      const b = loaded.neighbourBlock(v);
      const la = Array.from(a.seg.u32.subarray(a.at, a.at + stride));
      const lb = Array.from(b.seg.u32.subarray(b.at, b.at + stride));
      if (la.join() !== lb.join()) expect(lb, `node ${v} neighbour list`).toEqual(la);
      expectSameBytes(new Uint8Array(loaded.vectorOf(v).slice().buffer), new Uint8Array(orig.vectorOf(v).slice().buffer), `node ${v} vector`);
    }
  });

  it('searches on the reloaded many-segment index return the ids, distances and per-tier reads of the in-memory index', () => {
    const { index: loaded } = loadIndex(golden, { segmentBytes: 65536 });
    const a = new Searcher(small.index);
    const b = new Searcher(loaded);
    try {
      const dim = 16;
      const nq = small.queries.length / dim;
      let cxlReads = 0;
      for (let q = 0; q < nq; q++) {
        const v = small.queries.subarray(q * dim, (q + 1) * dim);
        const ra = a.search(v, 10, 40);
        const rb = b.search(v, 10, 40);
        expect(ra.ids.length).toBe(10);
        expect(Array.from(rb.ids)).toEqual(Array.from(ra.ids));
        expect(Array.from(rb.distances)).toEqual(Array.from(ra.distances));
        for (const f of [STAT.hops, STAT.distances, STAT.adjReadsDram, STAT.adjReadsCxl, STAT.vecReadsDram, STAT.vecReadsCxl]) {
          expect(rb.stats[f], `query ${q}, stat ${f}`).toBe(ra.stats[f]);
        }
        cxlReads += ra.stats[STAT.vecReadsCxl]!;
        const ea = a.exact(v, 10);
        const eb = b.exact(v, 10);
        expect(Array.from(eb.ids)).toEqual(Array.from(ea.ids));
        expect(Array.from(eb.distances)).toEqual(Array.from(ea.distances));
      }
      expect(cxlReads).toBeGreaterThan(0); // the searches did cross into the second tier
    } finally {
      a.close();
      b.close();
    }
  });

  it.each([
    ['an empty DRAM tier', 0],
    ['an empty CXL tier', 1],
  ])('round-trips an index with %s', (_label, share) => {
    const s = buildSmallIndex({ count: 300, dramShare: share, queries: 5 });
    const expectedDram = share === 0 ? 0 : 300;
    expect(s.index.meta.dramCount).toBe(expectedDram);
    const dir = tmp.path(`edge-${share}`);
    writeIndex(s.index, dir, s.info);
    const { index } = loadIndex(dir);
    expectSameIndexData(s.index, index);
    expect(index.tiers.map((t) => t.segments.length)).toEqual(share === 0 ? [0, 1] : [1, 0]);
    const a = new Searcher(s.index);
    const b = new Searcher(index);
    try {
      const q = s.queries.subarray(0, 16);
      expect(Array.from(b.search(q, 5, 20).ids)).toEqual(Array.from(a.search(q, 5, 20).ids));
    } finally {
      a.close();
      b.close();
    }
    expect(verifyIndex(dir).ok).toBe(true);
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
    truncateSync(file, size - 100);
    const e = expectStrataError(() => loadIndex(dir), 'STRATA_INDEX_CORRUPT');
    expect(e.message).toContain(file);
    expect(e.message).toContain(`${size - 100} bytes`);
    expect(e.message).toContain(`${size}`);
  });

  it.each(DATA_FILES)('a missing %s fails with STRATA_INDEX_CORRUPT naming that file', (name) => {
    const dir = copyGolden();
    rmSync(join(dir, name));
    const e = expectStrataError(() => loadIndex(dir), 'STRATA_INDEX_CORRUPT');
    expect(e.message).toContain(join(dir, name));
    expect(e.message).toMatch(/missing/);
  });

  it('a directory without manifest.json fails with STRATA_INDEX_NOT_FOUND naming the directory', () => {
    const dir = copyGolden();
    rmSync(join(dir, MANIFEST));
    const e = expectStrataError(() => loadIndex(dir), 'STRATA_INDEX_NOT_FOUND');
    expect(e.message).toContain(dir);
    expectStrataError(() => loadIndex(tmp.path('no-such-dir')), 'STRATA_INDEX_NOT_FOUND');
  });

  it('a manifest with version 2 fails with STRATA_INDEX_VERSION', () => {
    const dir = copyGolden();
    const mf = join(dir, MANIFEST);
    const m = JSON.parse(readFileSync(mf, 'utf8')) as Manifest;
    writeFileSync(mf, JSON.stringify({ ...m, version: 2 }));
    const e = expectStrataError(() => loadIndex(dir), 'STRATA_INDEX_VERSION');
    expect(e.message).toContain(mf);
    expect(e.message).toMatch(/version 2/);
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
  // field (a tier entry without "file" used to be a raw TypeError).
  it.each([
    ['tiers.1.file', undefined, 'tiers[1].file'],
    ['tiers.0.file', '../escape.bin', 'tiers[0].file'],
    ['tiers.1.file', 'tier-9-cxl.bin', 'not listed in files'],
    ['tiers.0', null, 'tiers[0] must be an object'],
    ['tiers.1.kind', 'dram', 'tiers[1].kind'],
    ['tiers.1.start', 3, 'tiers[1].start'],
    ['tiers.1.end', 1999, 'tiers end at node 1999'],
    ['placement', undefined, 'placement must be an object'],
    ['placement.policy', 'psychic', 'placement.policy'],
    ['placement.predictedDramShare', 'high', 'placement.predictedDramShare'],
    ['build', undefined, 'build must be an object'],
    ['build.m', '16', 'build.m'],
    ['name', 7, 'name must be a string'],
    ['graph.entry', 2000, 'graph.entry'],
    ['graph.unreachable', undefined, 'graph.unreachable'],
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

  it.each(DATA_FILES)('a binary header of version 2 in %s (with a matching checksum) fails with STRATA_INDEX_VERSION', (name) => {
    const dir = copyGolden();
    const file = join(dir, name);
    const buf = readFileSync(file);
    buf.writeUInt32LE(2, 8);
    writeFileSync(file, buf);
    resealManifest(dir, name);
    const e = expectStrataError(() => loadIndex(dir), 'STRATA_INDEX_VERSION');
    expect(e.message).toContain(file);
  });

  it('a graph.bin header whose node count disagrees with the manifest fails with STRATA_INDEX_CORRUPT', () => {
    const dir = copyGolden();
    const file = join(dir, GRAPH_FILE);
    const buf = readFileSync(file);
    buf.writeInt32LE(1999, 12);
    writeFileSync(file, buf);
    resealManifest(dir, GRAPH_FILE);
    const e = expectStrataError(() => loadIndex(dir), 'STRATA_INDEX_CORRUPT');
    expect(e.message).toContain(file);
    expect(e.message).toMatch(/disagrees with the manifest/);
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

  /** small.index with tier segments whose bytes cannot be read: the write fails half-way. */
  function failingIndex(): TieredIndex {
    const boom = (): Uint8Array => {
      throw new Error('simulated I/O failure');
    };
    const tiers = small.index.tiers.map((t) => ({ ...t, segments: t.segments.map((s) => ({ ...s, adjacencyBytes: boom, vectorBytes: boom })) }));
    return { ...small.index, tiers } as unknown as TieredIndex;
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
    expect(r).toEqual({ ok: true, nodes: 2000, errors: [], unreachable: small.placement.unreachable, checksums: 'ok' });
  });

  it('throws STRATA_INDEX_CORRUPT instead of reporting when a file is damaged', () => {
    const dir = copyGolden();
    flipByte(join(dir, tierFileName(1, 'cxl')), (size) => size - 5);
    const e = expectStrataError(() => verifyIndex(dir), 'STRATA_INDEX_CORRUPT');
    expect(e.message).toContain(tierFileName(1, 'cxl'));
  });

  /** Loads the golden index and rewrites node v's level-0 list in memory. */
  function withLinks(index: TieredIndex, v: number, links: number[], count = links.length): void {
    const { seg, at } = index.neighbourBlock(v);
    seg.u32[at] = count;
    links.forEach((u, j) => (seg.u32[at + 1 + j] = u));
  }

  it('reports a level-0 self loop and an out-of-range link by node', () => {
    const { index } = loadIndex(golden);
    expect(checkGraph(index).errors).toEqual([]);
    const self = 5;
    const far = 1500; // a CXL-tier node
    withLinks(index, self, [self]);
    withLinks(index, far, [2000 + 7]);
    const { errors } = checkGraph(index);
    expect(errors).toEqual([`node ${self}: level-0 self loop`, `node ${far}: level-0 link to 2007, out of range`]);
  });

  it('reports a list longer than maxM0, an entry point below the top level and a bad upper link', () => {
    const { index } = loadIndex(golden);
    withLinks(index, 10, [], 17);
    const m = index.meta;
    // A node of level >= 1 that is not the entry: point its first level-1 link at itself.
    let upper = -1;
    for (let v = 0; v < m.count && upper < 0; v++) if (v !== m.entry && index.levels[v]! >= 1 && index.upperLinks[index.upperOffset[v]!]! > 0) upper = v;
    expect(upper).toBeGreaterThanOrEqual(0);
    index.upperLinks[index.upperOffset[upper]! + 1] = upper;
    const errors = checkGraph(index).errors;
    expect(errors).toContain('node 10: 17 level-0 links, more than 16');
    expect(errors).toContain(`node ${upper}: self loop on level 1`);
    expect(errors).toHaveLength(2);

    const lowEntry = index.levels.indexOf(0);
    (index.meta as { entry: number }).entry = lowEntry;
    expect(checkGraph(index).errors[0]).toBe(`entry point ${lowEntry} is on level 0, expected the top level ${m.maxLevel}`);
  });

  it('counts nodes cut off from the entry as unreachable, and verifyIndex reports a written broken graph as not ok', () => {
    const { index } = loadIndex(golden);
    // Make node v unreachable: remove it from every level-0 list that holds it.
    const v = 1234;
    const stride = index.shape.adjStride;
    for (let u = 0; u < index.meta.count; u++) {
      const { seg, at } = index.neighbourBlock(u);
      const n = seg.u32[at]!;
      const kept = Array.from(seg.u32.subarray(at + 1, at + 1 + n)).filter((x) => x !== v);
      seg.u32.fill(0, at, at + stride);
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

describe('loading refuses a graph that breaks the link invariants, even with valid checksums', () => {
  /** Writes the golden index with one defect applied in memory: the checksums are computed over the bad bytes. */
  function writeDamaged(name: string, damage: (index: TieredIndex) => void): string {
    const { index } = loadIndex(golden);
    damage(index);
    const dir = tmp.path(`damaged-${name}`);
    writeIndex(index, dir, small.info);
    return dir;
  }

  function setLevel0(index: TieredIndex, v: number, count: number, links: number[] = []): void {
    const { seg, at } = index.neighbourBlock(v);
    seg.u32[at] = count;
    links.forEach((u, j) => (seg.u32[at + 1 + j] = u));
  }

  /** A node with upper-layer links, other than the entry point. */
  function upperNode(index: TieredIndex): number {
    for (let v = 0; v < index.meta.count; v++) if (v !== index.meta.entry && index.levels[v]! >= 1 && index.upperLinks[index.upperOffset[v]!]! > 0) return v;
    throw new Error('no upper-layer node');
  }

  const CXL_NODE = 1500;
  it.each([
    ['an out-of-range level-0 link', (ix: TieredIndex) => setLevel0(ix, CXL_NODE, 1, [2000 + 7]), `node ${CXL_NODE}: level-0 link to 2007, out of range`],
    ['a level-0 link count of 2^32 - 1', (ix: TieredIndex) => setLevel0(ix, 42, 0xffffffff), 'node 42: 4294967295 level-0 links, more than 16'],
    ['a level-0 link count just above maxM0', (ix: TieredIndex) => setLevel0(ix, 43, 17), 'node 43: 17 level-0 links, more than 16'],
    [
      'an upper-layer link to a node not on that layer',
      (ix: TieredIndex) => {
        const v = upperNode(ix);
        ix.upperLinks[ix.upperOffset[v]! + 1] = ix.levels.indexOf(0);
      },
      'which is not on level 1',
    ],
    [
      'an upper-layer link count above maxM',
      (ix: TieredIndex) => {
        ix.upperLinks[ix.upperOffset[upperNode(ix)]!] = 1000;
      },
      '1000 links on level 1, more than 8',
    ],
    [
      'an upper-layer offset past the end of the links',
      (ix: TieredIndex) => {
        ix.upperOffset[upperNode(ix)] = ix.upperLinks.length;
      },
      'without upper links',
    ],
  ])('%s: loadIndex and openIndex fail with STRATA_INDEX_CORRUPT naming the node; verify reports it', (name, damage, expected) => {
    const dir = writeDamaged(name.replace(/\W+/g, '-'), damage);
    for (const load of [() => loadIndex(dir), () => openIndex(dir, { mode: 'emulate' })]) {
      const e = expectStrataError(load, 'STRATA_INDEX_CORRUPT');
      expect(e.message).toContain(dir);
      expect(e.message).toContain(expected);
    }
    const r = verifyIndex(dir);
    expect(r.ok).toBe(false);
    expect(r.errors.some((x) => x.includes(expected))).toBe(true);
  });

  it('an entry point below the top level fails the load', () => {
    const dir = writeDamaged('entry-level', (ix) => {
      ix.levels[ix.meta.entry] = 0;
    });
    expect(expectStrataError(() => loadIndex(dir), 'STRATA_INDEX_CORRUPT').message).toMatch(/entry point \d+ is on level 0/);
  });

  it('still loads a graph whose only defect is a self loop (harmless to a search; verify reports it)', () => {
    const dir = writeDamaged('self-loop', (ix) => setLevel0(ix, 7, 1, [7]));
    expect(loadIndex(dir).index.meta.count).toBe(2000);
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
