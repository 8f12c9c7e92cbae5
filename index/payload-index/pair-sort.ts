// Sorting (value, id) pairs by value, keeping their order among equal values: a radix sort over the
// values' IEEE 754 bits made orderable (a negative's bits flipped, a positive's sign bit set), 16 bits
// a pass, a pass skipped where every pair shares its digit (small integers share their high bits). A
// comparator sort of a permutation costs about a second for a million pairs on the event loop; this,
// a few tens of milliseconds. -0 sorts as 0: the pairs hold +0 for both.
import { stepsInOneTurn } from '../../common/turns.js';

/** Fewer pairs than this are sorted by comparison (the passes' counts cost more than they save). */
const RADIX_FROM = 2048;
const DIGIT_BITS = 16;
const DIGITS = 1 << DIGIT_BITS;

/**
 * Sorts `keys` (finite numbers) ascending in place, moving `ids` with them; equal keys keep their
 * order. `radixFrom`: the fewest pairs sorted by radix.
 */
export function sortPairs(keys: Float64Array, ids: Uint32Array, radixFrom = RADIX_FROM): void {
  stepsInOneTurn(sortPairSteps(keys, ids, radixFrom));
}

/** sortPairs, yielding after its digits are made and after each radix pass: for work run over turns of the event loop. */
export function* sortPairSteps(keys: Float64Array, ids: Uint32Array, radixFrom = RADIX_FROM): Generator<void, void, void> {
  const n = keys.length;
  for (let i = 0; i < n; i++) keys[i] = keys[i]! + 0;
  if (n < radixFrom || n === 0) {
    const order = Uint32Array.from({ length: n }, (_, j) => j).sort((a, b) => keys[a]! - keys[b]! || a - b);
    const k = Float64Array.from(order, (j) => keys[j]!);
    const d = Uint32Array.from(order, (j) => ids[j]!);
    keys.set(k);
    ids.set(d);
    return;
  }
  // Orderable bits, low and high words of each key (little-endian doubles).
  const words = new Uint32Array(keys.buffer, keys.byteOffset, 2 * n);
  let lo = new Uint32Array(n);
  let hi = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    const h = words[2 * i + 1]!;
    const negative = h >>> 31 === 1;
    lo[i] = negative ? ~words[2 * i]! >>> 0 : words[2 * i]!;
    hi[i] = negative ? ~h >>> 0 : (h | 0x80000000) >>> 0;
  }
  let id = ids.slice();
  let lo2 = new Uint32Array(n);
  let hi2 = new Uint32Array(n);
  let id2 = new Uint32Array(n);
  const count = new Uint32Array(DIGITS);
  // The digits made and their room taken are a step of their own: with the first pass they held
  // the loop longest.
  yield;
  for (let pass = 0; pass < 4; pass++) {
    const src = pass < 2 ? lo : hi;
    const shift = (pass & 1) * DIGIT_BITS;
    count.fill(0);
    for (let i = 0; i < n; i++) count[(src[i]! >>> shift) & (DIGITS - 1)]!++;
    if (count[(src[0]! >>> shift) & (DIGITS - 1)] === n) continue;
    for (let d = 0, at = 0; d < DIGITS; d++) {
      const c = count[d]!;
      count[d] = at;
      at += c;
    }
    for (let i = 0; i < n; i++) {
      const at = count[(src[i]! >>> shift) & (DIGITS - 1)]!++;
      lo2[at] = lo[i]!;
      hi2[at] = hi[i]!;
      id2[at] = id[i]!;
    }
    [lo, lo2] = [lo2, lo];
    [hi, hi2] = [hi2, hi];
    [id, id2] = [id2, id];
    yield;
  }
  for (let i = 0; i < n; i++) {
    const h = hi[i]!;
    const negative = h >>> 31 === 0;
    words[2 * i] = negative ? ~lo[i]! >>> 0 : lo[i]!;
    words[2 * i + 1] = negative ? ~h >>> 0 : (h & 0x7fffffff) >>> 0;
  }
  ids.set(id);
}
