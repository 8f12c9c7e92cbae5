import { describe, expect, it } from 'vitest';
import { MAX_STEP_SECONDS, resolveOptions, stepsOf } from '../../loadgen/options.js';

const base = { url: 'http://127.0.0.1:6333', collection: 'c', queries: 'q.fvecs' };

describe('load generator options', () => {
  it("defaults to the issue's sweep: ef 16,32,64,128 x concurrency 1,8,32, closed loop, JSON, k 10", () => {
    const r = resolveOptions(base);
    expect(r).toMatchObject({ k: 10, ef: [16, 32, 64, 128], concurrency: [1, 8, 32], mode: 'closed', protocol: 'json', rate: null });
    expect(stepsOf(r)).toHaveLength(12);
    expect(stepsOf(r)[0]).toEqual({ ef: 16, concurrency: 1, rate: null });
  });

  it('sweeps ef x concurrency x rate in the open loop', () => {
    const r = resolveOptions({ ...base, mode: 'open', rate: [100, 200], ef: [16], concurrency: [1, 4] });
    expect(stepsOf(r)).toEqual([
      { ef: 16, concurrency: 1, rate: 100 },
      { ef: 16, concurrency: 1, rate: 200 },
      { ef: 16, concurrency: 4, rate: 100 },
      { ef: 16, concurrency: 4, rate: 200 },
    ]);
  });

  it("refuses an ef above pgvector's hnsw.ef_search bound for --protocol pgvector only", () => {
    expect(() => resolveOptions({ ...base, protocol: 'pgvector', ef: [64, 1001] })).toThrow(/--ef: pgvector's hnsw.ef_search is at most 1000, got 1001/);
    expect(resolveOptions({ ...base, protocol: 'pgvector', ef: [1000] }).ef).toEqual([1000]);
    expect(resolveOptions({ ...base, ef: [1001] }).ef).toEqual([1001]);
  });

  it("sends one query per request unless --batch asks for more, up to a server's default batch limit", () => {
    expect(resolveOptions(base).batch).toBe(1);
    expect(resolveOptions({ ...base, batch: 256 }).batch).toBe(256);
    expect(() => resolveOptions({ ...base, batch: 257 })).toThrow(/--batch: must be a whole number of queries per request in 1\.\.256, got 257/);
    expect(() => resolveOptions({ ...base, batch: 0 })).toThrow(/--batch/);
    expect(() => resolveOptions({ ...base, batch: 2.5 })).toThrow(/--batch/);
  });

  it('needs a rate in the open loop and refuses one in the closed loop', () => {
    expect(() => resolveOptions({ ...base, mode: 'open' })).toThrow(/--rate: the open loop needs a rate/);
    expect(() => resolveOptions({ ...base, rate: [10] })).toThrow(/--rate: applies to --mode open only/);
  });

  it('caps every step and the whole sweep so that a run always stops by itself', () => {
    expect(() => resolveOptions({ ...base, durationS: MAX_STEP_SECONDS + 1 })).toThrow(/--duration/);
    expect(() => resolveOptions({ ...base, maxRequests: 0 })).toThrow(/--max-requests/);
    expect(() => resolveOptions({ ...base, ef: Array.from({ length: 40 }, (_, i) => i + 1), durationS: 600 })).toThrow(/over the 14400 s cap/);
  });

  it("samples the server's cost on every 16th query by default; 0 asks for none, and a bad value names --stats-every", () => {
    expect(resolveOptions(base).statsEvery).toBe(16);
    expect(resolveOptions({ ...base, statsEvery: 0 }).statsEvery).toBe(0);
    expect(() => resolveOptions({ ...base, statsEvery: -1 })).toThrow(/--stats-every: must be a whole number/);
    expect(() => resolveOptions({ ...base, statsEvery: 1.5 })).toThrow(/--stats-every/);
  });

  it('refuses --gt together with --base, and out-of-range lists, naming the option', () => {
    expect(() => resolveOptions({ ...base, gt: 'a.ivecs', base: 'b.fvecs' })).toThrow(/--gt: .*not both/);
    expect(() => resolveOptions({ ...base, ef: [] })).toThrow(/--ef: needs at least one value/);
    expect(() => resolveOptions({ ...base, concurrency: [0] })).toThrow(/--concurrency: values must be whole numbers in 1\.\.1024/);
  });

  it('takes filters only with the base vectors and payloads they are judged on, over REST or pgvector, one query a request', () => {
    const f = { ...base, filters: 'f.json', base: 'b.fvecs', payloads: 'p.jsonl' };
    expect(resolveOptions(f)).toMatchObject({ filters: 'f.json', payloads: 'p.jsonl', unfiltered: false });
    expect(() => resolveOptions({ ...f, base: undefined })).toThrow(/--filters: needs --base/);
    expect(() => resolveOptions({ ...f, payloads: undefined })).toThrow(/--filters: needs --payloads/);
    expect(() => resolveOptions({ ...f, protocol: 'grpc' })).toThrow(/--filters: filtered searches are sent over REST/);
    expect(() => resolveOptions({ ...f, batch: 4 })).toThrow(/--batch: filtered searches are sent one query a request/);
    expect(() => resolveOptions({ ...base, payloads: 'p.jsonl' })).toThrow(/--payloads: applies with --filters only/);
    expect(() => resolveOptions({ ...base, unfiltered: true })).toThrow(/--unfiltered: applies with --filters only/);
  });

  it('scans pgvector iteratively (relaxed order) under filters unless told otherwise, and keeps the setting to pgvector', () => {
    const f = { ...base, filters: 'f.json', base: 'b.fvecs', payloads: 'p.jsonl', url: 'postgres://127.0.0.1/x', protocol: 'pgvector' as const };
    expect(resolveOptions(f).iterativeScan).toBe('relaxed_order');
    expect(resolveOptions({ ...f, iterativeScan: 'off' }).iterativeScan).toBe('off');
    expect(resolveOptions({ ...base, protocol: 'pgvector' }).iterativeScan).toBeUndefined();
    expect(() => resolveOptions({ ...base, iterativeScan: 'strict_order' })).toThrow(/--iterative-scan: is a pgvector setting/);
  });
});
