// Loads the WASM SIMD distance kernels and binds one instance to each tier segment's memory.
// Where SIMD WebAssembly is unavailable (or STRATA_KERNELS=js), a scalar JS twin with the same
// signature takes over (jsKernels: twin of vector-kernels.as.ts and code-kernel.as.ts), so the
// traversal code has one shape either way.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { StrataError } from '../../common/errors.js';
import { projectRoot } from '../../common/paths.js';
import { PLANE, PLANE_BITS, PLANE_ORDER, planeValue } from '../codes/planes.js';

export type { Metric } from '../../common/metric.js';

/** Which implementation computes distances: the WASM SIMD kernels, or their plain-JS twins. */
export type KernelChoice = 'wasm' | 'js';

/** Distances from the query at byte offset q to rows `ids` (u32 local row numbers at byte offset ids). */
export type BatchKernel = (q: number, base: number, stride: number, ids: number, n: number, dim: number, out: number) => void;

/** Estimated distances from the prepared query at q to code rows `ids` (see codeBatch in code-kernel.as.ts). */
export type CodeKernel = (q: number, base: number, stride: number, ids: number, n: number, out: number) => void;

export interface KernelSet {
  readonly kind: 'wasm-simd' | 'js';
  readonly l2Batch: BatchKernel;
  readonly ipBatch: BatchKernel;
  readonly codeBatch: CodeKernel;
}

let moduleCache: WebAssembly.Module | null | undefined;

export function kernelModule(): WebAssembly.Module | null {
  if (moduleCache !== undefined) return moduleCache;
  if (process.env['STRATA_KERNELS'] === 'js') {
    moduleCache = null;
    return null;
  }
  const file = join(projectRoot(), 'dist', 'kernels', 'distance.wasm');
  let bytes: Uint8Array<ArrayBuffer>;
  try {
    bytes = new Uint8Array(readFileSync(file));
  } catch (e) {
    throw new StrataError('STRATA_KERNEL', `distance kernels not built: ${file} is missing (run npm run build)`, { file }, { cause: e });
  }
  moduleCache = WebAssembly.validate(bytes) ? new WebAssembly.Module(bytes) : null;
  return moduleCache;
}

export function instantiateKernels(memory: WebAssembly.Memory): KernelSet {
  const mod = kernelModule();
  if (mod === null) return jsKernels(memory);
  const inst = new WebAssembly.Instance(mod, { env: { memory } });
  const ex = inst.exports as unknown as { l2Batch: BatchKernel; ipBatch: BatchKernel; codeBatch: CodeKernel };
  return { kind: 'wasm-simd', l2Batch: ex.l2Batch, ipBatch: ex.ipBatch, codeBatch: ex.codeBatch };
}

/** The level-0 search of an HNSW insertion over a build thread's block (hnsw-search.as.ts), or null without WASM SIMD. */
export function instantiateGraphSearch(memory: WebAssembly.Memory): ((block: number) => number) | null {
  const mod = kernelModule();
  if (mod === null) return null;
  const inst = new WebAssembly.Instance(mod, { env: { memory } });
  return (inst.exports as unknown as { searchLevel0: (block: number) => number }).searchLevel0;
}

/**
 * listEstimates in list-code-kernel.as.ts (argument order as there): the u16 table sums of 32-neighbour list-code
 * blocks, or null without WASM SIMD. Its JS twin is listEstimatesJs in index/codes/list-codes.ts.
 */
export function instantiateListEstimates(
  memory: WebAssembly.Memory,
): ((lut: number, block: number, subspaces: number, blocks: number, out: number) => void) | null {
  const mod = kernelModule();
  if (mod === null) return null;
  const inst = new WebAssembly.Instance(mod, { env: { memory } });
  return (inst.exports as unknown as { listEstimates: (lut: number, block: number, subspaces: number, blocks: number, out: number) => void }).listEstimates;
}

/** The fused calls over a lane's control block: the traversal (traverse.as.ts) and the scan (scan.as.ts). */
export interface FusedCalls {
  readonly traverse: (control: number) => void;
  readonly scanMatches: (control: number) => void;
}

/** The fused traversal and scan over memory, or null without WASM SIMD. */
export function instantiateTraverse(memory: WebAssembly.Memory): FusedCalls | null {
  const mod = kernelModule();
  if (mod === null) return null;
  const inst = new WebAssembly.Instance(mod, { env: { memory } });
  const ex = inst.exports as unknown as FusedCalls;
  return { traverse: ex.traverse, scanMatches: ex.scanMatches };
}

/** rqPrepare in rq-prepare.as.ts (argument order as there), or null without WASM SIMD. */
export type RqPrepareKernel = (
  prep: number,
  signs: number,
  work: number,
  dim: number,
  dims: number,
  rounds: number,
  queryOffset: number,
  tableOffset: number,
  centroids: number,
  limit: number,
  gammaSign: number,
  mid: number,
) => void;

