// The two ways of applying load.
//
// Closed loop: `concurrency` workers, each sending its next request as soon as the previous one is
// answered. Throughput is whatever the server sustains at that concurrency; latency is measured from
// each send. It is what VectorDBBench and most benchmarks run, and it under-reports queueing: when
// the server stalls, the workers stop sending, so the stall is seen by one request per worker only
// (coordinated omission).
//
// Open loop: requests are due on a fixed timetable (`rate` per second across all connections) whether
// or not earlier ones were answered, and latency is measured from the time a request was *due*, not
// from when it could finally be sent. A stall then shows up in every request that should have been
// sent during it, as users arriving independently would see it.
import type { SearchAnswer } from './clients/types.js';
import type { Clock } from './clock.js';
import type { StepRecorder } from './recorder.js';
import { dueBy, intendedAt, scheduledTotal, type Schedule } from './schedule.js';

/** This many transport failures in a row (connection refused or reset) end the step: the endpoint is down. */
export const ENDPOINT_DOWN_AFTER = 20;

export type StopReason = 'duration' | 'max-requests' | 'endpoint-down';

export interface LoopOptions {
  clock: Clock;
  search: (r: number) => Promise<SearchAnswer>;
  /** Requests (each one query or a batch) are sent in order, wrapping around. */
  requestCount: number;
  recorder: StepRecorder;
  durationMs: number;
  maxRequests: number;
}

export interface LoopOutcome {
  startMs: number;
  /** When the last answer arrived (or the loop gave up). */
  endMs: number;
  sent: number;
  stoppedBy: StopReason;
  /** Open loop: requests the timetable held, and those due but never sent. */
  scheduled?: number;
  unsent?: number;
}

const endpointDown = (r: StepRecorder): boolean => r.consecutiveTransportFailures >= ENDPOINT_DOWN_AFTER;

export async function runClosed(o: LoopOptions, concurrency: number): Promise<LoopOutcome> {
  const { clock, recorder } = o;
  const startMs = clock.now();
  const endAt = startMs + o.durationMs;
  let next = 0;
  let stopped: StopReason | null = null;
  const worker = async (): Promise<void> => {
    while (stopped === null) {
      if (next >= o.maxRequests) {
        stopped = 'max-requests';
        break;
      }
      const sentAt = clock.now();
      if (sentAt >= endAt) {
        stopped = 'duration';
        break;
      }
      const r = next++ % o.requestCount;
      const a = await o.search(r);
      recorder.record(r, a, sentAt, sentAt);
      if (endpointDown(recorder)) stopped = 'endpoint-down';
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { startMs, endMs: clock.now(), sent: next, stoppedBy: stopped ?? 'duration' };
}

export interface OpenLoopOptions extends LoopOptions {
  /** Requests per second across all connections. */
  rate: number;
  /** Most requests in flight; due requests beyond it wait in the client (and their wait counts as latency). */
  maxInflight: number;
  /** After the timetable ends, how long requests still waiting to be sent may take to go out. */
  drainMs: number;
}

export async function runOpen(o: OpenLoopOptions): Promise<LoopOutcome> {
  const { clock, recorder } = o;
  const startMs = clock.now();
  const s: Schedule = { startMs, rate: o.rate, endMs: startMs + o.durationMs, maxRequests: o.maxRequests };
  const total = scheduledTotal(s);
  let issued = 0; // due so far: indices [0, issued)
  let sent = 0; // sent so far, in order: indices [sent, issued) wait in the client
  let inflight = 0;
  let stopped: StopReason | null = null;
  let wake: (() => void) | null = null;
  // After the timetable, requests still waiting in the client may go out until this deadline; those
  // left then were never sent and are counted as such (not silently dropped).
  const drainUntil = s.endMs + o.drainMs;

  const pump = (): void => {
    while (sent < issued && inflight < o.maxInflight && stopped === null && clock.now() < drainUntil) {
      const i = sent++;
      const r = i % o.requestCount;
      inflight++;
      const sentAt = clock.now();
      void o.search(r).then((a) => {
        inflight--;
        recorder.record(r, a, intendedAt(s, i), sentAt);
        if (endpointDown(recorder)) stopped = 'endpoint-down';
        pump();
        const w = wake;
        wake = null;
        w?.();
      });
    }
  };
  const answerOrTimeout = (ms: number): Promise<void> => Promise.race([new Promise<void>((r) => (wake = r)), clock.sleep(ms)]);

  while (stopped === null && issued < total) {
    const due = dueBy(s, clock.now());
    if (due > issued) issued = due;
    pump();
    if (issued >= total) break;
    await clock.sleep(intendedAt(s, issued) - clock.now());
  }
  while (stopped === null && sent < issued && clock.now() < drainUntil) await answerOrTimeout(Math.min(50, drainUntil - clock.now()));
  const unsent = issued - sent;
  recorder.recordUnsent(unsent);
  stopped ??= issued >= o.maxRequests && total === o.maxRequests ? 'max-requests' : 'duration';
  // What is in flight is bounded by the per-request timeout.
  while (inflight > 0) await answerOrTimeout(50);
  return { startMs, endMs: clock.now(), sent, stoppedBy: stopped, scheduled: total, unsent };
}
