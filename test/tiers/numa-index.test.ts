// The --memory numa path of a real index: both tiers bound to node 0 (legal on any host, this
// one-node host included), opened through openIndex and through the engine. What proves the binding
// is the policy of every page of the tier memory (MPOL_BIND to node 0), not where the pages are: on
// one node every page is on node 0 whatever the policy.
import { parseFilter } from '../../index/filter/parse.js';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../engine/engine.js';
import { writeIndex } from '../../index/format/write-index.js';
import { openIndex } from '../../index/open-index.js';
import type { TieredIndex } from '../../index/tiered/tiered-index.js';
import { checkBindPolicy, numaSupport } from '../../tiers/numa.js';
import { buildSmallIndex, type SmallIndex } from '../helpers/small-index.js';
import { makeTempDir, type TempDir } from '../helpers/temp.js';

const skip = !numaSupport().available || !existsSync('/sys/devices/system/node');
let tmp: TempDir;
let small: SmallIndex;
let dir: string;

beforeAll(() => {
  if (skip) return;
  tmp = makeTempDir('strata-numa-index-');
  small = buildSmallIndex({ count: 3000, queries: 10 });
  dir = tmp.path('idx');
  writeIndex(small.index, dir, small.info);
});

afterAll(() => tmp?.cleanup());

/** Every tier is reported bound to node 0 with all its pages there, and every page carries MPOL_BIND {0}. */
function expectBoundToNode0(index: TieredIndex): void {
  for (const tier of index.tiers) {
    expect(tier.segments.length, tier.kind).toBeGreaterThan(0);
    const b = tier.binding;
    expect(b).toMatchObject({ mode: 'numa', node: 0, pagesOnNode: b.pages, pagesElsewhere: 0 });
    expect(b.pages).toBeGreaterThan(0);
    expect(b.note).toContain(`MPOL_BIND to node 0 verified on all ${b.pages} pages`);
    let pages = 0;
    for (const s of tier.segments) {
      const policy = checkBindPolicy(s.dataView(), 0);
      expect(policy, `${tier.kind} segment ${s.start}`).toEqual({ pages: policy.pages, mismatched: 0, firstMismatch: -1 });
      pages += policy.pages;
    }
    expect(pages).toBe(b.pages);
  }
}

describe.skipIf(skip)('--memory numa on a real index (both tiers on node 0)', () => {
  it('openIndex binds both tiers, and the policy of every page of their memory is MPOL_BIND to node 0', () => {
    const opened = openIndex(dir, { mode: 'numa', dramNode: 0, cxlNode: 0 }, { segmentBytes: 1 << 17 });
    expect(opened.memory).toEqual({ mode: 'numa', nodes: [0, 0], reason: 'nodes given explicitly' });
    expect(opened.index.tiers.map((t) => t.segments.length).every((n) => n > 1)).toBe(true);
    expectBoundToNode0(opened.index);
  });

  it('the engine opens it the same way, reports the binding (yellow: one node for both tiers), and searches it', async () => {
    const e = await Engine.open([{ dir }], { searchThreads: 1, memory: { mode: 'numa', dramNode: 0, cxlNode: 0 } });
    try {
      const c = e.collections()[0]!;
      const info = c.info();
      expect(info.memory.mode).toBe('numa');
      expect(info.tiers.map((t) => [t.kind, t.binding.mode, t.binding.node])).toEqual([
        ['dram', 'numa', 0],
        ['cxl', 'numa', 0],
      ]);
      expectBoundToNode0(c.index!);
      // Both tiers on one node is allowed (it is how a one-node host exercises binding) but not tiered.
      expect(info.health).toEqual({ status: 'yellow', reasons: ["cxl tier: on node 0, the DRAM tier's node: nothing is in slower memory"] });
      const r = await c.search({ vector: small.queries.subarray(0, 16), k: 5, ef: 32 });
      expect(r.hits.length).toBe(5);
    } finally {
      await e.close();
    }
  });

  it("puts a live collection's payload values on the CXL tier's node, every page bound and found there, and keeps the indexes in DRAM", async () => {
    const data = tmp.path('data-numa');
    const e = await Engine.open([{ dir }], { searchThreads: 1, dataDir: data, memory: { mode: 'numa', dramNode: 0, cxlNode: 0 } });
    try {
      const c = e.collections()[0]!;
      const points = Array.from({ length: 2000 }, (_, i) => ({
        key: 100_000 + i,
        vector: small.queries.slice(0, 16),
        payload: { city: `c${i % 50}`, n: i, note: 'x'.repeat(i % 200) },
      }));
      for (let from = 0; from < points.length; from += 500) await c.upsert(points.slice(from, from + 500));
      await c.createPayloadIndex('city', { type: 'keyword' });
      const b = c.info().payloadBytes;
      expect(b.valuesPlacement).toMatchObject({ tier: 'cxl', mode: 'numa', node: 0, pagesElsewhere: 0 });
      const support = numaSupport();
      expect(b.valuesPlacement.pages).toBe(b.values / (support.available ? support.pageSize : 4096));
      expect(b.valuesPlacement.pagesOnNode).toBe(b.valuesPlacement.pages);
      expect(b.indexes['city']).toBeGreaterThan(0);
      const hits = await c.search({
        vector: small.queries.subarray(0, 16),
        k: 3,
        ef: 32,
        filter: parseFilter({ must: [{ key: 'city', match: { value: 'c7' } }] }),
      });
      expect(hits.hits.length).toBe(3);
    } finally {
      await e.close();
    }
  });
});
