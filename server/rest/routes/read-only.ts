// Write endpoints of the Qdrant API answer 405: collections are built offline by `strata build` and
// served read-only. Answering them explicitly (rather than 404) tells a Qdrant client's user why.
import type { FastifyInstance, HTTPMethods } from 'fastify';
import { StrataError } from '../../../common/errors.js';

const C = '/collections/:collection_name';

export const READ_ONLY_MESSAGE = 'collections are read-only: build with strata build (then serve the index directory with strata serve)';

/** Qdrant's write routes, each with the methods its path does answer here (the Allow header). */
export const WRITE_ROUTES: ReadonlyArray<{ method: HTTPMethods; url: string; allow: string }> = [
  { method: 'PUT', url: C, allow: 'GET' },
  { method: 'PATCH', url: C, allow: 'GET' },
  { method: 'DELETE', url: C, allow: 'GET' },
  { method: 'PUT', url: `${C}/points`, allow: 'POST' },
  { method: 'POST', url: `${C}/points/delete`, allow: '' },
  { method: 'PUT', url: `${C}/points/vectors`, allow: '' },
  { method: 'POST', url: `${C}/points/vectors/delete`, allow: '' },
  { method: 'POST', url: `${C}/points/payload`, allow: '' },
  { method: 'PUT', url: `${C}/points/payload`, allow: '' },
  { method: 'POST', url: `${C}/points/payload/delete`, allow: '' },
  { method: 'POST', url: `${C}/points/payload/clear`, allow: '' },
  { method: 'POST', url: `${C}/points/batch`, allow: '' },
  { method: 'PUT', url: `${C}/index`, allow: '' },
  { method: 'DELETE', url: `${C}/index/:field_name`, allow: '' },
  { method: 'POST', url: '/collections/aliases', allow: '' },
];

export function registerReadOnlyRoutes(app: FastifyInstance): void {
  for (const r of WRITE_ROUTES) {
    app.route({
      method: r.method,
      url: r.url,
      // The body is irrelevant: do not spend the body limit's worth of parsing on a refused write.
      handler: async () => {
        throw new StrataError('STRATA_READ_ONLY', READ_ONLY_MESSAGE, { allow: r.allow });
      },
    });
  }
}
