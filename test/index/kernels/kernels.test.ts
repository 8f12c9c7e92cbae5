// The batch distance kernels (WASM SIMD and the scalar JS twin) against the float64 reference.
// Each case lays a query, a block of rows (with a random row stride and unaligned offsets), an id
// list and an output area into a fresh shared memory pre-filled with noise, so a kernel that reads
// past a row, mishandles a SIMD tail or writes outside its output shows up as a wrong value.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../../common/random.js';
import { instantiateKernels, jsKernels, kernelModule, type KernelSet } from '../../../index/kernels/kernels.js';
import { ipRef, l2Ref, normalizeRows } from '../../../index/kernels/reference.js';

const PAGES = 4;
const MEM_BYTES = PAGES * 65536;
const MAX_DIM = 300;
const MAX_ROWS = 24;
const MAX_IDS = 48;
// Byte areas of the scratch memory (each case adds a small random offset to q and base).
const Q_AREA = 0; // up to 256 + 4 * 300 bytes
const IDS_AT = 4096;
const OUT_AT = 8192;
const BASE_AREA = 12288; // up to 64 + 24 * (300 + 8) * 4 bytes ≈ 30 KiB

type Make = (memory: WebAssembly.Memory) => KernelSet;
const KERNELS: Array<[string, Make]> = [
  ['wasm-simd', instantiateKernels],
  ['js', jsKernels],
];

function freshMemory(): WebAssembly.Memory {
  return new WebAssembly.Memory({ initial: PAGES, maximum: PAGES, shared: true });
}

interface Case {
  dim: number;
  rows: number;
  q: Float32Array;
  base: Float32Array;
  ids: number[];
  /** Extra floats after each row (row stride = (dim + pad) * 4 bytes). */
  pad: number;
  /** Byte offsets (multiples of 4, not of 16) of the query and of row 0. */
  qOff: number;
  baseOff: number;
}

interface Outcome {
  l2: Float32Array;
  ip: Float32Array;
  /** First byte outside the output words that a kernel call changed, or -1. */
  strayWrite: number;
}

/** Runs both batch kernels of `make` on the case; the memory is noise everywhere else. */
function runCase(make: Make, c: Case, noiseSeed: number): Outcome {
  const memory = freshMemory();
  const f32 = new Float32Array(memory.buffer);
  const u32 = new Uint32Array(memory.buffer);
  const u8 = new Uint8Array(memory.buffer);
  const rnd = mulberry32(noiseSeed);
  for (let i = 0; i < f32.length; i++) f32[i] = (rnd() - 0.5) * 100;
  const q = Q_AREA + c.qOff;
  const base = BASE_AREA + c.baseOff;
  const stride = (c.dim + c.pad) * 4;
  f32.set(c.q, q >>> 2);
  for (let r = 0; r < c.rows; r++) f32.set(c.base.subarray(r * c.dim, (r + 1) * c.dim), (base + r * stride) >>> 2);
  u32.set(c.ids, IDS_AT >>> 2);
  const kernels = make(memory);
  const before = u8.slice();
  const n = c.ids.length;
  const outEnd = OUT_AT + 4 * n;
  const stray = (): number => {
    for (let i = 0; i < u8.length; i++) if ((i < OUT_AT || i >= outEnd) && u8[i] !== before[i]) return i;
    return -1;
  };
  kernels.l2Batch(q, base, stride, IDS_AT, n, c.dim, OUT_AT);
  const l2 = f32.slice(OUT_AT >>> 2, (OUT_AT >>> 2) + n);
  let strayWrite = stray();
  kernels.ipBatch(q, base, stride, IDS_AT, n, c.dim, OUT_AT);
  const ip = f32.slice(OUT_AT >>> 2, (OUT_AT >>> 2) + n);
  if (strayWrite < 0) strayWrite = stray();
  return { l2, ip, strayWrite };
}

/**
 * Checks every result against the float64 reference. f32 accumulation error is bounded by a few
 * dim·ε times the sum of the magnitudes of the terms: for l2 that is the distance itself, for ip
 * the sum of |q_i b_i| (the dot product may cancel, so its own magnitude is not the scale).
 */
