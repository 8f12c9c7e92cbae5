// A build thread's block in the vectors' shared memory: the WASM level-0 search's control fields
// (kernels/insert-control.ts), its visited tags, heaps and scratch, laid out once and bound to the
// search (kernels/hnsw-search.as.ts).
import { INSERT, INSERT_BYTES } from '../kernels/insert-control.js';
import { instantiateGraphSearch } from '../kernels/kernels.js';
import type { SharedRows } from '../kernels/row-scorer.js';
import type { SharedGraph } from './hnsw-insert.js';

const a16 = (x: number): number => Math.ceil(x / 16) * 16;

/** The bytes of one thread's block: the level-0 search's control, visited tags, heaps and scratch. */
export function threadBlockBytes(count: number, efConstruction: number, maxM0: number): number {
  const ef = Math.max(efConstruction, maxM0) + 2;
  return a16(INSERT_BYTES) + a16(2 * count) + 2 * a16(4 * (count + 1)) + 4 * a16(4 * ef) + 2 * a16(4 * (maxM0 + 1));
}

/** A thread's WASM level-0 search, bound to its block. */
export interface Level0Search {
  readonly run: (block: number) => number;
  readonly block: number;
  readonly u32: Uint32Array;
  readonly f32: Float32Array;
}

/** Lays out thread's block (control fields set once) and binds the search; null without WASM SIMD. */
export function bindLevel0(
  g: SharedGraph,
  rows: SharedRows,
  thread: number,
): { search: Level0Search | null; visited: Uint16Array; found: Uint32Array; foundD: Float32Array } {
  const buffer = rows.memory.buffer as unknown as SharedArrayBuffer;
  const ef = Math.max(g.efConstruction, g.maxM0) + 2;
  let at = g.blocksAt + thread * g.blockBytes;
  const block = at;
  const take = (bytes: number): number => {
    const here = at;
    at += a16(bytes);
    return here;
  };
  take(INSERT_BYTES);
  const visitedAt = take(2 * g.count);
  const fD = take(4 * (g.count + 1));
  const fI = take(4 * (g.count + 1));
  const bD = take(4 * ef);
  const bI = take(4 * ef);
  const oD = take(4 * ef);
  const oI = take(4 * ef);
  const ids = take(4 * (g.maxM0 + 1));
  const dists = take(4 * (g.maxM0 + 1));
  const visited = new Uint16Array(buffer, visitedAt, g.count);
  const found = new Uint32Array(buffer, oI, ef);
  const foundD = new Float32Array(buffer, oD, ef);
  const run = instantiateGraphSearch(rows.memory);
  if (run === null) return { search: null, visited, found, foundD };
  const u32 = new Uint32Array(buffer);
  const f32 = new Float32Array(buffer);
  const set = (field: number, v: number): void => {
    u32[(block + field) >>> 2] = v;
  };
  set(INSERT.rows, rows.rowsAt);
  set(INSERT.rowStride, 4 * g.dim);
  set(INSERT.dim, g.dim);
  set(INSERT.kind, g.kind === 'ip' ? 1 : 0);
  set(INSERT.lists, g.level0.byteOffset);
  set(INSERT.listStride, 4 * (1 + g.maxM0));
  set(INSERT.maxDegree, g.maxM0);
  set(INSERT.ef, g.efConstruction);
  set(INSERT.visited, visitedAt);
  set(INSERT.frontierD, fD);
  set(INSERT.frontierI, fI);
  set(INSERT.bestD, bD);
  set(INSERT.bestI, bI);
  set(INSERT.ids, ids);
  set(INSERT.dists, dists);
  set(INSERT.foundI, oI);
  set(INSERT.foundD, oD);
  return { search: { run, block, u32, f32 }, visited, found, foundD };
}
