// A filtered run end to end against a real PostgreSQL with pgvector: a generated set with labels that
// follow its clusters, its payloads as columns with btree / GIN indexes, and every family of its
// filters.json sent as WHERE clauses. The report carries each family's selectivity (as the payloads
// give it), recall judged on the exact filtered truth, and the short answers; without an iterative
// scan pgvector's filtered answers come back short, with one they do not.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compile } from '../../index/filter/evaluate.js';
import { parseFilter } from '../../index/filter/parse.js';
import { type FilterCases, readFvecsMatrix, readPayloadLines, writeFilteredClusteredSet, type WrittenFilteredSet } from '../../datasets/index.js';
import { formatTable, runLoadgen, type LoadgenOptions } from '../../loadgen/index.js';
import { pgUnavailable, type PgCluster, startPgCluster } from '../../loadgen/pg-cluster.js';
import { loadPgvectorTable } from '../../loadgen/pg-load.js';
import { makeTempDir, type TempDir } from '../helpers/temp.js';

const unavailable = pgUnavailable();
if (unavailable !== null) console.warn(`filtered pgvector run skips: ${unavailable}`);

describe.skipIf(unavailable !== null)('a filtered run against pgvector', () => {
  const N = 3000;
  const QUERIES = 20;
  let cluster: PgCluster;
  let tmp: TempDir;
  let set: WrittenFilteredSet;
  let opts: (over?: Partial<LoadgenOptions>) => LoadgenOptions;

  beforeAll(async () => {
    tmp = makeTempDir('strata-filtered-run-');
    set = await writeFilteredClusteredSet(tmp.path('set'), { count: N, dim: 8, clusters: 10, seed: 3 }, QUERIES, 10);
    cluster = await startPgCluster();
    const base = await readFvecsMatrix(set.base);
    const cases = JSON.parse(readFileSync(set.filters, 'utf8')) as FilterCases;
    await loadPgvectorTable({
      url: cluster.url,
      table: 'items',
      vectors: base.data,
      dim: 8,
      distance: 'Euclid',
      m: 8,
      efConstruction: 32,
      payloads: { fields: cases.fields, rows: readPayloadLines(set.payloads, N) },
    });
    opts = (over = {}) => ({
      url: cluster.url,
      collection: 'items',
      queries: set.query,
      base: set.base,
      payloads: set.payloads,
      filters: set.filters,
      protocol: 'pgvector',
      ef: [40],
      concurrency: [2],
      // Each step ends after one pass over the queries (the duration is only a bound).
      durationS: 30,
      maxRequests: QUERIES,
      warmup: 0,
      ...over,
    });
  }, 120_000);

  afterAll(async () => {
    await cluster?.stop();
    tmp?.cleanup();
  });

  it("reports every family with the selectivity its payloads give, and pgvector's recall on the filtered truth", async () => {
    const report = await runLoadgen(opts({ unfiltered: true }));
    const cases = JSON.parse(readFileSync(set.filters, 'utf8')) as FilterCases;
    expect(report.results.map((r) => r.filter?.family)).toEqual(['unfiltered', ...cases.families.map((f) => f.name)]);
    const payloads = readPayloadLines(set.payloads, N);
    for (const fam of cases.families) {
      const r = report.results.find((x) => x.filter?.family === fam.name)!;
      let matched = 0;
      for (const f of fam.filters.slice(0, QUERIES)) {
        const test = compile(parseFilter(f));
        matched += payloads.filter((payload, id) => test({ id, payload })).length;
      }
      expect(r.filter!.selectivity).toBeCloseTo(matched / QUERIES / N, 9);
      expect(r.errors).toEqual({});
      expect(r.recall!.queries).toBe(QUERIES);
    }
    expect(report.results[0]!.filter!.selectivity).toBe(1);
    // The table names each family with its selectivity and short answers.
    const table = formatTable(report).split('\n');
    expect(table[1]).toMatch(/^\| family \| selectivity \| ef \|.*\| short \| plans \|$/);
    const own = report.results.find((r) => r.filter?.family === 'own cluster')!;
    const line = table.find((l) => l.startsWith('| own cluster | '))!;
    const shown = /^\| own cluster \| ([\d.]+)% \| 40 \|/.exec(line);
    expect(Number(shown![1])).toBeCloseTo(100 * own.filter!.selectivity, 0);
    expect(report.parameters).toMatchObject({ filters: set.filters, payloads: set.payloads, iterativeScan: 'relaxed_order' });
  }, 120_000);

  it('counts the short answers pgvector gives without an iterative scan, and none with one', async () => {
    const one = (iterativeScan: 'off' | 'relaxed_order') => runLoadgen(opts({ iterativeScan, ef: [10] }));
    const off = await one('off');
    const on = await one('relaxed_order');
    const tag = (rs: typeof off, name: string) => rs.results.find((r) => r.filter?.family === name)!.filter!;
    // A 10% filter over the ef = 10 candidates a plain HNSW scan yields keeps about one of them.
    expect(tag(off, 'tag 10%').shortAnswers).toBeGreaterThan(0);
    expect(tag(on, 'tag 10%').shortAnswers).toBe(0);
  }, 120_000);
});
