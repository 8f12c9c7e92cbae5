import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { progressSink, type StepKey } from '../../loadgen/progress.js';

function stream(tty: boolean): PassThrough & { isTTY?: boolean; columns?: number; text(): string } {
  const s = new PassThrough() as PassThrough & { isTTY?: boolean; columns?: number; text(): string };
  let out = '';
  s.on('data', (d: Buffer) => (out += d.toString('utf8')));
  s.isTTY = tty;
  s.columns = 200;
  s.text = () => out;
  return s;
}

const key: StepKey = { index: 0, of: 2, ef: 64, concurrency: 8, rate: null };
const snap = { elapsedS: 1, sent: 10, ok: 9, failed: 1, qps: 9, p99Ms: 1.5 };

describe('progress', () => {
  it('rewrites one line in place on a terminal and ends each step with a plain line', () => {
    const s = stream(true);
    const p = progressSink(s);
    p.step(key, 'measure');
    p.tick(key, snap);
    p.done(key, 'ef 64 c 8: qps 9');
    expect(s.text()).toContain('\r\x1b[2Kstep 1/2 ef 64 c 8: 1.0s sent 10 ok 9 err 1 qps 9 p99 1.50 ms');
    expect(s.text().endsWith('\r\x1b[2Kef 64 c 8: qps 9\n')).toBe(true);
  });

  it('writes no control characters when not on a terminal, and at most one line per interval', () => {
    const s = stream(false);
    const p = progressSink(s, 60_000);
    p.step(key, 'measure');
    for (let i = 0; i < 100; i++) p.tick(key, snap);
    p.done(key, 'ef 64 c 8: qps 9');
    expect(s.text()).toBe('ef 64 c 8: qps 9\n');
    const every = stream(false);
    const q = progressSink(every, 0);
    q.tick(key, snap);
    expect(every.text()).toBe('step 1/2 ef 64 c 8: 1.0s sent 10 ok 9 err 1 qps 9 p99 1.50 ms\n');
  });
});