function checkCase(c: Case, o: Outcome, label: string): void {
  expect(o.strayWrite, `${label}: a kernel wrote outside its output (byte ${o.strayWrite})`).toBe(-1);
  c.ids.forEach((id, k) => {
    const bo = id * c.dim;
    const l2 = l2Ref(c.q, 0, c.base, bo, c.dim);
    const ip = ipRef(c.q, 0, c.base, bo, c.dim);
    let scale = 0;
    for (let i = 0; i < c.dim; i++) scale += Math.abs(c.q[i]! * c.base[bo + i]!);
    const l2Tol = 1e-4 * l2 + 1e-6;
    const ipTol = 1e-4 * (scale + Math.abs(ip)) + 1e-6;
    const where = `${label}: dim ${c.dim}, batch position ${k}, row ${id}`;
    expect(Math.abs(o.l2[k]! - l2), `${where}: l2 ${o.l2[k]} vs reference ${l2}`).toBeLessThanOrEqual(l2Tol);
    expect(Math.abs(o.ip[k]! - ip), `${where}: ip ${o.ip[k]} vs reference ${ip}`).toBeLessThanOrEqual(ipTol);
  });
}

const value = { min: -1000, max: 1000, noNaN: true } as const;

const caseArb: fc.Arbitrary<Case> = fc
  .record({ dim: fc.integer({ min: 1, max: MAX_DIM }), rows: fc.integer({ min: 1, max: MAX_ROWS }) })
  .chain(({ dim, rows }) =>
    fc.record({
      dim: fc.constant(dim),
      rows: fc.constant(rows),
      q: fc.float32Array({ ...value, minLength: dim, maxLength: dim }),
      base: fc.float32Array({ ...value, minLength: rows * dim, maxLength: rows * dim }),
      ids: fc.array(fc.integer({ min: 0, max: rows - 1 }), { minLength: 1, maxLength: MAX_IDS }),
      pad: fc.integer({ min: 0, max: 8 }),
      qOff: fc.integer({ min: 0, max: 63 }).map((x) => 4 * x),
      baseOff: fc.integer({ min: 0, max: 15 }).map((x) => 4 * x),
    }),
  );

/** A case with uniform values in [-1, 1): every element contributes, so a skipped one shows. */
function uniformCase(dim: number, seed: number): Case {
  const rnd = mulberry32(seed);
  const rows = 5;
  const q = new Float32Array(dim).map(() => rnd() * 2 - 1);
  const base = new Float32Array(rows * dim).map(() => rnd() * 2 - 1);
  return { dim, rows, q, base, ids: [4, 0, 2, 2, 1, 3], pad: dim % 3, qOff: 4 * (dim % 5), baseOff: 4 * (dim % 7) };
}

describe('kernelModule / instantiateKernels', () => {
  it('loads the SIMD module on this host and instantiates a wasm-simd kernel set on a fresh shared memory', () => {
    expect(kernelModule()).toBeInstanceOf(WebAssembly.Module);
    const memory = freshMemory();
    expect(memory.buffer.byteLength).toBe(MEM_BYTES);
    // The largest case this file lays out fits the 4-page memory.
    expect(BASE_AREA + 60 + MAX_ROWS * (MAX_DIM + 8) * 4).toBeLessThanOrEqual(MEM_BYTES);
    const k = instantiateKernels(memory);
    expect(k.kind).toBe('wasm-simd');
    expect(typeof k.l2Batch).toBe('function');
    expect(typeof k.ipBatch).toBe('function');
  });

  it('does not write a single byte of the memory it is instantiated on', () => {
    const memory = freshMemory();
    const u8 = new Uint8Array(memory.buffer);
    const rnd = mulberry32(3);
    for (let i = 0; i < u8.length; i++) u8[i] = Math.floor(rnd() * 256);
    const before = u8.slice();
    instantiateKernels(memory);
    expect(Buffer.compare(Buffer.from(u8), Buffer.from(before))).toBe(0);
  });

  it('jsKernels reports kind js', () => {
    expect(jsKernels(freshMemory()).kind).toBe('js');
  });
});

