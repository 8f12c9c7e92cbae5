// Time as the run loops see it. Behind an interface so that scheduling and latency accounting can be
// tested with a fake clock (no sleeping, no timing assertions).

export interface Clock {
  /** Milliseconds on a monotonic scale (fractions allowed). */
  now(): number;
  /** Resolves once now() has passed `ms` from the call (at once for ms <= 0). */
  sleep(ms: number): Promise<void>;
  /** Milliseconds since the Unix epoch at now() = t: lines a step's window up with what another process measured meanwhile. */
  epochMs(t: number): number;
}

export const realClock: Clock = {
  now: () => performance.now(),
  epochMs: (t) => performance.timeOrigin + t,
  sleep: (ms) =>
    new Promise((resolve) => {
      // setTimeout cannot wait less than ~1 ms; shorter waits yield to I/O once instead, and the open
      // loop's catch-up (it sends every request whose time has come) absorbs the difference.
      if (ms < 1) setImmediate(resolve);
      else setTimeout(resolve, ms);
    }),
};
