// The level-0 beam of an HNSW insertion at build time, in one call: from the entry, the nearest
// unexpanded node's unvisited neighbours are scored as a batch and kept while fewer than ef are kept
// or they beat the ef-th; it stops when the nearest unexpanded node is farther than the ef-th. The JS
// twin is Inserter.searchLevel in index/build/hnsw-insert.ts, which serves the upper levels and runs
// level 0 where WebAssembly SIMD is unavailable; test/index/build/parallel-graph.test.ts holds the
// two to the same graph.
import {
  I_DIM,
  I_DISTS,
  I_EF,
  I_ENTRY,
  I_ENTRY_D,
  I_EPOCH,
  I_BEST_D,
  I_BEST_I,
  I_FOUND_D,
  I_FOUND_I,
  I_FRONTIER_D,
  I_FRONTIER_I,
  I_IDS,
  I_KIND,
  I_LIST_STRIDE,
  I_LISTS,
  I_MAX_DEGREE,
  I_QUERY,
  I_ROW_STRIDE,
  I_ROWS,
  I_VISITED,
} from './insert-control.generated.as';
import { heapPop, heapPush } from './traverse.as';
import { ipBatch, l2Batch } from './vector-kernels.as';

/** Runs the search the block at c describes; the nodes found (in I_FOUND_I / I_FOUND_D, nearest first). */
export function searchLevel0(c: usize): i32 {
  const q = <usize>load<u32>(c, I_QUERY);
  const rows = <usize>load<u32>(c, I_ROWS);
  const rowStride = <usize>load<u32>(c, I_ROW_STRIDE);
  const dim = load<i32>(c, I_DIM);
  const ip = load<u32>(c, I_KIND) == 1;
  const lists = <usize>load<u32>(c, I_LISTS);
  const listStride = <usize>load<u32>(c, I_LIST_STRIDE);
  const maxDegree = load<u32>(c, I_MAX_DEGREE);
  const ef = load<i32>(c, I_EF);
  const visited = <usize>load<u32>(c, I_VISITED);
  const epoch = <u16>load<u32>(c, I_EPOCH);
  const fD = <usize>load<u32>(c, I_FRONTIER_D);
  const fI = <usize>load<u32>(c, I_FRONTIER_I);
  const bD = <usize>load<u32>(c, I_BEST_D);
  const bI = <usize>load<u32>(c, I_BEST_I);
  const ids = <usize>load<u32>(c, I_IDS);
  const dists = <usize>load<u32>(c, I_DISTS);
  const ep = load<u32>(c, I_ENTRY);
  const epD = load<f32>(c, I_ENTRY_D);
  let fN: i32 = 0;
  let bN: i32 = 0;
  store<u16>(visited + (<usize>ep << 1), epoch);
  heapPush(fD, fI, fN++, epD, ep);
  heapPush(bD, bI, bN++, -epD, ep);
  while (fN > 0) {
    const cd = load<f32>(fD);
    const cn = load<u32>(fI);
    if (bN >= ef && cd > -load<f32>(bD)) break;
    heapPop(fD, fI, --fN);
    const list = lists + <usize>cn * listStride;
    const deg = min(load<u32>(list), maxDegree);
    let m: i32 = 0;
    for (let j: u32 = 1; j <= deg; j++) {
      const nb = load<u32>(list + (<usize>j << 2));
      const at = visited + (<usize>nb << 1);
      if (load<u16>(at) == epoch) continue;
      store<u16>(at, epoch);
      store<u32>(ids + (<usize>m << 2), nb);
      m++;
    }
    if (m == 0) continue;
    if (ip) ipBatch(q, rows, rowStride, ids, m, dim, dists);
    else l2Batch(q, rows, rowStride, ids, m, dim, dists);
    for (let j: i32 = 0; j < m; j++) {
      const d = load<f32>(dists + (<usize>j << 2));
      if (bN < ef || d < -load<f32>(bD)) {
        const id = load<u32>(ids + (<usize>j << 2));
        heapPush(fD, fI, fN++, d, id);
        heapPush(bD, bI, bN++, -d, id);
        if (bN > ef) heapPop(bD, bI, --bN);
      }
    }
  }
  const n = bN;
  const oI = <usize>load<u32>(c, I_FOUND_I);
  const oD = <usize>load<u32>(c, I_FOUND_D);
  for (let k = n - 1; k >= 0; k--) {
    store<u32>(oI + (<usize>k << 2), load<u32>(bI));
    store<f32>(oD + (<usize>k << 2), -load<f32>(bD));
    heapPop(bD, bI, --bN);
  }
  return n;
}
