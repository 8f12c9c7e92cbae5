// The shapes of the API answers the pages read (docs/api.md).
import type { VectorsConfig } from './vectors';

export interface TierView {
  kind: 'dram' | 'cxl';
  nodes: number;
  bytes: number;
  resident_bytes: number;
  binding: { mode: string; node: number | null; pages: number | null; pages_on_node: number | null; pages_elsewhere: number | null; note: string };
}

export interface CollectionView {
  status: 'green' | 'yellow' | 'red';
  optimizer_status: unknown;
  points_count: number;
  indexed_vectors_count: number;
  segments_count: number;
  config: { params: { vectors: VectorsConfig; sparse_vectors?: Record<string, unknown> }; hnsw_config: { m: number; ef_construct: number } };
  payload_schema: Record<string, { data_type: string; points: number }>;
  strata?: {
    status_reasons: string[];
    tiers: TierView[];
    placement?: {
      policy: string;
      dram_budget_bytes: number;
      predicted_dram_share: number | null;
      promotion_pool: { slots: number; tenants: number; moves: number } | null;
    };
    code?: { kind: string; bytes_per_vector: number } | null;
    memory?: { mode: string; reason: string };
    read_only?: boolean;
    live?: { fresh_points: number; hidden_base_points: number; applied_operation_id: number; write_log_seq: number | null } | null;
  };
}

export interface MemoryPart {
  part: string;
  dram: number;
  cxl: number;
}

export interface Memory {
  parts: MemoryPart[];
  total: { dram: number; cxl: number };
}

export interface ScoredPoint {
  id: number | string;
  score: number;
  payload: Record<string, unknown> | null;
  vector?: number[] | Record<string, number[]>;
}

export interface Record_ {
  id: number | string;
  payload: Record<string, unknown> | null;
  vector?: number[] | Record<string, number[]>;
}

export interface SearchStats {
  mode?: string;
  hops?: number;
  distance_computations?: number;
  accesses?: { dram: number; cxl: number };
  bytes?: { dram: number; cxl: number };
  modelled_memory_ns?: number;
  modelled_cxl_extra_ns?: number;
  injected_ns?: number;
  stalled_ns?: number;
  filter?: { plan: string; estimated: { min: number; exp: number; max: number }; matched: number };
}

export interface TierSample {
  at: number;
  searches: number;
  dram_share: number | null;
  dram_bytes_per_s: number;
  cxl_bytes_per_s: number;
  pool_moves: number;
  qps: number;
  p50_ms: number | null;
  p99_ms: number | null;
}

export interface Snapshot {
  name: string;
  creation_time: string;
  size: number;
  checksum: string;
}

export interface TierHistory {
  period_ms: number;
  samples: TierSample[];
  hottest_lists: Array<{ point: number | string; reads: number }>;
}
