// An index written with bad links (valid checksums computed over the bad bytes) is refused by every
// command that loads it: `serve` and `search` exit with STRATA_INDEX_CORRUPT naming the node instead
// of serving 500s or hanging, and `verify` reports every problem.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFvecs } from '../../datasets/index.js';
import { loadIndex } from '../../index/format/load-index.js';
import { writeIndex } from '../../index/format/write-index.js';
import { ensureBuilt, jsonLine, strata } from '../helpers/cli.js';
import { buildSmallIndex } from '../helpers/small-index.js';
import { makeTempDir, type TempDir } from '../helpers/temp.js';

let tmp: TempDir;
let outOfRange: string;
let badCount: string;
let queries: string;

beforeAll(async () => {
  ensureBuilt();
  tmp = makeTempDir('strata-corrupt-graph-');
  const small = buildSmallIndex({ count: 500, queries: 5 });
  const good = tmp.path('good');
  writeIndex(small.index, good, small.info);
  const damaged = (name: string, v: number, words: number[]): string => {
    const { index } = loadIndex(good);
    const { seg, at } = index.neighbourBlock(v);
    words.forEach((w, j) => (seg.u32[at + j] = w));
    const dir = tmp.path(name);
    writeIndex(index, dir, small.info);
    return dir;
  };
  outOfRange = damaged('out-of-range', 321, [1, 9999]);
  // The largest count a written file holds (the writer keeps the count word's low half: list-pool.ts).
  badCount = damaged('bad-count', 123, [0xffff]);
  queries = tmp.path('q.fvecs');
  await writeFvecs(queries, small.queries, 16);
}, 60_000);

afterAll(() => tmp?.cleanup());

describe('commands refuse an index whose links break the invariants', () => {
  it.each([
    ['an out-of-range link', () => outOfRange, 'node 321: level-0 link to 9999, out of range'],
    ['a corrupt link count', () => badCount, 'node 123: 65535 level-0 links, more than 16'],
  ])('serve exits with STRATA_INDEX_CORRUPT on %s instead of serving it', (_what, dir, expected) => {
    // Without the load-time check this would start serving (and never exit: the call times out).
    const r = strata(['serve', dir(), '--port', '0', '--no-grpc', '--no-qdrant-grpc', '--memory', 'emulate', '--search-threads', '0'], 30_000);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toContain('STRATA_INDEX_CORRUPT');
    expect(r.stderr).toContain(expected);
  });

  it('search exits with STRATA_INDEX_CORRUPT naming the node', () => {
    const r = strata(['search', badCount, '--queries', queries, '--k', '5', '--memory', 'emulate'], 60_000);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toContain('node 123: 65535 level-0 links');
  });

  it('verify reports the problem and exits 2', () => {
    const r = strata(['verify', outOfRange]);
    expect(r.status).toBe(2);
    const report = jsonLine<{ ok: boolean; errors: string[]; checksums: string }>(r);
    expect(report.ok).toBe(false);
    expect(report.checksums).toBe('ok');
    expect(report.errors).toContain('node 321: level-0 link to 9999, out of range');
  });
});
