// A secondary vector's column over a tiered base a compaction built (codes in DRAM, most vectors in
// the CXL tier): searches against brute force (exact, the graph at high recall, a filter's two plans),
// writes hiding the base's copies, and a compaction's cut and rebase keeping exactly the writes made
// since the cut.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mulberry32 } from '../../../common/random.js';
import { buildIndex } from '../../../index/build/build-index.js';
import type { FilterMatches } from '../../../index/fresh/fresh-filtered.js';
import { NamedBase } from '../../../index/named/named-base.js';
import { type BaseRunner, NamedColumn } from '../../../index/named/named-column.js';
import { openIndex } from '../../../index/open-index.js';
import { makeTempDir } from '../../helpers/temp.js';

const tmp = makeTempDir('strata-named-column-');
afterAll(() => tmp.cleanup());

const DIM = 16;
const N = 3000;
const FRESH = { m: 12, efConstruction: 64, seed: 1 };
const rnd = mulberry32(9);
// Anisotropic: a few directions carry most of the variance, as embeddings do.
const scale = Float32Array.from({ length: DIM }, (_, j) => 1 / (1 + j));
const randomVector = (): Float32Array => Float32Array.from({ length: DIM }, (_, j) => (rnd() * 2 - 1) * scale[j]!);
/** The model: each id's vector now (ids are 5 × position, so ids and nodes differ). */
const model = new Map<number, Float32Array>();
for (let i = 0; i < N; i++) model.set(5 * i, randomVector());

/** A base of the entries; its exact searches read 256 nodes a turn, so that they take many. */
async function baseOf(entries: ReadonlyMap<number, Float32Array>, out: string): Promise<NamedBase> {
  const ids = Float64Array.from(entries.keys());
  const vectors = new Float32Array(ids.length * DIM);
  [...entries.values()].forEach((v, i) => vectors.set(v, i * DIM));
  await buildIndex({
    input: 'test',
    out,
    name: 'image',
    dataset: { file: 'test', format: 'fvecs', dim: DIM, count: ids.length, vectors, ids, metric: null },
    metric: 'l2',
    m: 12,
    efConstruction: 64,
    dramBudget: '10%',
    codes: 'auto',
    threads: 1,
  });
  return new NamedBase(openIndex(out), {}, 256);
}

const l2 = (a: Float32Array, b: Float32Array): number => a.reduce((s, x, j) => s + (x - b[j]!) ** 2, 0);

function bruteForce(q: Float32Array, k: number, accept: (id: number) => boolean = () => true): number[] {
  return [...model]
    .filter(([id]) => accept(id))
    .map(([id, v]) => ({ id, d: l2(q, v) }))
    .sort((a, b) => a.d - b.d || a.id - b.id)
    .slice(0, k)
    .map((h) => h.id);
}

function matchesOf(accept: (id: number) => boolean): FilterMatches {
  const ids = [...model.keys()].filter(accept);
  return { accept, count: ids.length, ids: () => ids.slice() };
}

let column: NamedColumn;
beforeAll(async () => {
  column = new NamedColumn(DIM, 'l2', FRESH, await baseOf(model, tmp.path('base')));
}, 60_000);

