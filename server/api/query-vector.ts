// The one vector a query source searches with (query-input.ts): a vector given (unit length for
// Cosine, as stored vectors are), a stored point's, or a recommendation's 2 × mean(positive) −
// mean(negative).
import { type Collection, normalizeRows } from '../../engine/public.js';
import { getPointOrThrow } from './points.js';
import type { VectorInput, VectorSource } from './query-input.js';

export function inputVector(c: Collection, input: VectorInput): Float32Array {
  if ('id' in input) return getPointOrThrow(c, input.id, String(input.id)).vector;
  if (c.metric !== 'cosine') return input.vector;
  const v = input.vector.slice();
  normalizeRows(v, c.dim);
  return v;
}

function meanOf(c: Collection, inputs: readonly VectorInput[]): Float64Array {
  const m = new Float64Array(c.dim);
  for (const input of inputs) {
    const v = inputVector(c, input);
    for (let d = 0; d < m.length; d++) m[d]! += v[d]! / inputs.length;
  }
  return m;
}

/** The vector of a nearest or recommend source. */
export function sourceVector(c: Collection, s: VectorSource): Float32Array {
  if (s.kind === 'nearest') return inputVector(c, s.input);
  const pos = meanOf(c, s.positive);
  if (s.negative.length === 0) return Float32Array.from(pos);
  const neg = meanOf(c, s.negative);
  return Float32Array.from(pos, (x, d) => 2 * x - neg[d]!);
}
