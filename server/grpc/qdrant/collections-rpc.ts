// qdrant.Collections (List, Get, Create, Update, Delete, CollectionExists, the aliases, the cluster
// view of a collection) and qdrant.Qdrant/HealthCheck.
// Get is the REST collection view (server/api/collection-view.ts) in Qdrant's message shape; Create
// is REST's create body, so the same checks name the same fields.
import type { DescService, MessageInitShape } from '@bufbuild/protobuf';
import {
  ChangeAliasesSchema,
  CollectionClusterInfoRequestSchema,
  CollectionClusterInfoResponseSchema,
  CollectionExistsRequestSchema,
  type CollectionInfoSchema,
  CollectionExistsResponseSchema,
  CollectionOperationResponseSchema,
  CollectionStatus,
  CreateCollectionSchema,
  DeleteCollectionSchema,
  Datatype,
  Distance,
  GetCollectionInfoRequestSchema,
  GetCollectionInfoResponseSchema,
  HealthCheckReplySchema,
  HealthCheckRequestSchema,
  type HnswConfigDiff,
  HnswConfigDiffSchema,
  Modifier,
  OptimizersConfigDiffSchema,
  UpdateCollectionSchema,
  ListAliasesRequestSchema,
  ListAliasesResponseSchema,
  ListCollectionAliasesRequestSchema,
  ListCollectionsRequestSchema,
  ListCollectionsResponseSchema,
  type PayloadIndexParamsSchema,
  PayloadSchemaType,
  type QuantizationConfig,
  type QuantizationConfigDiff,
  QuantizationType,
  ReplicaState,
  TokenizerType,
  type VectorParams,
  SparseIndexConfigSchema,
  type SparseVectorConfig,
  SparseVectorParamsSchema,
  VectorParamsSchema,
  type VectorsConfigSchema,
} from '@qdrant/js-client-grpc';
import { invalidArgument } from '../../../common/errors.js';
import { QDRANT_API_VERSION } from '../../../common/version.js';
import { checkCollectionName } from '../../../engine/public.js';
import { parseAliasActions } from '../../api/aliases.js';
import { collectionView, type QdrantCollectionView, vectorParamsOf } from '../../api/collection-view.js';
import type { PayloadSchemaView } from '../../api/payload-index.js';
import { parseCollectionUpdate, parseCreateCollection } from '../../api/writes.js';
import { HEALTH_TITLE } from '../../rest/routes/health.js';
import type { GrpcContext } from '../calls.js';
import { type QdrantRouter, secondsSince } from './calls.js';
import { intOf, onlyFields } from './refuse.js';

const STATUS = { green: CollectionStatus.Green, yellow: CollectionStatus.Yellow, red: CollectionStatus.Red } as const;

const SCHEMA_TYPES: Readonly<Record<string, PayloadSchemaType>> = {
  keyword: PayloadSchemaType.Keyword,
  integer: PayloadSchemaType.Integer,
  float: PayloadSchemaType.Float,
  geo: PayloadSchemaType.Geo,
  text: PayloadSchemaType.Text,
  bool: PayloadSchemaType.Bool,
  datetime: PayloadSchemaType.Datetime,
  uuid: PayloadSchemaType.Uuid,
};

type IndexParamsInit = MessageInitShape<typeof PayloadIndexParamsSchema>;

/** The object form's parameters (text, integer) as PayloadIndexParams; the bare forms have none. */
function indexParams(e: PayloadSchemaView): IndexParamsInit | undefined {
  const p = e.params;
  if (p === undefined) return undefined;
  const big = (v: unknown): bigint | undefined => (typeof v === 'number' ? BigInt(v) : undefined);
  const bool = (v: unknown): boolean | undefined => (typeof v === 'boolean' ? v : undefined);
  if (e.data_type === 'text') {
    return {
      indexParams: {
        case: 'textIndexParams',
        value: {
          tokenizer: p['tokenizer'] === 'whitespace' ? TokenizerType.Whitespace : TokenizerType.Word,
          lowercase: bool(p['lowercase']),
          minTokenLen: big(p['min_token_len']),
          maxTokenLen: big(p['max_token_len']),
        },
      },
    };
  }
  if (e.data_type === 'integer') return { indexParams: { case: 'integerIndexParams', value: { lookup: bool(p['lookup']), range: bool(p['range']) } } };
  return undefined;
}

