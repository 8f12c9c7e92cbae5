// The run loops against a simulated server on a fake clock: exact, no sleeping, no timing assertions.
import { describe, expect, it } from 'vitest';
import type { SearchAnswer } from '../../loadgen/clients/types.js';
import { ENDPOINT_DOWN_AFTER, runClosed, runOpen } from '../../loadgen/loops.js';
import { StepRecorder } from '../../loadgen/recorder.js';
import { FakeClock } from './fake-clock.js';

/** A server with `workers` servers in parallel, each taking `serviceMs` per request, FIFO. */
function simulatedServer(clock: FakeClock, serviceMs: number, workers = 1) {
  const freeAt = new Array<number>(workers).fill(0);
  const sends: number[] = [];
  const search = async (q: number): Promise<SearchAnswer> => {
    sends.push(clock.now());
    let w = 0;
    for (let i = 1; i < workers; i++) if (freeAt[i]! < freeAt[w]!) w = i;
    const done = Math.max(clock.now(), freeAt[w]!) + serviceMs;
    freeAt[w] = done;
    await clock.sleep(done - clock.now());
    return { ok: true, at: clock.now(), answers: [{ ids: Float64Array.of(q), scores: Float64Array.of(0), cost: null }] };
  };
  return { search, sends };
}

describe('closed loop', () => {
  it('keeps `concurrency` requests outstanding and measures latency from each send', async () => {
    const clock = new FakeClock();
    const server = simulatedServer(clock, 10, 2);
    const rec = new StepRecorder(5);
    const out = await clock.run(runClosed({ clock, search: server.search, requestCount: 5, recorder: rec, durationMs: 100, maxRequests: 1e6 }, 2));
    // two workers, 10 ms each, two servers: 2 requests every 10 ms until t = 100
    expect(out.sent).toBe(20);
    expect(rec.ok).toBe(20);
    expect(out.stoppedBy).toBe('duration');
    const s = rec.latency.summary();
    expect(s.p50Ms).toBeCloseTo(10, 1);
    expect(s.maxMs).toBeCloseTo(10, 1);
    expect(out.endMs - out.startMs).toBe(100);
    rec.destroy();
  });

  it('hides a server stall from all but one request per worker (coordinated omission)', async () => {
    const clock = new FakeClock();
    const server = simulatedServer(clock, 1, 1);
    // one request in the middle takes 500 ms: the lone worker waits, and sends nothing meanwhile
    let n = 0;
    const stalled = async (q: number): Promise<SearchAnswer> => {
      if (n++ !== 50) return server.search(q);
      await clock.sleep(500);
      return { ok: true, at: clock.now(), answers: [{ ids: Float64Array.of(q), scores: Float64Array.of(0), cost: null }] };
    };
    const rec = new StepRecorder(10);
    await clock.run(runClosed({ clock, search: stalled, requestCount: 10, recorder: rec, durationMs: 1000, maxRequests: 1e6 }, 1));
    const s = rec.latency.summary();
    expect(s.maxMs).toBeCloseTo(500, 0);
    expect(s.p99Ms).toBeCloseTo(1, 1); // the stall is one sample among ~550
    rec.destroy();
  });

  it('stops at the request limit and sends queries in order, wrapping around', async () => {
    const clock = new FakeClock();
    const server = simulatedServer(clock, 1, 1);
    const rec = new StepRecorder(3);
    const qs: number[] = [];
    const out = await clock.run(
      runClosed(
        {
          clock,
          search: (q) => {
            qs.push(q);
            return server.search(q);
          },
          requestCount: 3,
          recorder: rec,
          durationMs: 1e6,
          maxRequests: 7,
        },
        1,
      ),
    );
    expect(out.stoppedBy).toBe('max-requests');
    expect(qs).toEqual([0, 1, 2, 0, 1, 2, 0]);
    expect(rec.firstIds.map((ids) => ids?.[0])).toEqual([0, 1, 2]);
    rec.destroy();
  });

  it('gives up after a run of transport failures: the endpoint is down', async () => {
    const clock = new FakeClock();
    const rec = new StepRecorder(3);
    const refused = async (): Promise<SearchAnswer> => ({
      ok: false,
      at: clock.now(),
      status: 'ECONNREFUSED',
      transport: true,
      message: 'connect ECONNREFUSED',
    });
    const out = await clock.run(runClosed({ clock, search: refused, requestCount: 3, recorder: rec, durationMs: 1e6, maxRequests: 1e6 }, 1));
    expect(out.stoppedBy).toBe('endpoint-down');
    expect(rec.errorCounts()).toEqual({ ECONNREFUSED: ENDPOINT_DOWN_AFTER });
    rec.destroy();
  });

  it('counts failures by status and keeps going after HTTP errors', async () => {
    const clock = new FakeClock();
    const rec = new StepRecorder(3);
    let n = 0;
    const flaky = async (q: number): Promise<SearchAnswer> => {
      await clock.sleep(1);
      return n++ % 4 === 3
        ? { ok: false, at: clock.now(), status: '429', transport: false, message: 'queue full' }
        : { ok: true, at: clock.now(), answers: [{ ids: Float64Array.of(q), scores: Float64Array.of(0), cost: null }] };
    };
    const out = await clock.run(runClosed({ clock, search: flaky, requestCount: 3, recorder: rec, durationMs: 1e6, maxRequests: 40 }, 1));
    expect(out.stoppedBy).toBe('max-requests');
    expect(rec.ok).toBe(30);
    expect(rec.errorCounts()).toEqual({ '429': 10 });
    expect(rec.errorMessages()).toEqual({ '429': 'queue full' });
    rec.destroy();
  });
});

