// A clock that only moves when the test says so: sleeps are timers in a list, and run() advances time
// from one timer to the next until the promise under test settles. No real waiting, so scheduling and
// latency accounting can be checked exactly.
import type { Clock } from '../../loadgen/clock.js';

interface Timer {
  at: number;
  seq: number;
  resolve: () => void;
}

const flush = (): Promise<void> => new Promise((r) => setImmediate(r));

export class FakeClock implements Clock {
  t = 0;
  private timers: Timer[] = [];
  private seq = 0;

  now(): number {
    return this.t;
  }

  epochMs(t: number): number {
    return t;
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      if (ms <= 0) resolve();
      else this.timers.push({ at: this.t + ms, seq: this.seq++, resolve });
    });
  }

  /** Settles p, advancing time timer by timer whenever nothing else can run. */
  async run<T>(p: Promise<T>): Promise<T> {
    let done = false;
    let value: T | undefined;
    let error: unknown = null;
    p.then(
      (v) => {
        done = true;
        value = v;
      },
      (e: unknown) => {
        done = true;
        error = e ?? new Error('rejected');
      },
    );
    for (let guard = 0; guard < 1_000_000; guard++) {
      await flush();
      if (done) break;
      this.timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = this.timers.shift();
      if (!next) throw new Error('fake clock: the promise waits on something other than the clock');
      this.t = Math.max(this.t, next.at);
      next.resolve();
    }
    if (error !== null) throw error;
    return value as T;
  }
}
