// Qdrant filters as SQL WHERE clauses for the pgvector side. Without a server: what cannot be
// translated is refused naming the condition. With a real PostgreSQL: on random payloads (missing
// fields included), every filter of the kinds the benchmark uses selects in SQL exactly the rows
// index/filter's reference evaluator matches.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StrataError } from '../../common/errors.js';
import { mulberry32 } from '../../common/random.js';
import type { FieldSpecs } from '../../datasets/index.js';
import { compile } from '../../index/filter/evaluate.js';
import { parseFilter } from '../../index/filter/parse.js';
import { pgUnavailable, type PgCluster, startPgCluster } from '../../loadgen/pg-cluster.js';
import { loadPgvectorTable } from '../../loadgen/pg-load.js';
import { filterSql } from '../../loadgen/pg-where.js';
import { thrown } from '../helpers/temp.js';

const FIELDS: FieldSpecs = {
  kw: { type: 'keyword' },
  n: { type: 'integer' },
  x: { type: 'float' },
  b: { type: 'bool' },
  tags: { type: 'keyword', array: true },
};
const ctx = { fields: FIELDS, idColumn: 'id' };

describe('filters as SQL, without a server', () => {
  it('refuses a condition it cannot translate, naming it', () => {
    const e = thrown(() => filterSql(parseFilter({ must: [{ key: 'kw', match: { text: 'a' } }] }), ctx)) as StrataError;
    expect(e).toBeInstanceOf(StrataError);
    expect(e.message).toContain('filter.must[0]');
    expect(e.message).toContain('match_text');
  });

  it('refuses a key that is no column, and decides a value of the wrong type for its column as no match', () => {
    expect((thrown(() => filterSql(parseFilter({ must: [{ key: 'nope', match: { value: 'a' } }] }), ctx)) as Error).message).toContain(
      '"nope" is not a column',
    );
    expect((thrown(() => filterSql(parseFilter({ must: [{ key: 'a.b', match: { value: 'a' } }] }), ctx)) as Error).message).toContain('not a column');
    expect(filterSql(parseFilter({ should: [{ key: 'n', match: { value: 'a' } }] }), ctx)).toBe('((FALSE))');
  });

  it('quotes string values so that they stay values', () => {
    const sql = filterSql(parseFilter({ must: [{ key: 'kw', match: { value: "o'; DROP TABLE t; --" } }] }), ctx);
    expect(sql).toBe(`("kw" = 'o''; DROP TABLE t; --')`);
  });
});

const unavailable = pgUnavailable();

/** Random payloads: every field sometimes missing, tags of 0-3 values. */
function payloadsOf(n: number, rnd: () => number): Array<Record<string, unknown>> {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  return Array.from({ length: n }, () => {
    const p: Record<string, unknown> = {};
    if (rnd() < 0.8) p['kw'] = pick(['a', 'b', 'c', "d'q"]);
    if (rnd() < 0.8) p['n'] = Math.floor(rnd() * 10);
    if (rnd() < 0.8) p['x'] = rnd() * 10;
    if (rnd() < 0.8) p['b'] = rnd() < 0.5;
    if (rnd() < 0.8) p['tags'] = Array.from({ length: Math.floor(rnd() * 4) }, () => pick(['s1', 's2', 's3']));
    return p;
  });
}

/** A random condition of a kind the translator takes, and sometimes a nested clause. */
function conditionOf(rnd: () => number, depth: number): unknown {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const r = rnd();
  if (depth < 2 && r < 0.15) return filterOf(rnd, depth + 1);
  if (r < 0.3) return { key: pick(['kw', 'tags']), match: { value: pick(['a', 'b', 's1', 's2']) } };
  if (r < 0.4) return { key: pick(['n']), match: { value: Math.floor(rnd() * 10) } };
  if (r < 0.45) return { key: 'b', match: { value: rnd() < 0.5 } };
  if (r < 0.55) return { key: pick(['kw', 'tags']), match: { any: [pick(['a', 'c', 's1']), pick(["d'q", 's3'])] } };
  if (r < 0.65)
    return {
      key: pick(['kw', 'tags', 'n']),
      match: {
        except: pick([
          ['a', 's1'],
          [1, 2],
        ]),
      },
    };
  if (r < 0.85) return { key: pick(['n', 'x']), range: { gte: rnd() * 5, lt: 3 + rnd() * 7 } };
  if (r < 0.92) return { is_empty: { key: pick(['kw', 'tags']) } };
  return { has_id: [Math.floor(rnd() * 50), Math.floor(rnd() * 50)] };
}

function filterOf(rnd: () => number, depth = 0): Record<string, unknown> {
  const f: Record<string, unknown> = {};
  const some = (): unknown[] => Array.from({ length: 1 + Math.floor(rnd() * 2) }, () => conditionOf(rnd, depth));
  if (rnd() < 0.6) f['must'] = some();
  if (rnd() < 0.4) f['should'] = some();
  if (rnd() < 0.4) f['must_not'] = some();
  if (rnd() < 0.1) f['min_should'] = { conditions: some(), min_count: 1 };
  return f;
}

describe.skipIf(unavailable !== null)('filters as SQL against a real PostgreSQL', () => {
  const N = 300;
  const payloads = payloadsOf(N, mulberry32(9));
  let cluster: PgCluster;
  let client: pg.Client;

  beforeAll(async () => {
    cluster = await startPgCluster();
    const vectors = Float32Array.from({ length: N * 2 }, (_, i) => (i % 7) + 1);
    await loadPgvectorTable({
      url: cluster.url,
      table: 'items',
      vectors,
      dim: 2,
      distance: 'Euclid',
      m: 4,
      efConstruction: 8,
      payloads: { fields: FIELDS, rows: payloads },
    });
    client = new pg.Client({ connectionString: cluster.url });
    await client.connect();
  }, 120_000);

  afterAll(async () => {
    await client?.end();
    await cluster?.stop();
  });

  it('selects exactly the rows the reference evaluator matches, for random filters', async () => {
    const rnd = mulberry32(21);
    for (let t = 0; t < 150; t++) {
      const json = filterOf(rnd);
      const f = parseFilter(json);
      const test = compile(f);
      const want = payloads.flatMap((payload, id) => (test({ id, payload }) ? [id] : []));
      const res = await client.query<{ id: number }>(`SELECT id FROM items WHERE ${filterSql(f, ctx)} ORDER BY id`);
      expect(
        res.rows.map((r) => r.id),
        JSON.stringify(json),
      ).toEqual(want);
    }
  }, 60_000);
});
