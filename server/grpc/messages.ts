// The gRPC messages as proto-loader decodes them (LOADER_OPTIONS: snake_case names, absent scalars
// as defaults, absent `optional` fields as undefined, absent messages as null).
import type { CompactionView } from '../api/writes.js';
import type { GetResponseOut, SearchBatchResponseOut, SearchResponseOut } from './answer-encoding.js';

export interface SearchParamsMsg {
  hnsw_ef?: number;
  exact?: boolean;
  rerank?: number;
  quantization?: { ignore?: boolean; rescore?: boolean; oversampling?: number } | null;
  filter_plan?: string;
}

export interface SearchRequestMsg {
  collection_name: string;
  vector: number[];
  limit: number;
  offset?: number;
  params: SearchParamsMsg | null;
  with_vector: boolean;
  score_threshold?: number;
  timeout_ms?: number;
  with_stats?: boolean;
  filter_json: string;
}

/** Points answers are written by answer-encoding.ts, not by proto-loader: vectors stay Float32Array. */
export type SearchResponseMsg = SearchResponseOut;

export interface SearchBatchRequestMsg {
  collection_name: string;
  searches: SearchRequestMsg[];
  timeout_ms?: number;
}

export type SearchBatchResponseMsg = SearchBatchResponseOut;

export interface GetRequestMsg {
  collection_name: string;
  ids: number[];
  with_vector: boolean;
}

export type GetResponseMsg = GetResponseOut;

export interface CountRequestMsg {
  collection_name: string;
  filter_json: string;
}

export interface ScrollRequestMsg {
  collection_name: string;
  offset?: number;
  limit: number;
  with_vector: boolean;
  filter_json: string;
}

export interface ScrollResponseMsg {
  result: Array<{ id: number; vector: number[] }>;
  next_page_offset?: number;
  time: number;
}

export interface CountResponseMsg {
  count: number;
  time: number;
}

export type ListCollectionsRequestMsg = Record<string, never>;

export interface ListCollectionsResponseMsg {
  collections: Array<{ name: string }>;
  time: number;
}

export interface GetCollectionRequestMsg {
  collection_name: string;
}

export interface TierInfoMsg {
  kind: string;
  nodes: number;
  bytes: number;
  resident_bytes: number;
  binding_mode: string;
  numa_node?: number;
  pages_on_node?: number;
  pages_elsewhere?: number;
  note: string;
}

export interface CollectionInfoMsg {
  name: string;
  status: string;
  status_reasons: string[];
  segments_count: number;
  dimension: number;
  distance: string;
  points_count: number;
  hnsw_m: number;
  hnsw_ef_construct: number;
  tiers: TierInfoMsg[];
  memory_mode: string;
  memory_reason: string;
  placement_policy: string;
  dram_budget_bytes: number;
  predicted_dram_share?: number;
  promotion_pool?: { slots: number; tenants: number; moves: number };
  payload_indexes: PayloadIndexInfoMsg[];
  payload_values_bytes: number;
}

export interface PayloadIndexInfoMsg {
  key: string;
  data_type: string;
  points: number;
  bytes: number;
  params_json: string;
}

export interface GetCollectionResponseMsg {
  result: CollectionInfoMsg;
  time: number;
}

export type ServingStatus = 'UNKNOWN' | 'SERVING' | 'NOT_SERVING' | 'SERVICE_UNKNOWN';

export interface HealthCheckRequestMsg {
  service: string;
}

export interface HealthCheckResponseMsg {
  status: ServingStatus;
}

export interface PointStructMsg {
  id: number;
  vector: number[];
  payload_json: string;
}

export interface UpsertRequestMsg {
  collection_name: string;
  points: PointStructMsg[];
}

export interface DeletePointsRequestMsg {
  collection_name: string;
  ids: number[];
  filter_json: string;
}

export interface UpdateResponseMsg {
  operation_id: number;
  status: string;
  time: number;
}

export interface CreateCollectionRequestMsg {
  collection_name: string;
  dimension: number;
  distance: string;
  hnsw_m: number;
  hnsw_ef_construct: number;
}

export interface CreateCollectionResponseMsg {
  result: boolean;
  time: number;
}

export interface DeleteCollectionRequestMsg {
  collection_name: string;
}

export interface DeleteCollectionResponseMsg {
  result: boolean;
  time: number;
}

export interface CompactCollectionRequestMsg {
  collection_name: string;
}

/** strata.v1.CompactResult: the REST answer's fields. */
export type CompactResultMsg = CompactionView;

export interface CompactCollectionResponseMsg {
  result: CompactResultMsg;
  time: number;
}

export interface SetPayloadRequestMsg {
  collection_name: string;
  ids: number[];
  payload_json: string;
  overwrite: boolean;
  filter_json: string;
  key: string;
}
