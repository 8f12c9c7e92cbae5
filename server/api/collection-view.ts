// A collection as Qdrant describes one (GET /collections/{name}, its payload indexes in
// `payload_schema`), plus the `strata` field: where its tiers live, how big they are and whether
// their placement was verified, and the bytes of its payloads and payload indexes. Nothing is canned:
// `status` is the engine's health of the collection (green / yellow / red, with the reasons in
// strata.status_reasons), `segments_count` the memory segments across its tiers, and
// `optimizer_status` is "ok" because no optimiser reports here: indexes are built complete by
// `strata build`, and writes (with a data directory) are folded in by compaction, which answers for
// itself (Qdrant reports {"error": …} only when an optimisation failed).
import { namedOut } from './vector-space.js';
import type { ValuesPlacement } from '../../engine/public.js';
import type { CollectionInfo } from '../../engine/public.js';
import { type PayloadSchemaView, payloadSchemaView } from './payload-index.js';
import { qdrantDistance, type QdrantDistance } from './scores.js';

export interface StrataTierView {
  kind: 'dram' | 'cxl';
  nodes: number;
  bytes: number;
  resident_bytes: number;
  /** How the tier's memory is placed: numa (bound and verified), emulated (cost model) or unbound. */
  binding: {
    mode: 'numa' | 'emulated' | 'unbound';
    node: number | null;
    pages: number;
    /** Pages verified (move_pages) to be on the node; null when not verified. */
    pages_on_node: number | null;
    pages_elsewhere: number | null;
    note: string;
  };
}

/** Where the payload values are (index/payload/chunk-memory.ts): bound to a NUMA node and verified per page, or emulated. */
export interface ValuesTierView {
  tier: 'cxl';
  mode: 'numa' | 'emulated';
  node: number | null;
  slabs: number;
  pages: number | null;
  pages_on_node: number | null;
  pages_elsewhere: number | null;
}

export function valuesTierView(p: ValuesPlacement): ValuesTierView {
  return {
    tier: p.tier,
    mode: p.mode,
    node: p.node,
    slabs: p.slabs,
    pages: p.pages,
    pages_on_node: p.pagesOnNode,
    pages_elsewhere: p.pagesElsewhere,
  };
}

export interface VectorParamsView {
  size: number;
  distance: QdrantDistance;
  on_disk: boolean;
}

/**
 * The params of a collection's primary vector (the first named, as a create gives them) and of its
 * secondary ones, by name, from either shape of `vectors`.
 */
export function vectorParamsOf(vectors: QdrantCollectionView['config']['params']['vectors']): {
  name: string;
  params: VectorParamsView;
  secondary: Record<string, VectorParamsView>;
} {
  if (typeof vectors['size'] === 'number') return { name: '', params: vectors as VectorParamsView, secondary: {} };
  const [[name, params], ...rest] = Object.entries(vectors as Record<string, VectorParamsView>) as [
    [string, VectorParamsView],
    ...[string, VectorParamsView][],
  ];
  return { name, params, secondary: Object.fromEntries(rest) };
}

export interface QdrantCollectionView {
  status: 'green' | 'yellow' | 'red';
  optimizer_status: 'ok';
  indexed_vectors_count: number;
  points_count: number;
  segments_count: number;
  config: {
    params: {
      /** The unnamed vector's params, or {name: params} for named ones (the primary first). */
      vectors: VectorParamsView | Record<string, VectorParamsView>;
      /** Its sparse vectors by name, when it has any. */
      sparse_vectors?: Record<string, { modifier?: 'idf' }>;
      shard_number: number;
      replication_factor: number;
      write_consistency_factor: number;
      on_disk_payload: boolean;
    };
    hnsw_config: { m: number; ef_construct: number; full_scan_threshold: number; max_indexing_threads: number; on_disk: boolean; payload_m: number };
    optimizer_config: {
      deleted_threshold: number;
      vacuum_min_vector_number: number;
      default_segment_number: number;
      max_segment_size: null;
      memmap_threshold: null;
      indexing_threshold: number;
      flush_interval_sec: number;
      max_optimization_threads: number;
    };
    wal_config: { wal_capacity_mb: number; wal_segments_ahead: number };
    /** The quantization its compactions keep, as asked at create or update (null: Strata's planner picks by budget). */
    quantization_config: { scalar: { type: 'int8'; always_ram: true } } | null;
  };
  /** The payload indexes by key path, with the points each holds a value for. */
  payload_schema: Record<string, PayloadSchemaView>;
  strata: {
    /** Why the status is not green (empty when it is). */
    status_reasons: string[];
    tiers: StrataTierView[];
    /**
     * Bytes of the payload values (the columnar store, in the CXL tier: where values_tier says), of
     * the rows' bookkeeping and of each payload index by key path (both in DRAM).
     */
    payload: { values_bytes: number; values_tier: ValuesTierView; rows_bytes: number; index_bytes: Record<string, number> };
    /** Bytes of each sparse vector (its vectors and inverted index, in DRAM), by name. */
    sparse_bytes: Record<string, number>;
    /** Each secondary dense vector's bytes: its tiered base (both tiers; GET …/memory splits them) and its points written since. */
    secondary_bytes: Record<string, number>;
    placement: {
      policy: string;
      dram_budget_bytes: number;
      predicted_dram_share: number | null;
      promotion_pool: { slots: number; tenants: number; moves: number } | null;
    };
    /** The compact code the base keeps in DRAM, or null (traversal on full vectors, or no base yet). */
    code: { kind: string; bytes_per_vector: number } | null;
    memory: { mode: 'numa' | 'emulated'; reason: string };
    /** What the base serving now was built with (config.hnsw_config is what the next compaction builds with). */
    build: { source: string | null; m: number; ef_construct: number };
    /** True when the collection takes no writes (the server has no --data-dir). */
    read_only: boolean;
    /** The writable part: points in the fresh layer, base points hidden, the last write applied. */
    live: { fresh_points: number; hidden_base_points: number; applied_operation_id: number; write_log_seq: number | null } | null;
  };
}