/** The HnswConfigDiff members Strata builds with (REST's hnsw_config); any other is refused. */
const HNSW_FIELDS = ['m', 'ef_construct', 'payload_m'];

/** An HnswConfigDiff as REST's hnsw_config, unset members left out; the parser checks the values. */
function hnswJson(h: HnswConfigDiff): Record<string, unknown> {
  return {
    m: intOf(h.m, 'hnsw_config.m'),
    ef_construct: intOf(h.efConstruct, 'hnsw_config.ef_construct'),
    payload_m: intOf(h.payloadM, 'hnsw_config.payload_m'),
  };
}

/** A QuantizationConfig (create) or QuantizationConfigDiff (update) as REST's quantization_config; the parser decides what it takes. */
function quantizationJson(q: QuantizationConfig | QuantizationConfigDiff | undefined): unknown {
  const v = q?.quantization;
  if (v === undefined || v.case === undefined) return undefined;
  if (v.case === 'disabled') return 'Disabled';
  if (v.case !== 'scalar') return { [v.case]: {} };
  return {
    scalar: {
      type: v.value.type === QuantizationType.Int8 ? 'int8' : QuantizationType[v.value.type],
      quantile: v.value.quantile,
      always_ram: v.value.alwaysRam,
    },
  };
}

function distanceOf(name: string): Distance {
  return Distance[name as keyof typeof Distance];
}

