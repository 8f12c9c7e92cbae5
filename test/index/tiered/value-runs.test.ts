import { afterAll, describe, expect, it } from 'vitest';
import { loadIndex } from '../../../index/format/load-index.js';
import { writeIndex } from '../../../index/format/write-index.js';
import { RUN_MAX_SHARE, RUN_MIN_NODES, reservedRunBytes, runBytes, runValues } from '../../../index/tiered/value-runs.js';
import { buildSmallIndex } from '../../helpers/small-index.js';
import { makeTempDir } from '../../helpers/temp.js';

describe('value runs (codes of one value side by side, for the scan)', () => {
  const tmp = makeTempDir();
  afterAll(() => tmp.cleanup());

  it('keeps the values worth a run (enough nodes, few enough to be scanned), and reserves whole runs, the largest first', () => {
    const n = 100_000;
    expect(runValues([RUN_MIN_NODES - 1, RUN_MIN_NODES, 5000, RUN_MAX_SHARE * n, RUN_MAX_SHARE * n + 1], n)).toEqual([RUN_MIN_NODES, 5000, RUN_MAX_SHARE * n]);
    expect(runBytes(3, 40)).toBe(128 + 64);
    const [big, mid, small] = [runBytes(4000, 40), runBytes(3000, 40), runBytes(2000, 40)];
    // The largest fits, the next does not, the smallest does.
    expect(reservedRunBytes([2000, 4000, 3000], 40, big + small + 100)).toBe(big + small);
    expect(reservedRunBytes([2000, 4000, 3000], 40, big + mid + small)).toBe(big + mid + small);
    // Less than the smallest run: nothing, the bytes would serve no run.
    expect(reservedRunBytes([2000, 4000], 40, small - 1)).toBe(0);
  });

  it("copies each node's record and id into the area once per key, and refuses small values and an area that is full", () => {
    const s = buildSmallIndex({ count: 3000, codes: 'sq8', dramShare: 0.6, runValues: [1500], runShare: 0.5 });
    const runs = s.index.valueRuns!;
    const reserved = s.index.plan.runBytes!;
    expect(reserved).toBe(runBytes(1500, s.index.codes!.shape.stride));
    const codes = s.index.codes!.segments[0]!;
    const region = new Uint8Array(s.index.fused!.memory.buffer);
    const stride = s.index.codes!.shape.stride;
    const nodes = Uint32Array.from({ length: 1500 }, (_, i) => 2 * i);
    let asked = 0;
    const ask = (): Uint32Array => {
      asked++;
      return nodes;
    };
    const a = runs.runOf('a', ask)!;
    expect(runs.runOf('a', ask)).toBe(a);
    expect(asked).toBe(1);
    expect(a.rows).toBe(1500);
    expect(Array.from(new Uint32Array(region.buffer, a.idsAt, a.rows))).toEqual(Array.from(nodes));
    for (const i of [0, 1, 777, 1499]) {
      const from = codes.layout.recordOffset + nodes[i]! * stride;
      expect(Array.from(region.subarray(a.codesAt + i * stride, a.codesAt + (i + 1) * stride))).toEqual(Array.from(region.subarray(from, from + stride)));
    }
    expect(a.codesAt).toBeGreaterThanOrEqual(codes.layout.recordOffset + 3000 * stride);
    // Too few nodes to gain; then more than the area has left.
    expect(runs.runOf('small', () => nodes.subarray(0, RUN_MIN_NODES - 1))).toBeNull();
    expect(runs.runOf('b', () => Uint32Array.from({ length: 1200 }, (_, i) => i))).toBeNull();
    expect(runs.bytes).toBe(runBytes(1500, stride));
    expect(runs.count).toBe(1);
  });

  it('keeps its DRAM through the manifest, and an index without it has no runs', () => {
    const s = buildSmallIndex({ count: 3000, codes: 'sq8', dramShare: 0.6, runValues: [1500], runShare: 0.5 });
    const dir = tmp.path('runs');
    const m = writeIndex(s.index, dir, s.info);
    expect(m.plan.runBytes).toBe(s.index.plan.runBytes);
    const { index } = loadIndex(dir);
    expect(index.plan.runBytes).toBe(s.index.plan.runBytes);
    expect(index.fused!.runs.bytes).toBe(s.index.plan.runBytes);
    expect(index.valueRuns).not.toBeNull();
    expect(buildSmallIndex({ count: 3000, codes: 'sq8', dramShare: 0.6 }).index.valueRuns).toBeNull();
  });
});
