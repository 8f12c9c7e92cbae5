import { beforeAll, describe, expect, it } from 'vitest';
import { encodeRows, PARALLEL_ENCODE_FROM } from '../../../index/codes/encode-rows.js';
import { trainCodec } from '../../../index/codes/index.js';
import { ensureBuilt } from '../../helpers/cli.js';

const dim = 24;
const count = PARALLEL_ENCODE_FROM + 5000;

function sharedRows(): Float32Array {
  const v = new Float32Array(new SharedArrayBuffer(4 * count * dim));
  for (let i = 0; i < v.length; i++) v[i] = Math.sin(i * 0.013) + ((i * 7919) % 101) / 100;
  return v;
}

describe('encoding a code on several threads', () => {
  beforeAll(() => ensureBuilt());

  it('writes the same rows on one thread and on three, in the given node order', () => {
    const vectors = sharedRows();
    // a permutation, so that node i takes row order[i]
    const order = Uint32Array.from({ length: count }, (_, i) => (i * 40503) % count);
    for (const kind of ['sq8', 'rq3'] as const) {
      const codec = trainCodec(kind, vectors.subarray(0, 4000 * dim), dim, 'l2', { seed: 2 });
      const stride = codec.spec.stride;
      const one = new SharedArrayBuffer(64 + count * stride);
      const three = new SharedArrayBuffer(64 + count * stride);
      encodeRows(codec, { vectors, dim, order, start: 0, count, target: { buffer: one, at: 64 } }, 1);
      encodeRows(codec, { vectors, dim, order, start: 0, count, target: { buffer: three, at: 64 } }, 3);
      const a = new Uint8Array(one);
      const b = new Uint8Array(three);
      expect(Buffer.compare(a, b), kind).toBe(0);
      // and node i's row is row order[i]'s code
      const alone = new Uint8Array(stride);
      const node = count - 3;
      codec.encode(vectors.subarray(order[node]! * dim, order[node]! * dim + dim), 0, 1, alone);
      expect(Array.from(a.subarray(64 + node * stride, 64 + (node + 1) * stride))).toEqual(Array.from(alone));
    }
  });
});
