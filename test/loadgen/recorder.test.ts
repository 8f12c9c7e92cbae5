// What a step records when a request carries a batch of queries: each answer lands on its own query
// (for recall), answers and failures count in queries (so QPS means queries), latency once a request.
import { describe, expect, it } from 'vitest';
import { allRequests, requestCount, requestQueries, type QueryAnswer } from '../../loadgen/clients/types.js';
import { StepRecorder } from '../../loadgen/recorder.js';

const answer = (q: number): QueryAnswer => ({ ids: Float64Array.of(q), scores: Float64Array.of(0), cost: null });

describe('batched requests', () => {
  it('cover every query once per pass, the last request wrapping around to the first queries', () => {
    expect(requestCount(5, 2)).toBe(3);
    expect(allRequests(5, 2)).toEqual([
      [0, 1],
      [2, 3],
      [4, 0],
    ]);
    expect(requestQueries(4, 5, 2)).toEqual([3, 4]); // the second pass starts where the first ended
    expect(allRequests(3, 1)).toEqual([[0], [1], [2]]);
  });

  it('record each answer on its own query, count queries, and time the request once', () => {
    const rec = new StepRecorder(5, 2);
    rec.record(2, { ok: true, at: 7, answers: [answer(4), answer(0)] }, 3, 3);
    rec.record(1, { ok: true, at: 9, answers: [answer(2), answer(3)] }, 8, 8);
    expect(rec.ok).toBe(4);
    expect(rec.firstIds.map((ids) => ids?.[0])).toEqual([0, undefined, 2, 3, 4]);
    expect(rec.latency.count).toBe(2);
    expect(rec.latency.summary().maxMs).toBeCloseTo(4, 1);
    rec.record(0, { ok: false, at: 10, status: '413', transport: false, message: 'too many' }, 9, 9);
    expect(rec.failed).toBe(2);
    expect(rec.errorCounts()).toEqual({ '413': 2 });
    rec.recordUnsent(3);
    expect(rec.failed).toBe(8);
    rec.destroy();
  });

  it('keep the first answer of a query that a later request repeats', () => {
    const rec = new StepRecorder(3, 2);
    rec.record(1, { ok: true, at: 1, answers: [answer(2), answer(0)] }, 0, 0);
    rec.record(0, { ok: true, at: 2, answers: [answer(9), answer(1)] }, 1, 1);
    expect(rec.firstIds.map((ids) => ids?.[0])).toEqual([0, 1, 2]);
    rec.destroy();
  });
});
