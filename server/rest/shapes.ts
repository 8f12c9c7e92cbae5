// Qdrant's JSON shapes of points: a scored point ({id, version, score, payload, vector?}) and a
// record ({id, payload, vector?}). The payload is the stored one ({} when none) when asked for, else null.
import type { Payload, PointKey } from '../../engine/public.js';
import type { PointRecord, ScoredHit } from '../api/points.js';
import { pointVectorsOut, type SparseJson } from '../api/vector-space.js';
import type { Codec } from './codec.js';

type VectorJson = Float32Array | number[];
type VectorsJson = VectorJson | Record<string, VectorJson | SparseJson>;

export interface ScoredPointJson {
  id: PointKey;
  version: number;
  score: number;
  payload: Payload | null;
  vector?: VectorsJson;
  order_value?: number;
}

export interface RecordJson {
  id: PointKey;
  payload: Payload | null;
  vector?: VectorsJson;
  order_value?: number;
}

/** `vectorName`: the collection's ('' unnamed); a named vector is answered as {name: vector}. */
export function scoredPoint(h: ScoredHit, withPayload: boolean, codec: Codec, vectorName: string): ScoredPointJson {
  const p: ScoredPointJson = { id: h.id, version: 0, score: h.score, payload: withPayload ? (h.payload ?? {}) : null };
  const v = pointVectorsOut(h.vector && codec.vector(h.vector), vectorName, h.named, (f) => codec.vector(f));
  if (v !== undefined) p.vector = v;
  if (h.orderValue !== undefined) p.order_value = h.orderValue;
  return p;
}

export function record(r: PointRecord, withPayload: boolean, codec: Codec, vectorName: string): RecordJson {
  const p: RecordJson = { id: r.id, payload: withPayload ? (r.payload ?? {}) : null };
  const v = pointVectorsOut(r.vector && codec.vector(r.vector), vectorName, r.named, (f) => codec.vector(f));
  if (v !== undefined) p.vector = v;
  if (r.orderValue !== undefined) p.order_value = r.orderValue;
  return p;
}
