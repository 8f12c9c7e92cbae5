import { describe, expect, it } from 'vitest';
import { buildIndex, defaultBuilder, type GraphBuilder, strataGraphFits } from '../../../index/build/build-index.js';
import { makeTempDir } from '../../helpers/temp.js';

describe('strata build options', () => {
  it('refuses an unknown graph builder before reading any data, naming the field', async () => {
    const tmp = makeTempDir();
    try {
      const built = buildIndex({ input: tmp.path('absent.fvecs'), out: tmp.path('out.idx'), builder: 'faiss' as GraphBuilder });
      await expect(built).rejects.toMatchObject({ code: 'STRATA_INVALID_ARGUMENT', details: { field: 'builder' } });
    } finally {
      tmp.cleanup();
    }
  });

  it("builds with Strata's graph by default on two threads while it fits one wasm32 memory, else with hnswlib's", () => {
    expect(defaultBuilder(100_000, 100, 16, 200, 2)).toBe('strata');
    expect(defaultBuilder(100_000, 100, 16, 200, 1)).toBe('hnswlib');
    // 100-d vectors and M 16 level-0 lists: 532 B a node, so about 8 million fit in 4 GiB.
    expect(strataGraphFits(7_000_000, 100, 16, 200, 2)).toBe(true);
    expect(strataGraphFits(9_000_000, 100, 16, 200, 2)).toBe(false);
    expect(defaultBuilder(9_000_000, 100, 16, 200, 2)).toBe('hnswlib');
    expect(strataGraphFits(3_000_000, 384, 16, 200, 2)).toBe(false);
  });
});
