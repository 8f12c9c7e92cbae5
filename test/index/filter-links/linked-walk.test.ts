// The filter links end to end: a base built with payload indexes and payload_m, written and loaded,
// then searched. The data is clustered, and `side` orders the points along a direction through the
// clusters, so that "side < median" leaves out the half nearest to the queries drawn from the other
// half: the anti-correlated filter on which a walk over every node travels far through non-matches.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { generateClustered } from '../../../datasets/index.js';
import { buildIndex } from '../../../index/build/build-index.js';
import type { LinkBlockEntry } from '../../../index/filter-links/filter-links.js';
import { linkCover } from '../../../index/filter-links/link-cover.js';
import { parseFilter } from '../../../index/filter/parse.js';
import { HEADER_BYTES, LINKS_FILE } from '../../../index/format/constants.js';
import { readLinks } from '../../../index/format/links-file.js';
import type { Manifest } from '../../../index/format/manifest.js';
import { LINK_LOOKUP_READS } from '../../../index/kernels/control-block.js';
import { loadIndex } from '../../../index/format/load-index.js';
import { openIndex } from '../../../index/open-index.js';
import { Accountant } from '../../../index/search/accounting.js';
import { FILTER_PLAN } from '../../../index/search/query-state.js';
import { type NodeFilter, Searcher } from '../../../index/search/searcher.js';
import { STAT } from '../../../index/search/stats.js';
import type { TieredIndex } from '../../../index/tiered/tiered-index.js';
import { checkBindPolicy, numaSupport } from '../../../tiers/numa.js';
import { expectStrataError, makeTempDir } from '../../helpers/temp.js';

const dim = 16;
const count = 6000;
const set = generateClustered({ count, dim, clusters: 12, seed: 11 }, 300);
const along = (v: Float32Array, r: number): number => {
  let s = 0;
  for (let j = 0; j < dim; j++) s += v[r * dim + j]! * (j % 3 === 0 ? 1 : -0.5);
  return s;
};
const sideOf = Float64Array.from({ length: count }, (_, r) => along(set.base, r));
const median = Float64Array.from(sideOf).sort()[count >> 1]!;
const payloadOf = (r: number) => ({ side: Math.round(sideOf[r]! * 1000), tag: (r * 2654435761) % 2 === 0 ? 'a' : 'b' });
const cut = Math.round(median * 1000);
// Queries from the far side of the cut: for them, "side < cut" is anti-correlated.
const far = Array.from({ length: 300 }, (_, q) => q)
  .filter((q) => along(set.queries, q) > median + 1)
  .slice(0, 60);

const tmp = makeTempDir('strata-links-');
afterAll(() => tmp.cleanup());

async function build(dir: string, payloadM: number): Promise<TieredIndex> {
  await buildIndex({
    input: 'generated',
    out: tmp.path(dir),
    dataset: { file: 'generated', format: 'fvecs', dim, count, vectors: Float32Array.from(set.base), ids: null, metric: null },
    metric: 'l2',
    m: 8,
    efConstruction: 64,
    dramBudget: '30%',
    threads: 2,
    basePayloads: {
      entries: Array.from({ length: count }, (_, r) => [r, payloadOf(r)] as [number, Record<string, unknown>]),
      indexes: [
        { field: 'side', params: { type: 'integer' } },
        { field: 'tag', params: { type: 'keyword' } },
      ],
    },
    payloadM,
  });
  return loadIndex(tmp.path(dir)).index;
}

const linked = await build('links', 8);
const plain = await build('plain', 0);

function filterOf(index: TieredIndex, json: unknown, keep: (row: number) => boolean): Omit<NodeFilter, 'plan'> {
  const bits = new Uint32Array((index.meta.count + 31) >>> 5);
  let matched = 0;
  for (let n = 0; n < index.meta.count; n++) {
    if (!keep(index.labels[n]!)) continue;
    bits[n >>> 5]! |= 1 << (n & 31);
    matched++;
  }
  const cover = index.links ? linkCover(parseFilter(json), index.links.blocks) : null;
  return { bits, matched, links: cover ? Uint32Array.from(cover.blocks) : null };
}

const below = { json: { must: [{ key: 'side', range: { lt: cut } }] }, keep: (r: number) => payloadOf(r).side < cut };

