// The recorded live load: the last RECENT_QUERIES queries, oldest first, whatever was recorded before.
import { describe, expect, it } from 'vitest';
import { RECENT_QUERIES, RecentQueries } from '../../engine/recent-queries.js';

const DIM = 3;
const query = (i: number): Float32Array => Float32Array.from({ length: DIM }, (_, j) => i * 10 + j);

describe('recent queries', () => {
  it('gives nothing before the first query', () => {
    expect(new RecentQueries(DIM).copy().length).toBe(0);
  });

  it('gives the queries recorded so far, oldest first', () => {
    const r = new RecentQueries(DIM);
    for (let i = 0; i < 5; i++) r.record(query(i));
    const out = r.copy();
    expect(out.length).toBe(5 * DIM);
    for (let i = 0; i < 5; i++) expect(Array.from(out.subarray(i * DIM, (i + 1) * DIM))).toEqual(Array.from(query(i)));
  });

  it('keeps only the last RECENT_QUERIES once the ring wrapped, oldest first', () => {
    const r = new RecentQueries(DIM);
    const total = RECENT_QUERIES + 7;
    for (let i = 0; i < total; i++) r.record(query(i));
    const out = r.copy();
    expect(out.length).toBe(RECENT_QUERIES * DIM);
    expect(Array.from(out.subarray(0, DIM))).toEqual(Array.from(query(total - RECENT_QUERIES)));
    expect(Array.from(out.subarray((RECENT_QUERIES - 1) * DIM))).toEqual(Array.from(query(total - 1)));
  });
});
