// Collection routes over the shards: the list, a collection's view, its memory and tier history, its
// existence and the aliases merged from every shard; create, update, delete, compact and alias
// changes done on every replica of every shard (ShardCalls.everywhere).
import type { FastifyInstance } from 'fastify';
import type { CollectionParams } from '../../rest/context.js';
import { answer, partialFields } from '../answer.js';
import type { QdrantCollectionView } from '../../api/collection-view.js';
import type { CompactionView } from '../../api/writes.js';
import { type AliasView, mergeAliases, mergeCollectionNames, mergeCollectionViews, mergeCompactions, mergeHistories, mergeMemory } from '../merge.js';
import { parseAliasActions } from '../../api/aliases.js';
import { bodyObject } from '../../api/fields.js';
import type { RouterContext } from '../route-context.js';
import type { TierHistoryView } from '../../tier-history.js';
import { resultOf } from '../shard-calls.js';
import { COLLECTION_ROUTE, collectionPath } from '../collection-paths.js';

export function registerCollectionRoutes(app: FastifyInstance, ctx: RouterContext): void {
  const { calls, scoreOrder } = ctx;

  app.get('/collections', async (req, r) => {
    const { answers, missing } = await calls.fanOut('GET', '/collections');
    return answer(req, r, mergeCollectionNames(answers.map((a) => resultOf<{ collections: Array<{ name: string }> }>(a))), partialFields(missing));
  });

  app.get<{ Params: CollectionParams }>(COLLECTION_ROUTE, async (req, r) => {
    const { answers, missing } = await calls.fanOut('GET', collectionPath(req.params.collection_name));
    const view = mergeCollectionViews(
      answers.map((a) => resultOf<QdrantCollectionView>(a)),
      ctx.shards.count,
      missing,
    );
    return answer(req, r, view, partialFields(missing));
  });

  // The dashboard's: memory by part and tier, and the tier history, over the shards.
  app.get<{ Params: CollectionParams }>(`${COLLECTION_ROUTE}/memory`, async (req, r) => {
    const { answers, missing } = await calls.fanOut('GET', collectionPath(req.params.collection_name, '/memory'));
    return answer(req, r, mergeMemory(answers.map((a) => resultOf<{ parts: Array<{ part: string; dram: number; cxl: number }> }>(a))), partialFields(missing));
  });
  app.get<{ Params: CollectionParams }>(`${COLLECTION_ROUTE}/tiers/history`, async (req, r) => {
    const { answers, missing } = await calls.fanOut('GET', collectionPath(req.params.collection_name, '/tiers/history'));
    return answer(req, r, mergeHistories(answers.map((a) => resultOf<TierHistoryView>(a))), partialFields(missing));
  });

  // A create or a delete answers as the first shard's first replica did.
  app.put<{ Params: CollectionParams; Body: unknown }>(COLLECTION_ROUTE, async (req, r) => {
    const name = req.params.collection_name;
    scoreOrder.forget(name);
    return answer(req, r, (await calls.everywhere<unknown>('PUT', collectionPath(name), req.body ?? {}))[0]![0], {});
  });
  // An update's settings apply at each shard's next compaction; answered as the first replica did.
  app.patch<{ Params: CollectionParams; Body: unknown }>(COLLECTION_ROUTE, async (req, r) => {
    return answer(req, r, (await calls.everywhere<unknown>('PATCH', collectionPath(req.params.collection_name), req.body ?? {}))[0]![0], {});
  });
  app.delete<{ Params: CollectionParams }>(COLLECTION_ROUTE, async (req, r) => {
    const name = req.params.collection_name;
    scoreOrder.forget(name);
    return answer(req, r, (await calls.everywhere<unknown>('DELETE', collectionPath(name)))[0]![0], {});
  });
  app.post<{ Params: CollectionParams }>(`${COLLECTION_ROUTE}/compact`, async (req, r) => {
    const byShard = await calls.everywhere<CompactionView>('POST', collectionPath(req.params.collection_name, '/compact'));
    return answer(req, r, mergeCompactions(byShard), {});
  });

  app.get<{ Params: CollectionParams }>(`${COLLECTION_ROUTE}/exists`, async (req, r) => {
    const { answers, missing } = await calls.fanOut('GET', collectionPath(req.params.collection_name, '/exists'));
    return answer(req, r, { exists: answers.every((a) => resultOf<{ exists: boolean }>(a).exists) }, partialFields(missing));
  });

  // Aliases: changed on every replica of every shard, so that any shard resolves them in the paths
  // the router forwards. The actions are checked here first: a bad one reaches no shard.
  app.post<{ Body: unknown }>('/collections/aliases', async (req, r) => {
    parseAliasActions(bodyObject(req.body));
    await calls.everywhere<unknown>('POST', '/collections/aliases', req.body);
    return answer(req, r, true, {});
  });
  app.get('/aliases', async (req, r) => {
    const { answers, missing } = await calls.fanOut('GET', '/aliases');
    return answer(req, r, { aliases: mergeAliases(answers.map((a) => resultOf<{ aliases: AliasView[] }>(a).aliases)) }, partialFields(missing));
  });
  app.get<{ Params: CollectionParams }>(`${COLLECTION_ROUTE}/aliases`, async (req, r) => {
    const { answers, missing } = await calls.fanOut('GET', collectionPath(req.params.collection_name, '/aliases'));
    return answer(req, r, { aliases: mergeAliases(answers.map((a) => resultOf<{ aliases: AliasView[] }>(a).aliases)) }, partialFields(missing));
  });
}
