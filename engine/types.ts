// The engine's public types: what the CLI, the server and the benchmarks program against.
import type { Filter } from '../index/filter/ast.js';
import type { Metric } from '../index/kernels/kernels.js';
import type { FieldSchema } from '../index/payload-index/field-index.js';
import type { PayloadIndexParams } from '../index/payload-index/params.js';
import type { PointKey } from '../storage/live-store.js';
import type { PayloadBytes } from '../storage/point-payloads.js';
import type { SecondaryParams, SparseParams } from '../storage/collection-dir.js';

export type { PayloadIndexParams };
import type { SearchStats } from '../index/search/stats.js';
import type { TierBinding } from '../index/tiered/tiered-index.js';
import type { NearDataModel } from '../tiers/cost-model.js';

/** local: a search thread reads every tier itself; ndp: CXL-tier distances are computed by that tier's workers. */
export type ExecutionMode = 'local' | 'ndp';

export interface SearchRequest {
  vector: Float32Array;
  /** The caller's name for the vector in errors (a request field such as `searches[2].vector`; default `vector`). */
  vectorField?: string;
  k: number;
  ef?: number;
  /** Candidates re-scored with full vectors after a traversal on codes (default 5 × k; ignored without codes). */
  rerank?: number;
  /** Re-score every candidate up to `rerank`, none skipped by the code's error bound. */
  rescoreAll?: boolean;
  /** Brute force over all tiers (recall checks). */
  exact?: boolean;
  mode?: ExecutionMode;
  /** Only points whose payload (and id) match: Qdrant's filter, parsed (index/filter/parse.ts). */
  filter?: Filter;
  /** The plan a filtered search runs instead of the planner's choice (benchmarks and tests compare them). */
  filterPlan?: 'scan' | 'graph' | 'two_hop' | 'linked';
  /** Milliseconds from submission; the request fails with STRATA_DEADLINE_EXCEEDED after it. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface SearchHit {
  /** The input's id (or row number). */
  id: number;
  /** hnswlib convention: squared L2, or 1 - dot. */
  distance: number;
}

export interface SearchResponse {
  hits: SearchHit[];
  stats: SearchStats;
  mode: ExecutionMode;
  /** How a filtered search ran (absent without a filter). */
  filter?: FilterPlan;
}

/**
 * Which plan a filtered search ran, and why: `scan` scores only the matching points' compact codes
 * (DRAM) and re-ranks the best from the full vectors (few matches, no graph walk; or many, where the
 * walk's entry showed them scarce near the query); `graph` walks the graph, checking each candidate
 * against the DRAM bitmap of matches before any CXL read; `none`: no point matches, nothing was
 * searched.
 */
export interface FilterPlan {
  plan: PlanName;
  /** The payload indexes' estimate of matching points, before the exact count. */
  estimated: { min: number; exp: number; max: number };
  /** Points that match, exactly: in the base index and in the fresh layer. */
  matched: number;
  base: number;
  fresh: number;
  /** Whether part of the filter was checked per point (a condition no payload index answers). */
  residual: boolean;
  /** What searched the fresh layer's matches: its graph's walk, a scan of them, all of them scored (`exact`), or nothing (none there). */
  freshPlan: FreshPlan;
}

/**
 * The plans a filtered search reports, in FILTER_PLAN's order (index/search/query-state.ts), so that
 * a plan's number names it.
 */
export const PLAN_NAMES = ['none', 'graph', 'scan', 'two_hop', 'linked'] as const;
export type PlanName = (typeof PLAN_NAMES)[number];

/** How a filtered search may search the fresh layer's matches (index/fresh/fresh-filtered.ts). */
export const FRESH_PLANS = ['graph', 'scan', 'exact', 'none'] as const;
export type FreshPlan = (typeof FRESH_PLANS)[number];

/**
 * What a collection update (Qdrant's PATCH /collections/{c}) changes: the HNSW build of the next
 * compaction and the threshold of automatic compactions (CollectionConfig.indexingThresholdKb).
 */
export interface CollectionUpdate {
  m?: number;
  efConstruction?: number;
  indexingThresholdKb?: number;
  /** The code compactions keep in DRAM (CollectionConfig.codes). */
  codes?: 'sq8' | 'none';
  /** The filter links compactions build (CollectionConfig.payloadM). */
  payloadM?: number;
}

/** The points a write selects: listed ids, or every point a filter matches when the write is taken. */
export type PointSelector = { ids: PointKey[] } | { filter: Filter };

/** One entry of `payload_schema`: the index of a key and the points it holds a value for. */
export interface PayloadSchemaEntry {
  data_type: FieldSchema;
  params?: PayloadIndexParams;
  points: number;
}

export interface TierInfo {
  kind: 'dram' | 'cxl';
  /** Nodes whose neighbour lists live in this tier (what decides a node is hot). */
  nodes: number;
  /** Nodes whose records of each kind live in this tier. */
  holds: { neighbourLists: number; vectors: number; codes: number; labels: number };
  bytes: number;
  residentBytes: number;
  binding: TierBinding;
}

