// List codes: the block layout decodes back to each neighbour's codes, the encoder picks each
// subspace's nearest centroid, the u8 table's estimate stays within its rounding bound of the float
// sum it stands for, and on random vectors the estimate is close to the true distance and ranks a true
// nearest neighbour ahead of most random points, for both metrics.
import { describe, expect, it } from 'vitest';
import { gaussian, mulberry32 } from '../../../common/random.js';
import {
  encodeListCodes,
  LIST_CODE,
  type ListCodeBook,
  layoutListBlock,
  listCodeStride,
  listEstimatesJs,
  prepareListLut,
  trainListCodes,
} from '../../../index/codes/list-codes.js';

function gaussianRows(n: number, dim: number, seed: number, unit: boolean): Float32Array {
  const g = gaussian(mulberry32(seed));
  const out = new Float32Array(n * dim);
  for (let i = 0; i < n; i++) {
    let s = 0;
    for (let d = 0; d < dim; d++) {
      const v = g();
      out[i * dim + d] = v;
      s += v * v;
    }
    if (unit) for (let d = 0; d < dim; d++) out[i * dim + d] = out[i * dim + d]! / Math.sqrt(s);
  }
  return out;
}

const distance = (metric: 'l2' | 'ip', a: ArrayLike<number>, b: ArrayLike<number>, dim: number): number => {
  let s = 0;
  for (let d = 0; d < dim; d++) s += metric === 'l2' ? (a[d]! - b[d]!) ** 2 : a[d]! * b[d]!;
  return metric === 'l2' ? s : 1 - s;
};

/** The distance the codes stand for, in f64: the query against each subspace's chosen centroid. */
function codedDistance(book: ListCodeBook, metric: 'l2' | 'ip', q: Float32Array, codes: Uint8Array, row: number): number {
  let s = metric === 'ip' ? 1 : 0;
  for (let sub = 0; sub < book.subspaces; sub++) {
    const c = (sub * 16 + codes[row * book.subspaces + sub]!) * 2;
    const a = q[2 * sub]!;
    const b = 2 * sub + 1 < book.dim ? q[2 * sub + 1]! : 0;
    const x = book.centroids[c]!;
    const y = book.centroids[c + 1]!;
    s += metric === 'ip' ? -(a * x + b * y) : (a - x) ** 2 + (b - y) ** 2;
  }
  return s;
}

/** Estimates of nb's rows through the laid-out block and listEstimatesJs. */
function estimates(book: ListCodeBook, metric: 'l2' | 'ip', q: Float32Array, codes: Uint8Array, nb: number[]): { est: number[]; lo: number; scale: number } {
  const stride = listCodeStride(book.subspaces, nb.length);
  const lutBytes = book.subspaces * 16;
  const mem = new Uint8Array(lutBytes + stride);
  const { lo, scale } = prepareListLut(book, q, metric, mem.subarray(0, lutBytes));
  layoutListBlock(codes, book.subspaces, nb, nb.length, mem, lutBytes, stride);
  const blocks = Math.ceil(nb.length / 32);
  const sums = new Uint16Array(blocks * 32);
  listEstimatesJs(mem, 0, mem, lutBytes, book.subspaces, blocks, sums, 0);
  return { est: nb.map((_, k) => lo + sums[k]! / scale), lo, scale };
}

