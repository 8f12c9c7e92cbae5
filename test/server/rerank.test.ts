// Re-rank parameters on the wire: Strata's `params.rerank` and Qdrant's `params.quantization`
// (ignore, rescore, oversampling) reach the search on REST and gRPC, and the answer's `strata`
// stats show what was re-scored; bad values are a 400 / INVALID_ARGUMENT naming the field.
import { describe, expect, it } from 'vitest';
import { DIM, grpcClients, grpcFailure, http, servedSuite, unary } from './fixture.js';

const s = servedSuite();
const v = (): number[] => Array.from({ length: DIM }, (_, i) => Math.sin(i + 1));
type Answer = { result: Array<{ id: number; score: number }>; strata: { reranked: number; vectors?: unknown; distance_dram_share: number; accesses: unknown } };

async function search(params: object, limit = 5): Promise<Answer> {
  const r = await http(s.srv.url, 'POST', '/collections/vectors/points/search', { vector: v(), limit, params, with_stats: true });
  expect(r.status).toBe(200);
  return r.body as Answer;
}

describe('re-rank parameters', () => {
  it('the collection traverses on codes', async () => {
    const r = await http(s.srv.url, 'GET', '/collections/vectors');
    expect(r.status).toBe(200);
    expect(s.engine.collection('vectors').info().code).not.toBeNull();
  });

  it('rescore: false answers from the codes alone; the default re-scores at least limit candidates', async () => {
    const none = await search({ quantization: { rescore: false } });
    expect(none.strata.reranked).toBe(0);
    const dflt = await search({});
    expect(dflt.strata.reranked).toBeGreaterThanOrEqual(5);
    expect(dflt.strata.reranked).toBeLessThanOrEqual(15);
  });

  it('oversampling and rerank bound the candidates re-scored; ignore re-scores the whole candidate list', async () => {
    const over = await search({ quantization: { oversampling: 1.0 } });
    expect(over.strata.reranked).toBe(5);
    const rr = await search({ rerank: 8, quantization: { oversampling: 4 } });
    expect(rr.strata.reranked).toBeLessThanOrEqual(8);
    const all = await search({ hnsw_ef: 40, quantization: { ignore: true } });
    expect(all.strata.reranked).toBe(40);
    // Whatever was re-scored, the answer is in score order with the exact top hit first.
    const exact = await search({ exact: true });
    expect(all.result[0]!.id).toBe(exact.result[0]!.id);
  });

  it.each([
    [{ rerank: 3 }, /^params\.rerank: must be 0 \(no re-rank\) or an integer in 5\.\.10000, got 3$/],
    [{ rerank: -1 }, /^params\.rerank:/],
    [{ quantization: { oversampling: 0.5 } }, /^params\.quantization\.oversampling: must be a number in 1\.\./],
    [{ quantization: { rescore: 'no' } }, /^params\.quantization\.rescore:/],
    [{ quantization: 7 }, /^params\.quantization:/],
  ])('rejects %j naming the field', async (params, msg) => {
    const r = await http(s.srv.url, 'POST', '/collections/vectors/points/search', { vector: v(), limit: 5, params });
    expect(r.status).toBe(400);
    expect((r.body as { status: { error: string } }).status.error).toMatch(msg);
  });

  // The default pool (5 × limit) once exceeded its own cap past limit 2,000, refusing a field never sent.
  it('limit 10000, the documented maximum, answers on REST and gRPC without a rerank', async () => {
    const count = s.engine.collection('vectors').info().count;
    const rest = await http(s.srv.url, 'POST', '/collections/vectors/points/search', { vector: v(), limit: 10_000 });
    expect(rest.status).toBe(200);
    expect((rest.body as Answer).result).toHaveLength(Math.min(10_000, count));
    const c = grpcClients(s.srv.addr.grpc!);
    try {
      const g = await unary(c.points, 'Search', { collection_name: 'vectors', vector: v(), limit: 10_000 });
      expect(g['result'] as unknown[]).toHaveLength(Math.min(10_000, count));
    } finally {
      c.close();
    }
  });

  it('gRPC carries the same parameters and stats', async () => {
    const c = grpcClients(s.srv.addr.grpc!);
    try {
      const a = await unary(c.points, 'Search', {
        collection_name: 'vectors',
        vector: v(),
        limit: 5,
        with_stats: true,
        params: { quantization: { rescore: false } },
      });
      expect((a['strata'] as { reranked: number }).reranked).toBe(0);
      const b = await unary(c.points, 'Search', { collection_name: 'vectors', vector: v(), limit: 5, with_stats: true, params: { rerank: 6 } });
      expect((b['strata'] as { reranked: number }).reranked).toBeLessThanOrEqual(6);
      const f = await grpcFailure(unary(c.points, 'Search', { collection_name: 'vectors', vector: v(), limit: 5, params: { rerank: 2 } }));
      expect(f.code).toBe(3);
      expect(f.details).toMatch(/^params\.rerank:/);
    } finally {
      c.close();
    }
  });
});