export function bindCollections(r: QdrantRouter, svc: DescService, health: DescService, ctx: GrpcContext): void {
  r.unary(health, 'HealthCheck', HealthCheckRequestSchema, HealthCheckReplySchema, () => ({ title: HEALTH_TITLE, version: QDRANT_API_VERSION }), {
    public: true,
  });

  r.unary(svc, 'List', ListCollectionsRequestSchema, ListCollectionsResponseSchema, () => {
    const t0 = performance.now();
    return { collections: ctx.engine.collections().map((c) => ({ name: c.name })), time: secondsSince(t0) };
  });

  r.unary(svc, 'Get', GetCollectionInfoRequestSchema, GetCollectionInfoResponseSchema, (req) => {
    const t0 = performance.now();
    const v = collectionView(ctx.engine.collection(req.collectionName).info());
    const { params, hnsw_config, optimizer_config } = v.config;
    const result: MessageInitShape<typeof CollectionInfoSchema> = {
      status: STATUS[v.status],
      optimizerStatus: { ok: true },
      segmentsCount: BigInt(v.segments_count),
      pointsCount: BigInt(v.points_count),
      indexedVectorsCount: BigInt(v.indexed_vectors_count),
      config: {
        params: {
          shardNumber: params.shard_number,
          onDiskPayload: params.on_disk_payload,
          replicationFactor: params.replication_factor,
          writeConsistencyFactor: params.write_consistency_factor,
          vectorsConfig: vectorsConfigOf(params.vectors),
          ...(params.sparse_vectors ? { sparseVectorsConfig: sparseConfigOf(params.sparse_vectors) } : {}),
        },
        hnswConfig: { m: BigInt(hnsw_config.m), efConstruct: BigInt(hnsw_config.ef_construct), payloadM: BigInt(hnsw_config.payload_m) },
        optimizerConfig: { indexingThreshold: BigInt(optimizer_config.indexing_threshold) },
        walConfig: {},
        ...(v.config.quantization_config
          ? { quantizationConfig: { quantization: { case: 'scalar' as const, value: { type: QuantizationType.Int8, alwaysRam: true } } } }
          : {}),
      },
      payloadSchema: Object.fromEntries(
        Object.entries(v.payload_schema).map(([key, e]) => [
          key,
          { dataType: SCHEMA_TYPES[e.data_type] ?? PayloadSchemaType.UnknownType, params: indexParams(e), points: BigInt(e.points) },
        ]),
      ),
    };
    return { result, time: secondsSince(t0) };
  });

  r.unary(svc, 'CollectionExists', CollectionExistsRequestSchema, CollectionExistsResponseSchema, (req) => {
    const t0 = performance.now();
    checkCollectionName(req.collectionName);
    return { result: { exists: ctx.engine.collections().some((c) => c.name === req.collectionName) }, time: secondsSince(t0) };
  });

  r.unary(svc, 'Create', CreateCollectionSchema, CollectionOperationResponseSchema, async (req) => {
    const t0 = performance.now();
    onlyFields(CreateCollectionSchema, req, ['collection_name', 'vectors_config', 'sparse_vectors_config', 'hnsw_config', 'quantization_config']);
    const vc = req.vectorsConfig?.config;
    if (vc === undefined || vc.case === undefined) throw invalidArgument('vectors_config', 'required: vectors_config.params with size and distance');
    // REST's shapes, so that one parser checks both: {size, distance}, or {name: {size, distance}}.
    const one = (p: VectorParams, at: string): Record<string, unknown> => {
      onlyFields(VectorParamsSchema, p, ['size', 'distance'], at);
      return { size: intOf(p.size, `${at}size`), distance: Distance[p.distance] };
    };
    const vectors =
      vc.case === 'params'
        ? one(vc.value, 'vectors_config.params.')
        : Object.fromEntries(Object.entries(vc.value.map).map(([n, p]) => [n, one(p, `vectors_config.params_map.${n}.`)]));
    const hnsw = req.hnswConfig;
    if (hnsw) onlyFields(HnswConfigDiffSchema, hnsw, HNSW_FIELDS, 'hnsw_config.');
    const cfg = parseCreateCollection(req.collectionName, {
      vectors,
      sparse_vectors: sparseJson(req.sparseVectorsConfig),
      hnsw_config: hnsw ? hnswJson(hnsw) : undefined,
      quantization_config: quantizationJson(req.quantizationConfig),
    });
    await ctx.engine.createCollection(cfg);
    return { result: true, time: secondsSince(t0) };
  });

  r.unary(svc, 'Update', UpdateCollectionSchema, CollectionOperationResponseSchema, (req) => {
    const t0 = performance.now();
    onlyFields(UpdateCollectionSchema, req, ['collection_name', 'hnsw_config', 'optimizers_config', 'quantization_config', 'timeout']);
    const hnsw = req.hnswConfig;
    if (hnsw) onlyFields(HnswConfigDiffSchema, hnsw, HNSW_FIELDS, 'hnsw_config.');
    const opt = req.optimizersConfig;
    if (opt) onlyFields(OptimizersConfigDiffSchema, opt, ['indexing_threshold'], 'optimizers_config.');
    const u = parseCollectionUpdate({
      hnsw_config: hnsw ? hnswJson(hnsw) : undefined,
      optimizers_config: opt ? { indexing_threshold: intOf(opt.indexingThreshold, 'optimizers_config.indexing_threshold') } : undefined,
      quantization_config: quantizationJson(req.quantizationConfig),
    });
    ctx.engine.updateCollection(req.collectionName, u);
    return { result: true, time: secondsSince(t0) };
  });

  // Aliases: REST's actions, parsed by REST's parser (server/api/aliases.ts).
  r.unary(svc, 'UpdateAliases', ChangeAliasesSchema, CollectionOperationResponseSchema, (req) => {
    const t0 = performance.now();
    onlyFields(ChangeAliasesSchema, req, ['actions', 'timeout']);
    const actions = req.actions.map((a, i) => {
      const op = a.action;
      if (op.case === 'createAlias') return { create_alias: { collection_name: op.value.collectionName, alias_name: op.value.aliasName } };
      if (op.case === 'renameAlias') return { rename_alias: { old_alias_name: op.value.oldAliasName, new_alias_name: op.value.newAliasName } };
      if (op.case === 'deleteAlias') return { delete_alias: { alias_name: op.value.aliasName } };
      throw invalidArgument(`actions[${i}]`, 'required: create_alias, rename_alias or delete_alias');
    });
    ctx.engine.updateAliases(parseAliasActions({ actions }));
    return { result: true, time: secondsSince(t0) };
  });

  const aliases = (collection?: string) => ctx.engine.listAliases(collection).map((a) => ({ aliasName: a.alias_name, collectionName: a.collection_name }));
  r.unary(svc, 'ListAliases', ListAliasesRequestSchema, ListAliasesResponseSchema, () => {
    const t0 = performance.now();
    return { aliases: aliases(), time: secondsSince(t0) };
  });
  r.unary(svc, 'ListCollectionAliases', ListCollectionAliasesRequestSchema, ListAliasesResponseSchema, (req) => {
    const t0 = performance.now();
    return { aliases: aliases(req.collectionName), time: secondsSince(t0) };
  });

  // A server without Qdrant's distributed mode: one peer, each collection one local shard.
  r.unary(svc, 'CollectionClusterInfo', CollectionClusterInfoRequestSchema, CollectionClusterInfoResponseSchema, (req) => {
    const c = ctx.engine.collection(req.collectionName);
    return { peerId: 0n, shardCount: 1n, localShards: [{ shardId: 0, pointsCount: BigInt(c.count()), state: ReplicaState.Active }] };
  });

  r.unary(svc, 'Delete', DeleteCollectionSchema, CollectionOperationResponseSchema, async (req) => {
    const t0 = performance.now();
    onlyFields(DeleteCollectionSchema, req, ['collection_name']);
    return { result: await ctx.engine.deleteCollection(req.collectionName), time: secondsSince(t0) };
  });
}

