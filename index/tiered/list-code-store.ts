// A tiered index's list codes: beside each node's level-0 neighbour list, a block of its
// neighbours' 4-bit codes (index/codes/list-codes.ts), so that one SIMD pass estimates the distance
// to every neighbour of a hop, and a full beam scores only those whose estimate could still enter it.
// The blocks are cold: read with their list, from the CXL tier, and priced as such.
import { type ListCodeBook, layoutListBlock, listCodeStride, listEstimatesJs, prepareListLut } from '../codes/list-codes.js';
import { codeMetric } from '../codes/codec.js';
import { DEGREE_MASK } from '../kernels/control-block.js';
import type { Metric } from '../kernels/kernels.js';
import { distanceRef } from '../kernels/reference.js';

/**
 * How far an estimate may exceed the beam's bound and its neighbour still be scored, in units of the
 * estimate's error (its root mean square against the exact distance, measured when the blocks are
 * laid out; the bound is the beam's code estimate, whose own error this leaves to the extra unit):
 * one unit lost recall on GloVe, two did not (docs/benchmarks-list-codes.md).
 */
export const LIST_CODE_SIGMAS = 2;

/** Nodes whose lists measure the estimate's error (their own vectors the queries). */
const ERROR_SAMPLE = 256;

export class ListCodeStore {
  /** LIST_CODE_SIGMAS times the estimate's measured error, as an f32 (the WASM beam adds it in f32). */
  readonly margin: number;

  constructor(
    readonly book: ListCodeBook,
    /** Bytes a node: room for the longest list. */
    readonly stride: number,
    /** count × stride: node n's block at n × stride. */
    readonly blocks: Uint8Array,
    margin: number,
  ) {
    this.margin = Math.fround(margin);
  }

  get subspaces(): number {
    return this.book.subspaces;
  }

  /** Bytes a hop reads of a list of `degree` neighbours: its 32-neighbour blocks. */
  readBytes(degree: number): number {
    return listCodeStride(this.book.subspaces, degree);
  }

  /** Bytes for `count` nodes of lists up to maxDegree long. */
  static bytesFor(book: Pick<ListCodeBook, 'subspaces'>, count: number, maxDegree: number): number {
    return count * listCodeStride(book.subspaces, maxDegree);
  }
}

/** What filling the blocks needs of an index: its level-0 lists, its vectors (in node order) and metric. */
export interface ListSource {
  count: number;
  dim: number;
  metric: Metric;
  maxDegree: number;
  /** Node n's level-0 list record: its count word (the degree in DEGREE_MASK), then the ids (a view). */
  list(n: number): Uint32Array;
  vector(n: number): Float32Array;
}

/**
 * Lays out every node's block into `out` (count × stride bytes) from `codes` (a row of subspaces
 * bytes per node, in node order), then measures the estimate's error on a sample of lists: returns
 * the store.
 */
export function fillListCodes(src: ListSource, book: ListCodeBook, codes: Uint8Array, out: Uint8Array): ListCodeStore {
  const stride = listCodeStride(book.subspaces, src.maxDegree);
  for (let n = 0; n < src.count; n++) {
    const l = src.list(n);
    layoutListBlock(codes, book.subspaces, l.subarray(1), l[0]! & DEGREE_MASK, out, n * stride, stride);
  }
  return new ListCodeStore(book, stride, out, LIST_CODE_SIGMAS * estimateError(src, book, out, stride));
}

/** The root mean square of estimate minus distance, over the neighbours of a sample of nodes. */
function estimateError(src: ListSource, book: ListCodeBook, blocks: Uint8Array, stride: number): number {
  const lut = new Uint8Array(16 * book.subspaces);
  const est = new Uint16Array(32 * Math.ceil(src.maxDegree / 32));
  const metric = codeMetric(src.metric);
  const step = Math.max(1, Math.floor(src.count / ERROR_SAMPLE));
  let sum = 0;
  let pairs = 0;
  for (let n = 0; n < src.count; n += step) {
    const q = src.vector(n);
    const { lo, scale } = prepareListLut(book, q, metric, lut);
    const l = src.list(n);
    const deg = l[0]! & DEGREE_MASK;
    if (deg === 0) continue;
    listEstimatesJs(lut, 0, blocks, n * stride, book.subspaces, Math.ceil(deg / 32), est, 0);
    for (let j = 0; j < deg; j++) {
      const e = lo + est[j]! / scale - distanceRef(src.metric, q, 0, src.vector(l[1 + j]!), 0, src.dim);
      sum += e * e;
      pairs++;
    }
  }
  return pairs === 0 ? 0 : Math.sqrt(sum / pairs);
}
