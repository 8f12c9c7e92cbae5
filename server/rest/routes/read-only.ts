// Qdrant write endpoints Strata does not take answer 405 (the supported writes are in writes.ts):
// answering them explicitly (rather than 404) tells a Qdrant client's user why.
import type { FastifyInstance, HTTPMethods } from 'fastify';
import { readOnly } from '../../../common/errors.js';

const C = '/collections/:collection_name';

export const READ_ONLY_MESSAGE =
  'Strata takes collection create/update/delete, point upsert/delete, payload set/overwrite/delete/clear, batches of those, payload index create/delete and aliases (with --data-dir); build large collections offline with strata build';

/** Qdrant's write routes, each with the methods its path does answer here (the Allow header). */
export const WRITE_ROUTES: ReadonlyArray<{ method: HTTPMethods; url: string; allow: string }> = [
  { method: 'PUT', url: `${C}/points/vectors`, allow: '' },
  { method: 'POST', url: `${C}/points/vectors/delete`, allow: '' },
];

export function registerReadOnlyRoutes(app: FastifyInstance): void {
  for (const r of WRITE_ROUTES) {
    app.route({
      method: r.method,
      url: r.url,
      // The body is irrelevant: do not spend the body limit's worth of parsing on a refused write.
      handler: async () => {
        throw readOnly('this endpoint', 'unsupported', READ_ONLY_MESSAGE, { allow: r.allow });
      },
    });
  }
}
