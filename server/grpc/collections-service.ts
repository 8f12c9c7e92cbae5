// strata.v1.Collections: List and Get (the REST collection view, flattened into a message), Create,
// Delete and Compact (the REST bodies' parsers and the engine's operations).
import type * as grpc from '@grpc/grpc-js';
import { invalidArgument } from '../../common/errors.js';
import { payloadIndexInfos, payloadSchemaView } from '../api/payload-index.js';
import { qdrantDistance } from '../api/scores.js';
import { compactionView, parseCreateCollection } from '../api/writes.js';
import { secondsSince, unary, type GrpcContext } from './calls.js';
import type {
  CollectionInfoMsg,
  CreateCollectionRequestMsg,
  CreateCollectionResponseMsg,
  DeleteCollectionRequestMsg,
  CompactCollectionRequestMsg,
  CompactCollectionResponseMsg,
  DeleteCollectionResponseMsg,
  GetCollectionRequestMsg,
  GetCollectionResponseMsg,
  ListCollectionsRequestMsg,
  ListCollectionsResponseMsg,
} from './messages.js';

export function collectionsService(ctx: GrpcContext): grpc.UntypedServiceImplementation {
  return {
    List: unary<ListCollectionsRequestMsg, ListCollectionsResponseMsg>(ctx, 'Collections/List', () => {
      const t0 = performance.now();
      return { collections: ctx.engine.collections().map((c) => ({ name: c.name })), time: secondsSince(t0) };
    }),
    Get: unary<GetCollectionRequestMsg, GetCollectionResponseMsg>(ctx, 'Collections/Get', (req) => {
      const t0 = performance.now();
      if (req.collection_name === '') throw invalidArgument('collection_name', 'required: the name of a collection (Collections/List lists them)');
      const info = ctx.engine.collection(req.collection_name).info();
      const result: CollectionInfoMsg = {
        name: info.name,
        status: info.health.status,
        status_reasons: info.health.reasons,
        segments_count: info.segments,
        dimension: info.dim,
        distance: qdrantDistance(info.metric),
        points_count: info.count,
        hnsw_m: info.build.m,
        hnsw_ef_construct: info.build.efConstruction,
        tiers: info.tiers.map((t) => ({
          kind: t.kind,
          nodes: t.nodes,
          bytes: t.bytes,
          resident_bytes: t.residentBytes,
          binding_mode: t.binding.mode,
          ...(t.binding.node !== null ? { numa_node: t.binding.node } : {}),
          ...(t.binding.pagesOnNode !== null ? { pages_on_node: t.binding.pagesOnNode } : {}),
          ...(t.binding.pagesElsewhere !== null ? { pages_elsewhere: t.binding.pagesElsewhere } : {}),
          note: t.binding.note,
        })),
        memory_mode: info.memory.mode,
        memory_reason: info.memory.reason,
        placement_policy: info.placement.policy,
        dram_budget_bytes: info.placement.dramBudgetBytes,
        ...(info.placement.predictedDramShare !== null ? { predicted_dram_share: info.placement.predictedDramShare } : {}),
        ...(info.placement.promotionPool !== null ? { promotion_pool: info.placement.promotionPool } : {}),
        payload_indexes: payloadIndexInfos(payloadSchemaView(info.payloadSchema), info.payloadBytes.indexes),
        payload_values_bytes: info.payloadBytes.values,
      };
      return { result, time: secondsSince(t0) };
    }),
    Create: unary<CreateCollectionRequestMsg, CreateCollectionResponseMsg>(ctx, 'Collections/Create', async (req) => {
      const t0 = performance.now();
      if (req.collection_name === '') throw invalidArgument('collection_name', 'required: the name of the collection to create');
      const cfg = parseCreateCollection(req.collection_name, {
        vectors: { size: req.dimension, distance: req.distance },
        hnsw_config: { ...(req.hnsw_m ? { m: req.hnsw_m } : {}), ...(req.hnsw_ef_construct ? { ef_construct: req.hnsw_ef_construct } : {}) },
      });
      await ctx.engine.createCollection(cfg);
      return { result: true, time: secondsSince(t0) };
    }),
    Delete: unary<DeleteCollectionRequestMsg, DeleteCollectionResponseMsg>(ctx, 'Collections/Delete', async (req) => {
      const t0 = performance.now();
      if (req.collection_name === '') throw invalidArgument('collection_name', 'required: the name of the collection to delete');
      return { result: await ctx.engine.deleteCollection(req.collection_name), time: secondsSince(t0) };
    }),
    Compact: unary<CompactCollectionRequestMsg, CompactCollectionResponseMsg>(ctx, 'Collections/Compact', async (req) => {
      const t0 = performance.now();
      if (req.collection_name === '') throw invalidArgument('collection_name', 'required: the name of the collection to compact');
      return { result: compactionView(await ctx.engine.compact(req.collection_name)), time: secondsSince(t0) };
    }),
  };
}
