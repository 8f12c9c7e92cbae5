// The open loop's timetable: request i is due at start + i / rate. Kept apart and pure so the
// arithmetic (and the coordinated-omission accounting that builds on it) is unit-tested.

export interface Schedule {
  startMs: number;
  /** Requests per second, across all connections. */
  rate: number;
  /** No request is due at or after this time. */
  endMs: number;
  /** No more than this many requests in all. */
  maxRequests: number;
}

/** When request i was meant to be sent. */
export function intendedAt(s: Schedule, i: number): number {
  return s.startMs + (i * 1000) / s.rate;
}

/** How many requests are due by `nowMs` (indices 0..n-1), within the schedule's limits. */
export function dueBy(s: Schedule, nowMs: number): number {
  if (nowMs < s.startMs) return 0;
  const byTime = Math.floor(((Math.min(nowMs, s.endMs) - s.startMs) * s.rate) / 1000) + 1;
  const byEnd = Math.ceil(((s.endMs - s.startMs) * s.rate) / 1000);
  return Math.max(0, Math.min(byTime, byEnd, s.maxRequests));
}

/** Total requests the schedule will issue. */
export function scheduledTotal(s: Schedule): number {
  return Math.max(0, Math.min(Math.ceil(((s.endMs - s.startMs) * s.rate) / 1000), s.maxRequests));
}