describe('a secondary vector over a tiered base', () => {
  it('keeps its codes in DRAM and most vectors in the CXL tier', () => {
    const t = column.tierBytes();
    expect(t.cxl).toBeGreaterThan(0.5 * N * DIM * 4);
    expect(t.dram).toBeLessThan(N * DIM * 4);
    expect(column.size).toBe(N);
    expect(Array.from(column.get(35)!)).toEqual(Array.from(model.get(35)!));
    expect(column.get(36)).toBeNull();
  });

  it('finds a point by id through a table while ids are dense, else through a map (sparse ids, UUID points)', async () => {
    const some = [...model].slice(0, 300);
    for (const [label, idOf] of [
      ['dense', (i: number) => i],
      ['sparse', (i: number) => 1000 * i],
      ['uuid', (i: number) => 2 ** 52 + i],
    ] as const) {
      const base = await baseOf(new Map(some.map(([, v], i) => [idOf(i), v])), tmp.path(`lookup-${label}`));
      for (let i = 0; i < some.length; i++) expect(base.opened.index.labels[base.node(idOf(i))!]).toBe(idOf(i));
      expect(base.node(idOf(some.length))).toBeUndefined();
      expect(base.has(-1) || base.has(0.5)).toBe(false);
      // The table holds 4 bytes a slot up to the largest id; the map tens of bytes a point.
      expect(base.lookupBytes).toBe(label === 'dense' ? 4 * some.length : 40 * some.length);
      base.close();
    }
  });

  it('answers exactly as brute force, and by its graph at high recall', async () => {
    let hit = 0;
    for (let t = 0; t < 30; t++) {
      const q = randomVector();
      expect((await column.search(q, 10, { ef: 64, exact: true })).hits.map((h) => h.id)).toEqual(bruteForce(q, 10));
      const want = new Set(bruteForce(q, 10));
      const got = await column.search(q, 10, { ef: 64 });
      expect(got.plan).toBe('graph');
      hit += got.hits.filter((h) => want.has(h.id)).length;
    }
    expect(hit / 300).toBeGreaterThan(0.95);
  });

  it('reads every vector of an exact search over turns of the event loop, whatever swaps in meanwhile', async () => {
    const q = randomVector();
    let turned = false;
    setImmediate(() => {
      turned = true;
    });
    expect((await column.search(q, 10, { ef: 64, exact: true })).hits.map((h) => h.id)).toEqual(bruteForce(q, 10));
    expect(turned).toBe(true);
    // A compaction swapping a new base in while a search reads the old one: the search ends on the
    // old base, which closes after it.
    const other = new NamedColumn(DIM, 'l2', FRESH, await baseOf(model, tmp.path('swapped')));
    const next = await baseOf(model, tmp.path('swapped-in'));
    other.beginCut();
    const pending = other.search(q, 10, { ef: 64, exact: true });
    other.rebase(next);
    expect((await pending).hits.map((h) => h.id)).toEqual(bruteForce(q, 10));
    other.close();
  });

  it('answers as its base part ran elsewhere, and says when a write or a new base overtook that part', async () => {
    const q = randomVector();
    // A runner standing for the search threads: the same answer, a turn later.
    const later: BaseRunner = async (base, query) => {
      await new Promise((resolve) => setImmediate(resolve));
      return base.run(query);
    };
    const local = await column.search(q, 10, { ef: 64 });
    expect(await column.search(q, 10, { ef: 64 }, later)).toEqual(local);
    expect(local.stale).toBe(false);

    // A write while the base part is out hides one of its answers: that hit goes, and the search is stale.
    const other = new NamedColumn(DIM, 'l2', FRESH, await baseOf(model, tmp.path('overtaken')));
    const [nearest] = bruteForce(q, 1);
    const written: BaseRunner = async (base, query) => {
      const hits = await base.run(query);
      other.delete(nearest!);
      return hits;
    };
    const r = await other.search(q, 10, { ef: 64 }, written);
    expect(r.hits.map((h) => h.id)).not.toContain(nearest);
    expect(r.stale).toBe(true);
    expect((await other.search(q, 10, { ef: 64 })).stale).toBe(false);

    // A compaction swapping a new base in while the part is out: stale.
    const next = await baseOf(model, tmp.path('overtaken-next'));
    const swapped: BaseRunner = async (base, query) => {
      const hits = await base.run(query);
      other.beginCut();
      other.rebase(next);
      return hits;
    };
    expect((await other.search(q, 10, { ef: 64 }, swapped)).stale).toBe(true);
    expect(other.tiered).toBe(next);
    other.close();
  });

  it('answers a filter by the codes of few matches, and by the walk for many: never fewer than k', async () => {
    const rare = (id: number): boolean => id % 97 === 0;
    const half = (id: number): boolean => id % 2 === 0;
    for (let t = 0; t < 10; t++) {
      const q = randomVector();
      const few = await column.search(q, 10, { ef: 64, filter: matchesOf(rare) });
      expect(few.plan).toBe('scan');
      expect(few.hits.map((h) => h.id)).toEqual(bruteForce(q, 10, rare));
      const many = await column.search(q, 10, { ef: 64, filter: matchesOf(half) });
      expect(many.plan).toBe('graph');
      expect(many.hits).toHaveLength(10);
      expect(many.hits.every((h) => half(h.id))).toBe(true);
    }
  });

  it('keeps the base bitset of a recent filter by its key, until a write hides a base copy', async () => {
    const third = (id: number): boolean => id % 3 === 0;
    let listed = 0;
    const keyed = (key: string): FilterMatches => {
      const m = matchesOf(third);
      return {
        ...m,
        key,
        ids: () => {
          listed++;
          return m.ids();
        },
      };
    };
    const q = randomVector();
    const want = bruteForce(q, 10, third);
    for (let t = 0; t < 3; t++) expect((await column.search(q, 10, { ef: 256, exact: true, filter: keyed('a') })).hits.map((h) => h.id)).toEqual(want);
    expect(listed).toBe(1);
    await column.search(q, 10, { ef: 64, filter: keyed('b') });
    expect(listed).toBe(2);
    // A write to a matching point the base holds: its base copy is hidden, so the bitset is made again.
    const [nearest] = want;
    const moved = Float32Array.from(q, (x) => x + 1000);
    column.set(nearest!, moved);
    model.set(nearest!, moved);
    const after = await column.search(q, 10, { ef: 256, exact: true, filter: keyed('a') });
    // Listed twice more: for the base's bitset, made again, and for the fresh part, which holds a point now.
    expect(listed).toBe(4);
    expect(after.hits.map((h) => h.id)).toEqual(bruteForce(q, 10, third));
  });

  it('hides the base copy of a point written or removed, in searches, reads and entries', async () => {
    const q = randomVector();
    const [first, second] = bruteForce(q, 2);
    const moved = Float32Array.from(q, (x) => x + 0.001);
    column.set(second!, moved);
    column.delete(first!);
    model.set(second!, moved);
    model.delete(first!);
    for (const exact of [true, false]) {
      const hits = (await column.search(q, 10, { ef: 64, exact })).hits;
      expect(hits[0]!.id).toBe(second);
      expect(hits.map((h) => h.id)).not.toContain(first);
      expect(new Set(hits.map((h) => h.id)).size).toBe(hits.length);
    }
    expect(column.get(first!)).toBeNull();
    expect(Array.from(column.get(second!)!)).toEqual(Array.from(moved));
    expect(column.size).toBe(N - 1);
    const e = column.entries();
    expect(e.ids.length).toBe(N - 1);
    expect(e.ids).not.toContain(first);
    expect(Array.from(e.vectors.subarray(e.ids.indexOf(second!) * DIM, (e.ids.indexOf(second!) + 1) * DIM))).toEqual(Array.from(moved));
  });

  it('keeps through a compaction exactly the writes made after its cut', async () => {
    const cut = column.beginCut();
    expect(cut.ids.length).toBe(model.size);
    const atCut = new Map(cut.ids.map((id, i) => [id, cut.vectors.slice(i * DIM, (i + 1) * DIM)]));
    const built = baseOf(atCut, tmp.path('compacted'));
    // Written while the base builds: a new point, a replaced one and a removed one.
    const late = randomVector();
    column.set(1, late);
    model.set(1, late);
    const replaced = Float32Array.from(model.get(10)!, (x) => -x);
    column.set(10, replaced);
    model.set(10, replaced);
    column.delete(15);
    model.delete(15);
    column.rebase(await built);
    expect(column.size).toBe(model.size);
    expect(column.tiered?.count).toBe(atCut.size);
    for (const id of [1, 10, 15, 20]) expect(column.get(id) && Array.from(column.get(id)!)).toEqual(model.has(id) ? Array.from(model.get(id)!) : null);
    for (let t = 0; t < 10; t++) {
      const q = t === 0 ? replaced : randomVector();
      expect((await column.search(q, 10, { ef: 64, exact: true })).hits.map((h) => h.id)).toEqual(bruteForce(q, 10));
    }
  });
});
