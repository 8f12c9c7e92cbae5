// Qdrant's search matrix over the shards. The sample must be uniform over every matching point of
// the collection, so the router counts each shard's matches, draws the sample's positions over their
// sum, and asks each shard for that many of its own (a uniform sample: the shard's own matrix route
// picks them), with their vectors; then it scores the sample against itself as a server does
// (search-matrix.ts), so the answer has the same shape and the same scores.
import type { FastifyInstance } from 'fastify';
import { bodyObject, type Fields, isAbsent } from '../../api/fields.js';
import { type Matrix, matrixOffsets, matrixPairs, matrixRows, parseSearchMatrix } from '../../api/search-matrix.js';
import { pointVectorsAt } from '../../api/vector-space.js';
import type { PointKey } from '../../../engine/public.js';
import type { CollectionParams } from '../../rest/context.js';
import { answer, partialFields } from '../answer.js';
import { COLLECTION_ROUTE, collectionPath } from '../collection-paths.js';
import type { RouterContext } from '../route-context.js';
import { resultOf } from '../shard-calls.js';

/** n distinct positions drawn uniformly from [0, total) (Floyd's algorithm), ascending. */
function drawPositions(n: number, total: number): number[] {
  const picked = new Set<number>();
  for (let j = total - n; j < total; j++) {
    const t = Math.floor(Math.random() * (j + 1));
    picked.add(picked.has(t) ? j : t);
  }
  return [...picked].sort((a, b) => a - b);
}

export function registerMatrixRoutes(app: FastifyInstance, ctx: RouterContext): void {
  const { calls, scoreOrder, shards } = ctx;
  for (const [path, shape] of [
    ['pairs', matrixPairs],
    ['offsets', matrixOffsets],
  ] as const) {
    app.post<{ Params: CollectionParams; Body: unknown }>(`${COLLECTION_ROUTE}/points/search/matrix/${path}`, async (req, r) => {
      const b = bodyObject(req.body);
      const name = req.params.collection_name;
      const space = await scoreOrder.space(name);
      const plan = parseSearchMatrix(b, space);
      const filter: Fields = isAbsent(b['filter']) ? {} : { filter: b['filter'] };
      const using: Fields = isAbsent(b['using']) ? {} : { using: b['using'] };
      const { answers, missing } = await calls.fanOut('POST', collectionPath(name, '/points/count'), { ...filter, exact: true });
      // The answers come in shard order, the missing shards left out.
      const answering = Array.from({ length: shards.count }, (_, i) => i).filter((i) => !missing.includes(i));
      const counts = answers.map((a) => resultOf<{ count: number }>(a).count);
      const total = counts.reduce((x, y) => x + y, 0);
      const positions = drawPositions(Math.min(plan.sample, total), total);
      const wanted = counts.map(() => 0);
      let shard = 0;
      let end = counts[0] ?? 0;
      for (const p of positions) {
        while (p >= end) end += counts[++shard]!;
        wanted[shard]!++;
      }
      const parts = await Promise.all(
        wanted.map(async (n, i) => {
          if (n === 0) return [];
          const s = answering[i]!;
          // A sample of at least two: the server's matrix needs a pair; its first n are as uniform.
          const m = await calls.one(s, 'POST', collectionPath(name, '/points/search/matrix/offsets'), {
            ...filter,
            ...using,
            sample: Math.max(2, n),
            limit: 1,
          });
          const ids = resultOf<{ ids: PointKey[] }>(m).ids.slice(0, n);
          const got = await calls.one(s, 'POST', collectionPath(name, '/points'), { ids, with_payload: false, with_vector: true });
          return resultOf<Array<{ id: PointKey; vector: unknown }>>(got).map((p) => ({
            id: p.id,
            vector: pointVectorsAt(p.vector, 'vector', space, true).vector!,
          }));
        }),
      );
      const sample = parts.flat();
      const m: Matrix = {
        ids: sample.map((p) => p.id),
        rows: matrixRows(
          sample.map((p) => p.vector),
          await scoreOrder.metric(name),
          space.dim,
          plan.limit,
        ),
      };
      return answer(req, r, shape(m), partialFields(missing));
    });
  }
}
