// A task and its result cross to a search thread as one buffer each: every field survives the trip,
// and a task built by hand (fields in buffers of their own) is packed into one first.
import { describe, expect, it } from 'vitest';
import { STAT_FIELDS } from '../../index/search/stats.js';
import { allocTask, emptyResult, type QueryTask, resultBuffer, resultFromBuffer, taskBuffer, taskFromBuffer } from '../../engine/task.js';

function fill(t: QueryTask): void {
  t.vectors.forEach((_, i) => (t.vectors[i] = i * 0.5));
  t.k.forEach((_, i) => (t.k[i] = 10 + i));
  t.ef.forEach((_, i) => (t.ef[i] = 64 + i));
  t.rerank.forEach((_, i) => (t.rerank[i] = 50 + i));
  t.prune.forEach((_, i) => (t.prune[i] = i % 2));
  t.exact.forEach((_, i) => (t.exact[i] = (i + 1) % 2));
  t.filterAt.forEach((_, i) => (t.filterAt[i] = i % 3 === 0 ? -1 : 1000 * i));
  t.matched.forEach((_, i) => (t.matched[i] = 7 * i));
  t.plan.forEach((_, i) => (t.plan[i] = i % 3));
}

const plain = (t: QueryTask) => ({
  collection: t.collection,
  mode: t.mode,
  dim: t.dim,
  vectors: Array.from(t.vectors),
  k: Array.from(t.k),
  ef: Array.from(t.ef),
  filterAt: Array.from(t.filterAt),
  matched: Array.from(t.matched),
  plan: Array.from(t.plan),
  rerank: Array.from(t.rerank),
  prune: Array.from(t.prune),
  exact: Array.from(t.exact),
});

describe('task wire format', () => {
  it('keeps every field of a task through its one buffer, without copying an allocated task', () => {
    for (const [n, dim] of [
      [1, 3],
      [7, 100],
      [16, 128],
    ] as const) {
      const t = allocTask(2, 'ndp', dim, n);
      fill(t);
      const buf = taskBuffer(t);
      expect(buf).toBe(t.vectors.buffer);
      expect(plain(taskFromBuffer(structuredClone(buf)))).toEqual(plain(t));
    }
  });

  it('packs a task built by hand into one buffer', () => {
    const n = 5;
    const dim = 4;
    const t: QueryTask = {
      collection: 1,
      mode: 'local',
      dim,
      vectors: new Float32Array(n * dim),
      k: new Int32Array(n),
      ef: new Int32Array(n),
      rerank: new Int32Array(n),
      prune: new Uint8Array(n),
      exact: new Uint8Array(n),
      filterAt: new Int32Array(n),
      matched: new Int32Array(n),
      plan: new Uint8Array(n),
    };
    fill(t);
    const back = taskFromBuffer(taskBuffer(t));
    expect(plain(back)).toEqual(plain(t));
    expect(back.k.buffer).toBe(back.vectors.buffer);
  });

  it('keeps a result (labels, distances, stats, kMax, busy time) through its one buffer', () => {
    const r = emptyResult(3, 7);
    expect(Array.from(r.labels.subarray(0, 7))).toEqual(new Array(7).fill(-1));
    expect(r.distances[20]).toBe(Infinity);
    r.labels[5] = 42;
    r.distances[5] = 0.25;
    r.stats[STAT_FIELDS + 1] = 9;
    r.busyMs = 1.5;
    const back = resultFromBuffer(structuredClone(resultBuffer(r)));
    expect(back.kMax).toBe(7);
    expect(back.busyMs).toBe(1.5);
    expect(Array.from(back.labels)).toEqual(Array.from(r.labels));
    expect(Array.from(back.distances)).toEqual(Array.from(r.distances));
    expect(Array.from(back.stats)).toEqual(Array.from(r.stats));
  });
});
