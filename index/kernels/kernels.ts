// Loads the WASM SIMD distance kernels and binds one instance to each tier segment's memory.
// Where SIMD WebAssembly is unavailable (or STRATA_KERNELS=js), a scalar JS twin with the same
// signature takes over, so the traversal code has one shape either way.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { StrataError } from '../../common/errors.js';
import { projectRoot } from '../../common/paths.js';

export type Metric = 'l2' | 'ip' | 'cosine';

/** Distances from the query at byte offset q to rows `ids` (u32 local row numbers at byte offset ids). */
export type BatchKernel = (q: number, base: number, stride: number, ids: number, n: number, dim: number, out: number) => void;

export interface KernelSet {
  readonly kind: 'wasm-simd' | 'js';
  readonly l2Batch: BatchKernel;
  readonly ipBatch: BatchKernel;
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
  const ex = inst.exports as unknown as { l2Batch: BatchKernel; ipBatch: BatchKernel };
  return { kind: 'wasm-simd', l2Batch: ex.l2Batch, ipBatch: ex.ipBatch };
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
  return { kind: 'js', l2Batch, ipBatch };
}
