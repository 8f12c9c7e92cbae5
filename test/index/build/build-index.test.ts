import { describe, expect, it } from 'vitest';
import { buildIndex, type GraphBuilder } from '../../../index/build/build-index.js';
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
});