describe('open loop', () => {
  it('sends on the timetable and, when the server keeps up, latency is the service time', async () => {
    const clock = new FakeClock();
    const server = simulatedServer(clock, 2, 1);
    const rec = new StepRecorder(4);
    const out = await clock.run(
      runOpen({ clock, search: server.search, requestCount: 4, recorder: rec, durationMs: 100, maxRequests: 1e6, rate: 100, maxInflight: 100, drainMs: 1000 }),
    );
    expect(out.scheduled).toBe(10);
    expect(server.sends).toEqual([0, 10, 20, 30, 40, 50, 60, 70, 80, 90]);
    expect(rec.latency.summary().maxMs).toBeCloseTo(2, 2);
    expect(out.unsent).toBe(0);
    expect(out.stoppedBy).toBe('duration');
    rec.destroy();
  });

  it('measures from the intended send time, so queueing behind a slow server is counted', async () => {
    const clock = new FakeClock();
    // capacity 100/s (10 ms each), offered 200/s: request i is due at 5i ms and answered at 10(i+1) ms
    const server = simulatedServer(clock, 10, 1);
    const rec = new StepRecorder(8);
    const out = await clock.run(
      runOpen({
        clock,
        search: server.search,
        requestCount: 8,
        recorder: rec,
        durationMs: 100,
        maxRequests: 1e6,
        rate: 200,
        maxInflight: 1000,
        drainMs: 10_000,
      }),
    );
    expect(out.sent).toBe(20);
    expect(rec.ok).toBe(20);
    const s = rec.latency.summary();
    // latency_i = 10(i+1) - 5i = 10 + 5i: from 10 ms (i = 0) to 105 ms (i = 19)
    expect(s.maxMs).toBeCloseTo(105, 0);
    expect(Math.abs(s.p50Ms - 55) / 55).toBeLessThan(2e-3); // i = 9
    // answers per second fall behind the offered rate
    expect(rec.ok / ((out.endMs - out.startMs) / 1000)).toBeCloseTo(100, 5);
    rec.destroy();
  });

  it('counts the wait of requests held back by --max-inflight in their latency, not in the service time', async () => {
    const clock = new FakeClock();
    const server = simulatedServer(clock, 10, 1);
    const rec = new StepRecorder(8);
    await clock.run(
      runOpen({ clock, search: server.search, requestCount: 8, recorder: rec, durationMs: 100, maxRequests: 1e6, rate: 200, maxInflight: 1, drainMs: 10_000 }),
    );
    // one at a time: each request is *sent* 10 ms after the previous, so the service time is always
    // 10 ms (what a coordinated-omission-prone tool would report), while latency from the timetable grows
    expect(rec.service.summary().maxMs).toBeCloseTo(10, 1);
    expect(rec.service.summary().p50Ms).toBeCloseTo(10, 1);
    expect(rec.latency.summary().maxMs).toBeCloseTo(105, 0);
    rec.destroy();
  });

  it('stops after the timetable and counts requests still unsent at the drain deadline', async () => {
    const clock = new FakeClock();
    const server = simulatedServer(clock, 50, 1);
    const rec = new StepRecorder(8);
    const out = await clock.run(
      runOpen({ clock, search: server.search, requestCount: 8, recorder: rec, durationMs: 100, maxRequests: 1e6, rate: 100, maxInflight: 1, drainMs: 100 }),
    );
    // 10 due; one at a time at 50 ms each: sent at 0, 50, 100, 150 (the last before the 200 ms deadline)
    expect(out.scheduled).toBe(10);
    expect(out.sent).toBe(4);
    expect(out.unsent).toBe(6);
    expect(rec.ok).toBe(4);
    expect(rec.errorCounts()).toEqual({ 'client-backlog': 6 });
    rec.destroy();
  });

  it('honours the request limit before the duration', async () => {
    const clock = new FakeClock();
    const server = simulatedServer(clock, 1, 1);
    const rec = new StepRecorder(8);
    const out = await clock.run(
      runOpen({ clock, search: server.search, requestCount: 8, recorder: rec, durationMs: 10_000, maxRequests: 25, rate: 1000, maxInflight: 10, drainMs: 100 }),
    );
    expect(out.sent).toBe(25);
    expect(out.stoppedBy).toBe('max-requests');
    expect(server.sends.at(-1)).toBe(24);
    rec.destroy();
  });
});
