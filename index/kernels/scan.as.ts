// The fused scan (FILTER_PLAN.SCAN): every matching node's traversal record scored in one WASM
// call, the best kept in a max-heap. Twin of the JS steps in index/search/traversal.ts (nextMatches
// and apply's SCAN case, with Scorer): the same nodes in the same order, the same pushes and pops
// with the same comparisons, so both keep the same matches; test/index/search/fused-scan.test.ts
// holds them to it. What it saves is the JS work per matching node (the bitset walk, staging, the
// gather and the heap), which cost the JS scan as much as the kernel itself. It serves a lane whose
// traversal records are one segment (codes, always in DRAM); the caller prices the reads.
//
// Value runs (index/tiered/value-runs.ts) come first: copies of the records of one keyword value's
// nodes, side by side, so that a filter on that value reads them in one stream instead of one
// scattered row per match (the scattered read, not the arithmetic, is what a 10% scan pays for).
// Each run node still in the lane's copy of the bitset is scored from its run and its bit cleared,
// so a node is scored once however many runs hold it, and the bitset loop then scores only the
// matches no run held (a run is a snapshot of its value at the base's opening: later payload writes
// leave matches outside it, or run nodes outside the filter, and both are right this way). Runs
// change the order nodes are offered in, so a tie at the cut may keep a different node of the same
// distance than the JS steps, which know no runs.
import {
  B_BEAM,
  B_BEAM_CAP,
  B_BEAM_N,
  B_BASE0,
  B_DIST,
  B_FILTER,
  B_MAX_DEG,
  B_NODES,
  B_OVERFLOW,
  B_Q0,
  B_RUN_COUNT,
  B_RUN_SCORED,
  B_RUNS,
  B_SCAN_CAP,
  B_SCRATCH,
} from './control-block.generated.as';
import { P_HEAD_BACK } from './prepared-query.generated.as';
import { distances, heapPop, heapPush } from './traverse.as';

/**
 * Scores rows `pos` of the records at `codes` (distances to dist), whose nodes are `nodes`, and
 * offers each to the heap of the best cap (the beam's arrays, distances negated as the filtered walk
 * keeps its matches); the heap's new size. The bitset's matches are rows of the segment itself.
 */
@inline function offerRows(b: usize, codes: usize, pos: usize, nodes: usize, dist: usize, m: i32, heapD: usize, heapI: usize, n: i32, cap: i32): i32 {
  distances(b, <usize>load<u32>(b, B_Q0), codes, pos, m, dist);
  for (let j = 0; j < m; j++) {
    const d = load<f32>(dist + (<usize>j << 2));
    if (n < cap) heapPush(heapD, heapI, n++, -d, load<u32>(nodes + (<usize>j << 2)));
    else if (d < -load<f32>(heapD)) {
      heapPop(heapD, heapI, --n);
      heapPush(heapD, heapI, n++, -d, load<u32>(nodes + (<usize>j << 2)));
    }
  }
  return n;
}

/**
 * Scores the runs' nodes still set in the bitset, clearing them; the heap's new size. The nodes
 * scored go to B_RUN_SCORED.
 */
function scanRuns(b: usize, bits: usize, heapD: usize, heapI: usize, cap: i32): i32 {
  const runs = <usize>load<u32>(b, B_RUNS);
  const count = load<u32>(b, B_RUN_COUNT);
  const maxDeg = <usize>load<u32>(b, B_MAX_DEG);
  // The lane's six scratch arrays as three: the batch's rows in the run, their nodes, their distances.
  const pos = <usize>load<u32>(b, B_SCRATCH);
  const batch = <i32>(2 * maxDeg);
  const nodes = pos + ((<usize>batch) << 2);
  const dist = nodes + ((<usize>batch) << 2);
  const q = <usize>load<u32>(b, B_Q0);
  const base0 = <usize>load<u32>(b, B_BASE0);
  // A centroid code finds its centroids at a fixed distance back from the rows it reads: from a run,
  // that distance grows by the run's offset from the segment's rows.
  const back = load<u32>(q, P_HEAD_BACK);
  let n: i32 = 0;
  let total: u32 = 0;
  for (let r: u32 = 0; r < count; r++) {
    const d = runs + (<usize>r) * 12;
    const codes = <usize>load<u32>(d);
    const ids = <usize>load<u32>(d, 4);
    const rows = load<u32>(d, 8);
    store<u32>(q, back + <u32>(codes - base0), P_HEAD_BACK);
    let m: i32 = 0;
    for (let i: u32 = 0; i < rows; i++) {
      const node = load<u32>(ids + (<usize>i << 2));
      const word = bits + (<usize>(node >>> 5) << 2);
      const w = load<u32>(word);
      const bit: u32 = 1 << (node & 31);
      if ((w & bit) == 0) continue;
      store<u32>(word, w ^ bit);
      store<u32>(pos + (<usize>m << 2), i);
      store<u32>(nodes + (<usize>m << 2), node);
      if (++m == batch) {
        n = offerRows(b, codes, pos, nodes, dist, m, heapD, heapI, n, cap);
        total += <u32>m;
        m = 0;
      }
    }
    if (m > 0) {
      n = offerRows(b, codes, pos, nodes, dist, m, heapD, heapI, n, cap);
      total += <u32>m;
    }
  }
  store<u32>(q, back, P_HEAD_BACK);
  store<u32>(b + B_RUN_SCORED, total);
  return n;
}

/**
 * Scans the bitset at B_FILTER over B_NODES nodes in node order, keeping the best B_SCAN_CAP
 * matches: their heap is left in the beam's arrays (B_BEAM_N entries, distances negated), the
 * distances computed in B_DIST. The scratch arrays hold the ids and their distances, a batch at a
 * time. The B_RUN_COUNT runs at B_RUNS go first, clearing the bits of the nodes they score.
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
  const base0 = <usize>load<u32>(b, B_BASE0);
  store<u32>(b + B_RUN_SCORED, 0);
  let n: i32 = load<u32>(b, B_RUN_COUNT) > 0 ? scanRuns(b, bits, heapD, heapI, cap) : 0;
  let m: i32 = 0;
  let scored: u32 = load<u32>(b, B_RUN_SCORED);
  for (let w: u32 = 0; w < words; w++) {
    let mask = load<u32>(bits + (<usize>w << 2));
    while (mask != 0) {
      store<u32>(ids + (<usize>m << 2), (w << 5) | ctz(mask));
      mask &= mask - 1;
      if (++m == batch) {
        n = offerRows(b, base0, ids, ids, dist, m, heapD, heapI, n, cap);
        scored += <u32>m;
        m = 0;
      }
    }
  }
  if (m > 0) {
    n = offerRows(b, base0, ids, ids, dist, m, heapD, heapI, n, cap);
    scored += <u32>m;
  }
  store<u32>(b + B_DIST, scored);
  store<u32>(b + B_DIST + 4, 0);
  store<i32>(b + B_BEAM_N, n);
  store<u32>(b + B_OVERFLOW, 0);
}
