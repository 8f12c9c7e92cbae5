// Emulated CXL time, paid for real: a busy-wait until a deadline on the monotonic high-resolution
// clock. A loop calibrated once against the clock (the first design) ran 0.47-2.15x the requested
// time under load, because a loop's speed depends on what else the CPU is doing; a deadline cannot
// run short. A clock read costs ~60 ns here and the clock advances in steps of ~0.2 µs (with rare
// jumps of microseconds on this VM), so callers pay in chunks of at least `chunkNs`: the overshoot
// is then a small share of each payment, and it is measured and reported, not hidden.

/**
 * Default smallest payment, ns: owed time below it waits for the next access or the query's end.
 * Measured here under load (two busy cores): 10 µs payments ran 1.48x long, 20 µs 1.05x, 50 µs
 * 1.03x; a search owes tens of µs, so 50 µs keeps one payment per query near exact.
 */
export const DEFAULT_STALL_CHUNK_NS = 50_000;

export class Stall {
  constructor(readonly chunkNs = DEFAULT_STALL_CHUNK_NS) {}

  /** Busy-waits at least `ns` nanoseconds by the clock; returns the nanoseconds that actually passed. */
  pay(ns: number): number {
    if (ns <= 0) return 0;
    const t0 = performance.now();
    let spent = 0;
    // The test is on the quantity reported, so rounding can never make a stall report less than asked.
    while (spent < ns) spent = (performance.now() - t0) * 1e6;
    return spent;
  }
}

/** One stall outside a search loop (tier workers): at least `ns`, measured. */
export function stallNs(ns: number): number {
  return SHARED.pay(ns);
}

const SHARED = new Stall();
