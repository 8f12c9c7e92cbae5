// Search through Qdrant's gRPC API (qdrant.Points/Search and SearchBatch) with Qdrant's official
// client, @qdrant/js-client-grpc, as a Qdrant user's application would: what `--protocol
// qdrant-grpc` measures against Qdrant's gRPC API of `strata serve`. Qdrant's messages carry no
// `strata` cost, so its answers have none.
import { ConnectError, QdrantClient, type ScoredPoint } from '@qdrant/js-client-grpc';
import { allRequests, type ClientOptions, noResultLists, type QueryAnswer, type SearchAnswer, type SearchClient, transportStatus } from './types.js';

export interface QdrantGrpcClientOptions extends ClientOptions {
  /** host:port of Qdrant's gRPC API. */
  target: string;
  collection: string;
  queries: Float32Array;
  dim: number;
}

function answerOf(points: readonly ScoredPoint[]): QueryAnswer {
  const ids = new Float64Array(points.length);
  const scores = new Float64Array(points.length);
  points.forEach((p, i) => {
    const id = p.id?.pointIdOptions;
    ids[i] = id?.case === 'num' ? Number(id.value) : -1;
    scores[i] = p.score;
  });
  return { ids, scores, cost: null };
}

export function qdrantGrpcClient(o: QdrantGrpcClientOptions): SearchClient {
  const [host, port] = [o.target.slice(0, o.target.lastIndexOf(':')), Number(o.target.slice(o.target.lastIndexOf(':') + 1))];
  const client = new QdrantClient({ host, port, ...(o.apiKey !== undefined ? { apiKey: o.apiKey, https: false } : {}), checkCompatibility: false });
  const points = client.api('points');
  const n = o.queries.length / o.dim;
  const one = (q: number) => ({
    collectionName: o.collection,
    vector: Array.from(o.queries.subarray(q * o.dim, (q + 1) * o.dim)),
    limit: BigInt(o.k),
    params: { hnswEf: BigInt(o.ef) },
  });
  const requests = allRequests(n, o.batch).map((qs) => qs.map(one));
  const fail = (e: unknown): SearchAnswer => {
    const at = o.now();
    if (e instanceof ConnectError) return { ok: false, at, status: String(e.code), transport: e.code === 14, message: e.rawMessage };
    return { ok: false, at, status: transportStatus(e), transport: true, message: String(e) };
  };
  return {
    async search(r: number): Promise<SearchAnswer> {
      const req = requests[r % requests.length]!;
      // The call's own deadline (a grpc-timeout header), not an abort signal: no timer or DOMException per request.
      const opts = { timeoutMs: o.timeoutMs };
      try {
        if (o.batch === 1) {
          const a = await points.search(req[0]!, opts);
          return { ok: true, at: o.now(), answers: [answerOf(a.result)] };
        }
        const a = await points.searchBatch({ collectionName: o.collection, searchPoints: req }, opts);
        if (a.result.length !== o.batch) return { ok: false, at: o.now(), status: 'bad-answer', transport: false, message: noResultLists(o.batch) };
        return { ok: true, at: o.now(), answers: a.result.map((b) => answerOf(b.result)) };
      } catch (e) {
        return fail(e);
      }
    },
    close: async () => undefined,
  };
}
