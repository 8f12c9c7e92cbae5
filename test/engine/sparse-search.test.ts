// A collection's sparse search (Collection.searchSparse): it reads its postings over turns of the
// event loop, so a write landing meanwhile, to the payloads its filter tests, makes it ask again.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Engine } from '../../engine/engine.js';
import { parseFilter } from '../../index/filter/parse.js';
import { SparseColumn } from '../../index/sparse/sparse-column.js';
import { makeTempDir } from '../helpers/temp.js';

afterEach(() => vi.restoreAllMocks());

describe('a sparse search over turns of the event loop', () => {
  it('asks again when a payload write lands between its turns, and answers as the payloads are after it', async () => {
    const tmp = makeTempDir('strata-sparse-turns-');
    const engine = await Engine.open([], { searchThreads: 0, dataDir: tmp.dir, compactAt: 0, memory: { mode: 'emulate' } });
    try {
      const c = await engine.createCollection({ name: 'words', dim: 2, metric: 'l2', m: 8, efConstruction: 40, sparse: { text: { modifier: 'none' } } });
      // Point i holds dimension 0 at weight i + 1: the query [0] ranks them by id, largest first.
      await c.upsert(
        Array.from({ length: 20 }, (_, i) => ({
          key: i,
          vector: Float32Array.of(i, 1),
          payload: { kept: true },
          sparse: { text: { indices: Uint32Array.of(0), values: Float32Array.of(i + 1) } },
        })),
      );
      const kept = parseFilter({ must: [{ key: 'kept', match: { value: true } }] });
      const query = { indices: Uint32Array.of(0), values: Float32Array.of(1) };
      const inTurns = SparseColumn.prototype.searchInTurns;
      // The first search reads the postings as they were, then the best point leaves the filter.
      const spy = vi.spyOn(SparseColumn.prototype, 'searchInTurns').mockImplementationOnce(async function (this: SparseColumn, ...args) {
        const hits = await inTurns.apply(this, args);
        await c.setPayload([19], { kept: false }, false);
        return hits;
      });
      const hits = await c.searchSparse('text', query, 3, kept);
      expect(spy).toHaveBeenCalledTimes(2);
      expect(hits.map((h) => h.id)).toEqual([18, 17, 16]);
    } finally {
      await engine.close();
      tmp.cleanup();
    }
  });
});