/**
 * green: serving, every tier where the memory plan put it; yellow: serving, degraded (a tier fell
 * back to emulation or has pages on another node) or optimizing (the fresh graph being rebuilt):
 * `reasons` says which; red: not serving (closing).
 */
export interface CollectionHealth {
  status: 'green' | 'yellow' | 'red';
  reasons: string[];
}

export interface CollectionInfo {
  name: string;
  health: CollectionHealth;
  /** Memory segments across all tiers (each tier is one or more segments). */
  segments: number;
  dim: number;
  metric: Metric;
  /** The name of its one vector ('' unnamed: Qdrant's default vector). */
  vectorName: string;
  /** Its sparse vectors by name (Qdrant's sparse_vectors), with their settings. */
  sparseVectors: Record<string, SparseParams>;
  /** Its secondary dense vectors by name (Qdrant's named vectors past the first), with their size and distance. */
  secondaryVectors: Record<string, SecondaryParams>;
  count: number;
  /** Points the graph search can reach from its entry point (the others only exact search finds). */
  indexed: number;
  tiers: TierInfo[];
  /**
   * promotionPool: the DRAM slots live re-tiering refills in place (index/tiered/list-pool.ts), the
   * lists in them now and the lists moved in since the base was laid out; null without a pool.
   */
  placement: {
    policy: string;
    dramBudgetBytes: number;
    predictedDramShare: number | null;
    promotionPool: { slots: number; tenants: number; moves: number } | null;
  };
  /** The compact code in DRAM, or null (traversal on full vectors). */
  code: { kind: string; bytesPerVector: number } | null;
  /** What the base was built with. */
  build: { m: number; efConstruction: number; source: string | null };
  /** What the next compaction builds with, and the automatic compaction threshold (kilobytes of float32 vectors; 0: never). */
  /** codes: the code a quantization_config asked compactions to keep (null: the planner's choice). */
  config: { m: number; efConstruction: number; indexingThresholdKb: number; codes: 'sq8' | 'none' | null; payloadM: number };
  memory: { mode: 'numa' | 'emulated'; reason: string };
  /**
   * The writable part, or null (read-only): points in the fresh layer, base points hidden (deleted
   * or superseded by a fresh copy), and the last write applied (its log sequence number).
   */
  /** writeLogSeq: the shared write log's sequence of the last write applied (null: no shared log). */
  live: { fresh: number; hidden: number; appliedLsn: number; writeLogSeq: number | null } | null;
  /** The payload indexes by key (Qdrant's `payload_schema`). */
  payloadSchema: Record<string, PayloadSchemaEntry>;
  /** Bytes of the payload values (columnar store) and of each payload index (DRAM), by key. */
  /** The payload values (CXL tier, placed as valuesPlacement says), the rows' bookkeeping and each index (DRAM). */
  payloadBytes: PayloadBytes;
  /** Bytes of each sparse vector's column (its vectors and inverted index, in DRAM), by name. */
  sparseBytes: Record<string, number>;
  /** Bytes of each secondary dense vector, by name: its tiered base (both tiers) and its points written since (DRAM). */
  secondaryBytes: Record<string, number>;
}

export interface EngineOptions {
  /** Search threads. 0 runs searches on the calling thread (tests, CLI). */
  searchThreads?: number;
  /**
   * Tasks whose queries' beams, max(ef, k), sum to at most this (and no exact query) run on the
   * calling thread even with search threads (executor.ts HybridExecutor): for one effective CPU,
   * where the hand-off is pure cost.
   * 0 (the default): every task goes to the search threads. Local mode only.
   */
  inlineEfBudget?: number;
  /** Queries one search thread runs concurrently (ndp) or takes per task (local). */
  inflightPerThread?: number;
  /** Requests waiting or running, per collection, before new ones are rejected with STRATA_OVERLOADED. */
  maxQueue?: number;
  /** Default execution mode. */
  mode?: ExecutionMode;
  /** Start tier workers so that ndp requests can run. Default: mode === 'ndp'. */
  ndp?: boolean;
  /** Emulated CXL expanders (tier workers for the CXL tier). */
  expanders?: number;
  /** Stall by the modelled CXL extra time (emulated CXL end to end). */
  inject?: boolean;
  /** CXL-ANNS foreseeing: prefetch the next candidate's neighbour list one step ahead (default on). */
  prefetch?: boolean;
  /** Near-data model: host worker threads (read CXL at CXL cost), or a computational device (reads its own DRAM). */
  nearData?: NearDataModel;
  /** CXL-ANNS scheduling split: overlap one group's deferrable work with the other group's tier work (ndp). */
  pipeline?: boolean;
  defaultEf?: number;
  /** Near-data hand-off: polls of a channel before a thread sleeps on it (0: sleep at once). */
  spin?: number;
  /** Filtered scans read a value's codes from its value run where the base has one (default on; index/tiered/value-runs.ts). */
  valueRuns?: boolean;
}
