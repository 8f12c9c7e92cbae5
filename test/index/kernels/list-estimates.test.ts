// listEstimates (WASM SIMD, list-code-kernel.as.ts) against its JS twin listEstimatesJs
// (index/codes/list-codes.ts), and the twin against a direct per-neighbour lookup. Each case lays a
// random table and random blocks at unaligned offsets into a shared memory pre-filled with noise, so a
// kernel that reads the wrong nibble, the wrong subspace's table or past its blocks, or writes outside
// its output, gives a different answer.
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../../common/random.js';
import { listEstimatesJs } from '../../../index/codes/list-codes.js';
import { instantiateListEstimates } from '../../../index/kernels/kernels.js';

const PAGES = 4;
const LUT_AT = 3; // up to 256 × 16 bytes
const BLOCK_AT = 4096 + 5; // up to 3 × 256 × 16 bytes
const OUT_AT = 65536 + 6; // u16-aligned, not 16-byte aligned

interface Case {
  subspaces: number;
  blocks: number;
  lut: Uint8Array;
  block: Uint8Array;
}

function randomCase(subspaces: number, blocks: number, seed: number, fill?: number): Case {
  const rnd = mulberry32(seed);
  const byte = (): number => fill ?? Math.floor(rnd() * 256);
  return {
    subspaces,
    blocks,
    lut: Uint8Array.from({ length: subspaces * 16 }, byte),
    block: Uint8Array.from({ length: blocks * subspaces * 16 }, byte),
  };
}

/** The twin's sums over the case laid out in a plain buffer. */
function jsSums(c: Case): Uint16Array {
  const u8 = new Uint8Array(c.lut.length + c.block.length);
  u8.set(c.lut, 0);
  u8.set(c.block, c.lut.length);
  const out = new Uint16Array(3 + c.blocks * 32).fill(0xbeef);
  listEstimatesJs(u8, 0, u8, c.lut.length, c.subspaces, c.blocks, out, 3);
  // The twin writes its sums after outAt and nothing before.
  expect([...out.subarray(0, 3)]).toEqual([0xbeef, 0xbeef, 0xbeef]);
  return out.slice(3);
}

/** The kernel's sums, and the first byte outside its output it changed (-1 for none). */
function wasmSums(c: Case, noiseSeed: number): { sums: Uint16Array; strayWrite: number } {
  const memory = new WebAssembly.Memory({ initial: PAGES, maximum: PAGES, shared: true });
  const u8 = new Uint8Array(memory.buffer);
  const rnd = mulberry32(noiseSeed);
  for (let i = 0; i < u8.length; i++) u8[i] = Math.floor(rnd() * 256);
  u8.set(c.lut, LUT_AT);
  u8.set(c.block, BLOCK_AT);
  const run = instantiateListEstimates(memory);
  if (run === null) throw new Error('no WASM SIMD');
  const before = u8.slice();
  const outEnd = OUT_AT + c.blocks * 64;
  run(LUT_AT, BLOCK_AT, c.subspaces, c.blocks, OUT_AT);
  let strayWrite = -1;
  for (let i = 0; i < u8.length && strayWrite < 0; i++) if ((i < OUT_AT || i >= outEnd) && u8[i] !== before[i]) strayWrite = i;
  const dv = new DataView(memory.buffer);
  const sums = Uint16Array.from({ length: c.blocks * 32 }, (_, k) => dv.getUint16(OUT_AT + 2 * k, true));
  return { sums, strayWrite };
}

/** Neighbour j of block b looked up one subspace at a time: the layout's definition. */
function directSums(c: Case): Uint16Array {
  const out = new Uint16Array(c.blocks * 32);
  for (let b = 0; b < c.blocks; b++) {
    for (let j = 0; j < 32; j++) {
      let s = 0;
      for (let sub = 0; sub < c.subspaces; sub++) {
        const byte = c.block[(b * c.subspaces + sub) * 16 + (j % 16)]!;
        s += c.lut[sub * 16 + (j < 16 ? byte & 15 : byte >> 4)]!;
      }
      out[b * 32 + j] = s;
    }
  }
  return out;
}

/** The same blocks with each byte's two nibbles swapped. */
const swapNibbles = (c: Case): Case => ({ ...c, block: c.block.map((v) => ((v & 15) << 4) | (v >> 4)) });

describe.skipIf(process.env['STRATA_KERNELS'] === 'js')('listEstimates', () => {
  it('is instantiated where SIMD WebAssembly validates', () => {
    expect(instantiateListEstimates(new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true }))).not.toBeNull();
  });

  const shapes: Array<[number, number]> = [];
  for (const subspaces of [1, 2, 7, 50, 256]) for (const blocks of [1, 2, 3]) shapes.push([subspaces, blocks]);
  for (const [subspaces, blocks] of shapes) {
    it(`equals its JS twin exactly: ${subspaces} subspaces, ${blocks} block(s)`, () => {
      for (let seed = 1; seed <= 4; seed++) {
        const c = randomCase(subspaces, blocks, subspaces * 1000 + blocks * 10 + seed);
        const js = jsSums(c);
        expect(js).toEqual(directSums(c));
        const { sums, strayWrite } = wasmSums(c, seed);
        expect(strayWrite).toBe(-1);
        expect(sums).toEqual(js);
        // The case tells nibbles apart: a kernel that swapped them would not match.
        expect(jsSums(swapNibbles(c))).not.toEqual(js);
      }
    });
  }

  it('sums 256 subspaces of 255 without wrapping (255 × 256 < 65536)', () => {
    const c = randomCase(256, 2, 1, 255);
    const { sums } = wasmSums(c, 9);
    expect([...sums].every((v) => v === 255 * 256)).toBe(true);
    expect(jsSums(c)).toEqual(sums);
  });

  it('reads each neighbour’s own nibble of each subspace', () => {
    // Subspace s's table maps code v to v × [1, 16, 17][s] (at most 255), so a sum names which codes met which table.
    const subspaces = 3;
    const weight = [1, 16, 17];
    const c: Case = {
      subspaces,
      blocks: 1,
      lut: Uint8Array.from({ length: subspaces * 16 }, (_, i) => (i % 16) * weight[Math.floor(i / 16)]!),
      block: new Uint8Array(subspaces * 16),
    };
    // Neighbour j (< 16): code j in subspace 0, 0 elsewhere. Neighbour 16 + j: j in subspace 1, 15 - j in subspace 2.
    for (let j = 0; j < 16; j++) {
      c.block[j] = j;
      c.block[16 + j] = j << 4;
      c.block[32 + j] = (15 - j) << 4;
    }
    const { sums } = wasmSums(c, 3);
    for (let j = 0; j < 16; j++) {
      expect(sums[j]).toBe(j);
      expect(sums[16 + j]).toBe(16 * j + 17 * (15 - j));
    }
    expect(jsSums(c)).toEqual(sums);
  });
});
