import { describe, expect, it } from 'vitest';
import { dueBy, intendedAt, scheduledTotal, type Schedule } from '../../loadgen/schedule.js';

describe('open-loop schedule', () => {
  const s: Schedule = { startMs: 1000, rate: 200, endMs: 2000, maxRequests: 1_000_000 };

  it('spaces requests 1/rate apart from the start', () => {
    expect(intendedAt(s, 0)).toBe(1000);
    expect(intendedAt(s, 1)).toBe(1005);
    expect(intendedAt(s, 199)).toBe(1995);
  });

  it('counts the requests due at a time, the first one at the start itself', () => {
    expect(dueBy(s, 999)).toBe(0);
    expect(dueBy(s, 1000)).toBe(1);
    expect(dueBy(s, 1004.9)).toBe(1);
    expect(dueBy(s, 1005)).toBe(2);
    expect(dueBy(s, 1999)).toBe(200);
    expect(dueBy(s, 5000)).toBe(200);
  });

  it('holds rate x duration requests, capped by the request limit', () => {
    expect(scheduledTotal(s)).toBe(200);
    expect(scheduledTotal({ ...s, rate: 2.5 })).toBe(3); // at 0, 400 and 800 ms
    expect(scheduledTotal({ ...s, maxRequests: 50 })).toBe(50);
    expect(dueBy({ ...s, maxRequests: 50 }, 1900)).toBe(50);
  });
});