export function instantiateRqPrepare(memory: WebAssembly.Memory): RqPrepareKernel | null {
  const mod = kernelModule();
  if (mod === null) return null;
  const inst = new WebAssembly.Instance(mod, { env: { memory } });
  return (inst.exports as unknown as { rqPrepare: RqPrepareKernel }).rqPrepare;
}

export function jsKernels(memory: WebAssembly.Memory): KernelSet {
  const f32 = new Float32Array(memory.buffer);
  const u32 = new Uint32Array(memory.buffer);
  const l2Batch: BatchKernel = (q, base, stride, ids, n, dim, out) => {
    const q4 = q >>> 2;
    for (let k = 0; k < n; k++) {
      const p = (base + u32[(ids >>> 2) + k]! * stride) >>> 2;
      let s = 0;
      for (let i = 0; i < dim; i++) {
        const t = f32[q4 + i]! - f32[p + i]!;
        s += t * t;
      }
      f32[(out >>> 2) + k] = s;
    }
  };
  const ipBatch: BatchKernel = (q, base, stride, ids, n, dim, out) => {
    const q4 = q >>> 2;
    for (let k = 0; k < n; k++) {
      const p = (base + u32[(ids >>> 2) + k]! * stride) >>> 2;
      let s = 0;
      for (let i = 0; i < dim; i++) s += f32[q4 + i]! * f32[p + i]!;
      f32[(out >>> 2) + k] = 1 - s;
    }
  };
  return { kind: 'js', l2Batch, ipBatch, codeBatch: jsCodeBatch(memory) };
}

/** Scalar twin of codeBatch in code-kernel.as.ts: the same header, planes and estimate. */
function jsCodeBatch(memory: WebAssembly.Memory): CodeKernel {
  const buf = memory.buffer;
  const u8 = new Uint8Array(buf);
  const dv = new DataView(buf);
  return (q, base, stride, ids, n, out) => {
    const planes = dv.getUint32(q, true);
    const dims = dv.getInt32(q + 4, true);
    const planesOff = dv.getUint32(q + 8, true);
    const scaleOff = dv.getInt32(q + 12, true);
    const betaOff = dv.getInt32(q + 16, true);
    const centOff = dv.getInt32(q + 20, true);
    const gammaW = dv.getFloat32(q + 24, true);
    const constA = dv.getFloat32(q + 28, true);
    const mSumW = dv.getFloat64(q + 32, true);
    const table = q + dv.getUint32(q + 40, true);
    const qf = q + dv.getUint32(q + 44, true);
    const lazyBack = dv.getUint32(q + 52, true);
    const lazyDim = dv.getInt32(q + 56, true);
    const lazyIp = dv.getUint32(q + 60, true) === 1;
    // What each plane's value is worth: the crumbs' bits sit above them (3 bits = crumb + bit << 2).
    const shifts: Record<number, number> = (planes & PLANE.crumbs) !== 0 ? { [PLANE.bits]: 2 } : {};
    for (let k = 0; k < n; k++) {
      const row = base + dv.getUint32(ids + 4 * k, true) * stride;
      const p = row + planesOff;
      const w = q + 64;
      let dot = 0;
      if ((planes & PLANE.bytes) !== 0) {
        for (let i = 0; i < dims; i++) dot += dv.getInt16(w + 2 * i, true) * planeValue(u8, p, PLANE.bytes, i, dims);
      } else {
        // One i16 weight per dimension, met by the value assembled from its planes.
        for (let i = 0; i < dims; i++) {
          let value = 0;
          let at = p;
          for (const kind of PLANE_ORDER) {
            if ((planes & kind) === 0) continue;
            value += planeValue(u8, at, kind, i, dims) << (shifts[kind] ?? 0);
            at += (dims * PLANE_BITS[kind]!) / 8;
          }
          dot += dv.getInt16(w + 2 * i, true) * value;
        }
      }
      const scale = scaleOff >= 0 ? dv.getFloat32(row + scaleOff, true) : 1;
      let d = constA;
      if (centOff >= 0) {
        const c = u8[row + centOff]!;
        let t = dv.getFloat32(table + 4 * c, true);
        if (Number.isNaN(t)) {
          const cp = base - lazyBack + c * 4 * lazyDim;
          let s = 0;
          for (let i = 0; i < lazyDim; i++) {
            const a = dv.getFloat32(qf + 4 * i, true);
            const b = dv.getFloat32(cp + 4 * i, true);
            s += lazyIp ? a * b : (a - b) ** 2;
          }
          t = Math.fround(lazyIp ? 1 - s : s);
          dv.setFloat32(table + 4 * c, t, true);
        }
        d = t;
      }
      if (betaOff >= 0) d += dv.getFloat32(row + betaOff, true);
      d += gammaW * scale * (dot - mSumW);
      dv.setFloat32(out + 4 * k, d, true);
    }
  };
}
