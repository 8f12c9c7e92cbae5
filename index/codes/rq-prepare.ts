// The query path of rq codes with a Hadamard rotation, in one WASM call (rqPrepare in
// kernels/rq-prepare.as.ts): rotation, the i16 weights, the header's per-query fields and the lazy
// table's NaNs. In JavaScript those steps cost ~4 µs of a ~35 µs query on SIFT (a dense rotation
// through a row kernel, allocations, a DataView per call); here they are a few hundred ns. It works
// in a private block of memory and hands back the prepared bytes; the codec's JS path is the twin.
import { allocateRegion } from '../../tiers/shared-region.js';
import { instantiateRqPrepare, type RqPrepareKernel } from '../kernels/kernels.js';
import { type PreparedHeader, writePreparedHeader } from './codec.js';
import { HADAMARD_ROUNDS } from './rotation.js';

export interface RqPrepareShape {
  dim: number;
  dims: number;
  centroids: number;
  queryBytes: number;
  queryOffset: number;
  tableOffset: number;
  /** writeWeights' bound on an integer weight. */
  limit: number;
  gammaSign: number;
  mid: number;
  /** The header's fixed fields (its per-query ones are the kernel's). */
  header: PreparedHeader;
}

export class RqPreparer {
  private readonly u8: Uint8Array;
  private readonly f32: Float32Array;
  private readonly signsAt: number;
  private readonly workAt: number;

  private constructor(
    private readonly kernel: RqPrepareKernel,
    memory: WebAssembly.Memory,
    private readonly shape: RqPrepareShape,
    signs: Float32Array,
  ) {
    const buffer = memory.buffer;
    this.u8 = new Uint8Array(buffer);
    this.f32 = new Float32Array(buffer);
    const a16 = (x: number): number => Math.ceil(x / 16) * 16;
    this.signsAt = a16(shape.queryBytes);
    this.workAt = a16(this.signsAt + 4 * signs.length);
    this.f32.set(signs, this.signsAt >>> 2);
    writePreparedHeader(this.u8.subarray(0, shape.queryBytes), shape.header);
  }

  /** A preparer for these signs (HADAMARD_ROUNDS × dims), or null where WASM SIMD is unavailable. */
  static open(shape: RqPrepareShape, signs: Float32Array): RqPreparer | null {
    const a16 = (x: number): number => Math.ceil(x / 16) * 16;
    const region = allocateRegion(a16(shape.queryBytes) + a16(4 * signs.length) + 4 * shape.dims + 64);
    const kernel = instantiateRqPrepare(region.memory);
    return kernel === null ? null : new RqPreparer(kernel, region.memory, shape, signs);
  }

  prepare(q: Float32Array, out: Uint8Array): void {
    const s = this.shape;
    this.f32.set(q, s.queryOffset >>> 2);
    this.kernel(0, this.signsAt, this.workAt, s.dim, s.dims, HADAMARD_ROUNDS, s.queryOffset, s.tableOffset, s.centroids, s.limit, s.gammaSign, s.mid);
    out.set(this.u8.subarray(0, s.queryBytes));
  }
}