/** sparse_vectors as Qdrant shows them (absent when there are none; modifier only when idf). */
function sparseVectorsView(s: CollectionInfo['sparseVectors']): { sparse_vectors?: Record<string, { modifier?: 'idf' }> } {
  const names = Object.keys(s);
  if (names.length === 0) return {};
  return { sparse_vectors: Object.fromEntries(names.map((n) => [n, s[n]!.modifier === 'idf' ? { modifier: 'idf' as const } : {}])) };
}

/** `vectors` as Qdrant shows them: the unnamed vector's params, or {name: params}, the primary first. */
function vectorsView(info: CollectionInfo): QdrantCollectionView['config']['params']['vectors'] {
  const primary: VectorParamsView = { size: info.dim, distance: qdrantDistance(info.metric), on_disk: false };
  const secondary = Object.entries(info.secondaryVectors);
  if (secondary.length === 0) return namedOut(primary, info.vectorName);
  return {
    [info.vectorName]: primary,
    ...Object.fromEntries(secondary.map(([n, p]) => [n, { size: p.dim, distance: qdrantDistance(p.metric), on_disk: false }])),
  };
}

export function collectionView(info: CollectionInfo): QdrantCollectionView {
  return {
    status: info.health.status,
    optimizer_status: 'ok',
    indexed_vectors_count: info.indexed,
    points_count: info.count,
    segments_count: info.segments,
    config: {
      params: {
        vectors: vectorsView(info),
        ...sparseVectorsView(info.sparseVectors),
        shard_number: 1,
        replication_factor: 1,
        write_consistency_factor: 1,
        on_disk_payload: false,
      },
      // The settings the next compaction builds with (PATCH changes them); the base's own are strata.build.
      hnsw_config: {
        m: info.config.m,
        ef_construct: info.config.efConstruction,
        full_scan_threshold: 0,
        max_indexing_threads: 0,
        on_disk: false,
        payload_m: info.config.payloadM,
      },
      // Strata's one optimiser is the compaction: indexing_threshold is when it starts by itself.
      optimizer_config: {
        deleted_threshold: 0,
        vacuum_min_vector_number: 0,
        default_segment_number: 1,
        max_segment_size: null,
        memmap_threshold: null,
        indexing_threshold: info.config.indexingThresholdKb,
        flush_interval_sec: 0,
        max_optimization_threads: 0,
      },
      wal_config: { wal_capacity_mb: 0, wal_segments_ahead: 0 },
      quantization_config: info.config.codes === 'sq8' ? { scalar: { type: 'int8', always_ram: true } } : null,
    },
    payload_schema: payloadSchemaView(info.payloadSchema),
    strata: {
      status_reasons: info.health.reasons,
      tiers: info.tiers.map((t) => ({
        kind: t.kind,
        nodes: t.nodes,
        bytes: t.bytes,
        resident_bytes: t.residentBytes,
        binding: {
          mode: t.binding.mode,
          node: t.binding.node,
          pages: t.binding.pages,
          pages_on_node: t.binding.pagesOnNode,
          pages_elsewhere: t.binding.pagesElsewhere,
          note: t.binding.note,
        },
      })),
      payload: {
        values_bytes: info.payloadBytes.values,
        values_tier: valuesTierView(info.payloadBytes.valuesPlacement),
        rows_bytes: info.payloadBytes.rows,
        index_bytes: { ...info.payloadBytes.indexes },
      },
      sparse_bytes: { ...info.sparseBytes },
      secondary_bytes: { ...info.secondaryBytes },
      placement: {
        policy: info.placement.policy,
        dram_budget_bytes: info.placement.dramBudgetBytes,
        predicted_dram_share: info.placement.predictedDramShare,
        promotion_pool: info.placement.promotionPool,
      },
      code: info.code ? { kind: info.code.kind, bytes_per_vector: info.code.bytesPerVector } : null,
      memory: { mode: info.memory.mode, reason: info.memory.reason },
      build: { source: info.build.source, m: info.build.m, ef_construct: info.build.efConstruction },
      read_only: info.live === null,
      live: info.live
        ? {
            fresh_points: info.live.fresh,
            hidden_base_points: info.live.hidden,
            applied_operation_id: info.live.appliedLsn,
            write_log_seq: info.live.writeLogSeq,
          }
        : null,
    },
  };
}