/** Mean recall@10 and distances over the far queries for one plan. */
function measure(index: TieredIndex, plan: number, f: { json: unknown; keep: (r: number) => boolean }, ef = 64) {
  const s = new Searcher(index);
  const nf = { ...filterOf(index, f.json, f.keep), plan };
  let recall = 0;
  let distances = 0;
  let linkedWalks = 0;
  let listReads = 0;
  let hops = 0;
  let linkReads = 0;
  for (const q of far) {
    const v = set.queries.subarray(q * dim, (q + 1) * dim);
    const truth = new Set(s.exact(v, 10, nf).ids);
    const r = s.search(v, 10, ef, 50, true, nf);
    recall += [...r.ids].filter((id) => truth.has(id)).length / 10;
    distances += r.stats[STAT.distances]!;
    linkedWalks += r.stats[STAT.linkedWalks]!;
    listReads += r.stats[STAT.adjReadsDram]! + r.stats[STAT.adjReadsCxl]!;
    hops += r.stats[STAT.hops]!;
    linkReads += r.stats[STAT.filterLinkReads]!;
  }
  s.close();
  return { recall: recall / far.length, distances: distances / far.length, linkedWalks, listReads, hops, linkReads };
}

describe('filter links', () => {
  it('link each block of a payload index within itself: every list holds members of its own block only', () => {
    const l = linked.links!;
    expect(l.degree).toBe(16);
    expect(l.blocks.some((b) => b.block.kind === 'value' && b.block.value === 'a')).toBe(true);
    expect(l.blocks.filter((b) => b.block.field === 'side').length).toBeGreaterThan(1);
    for (const b of l.blocks) {
      const members = new Set(l.members.subarray(b.from, b.from + b.count));
      expect(members.has(b.entry)).toBe(true);
      let linksSeen = 0;
      for (const node of members) {
        const at = l.listOf(l.blocks.indexOf(b), node);
        expect(at).toBeGreaterThanOrEqual(0);
        const deg = l.lists[at]!;
        linksSeen += deg;
        for (let j = 1; j <= deg; j++) expect(members.has(l.lists[at + j]!)).toBe(true);
      }
      expect(linksSeen / b.count).toBeGreaterThan(4);
    }
  });

  it("hold exactly the points of each block's value or range, as the payloads say", () => {
    const l = linked.links!;
    const labels = linked.labels;
    for (const b of l.blocks) {
      const k = b.block;
      const want = [];
      for (let n = 0; n < count; n++) {
        const p = payloadOf(labels[n]!);
        if (k.kind === 'value' ? p.tag === k.value : p.side >= k.gte && p.side <= k.lte) want.push(n);
      }
      expect(Array.from(l.members.subarray(b.from, b.from + b.count)), JSON.stringify(k)).toEqual(want);
    }
  });

  it('walk an anti-correlated filter on matches only, past the recall bound, for a fraction of the distances of the walk through every node', () => {
    const graph = measure(linked, FILTER_PLAN.GRAPH, below);
    const walk = measure(linked, FILTER_PLAN.LINKED, below, 128);
    expect(walk.recall).toBeGreaterThan(0.93);
    expect(walk.distances).toBeLessThan(0.7 * graph.distances);
    expect(walk.linkedWalks).toBe(far.length);
    // The links' lists are counted on their own: re-tiering watches the neighbour lists' DRAM share,
    // which no placement of the base could raise by moving lists it does not hold.
    expect(walk.linkReads).toBeGreaterThan(walk.hops / 2);
    expect(walk.listReads).toBe(walk.hops);
  });

  it('are taken by a graph-or-scan walk whose entry is scarce in matches, and not where matches are even', () => {
    const anti = measure(linked, FILTER_PLAN.GRAPH_OR_SCAN, below, 128);
    expect(anti.linkedWalks).toBeGreaterThan(far.length / 2);
    expect(anti.recall).toBeGreaterThan(0.93);
    const even = measure(linked, FILTER_PLAN.GRAPH_OR_SCAN, { json: { must: [{ key: 'tag', match: { value: 'a' } }] }, keep: (r) => payloadOf(r).tag === 'a' });
    expect(even.linkedWalks).toBeLessThan(far.length / 4);
  });

  it("fetch a foreseen node's link lists with its neighbour list: most are read without waiting", () => {
    const reads = vi.spyOn(Accountant.prototype, 'filterLinks');
    try {
      const s = new Searcher(linked, { prefetch: true });
      const nf = { ...filterOf(linked, below.json, below.keep), plan: FILTER_PLAN.LINKED };
      for (const q of far) s.search(set.queries.subarray(q * dim, (q + 1) * dim), 10, 64, 50, true, nf);
      const hidden = reads.mock.calls.filter((c) => c[2] === true).length;
      expect(reads.mock.calls.length).toBeGreaterThan(10 * far.length);
      expect(hidden).toBeGreaterThan(reads.mock.calls.length / 2);
      // Without foreseeing every one waits.
      reads.mockClear();
      const strict = new Searcher(linked, { prefetch: false });
      for (const q of far) strict.search(set.queries.subarray(q * dim, (q + 1) * dim), 10, 64, 50, true, nf);
      expect(reads.mock.calls.filter((c) => c[2] === true)).toEqual([]);
      s.close();
      strict.close();
    } finally {
      reads.mockRestore();
    }
  });

  it("read each linked hop's lookup from the CXL tier, with its lists, and keep no DRAM for either", () => {
    const l = linked.links!;
    // Placed in the fused region, only the blocks' entries stay in DRAM.
    expect(l.bytes().dram).toBe(4 * l.blocks.length);
    expect(l.bytes().cxl).toBeGreaterThan(l.lists.byteLength + 8 * l.memberCount);
    const lists = vi.spyOn(Accountant.prototype, 'filterLinks');
    const located = vi.spyOn(Object.getPrototypeOf(l) as typeof l, 'listsIn');
    try {
      // Without foreseeing, each linked hop locates its node's lists once, when it expands it.
      const s = new Searcher(linked, { prefetch: false });
      const nf = { ...filterOf(linked, below.json, below.keep), plan: FILTER_PLAN.LINKED };
      let bytes = 0;
      let reads = 0;
      for (const q of far) {
        const r = s.search(set.queries.subarray(q * dim, (q + 1) * dim), 10, 64, 50, true, nf);
        bytes += r.stats[STAT.filterLinkBytes]!;
        reads += r.stats[STAT.filterLinkReads]!;
      }
      s.close();
      const hopped = located.mock.calls.map((c) => c[1]);
      const lookups = hopped.map((n) => l.lookupBytes(n));
      expect(hopped.length).toBeGreaterThan(10 * far.length);
      expect(lookups.every((b) => b >= 8)).toBe(true);
      const listBytes = lists.mock.calls.reduce((a, c) => a + c[1], 0);
      expect(bytes - listBytes).toBe(lookups.reduce((a, b) => a + b, 0));
      expect(reads - lists.mock.calls.length).toBe(LINK_LOOKUP_READS * hopped.length);
    } finally {
      lists.mockRestore();
      located.mockRestore();
    }
  });

  it('are recorded in the manifest as a reader of the directory holds them, not as the builder did', () => {
    const m = JSON.parse(readFileSync(join(tmp.path('links'), 'manifest.json'), 'utf8')) as Manifest;
    const held = linked.tierBytes();
    expect(m.tiers.map((t) => t.bytes)).toEqual([held.dram, held.cxl]);
    expect(held.byKind.links[0]).toBe(4 * linked.links!.blocks.length);
  });

  it.skipIf(!numaSupport().available)("are bound with the CXL tier's memory and verified page by page, apart from the DRAM tier", () => {
    // One node here: the DRAM and CXL tiers both bind to it, and the policy of every page shows it.
    const opened = openIndex(tmp.path('links'), { mode: 'numa', dramNode: 0, cxlNode: 0 });
    const l = opened.index.links!;
    const cxl = opened.index.tiers[1]!;
    expect(opened.index.tiers[0]!.ranges).toEqual([]);
    expect(cxl.ranges.length).toBe(1);
    const range = cxl.ranges[0]!;
    for (const a of [l.lists, l.lookup.nodeFrom, l.lookup.memberBlock, l.lookup.memberList]) {
      expect(a.buffer).toBe(range.buffer);
      expect(a.byteOffset).toBeGreaterThanOrEqual(range.byteOffset);
      expect(a.byteOffset + a.byteLength).toBeLessThanOrEqual(range.byteOffset + range.byteLength);
    }
    const policy = checkBindPolicy(range, 0);
    expect(policy.pages).toBe(range.byteLength / 4096);
    expect(policy.mismatched).toBe(0);
    const segmentPages = cxl.segments.reduce((a, g) => a + Math.ceil(g.dataView().byteLength / 4096), 0);
    expect(cxl.binding.mode).toBe('numa');
    expect(cxl.binding.pages).toBe(segmentPages + policy.pages);
    expect(cxl.binding.pagesElsewhere).toBe(0);
    // The blocks' entries, which seed a walk, stay outside the bound range.
    const e = l.lookup.entries;
    expect(e.byteOffset + e.byteLength).toBeLessThanOrEqual(range.byteOffset);
  });

  it('walk the links from a scarce entry alike in WASM and in the JS steps: answers, distances and every count', () => {
    const fused = new Searcher(linked);
    const js = new Searcher(linked, { fused: false });
    // A searcher without a free lane of the fused region would walk in the JS steps too.
    expect(fused.fused).not.toBeNull();
    expect(linked.links!.lists.buffer).toBe(linked.fused!.memory.buffer);
    const nf = { ...filterOf(linked, below.json, below.keep), plan: FILTER_PLAN.GRAPH_OR_SCAN };
    const counts = [STAT.linkedWalks, STAT.hops, STAT.distances, STAT.filterLinkReads, STAT.filterLinkBytes, STAT.prefetchHits, STAT.prefetchIssued];
    const reads = vi.spyOn(Accountant.prototype, 'filterLinks');
    let walks = 0;
    try {
      for (const q of far) {
        const v = set.queries.subarray(q * dim, (q + 1) * dim);
        const a = fused.search(v, 10, 64, 50, true, nf);
        const aIds = Array.from(a.ids);
        const aD = Array.from(a.distances);
        const aCounts = counts.map((c) => a.stats[c]);
        const aCxl = a.stats[STAT.adjBytesCxl];
        const aNs = a.stats[STAT.modelledNs]!;
        const jsReadsBefore = reads.mock.calls.length;
        const b = js.search(v, 10, 64, 50, true, nf);
        if (b.stats[STAT.linkedWalks]! > 0) expect(reads.mock.calls.length).toBeGreaterThan(jsReadsBefore);
        expect(aIds).toEqual(Array.from(b.ids));
        expect(aD).toEqual(Array.from(b.distances));
        expect(aCounts).toEqual(counts.map((c) => b.stats[c]));
        expect(aCxl).toBe(b.stats[STAT.adjBytesCxl]);
        // Priced in bulk rather than read by read: equal but for rounding.
        expect(Math.abs(aNs - b.stats[STAT.modelledNs]!)).toBeLessThan(1e-9 * aNs);
        walks += aCounts[0]!;
      }
      // The fused searcher priced its link reads in bulk: none went through the JS steps' one-by-one path.
      reads.mockClear();
      for (const q of far) fused.search(set.queries.subarray(q * dim, (q + 1) * dim), 10, 64, 50, true, nf);
      expect(reads.mock.calls).toEqual([]);
    } finally {
      reads.mockRestore();
      fused.close();
      js.close();
    }
    expect(walks).toBeGreaterThan(far.length / 2);
  });

  it('leave a base built without them to walk a LINKED plan as the graph walk', () => {
    expect(plain.links).toBeNull();
    const g = measure(plain, FILTER_PLAN.GRAPH, below);
    const asked = measure(plain, FILTER_PLAN.LINKED, below);
    expect(asked).toEqual(g);
    expect(asked.linkedWalks).toBe(0);
  });

  it('are read in place from the file where its bytes are aligned, and copied where not: the same links either way', () => {
    const file = tmp.path('links', LINKS_FILE);
    const manifest = JSON.parse(readFileSync(join(tmp.path('links'), 'manifest.json'), 'utf8')) as Manifest;
    const bytes = readFileSync(file);
    const read = (buf: Buffer) =>
      readLinks(file, new DataView(buf.buffer, buf.byteOffset, HEADER_BYTES), buf.subarray(HEADER_BYTES), manifest.filterLinks!, manifest.count);
    const inPlace = read(bytes);
    expect(inPlace.lists.buffer).toBe(bytes.buffer);
    const shifted = Buffer.alloc(bytes.length + 1);
    bytes.copy(shifted, 1);
    const copied = read(shifted.subarray(1));
    expect(copied.lists.buffer).not.toBe(shifted.buffer);
    expect(Array.from(copied.lists)).toEqual(Array.from(inPlace.lists));
    expect(Array.from(inPlace.lists)).toEqual(Array.from(linked.links!.lists));
  });

  it('refuse a damaged links file, and a manifest whose blocks disagree with it', () => {
    const file = tmp.path('links', LINKS_FILE);
    const bytes = readFileSync(file);
    const damaged = Buffer.from(bytes);
    damaged[damaged.length - 5]! ^= 0xff;
    writeFileSync(file, damaged);
    expectStrataError(() => loadIndex(tmp.path('links')), 'STRATA_INDEX_CORRUPT');
    writeFileSync(file, bytes);
    const manifestFile = join(tmp.path('links'), 'manifest.json');
    const manifest = readFileSync(manifestFile, 'utf8');
    const m = JSON.parse(manifest) as { filterLinks: { blocks: LinkBlockEntry[] } };
    (m.filterLinks.blocks[0] as { from: number }).from = 1;
    writeFileSync(manifestFile, JSON.stringify(m));
    expectStrataError(() => loadIndex(tmp.path('links')), 'STRATA_INDEX_CORRUPT');
    writeFileSync(manifestFile, manifest);
    expect(loadIndex(tmp.path('links')).index.links!.blocks.length).toBe(linked.links!.blocks.length);
  });
});
