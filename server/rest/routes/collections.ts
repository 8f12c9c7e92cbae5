// Collection routes: list, describe (Qdrant's shape plus tier placement), exists, and aliases.
import type { FastifyInstance } from 'fastify';
import { sampleView, type TierHistoryView } from '../../tier-history.js';
import { checkCollectionName } from '../../../engine/public.js';
import { parseAliasActions } from '../../api/aliases.js';
import { collectionView } from '../../api/collection-view.js';
import { bodyObject } from '../../api/fields.js';
import { codecFor, send } from '../codec.js';
import type { CollectionParams, RestContext } from '../context.js';
import { ok } from '../envelope.js';
import { collectionParams } from '../schemas.js';

/** The hottest lists the tier history lists. */
const HOTTEST_LISTS = 10;

export function registerCollectionRoutes(app: FastifyInstance, ctx: RestContext): void {
  app.get('/collections', async (req, reply) => {
    const collections = ctx.engine.collections().map((c) => ({ name: c.name }));
    return send(reply, codecFor(req), ok(reply, { collections }));
  });

  app.get<{ Params: CollectionParams }>('/collections/:collection_name', { schema: { params: collectionParams } }, async (req, reply) => {
    const c = ctx.engine.collection(req.params.collection_name);
    return send(reply, codecFor(req), ok(reply, collectionView(c.info())));
  });

  // Strata's own, for the dashboard: memory by part and tier, and the last minutes of tier statistics.
  app.get<{ Params: CollectionParams }>('/collections/:collection_name/memory', { schema: { params: collectionParams } }, async (req, reply) =>
    send(reply, codecFor(req), ok(reply, ctx.engine.collection(req.params.collection_name).memory())),
  );
  app.get<{ Params: CollectionParams }>('/collections/:collection_name/tiers/history', { schema: { params: collectionParams } }, async (req, reply) => {
    const c = ctx.engine.collection(req.params.collection_name);
    const samples = ctx.metrics.history.of(c.name).map(sampleView);

    const hottest = c.hottestLists(HOTTEST_LISTS).map((h) => ({ point: h.point, reads: h.reads }));
    const view: TierHistoryView = { period_ms: ctx.metrics.history.periodMs, samples, hottest_lists: hottest };
    return send(reply, codecFor(req), ok(reply, view));
  });

  // Qdrant's cluster views, as a server without its distributed mode answers them: one peer, each
  // collection one local shard (Strata's own shards are whole servers behind strata router).
  app.get('/cluster', async (req, reply) => send(reply, codecFor(req), ok(reply, { status: 'disabled' })));
  app.get<{ Params: CollectionParams }>('/collections/:collection_name/cluster', { schema: { params: collectionParams } }, async (req, reply) => {
    const c = ctx.engine.collection(req.params.collection_name);
    const info = {
      peer_id: 0,
      shard_count: 1,
      local_shards: [{ shard_id: 0, points_count: c.count(), state: 'Active' }],
      remote_shards: [],
      shard_transfers: [],
    };
    return send(reply, codecFor(req), ok(reply, info));
  });

  // Aliases (engine/aliases.ts): listed all, or of one collection (named by itself or an alias).
  app.get('/aliases', async (req, reply) => send(reply, codecFor(req), ok(reply, { aliases: ctx.engine.listAliases() })));
  app.get<{ Params: CollectionParams }>('/collections/:collection_name/aliases', { schema: { params: collectionParams } }, async (req, reply) =>
    send(reply, codecFor(req), ok(reply, { aliases: ctx.engine.listAliases(req.params.collection_name) })),
  );
  app.post('/collections/aliases', async (req, reply) => {
    ctx.engine.updateAliases(parseAliasActions(bodyObject(req.body)));
    return send(reply, codecFor(req), ok(reply, true));
  });

  app.get<{ Params: CollectionParams }>('/collections/:collection_name/exists', { schema: { params: collectionParams } }, async (req, reply) => {
    checkCollectionName(req.params.collection_name);
    const exists = ctx.engine.collections().some((c) => c.name === req.params.collection_name);
    return send(reply, codecFor(req), ok(reply, { exists }));
  });
}