describe('list codes', () => {
  it('lays a list out in 32-neighbour blocks of nibbles that decode back to each neighbour’s codes', () => {
    const rnd = mulberry32(11);
    for (const [subspaces, maxDegree, deg] of [
      [5, 64, 45],
      [3, 32, 32],
      [1, 96, 70],
      [50, 40, 17],
    ] as const) {
      const rows = 200;
      const codes = Uint8Array.from({ length: rows * subspaces }, () => Math.floor(rnd() * 16));
      const nb = Array.from({ length: deg }, () => Math.floor(rnd() * rows));
      const stride = listCodeStride(subspaces, maxDegree);
      expect(stride).toBe(Math.ceil(maxDegree / 32) * subspaces * 16);
      const at = 37;
      const out = Uint8Array.from({ length: at + stride + 23 }, () => Math.floor(rnd() * 256));
      const before = out.slice();
      layoutListBlock(codes, subspaces, nb, deg, out, at, stride);
      for (let i = 0; i < out.length; i++) if (i < at || i >= at + stride) expect(out[i]).toBe(before[i]);
      for (let k = 0; k < Math.ceil(maxDegree / 32) * 32; k++) {
        const b = Math.floor(k / 32);
        const j = k % 32;
        for (let s = 0; s < subspaces; s++) {
          const byte = out[at + (b * subspaces + s) * 16 + (j % 16)]!;
          const code = j < 16 ? byte & 15 : byte >> 4;
          expect(code).toBe(k < deg ? codes[nb[k]! * subspaces + s] : 0);
        }
      }
    }
  });

  it('refuses a list longer than its block', () => {
    const codes = new Uint8Array(40 * 4);
    const nb = Array.from({ length: 33 }, (_, i) => i);
    expect(() => layoutListBlock(codes, 4, nb, 33, new Uint8Array(1024), 0, listCodeStride(4, 32))).toThrow(/do not fit/);
  });

  it('trains 16 centroids per 2-dim subspace (a 1-dim last one padded with 0) and encodes each row to its nearest', () => {
    const dim = 7;
    const n = 500;
    const data = gaussianRows(n, dim, 3, false);
    const book = trainListCodes(data, dim, 5, 300);
    expect(book.subspaces).toBe(4);
    expect(book.centroids.length).toBe(4 * LIST_CODE.centroids * LIST_CODE.sub);
    for (let j = 0; j < 16; j++) expect(book.centroids[(3 * 16 + j) * 2 + 1]).toBe(0);
    const codes = encodeListCodes(book, data, n);
    expect(codes.length).toBe(n * 4);
    for (let i = 0; i < n; i++) {
      for (let s = 0; s < 4; s++) {
        const a = data[i * dim + 2 * s]!;
        const b = 2 * s + 1 < dim ? data[i * dim + 2 * s + 1]! : 0;
        const d = (j: number): number => (a - book.centroids[(s * 16 + j) * 2]!) ** 2 + (b - book.centroids[(s * 16 + j) * 2 + 1]!) ** 2;
        const c = codes[i * 4 + s]!;
        expect(c).toBeLessThan(16);
        for (let j = 0; j < 16; j++) expect(d(c)).toBeLessThanOrEqual(d(j));
      }
    }
    // Deterministic for a seed.
    expect(trainListCodes(data, dim, 5, 300).centroids).toEqual(book.centroids);
  });

  it('fills a book trained on fewer rows than centroids without choosing the spare entries', () => {
    const data = gaussianRows(5, 4, 9, false);
    const book = trainListCodes(data, 4, 1);
    const codes = encodeListCodes(book, data, 5);
    for (const c of codes) expect(c).toBeLessThan(5);
  });

  it('refuses more than 256 subspaces (the kernel’s u16 sums)', () => {
    expect(() => trainListCodes(new Float32Array(513 * 2), 513, 1)).toThrow(/at most 512/);
    expect(trainListCodes(new Float32Array(512 * 2), 512, 1, 2).subspaces).toBe(256);
  });

  for (const metric of ['ip', 'l2'] as const) {
    it(`${metric}: the table's estimate is within subspaces × 0.5 / scale of the coded distance`, () => {
      for (const dim of [100, 7, 1]) {
        const n = 300;
        const data = gaussianRows(n, dim, 21 + dim, metric === 'ip');
        const book = trainListCodes(data, dim, 2);
        const codes = encodeListCodes(book, data, n);
        const queries = gaussianRows(10, dim, 99 + dim, metric === 'ip');
        for (let qi = 0; qi < 10; qi++) {
          const q = queries.subarray(qi * dim, qi * dim + dim);
          const nb = Array.from({ length: 70 }, (_, k) => (k * 37 + qi) % n);
          const lut = new Uint8Array(book.subspaces * 16);
          const { lo, scale } = prepareListLut(book, q, metric, lut);
          expect(Math.fround(lo)).toBe(lo);
          expect(Math.fround(scale)).toBe(scale);
          // Every subspace's entries start at 0, and the widest one spans the whole byte.
          let widest = 0;
          for (let s = 0; s < book.subspaces; s++) {
            const row = lut.subarray(s * 16, s * 16 + 16);
            expect(Math.min(...row)).toBe(0);
            widest = Math.max(widest, ...row);
          }
          expect(widest).toBe(255);
          const { est } = estimates(book, metric, q, codes, nb);
          const bound = (book.subspaces * 0.5) / scale + 1e-6 * Math.max(1, Math.abs(lo));
          let exact = 0;
          for (let k = 0; k < nb.length; k++) {
            const ref = codedDistance(book, metric, q, codes, nb[k]!);
            const err = Math.abs(est[k]! - ref);
            expect(err).toBeLessThanOrEqual(bound);
            if (err < bound / 4) exact++;
          }
          // Rounding errors of the subspaces partly cancel: most estimates sit well inside the bound.
          if (book.subspaces > 10) expect(exact).toBeGreaterThan(nb.length / 2);
        }
      }
    });
  }

  it('uses scale 1 and an all-zero table when every range is 0', () => {
    const book = trainListCodes(gaussianRows(100, 6, 4, true), 6, 3);
    const lut = new Uint8Array(3 * 16).fill(7);
    const { lo, scale } = prepareListLut(book, new Float32Array(6), 'ip', lut);
    expect(scale).toBe(1);
    expect(lo).toBe(1);
    expect([...lut].every((v) => v === 0)).toBe(true);
  });

  for (const metric of ['ip', 'l2'] as const) {
    it(`${metric}: on random unit vectors in 100 dims the estimate is close to the true distance and ranks the nearest neighbour first`, () => {
      const dim = 100;
      const n = 2000;
      const data = gaussianRows(n, dim, metric === 'ip' ? 7 : 8, true);
      const book = trainListCodes(data, dim, 13);
      const codes = encodeListCodes(book, data, n);
      const queries = gaussianRows(30, dim, 77, true);
      const rnd = mulberry32(5);
      const errors: number[] = [];
      const truths: number[] = [];
      let aheadShare = 0;
      for (let qi = 0; qi < 30; qi++) {
        const q = queries.subarray(qi * dim, qi * dim + dim);
        let nearest = 0;
        let nearestD = Number.POSITIVE_INFINITY;
        for (let i = 0; i < n; i++) {
          const d = distance(metric, q, data.subarray(i * dim, i * dim + dim), dim);
          if (d < nearestD) {
            nearestD = d;
            nearest = i;
          }
        }
        // The true nearest neighbour first, then random points.
        const nb = [nearest, ...Array.from({ length: 63 }, () => Math.floor(rnd() * n)).filter((x) => x !== nearest)];
        const { est } = estimates(book, metric, q, codes, nb);
        for (let k = 0; k < nb.length; k++) {
          const t = distance(metric, q, data.subarray(nb[k]! * dim, nb[k]! * dim + dim), dim);
          errors.push(est[k]! - t);
          truths.push(t);
        }
        let ahead = 0;
        for (let k = 1; k < nb.length; k++) if (est[0]! < est[k]!) ahead++;
        aheadShare += ahead / (nb.length - 1);
      }
      const avg = (xs: number[]): number => xs.reduce((a, x) => a + x, 0) / xs.length;
      const mean = avg(truths);
      const spread = avg(truths.map((t) => Math.abs(t - mean)));
      const bias = avg(errors);
      const mae = avg(errors.map(Math.abs));
      // The rows' own quantisation error: an l2 estimate from x's centroids c runs low by |x - c|²
      // on average (|q - c|² = |q - x|² + |x - c|² + 2(q - x)·(x - c), and x·(x - c) averages |x - c|²
      // over a k-means cell); an ip estimate has no such term.
      let distortion = 0;
      for (let i = 0; i < n; i++) distortion += codedDistance(book, 'l2', data.subarray(i * dim, i * dim + dim), codes, i);
      distortion /= n;
      if (metric === 'ip') {
        expect(Math.abs(bias)).toBeLessThan(0.01);
        expect(mae).toBeLessThan(0.05);
      } else {
        expect(bias).toBeLessThan(-0.7 * distortion);
        expect(bias).toBeGreaterThan(-1.3 * distortion);
        expect(mae).toBeLessThan(0.1 * mean);
      }
      // Past the bias, far closer than guessing every distance at their mean (what codes carrying
      // no information would come to).
      expect(avg(errors.map((e) => Math.abs(e - bias)))).toBeLessThan(0.5 * spread);
      expect(aheadShare / 30).toBeGreaterThan(0.95);
    });
  }
});