/** sparse_vectors_config as REST's sparse_vectors (REST's parser checks it; fields REST has no name for are refused here). */
function sparseJson(c: SparseVectorConfig | undefined): Record<string, unknown> | undefined {
  if (c === undefined) return undefined;
  return Object.fromEntries(
    Object.entries(c.map).map(([name, p]) => {
      const at = `sparse_vectors_config.map.${name.slice(0, 40)}.`;
      onlyFields(SparseVectorParamsSchema, p, ['index', 'modifier'], at);
      const index = p.index;
      if (index) onlyFields(SparseIndexConfigSchema, index, ['on_disk', 'datatype'], `${at}index.`);
      return [
        name,
        {
          ...(p.modifier !== undefined ? { modifier: p.modifier === Modifier.Idf ? 'idf' : 'none' } : {}),
          ...(index
            ? {
                index: {
                  ...(index.onDisk !== undefined ? { on_disk: index.onDisk } : {}),
                  ...(index.datatype !== undefined && index.datatype !== Datatype.Default ? { datatype: Datatype[index.datatype]?.toLowerCase() } : {}),
                },
              }
            : {}),
        },
      ];
    }),
  );
}

/** A collection's sparse vectors as its info's sparse_vectors_config. */
function sparseConfigOf(sparse: NonNullable<QdrantCollectionView['config']['params']['sparse_vectors']>): { map: Record<string, { modifier: Modifier }> } {
  return { map: Object.fromEntries(Object.entries(sparse).map(([n, p]) => [n, { modifier: p.modifier === 'idf' ? Modifier.Idf : Modifier.None }])) };
}

/** The vectors config of a collection's info: `params` for the unnamed vector, `params_map` for named ones. */
function vectorsConfigOf(vectors: QdrantCollectionView['config']['params']['vectors']): MessageInitShape<typeof VectorsConfigSchema> {
  const { name, params, secondary } = vectorParamsOf(vectors);
  const paramsOut = (p: typeof params) => ({ size: BigInt(p.size), distance: distanceOf(p.distance), onDisk: false });
  if (name === '') return { config: { case: 'params', value: paramsOut(params) } };
  const map = { [name]: paramsOut(params), ...Object.fromEntries(Object.entries(secondary).map(([n, p]) => [n, paramsOut(p)])) };
  return { config: { case: 'paramsMap', value: { map } } };
}
