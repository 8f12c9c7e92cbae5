// GET /openapi.json: this API's OpenAPI document, the same object as the checked-in docs/openapi.json.
import type { FastifyInstance } from 'fastify';
import { openApiDocument } from '../../openapi/document.js';

export function registerOpenApiRoute(app: FastifyInstance): void {
  const doc = openApiDocument();
  app.get('/openapi.json', async () => doc);
}
