// Qdrant's JSON shapes of points: a scored point ({id, version, score, payload, vector?}) and a
// record ({id, payload, vector?}). The payload is the stored one ({} when none) when asked for, else null.
import type { Payload, PointKey } from '../../engine/public.js';
import type { PointRecord, ScoredHit } from '../api/points.js';
import type { Codec } from './codec.js';

export interface ScoredPointJson {
  id: PointKey;
  version: number;
  score: number;
  payload: Payload | null;
  vector?: Float32Array | number[];
  order_value?: number;
}

export interface RecordJson {
  id: PointKey;
  payload: Payload | null;
  vector?: Float32Array | number[];
  order_value?: number;
}

export function scoredPoint(h: ScoredHit, withPayload: boolean, codec: Codec): ScoredPointJson {
  const p: ScoredPointJson = { id: h.id, version: 0, score: h.score, payload: withPayload ? (h.payload ?? {}) : null };
  if (h.vector) p.vector = codec.vector(h.vector);
  if (h.orderValue !== undefined) p.order_value = h.orderValue;
  return p;
}

export function record(r: PointRecord, withPayload: boolean, codec: Codec): RecordJson {
  const p: RecordJson = { id: r.id, payload: withPayload ? (r.payload ?? {}) : null };
  if (r.vector) p.vector = codec.vector(r.vector);
  if (r.orderValue !== undefined) p.order_value = r.orderValue;
  return p;
}
