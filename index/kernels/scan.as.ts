// The fused scan (FILTER_PLAN.SCAN): every matching node's traversal record scored in one WASM
// call, the best kept in a max-heap. Twin of the JS steps in index/search/traversal.ts (nextMatches
// and apply's SCAN case, with Scorer): the same nodes in the same order, the same pushes and pops
// with the same comparisons, so both keep the same matches; test/index/search/fused-scan.test.ts
// holds them to it. What it saves is the JS work per matching node (the bitset walk, staging, the
// gather and the heap), which cost the JS scan as much as the kernel itself. It serves a lane whose
// traversal records are one segment (codes, always in DRAM); the caller prices the reads.
import { B_BEAM, B_BEAM_CAP, B_BEAM_N, B_BASE0, B_DIST, B_FILTER, B_MAX_DEG, B_NODES, B_OVERFLOW, B_Q0, B_SCAN_CAP, B_SCRATCH } from './control-block.generated.as';
import { distances, heapPop, heapPush } from './traverse.as';

/**
 * Scores the m nodes at ids (distances to dist) and offers each to the heap of the best cap (the
 * beam's arrays, distances negated as the filtered walk keeps its matches); the heap's new size.
 */
@inline function offer(b: usize, ids: usize, dist: usize, m: i32, heapD: usize, heapI: usize, n: i32, cap: i32): i32 {
  distances(b, <usize>load<u32>(b, B_Q0), <usize>load<u32>(b, B_BASE0), ids, m, dist);
  for (let j = 0; j < m; j++) {
    const d = load<f32>(dist + (<usize>j << 2));
    if (n < cap) heapPush(heapD, heapI, n++, -d, load<u32>(ids + (<usize>j << 2)));
    else if (d < -load<f32>(heapD)) {
      heapPop(heapD, heapI, --n);
      heapPush(heapD, heapI, n++, -d, load<u32>(ids + (<usize>j << 2)));
    }
  }
  return n;
}

/**
 * Scans the bitset at B_FILTER over B_NODES nodes in node order, keeping the best B_SCAN_CAP
 * matches: their heap is left in the beam's arrays (B_BEAM_N entries, distances negated), the
 * distances computed in B_DIST. The scratch arrays hold the ids and their distances, a batch at a
 * time.
 */
export function scanMatches(b: usize): void {
  const maxDeg = <usize>load<u32>(b, B_MAX_DEG);
  // The lane's six scratch arrays as two: the batch's ids, then their distances.
  const ids = <usize>load<u32>(b, B_SCRATCH);
  const batch = <i32>(3 * maxDeg);
  const dist = ids + ((<usize>batch) << 2);
  const bits = <usize>load<u32>(b, B_FILTER);
  const words = (load<u32>(b, B_NODES) + 31) >>> 5;
  const cap = load<i32>(b, B_SCAN_CAP);
  const heapD = <usize>load<u32>(b, B_BEAM);
  const heapI = heapD + (<usize>load<u32>(b, B_BEAM_CAP) << 2);
  let n: i32 = 0;
  let m: i32 = 0;
  let scored: u32 = 0;
  for (let w: u32 = 0; w < words; w++) {
    let mask = load<u32>(bits + (<usize>w << 2));
    while (mask != 0) {
      store<u32>(ids + (<usize>m << 2), (w << 5) | ctz(mask));
      mask &= mask - 1;
      if (++m == batch) {
        n = offer(b, ids, dist, m, heapD, heapI, n, cap);
        scored += <u32>m;
        m = 0;
      }
    }
  }
  if (m > 0) {
    n = offer(b, ids, dist, m, heapD, heapI, n, cap);
    scored += <u32>m;
  }
  store<u32>(b + B_DIST, scored);
  store<u32>(b + B_DIST + 4, 0);
  store<i32>(b + B_BEAM_N, n);
  store<u32>(b + B_OVERFLOW, 0);
}
