// Collection routes: list, describe (Qdrant's shape plus tier placement) and exists.
import type { FastifyInstance } from 'fastify';
import { checkCollectionName } from '../../../engine/public.js';
import { collectionView } from '../../api/collection-view.js';
import { codecFor, send } from '../codec.js';
import type { CollectionParams, RestContext } from '../context.js';
import { ok } from '../envelope.js';
import { collectionParams } from '../schemas.js';

export function registerCollectionRoutes(app: FastifyInstance, ctx: RestContext): void {
  app.get('/collections', async (req, reply) => {
    const collections = ctx.engine.collections().map((c) => ({ name: c.name }));
    return send(reply, codecFor(req), ok(reply, { collections }));
  });

  app.get<{ Params: CollectionParams }>('/collections/:collection_name', { schema: { params: collectionParams } }, async (req, reply) => {
    const c = ctx.engine.collection(req.params.collection_name);
    return send(reply, codecFor(req), ok(reply, collectionView(c.info())));
  });

  app.get<{ Params: CollectionParams }>('/collections/:collection_name/exists', { schema: { params: collectionParams } }, async (req, reply) => {
    checkCollectionName(req.params.collection_name);
    const exists = ctx.engine.collections().some((c) => c.name === req.params.collection_name);
    return send(reply, codecFor(req), ok(reply, { exists }));
  });
}
