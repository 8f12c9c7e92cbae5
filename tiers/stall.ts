// Busy-wait for a given number of nanoseconds without reading the clock on the way: on VMs a clock
// read can cost a microsecond and advance in jumps of several, which makes clock-polling spins
// overshoot short stalls many times over. A loop calibrated once against the clock (over tens of
// milliseconds, where the clock is accurate) stalls sub-microsecond amounts on average correctly.

let loopsPerNs = 0;
let sink = 0;

function spinLoops(n: number): void {
  let x = sink | 0;
  for (let i = 0; i < n; i++) x = (x * 1103515245 + 12345) | 0;
  sink = x;
}

/** Measures loop speed (median of several ~10 ms runs). Called lazily by stallNs. */
export function calibrateStall(): number {
  spinLoops(1e6); // warm the JIT
  const rates: number[] = [];
  for (let r = 0; r < 5; r++) {
    const n = 2_000_000;
    const t0 = performance.now();
    spinLoops(n);
    const ns = (performance.now() - t0) * 1e6;
    rates.push(n / ns);
  }
  rates.sort((a, b) => a - b);
  loopsPerNs = rates[2]!;
  return loopsPerNs;
}

/** Busy-waits about `ns` nanoseconds. */
export function stallNs(ns: number): void {
  if (ns <= 0) return;
  if (loopsPerNs === 0) calibrateStall();
  spinLoops(Math.round(ns * loopsPerNs));
}
