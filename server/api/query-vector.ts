// The one vector a query source searches with (query-input.ts), in one of the collection's dense
// vectors (dense-view.ts): a vector given (unit length for Cosine, as stored vectors are), a stored
// point's, or a recommendation's 2 × mean(positive) − mean(negative).
import { type Collection, normalizeRows } from '../../engine/public.js';
import type { DenseView } from './dense-view.js';
import { getPointOrThrow, missingVector } from './points.js';
import type { VectorInput, VectorSource } from './query-input.js';

export function inputVector(c: Collection, d: DenseView, input: VectorInput): Float32Array {
  if ('id' in input) {
    const { id } = getPointOrThrow(c, input.id, String(input.id));
    const v = d.vectorOf(id);
    if (v === null) throw missingVector('using', String(input.id), d.secondary!, false);
    return v;
  }
  if (d.metric !== 'cosine') return input.vector;
  const v = input.vector.slice();
  normalizeRows(v, d.dim);
  return v;
}

function meanOf(c: Collection, d: DenseView, inputs: readonly VectorInput[]): Float64Array {
  const m = new Float64Array(d.dim);
  for (const input of inputs) {
    const v = inputVector(c, d, input);
    for (let i = 0; i < m.length; i++) m[i]! += v[i]! / inputs.length;
  }
  return m;
}

/** The vector of a nearest or recommend source. */
export function sourceVector(c: Collection, d: DenseView, s: VectorSource): Float32Array {
  if (s.kind === 'nearest') return inputVector(c, d, s.input);
  const pos = meanOf(c, d, s.positive);
  if (s.negative.length === 0) return Float32Array.from(pos);
  const neg = meanOf(c, d, s.negative);
  return Float32Array.from(pos, (x, i) => 2 * x - neg[i]!);
}