describe.each(KERNELS)('%s batch kernels', (label, make) => {
  it('match the float64 l2/ip reference for random dims 1..300, strides, id batches and values', () => {
    fc.assert(
      fc.property(caseArb, fc.integer({ min: 0, max: 0x7fffffff }), (c, noise) => {
        checkCase(c, runCase(make, c, noise), label);
      }),
      { numRuns: 120, seed: 20240611 },
    );
  });

  it('match the reference for every dim 1..70 and around the 16-float SIMD step up to 300', () => {
    const dims = [...Array.from({ length: 70 }, (_, i) => i + 1), 79, 80, 81, 127, 128, 129, 255, 256, 257, 299, 300];
    for (const dim of dims) {
      const c = uniformCase(dim, 1000 + dim);
      checkCase(c, runCase(make, c, dim), label);
    }
  });

  it('give l2 = 0 and ip = 1 - |q|^2 when every id points at a copy of the query', () => {
    for (const dim of [1, 3, 4, 15, 16, 17, 33, 300]) {
      const c = uniformCase(dim, 7 * dim);
      c.base.set(c.q, 2 * dim);
      c.ids = [2, 2, 2];
      const o = runCase(make, c, 11);
      let sq = 0;
      for (let i = 0; i < dim; i++) sq += c.q[i]! * c.q[i]!;
      for (let k = 0; k < 3; k++) {
        expect(o.l2[k]).toBe(0);
        expect(o.ip[k]).toBeCloseTo(1 - sq, 4);
      }
    }
  });

  it('compute nothing and write nothing when the batch is empty', () => {
    const c = uniformCase(19, 5);
    c.ids = [];
    const o = runCase(make, c, 9);
    expect(o.strayWrite).toBe(-1);
    expect(o.l2.length).toBe(0);
  });
});

describe('wasm-simd and js kernels agree', () => {
  it('agree with each other within float32 accumulation error on random cases', () => {
    fc.assert(
      fc.property(caseArb, (c) => {
        const w = runCase(instantiateKernels, c, 1);
        const j = runCase(jsKernels, c, 1);
        c.ids.forEach((id, k) => {
          let l2Scale = 0;
          let ipScale = 0;
          for (let i = 0; i < c.dim; i++) {
            const a = c.q[i]!;
            const b = c.base[id * c.dim + i]!;
            l2Scale += (a - b) * (a - b);
            ipScale += Math.abs(a * b);
          }
          expect(Math.abs(w.l2[k]! - j.l2[k]!)).toBeLessThanOrEqual(2e-4 * l2Scale + 1e-6);
          expect(Math.abs(w.ip[k]! - j.ip[k]!)).toBeLessThanOrEqual(2e-4 * (ipScale + 1) + 1e-6);
        });
      }),
      { numRuns: 60, seed: 77 },
    );
  });
});

describe('normalizeRows', () => {
  const rowsArb = fc.record({ dim: fc.integer({ min: 1, max: 64 }), rows: fc.integer({ min: 1, max: 12 }) }).chain(({ dim, rows }) =>
    fc.record({
      dim: fc.constant(dim),
      v: fc.float32Array({ ...value, minLength: rows * dim, maxLength: rows * dim }),
      zeroRows: fc.array(fc.boolean(), { minLength: rows, maxLength: rows }),
    }),
  );

  it('makes every non-zero row unit length in the same direction and leaves zero rows zero', () => {
    fc.assert(
      fc.property(rowsArb, ({ dim, v, zeroRows }) => {
        zeroRows.forEach((z, r) => {
          if (z) v.fill(0, r * dim, (r + 1) * dim);
        });
        const orig = v.slice();
        normalizeRows(v, dim);
        for (let r = 0; r < zeroRows.length; r++) {
          let norm2 = 0;
          for (let i = 0; i < dim; i++) norm2 += orig[r * dim + i]! * orig[r * dim + i]!;
          if (norm2 === 0) {
            for (let i = 0; i < dim; i++) expect(v[r * dim + i]).toBe(0);
            continue;
          }
          const norm = Math.sqrt(norm2);
          let out2 = 0;
          for (let i = 0; i < dim; i++) {
            const x = v[r * dim + i]!;
            out2 += x * x;
            expect(Math.abs(x - orig[r * dim + i]! / norm)).toBeLessThanOrEqual(1e-6);
          }
          expect(Math.abs(Math.sqrt(out2) - 1)).toBeLessThanOrEqual(1e-5);
        }
      }),
      { numRuns: 200, seed: 5 },
    );
  });

  it('normalises a known row exactly and keeps an all-zero row (and a -0 row) untouched', () => {
    const v = Float32Array.of(3, 4, 0, 0, -0, -0, 0, -2, 0);
    normalizeRows(v, 3);
    expect(Array.from(v.subarray(0, 3))).toEqual([0.6000000238418579, 0.800000011920929, 0]);
    expect(Object.is(v[3], 0)).toBe(true);
    expect(Object.is(v[4], -0)).toBe(true);
    expect(Object.is(v[5], -0)).toBe(true);
    expect(Array.from(v.subarray(6, 9))).toEqual([0, -1, 0]);
  });
});
