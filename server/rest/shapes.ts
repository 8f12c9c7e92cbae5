// Qdrant's JSON shapes of points: a scored point ({id, version, score, payload, vector?}) and a
// record ({id, payload, vector?}). Strata points carry no payload: `{}` when asked for, else null.
import type { PointRecord, ScoredHit } from '../api/points.js';
import type { Codec } from './codec.js';

export interface ScoredPointJson {
  id: number;
  version: number;
  score: number;
  payload: Record<string, never> | null;
  vector?: Float32Array | number[];
}

export interface RecordJson {
  id: number;
  payload: Record<string, never> | null;
  vector?: Float32Array | number[];
}

export function scoredPoint(h: ScoredHit, withPayload: boolean, codec: Codec): ScoredPointJson {
  const p: ScoredPointJson = { id: h.id, version: 0, score: h.score, payload: withPayload ? {} : null };
  if (h.vector) p.vector = codec.vector(h.vector);
  return p;
}

export function record(r: PointRecord, withPayload: boolean, codec: Codec): RecordJson {
  const p: RecordJson = { id: r.id, payload: withPayload ? {} : null };
  if (r.vector) p.vector = codec.vector(r.vector);
  return p;
}
