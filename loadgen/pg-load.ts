// Fills a pgvector table from a vector file's rows (id = row number, as Strata's labels and the
// ground-truth files number them) and builds its HNSW index, timed apart. With payloads, each field
// is a column (pg-where.ts's types) with the index a user would give it: a btree on a scalar, GIN on
// an array; the filtered searches' WHERE clauses use them.
import pg from 'pg';
import type { FieldSpecs, PayloadObject } from '../datasets/index.js';
import { PG_DISTANCE, quotedTable, vectorLiteral } from './clients/pgvector.js';
import type { QdrantDistance } from './ground-truth.js';
import { pgColumnType, pgIdent, pgLiteral } from './pg-where.js';

export interface PgLoadOptions {
  url: string;
  table: string;
  vectors: Float32Array;
  dim: number;
  distance: QdrantDistance;
  /** HNSW parameters (pgvector's defaults are m 16, ef_construction 64). */
  m: number;
  efConstruction: number;
  /** Rows per INSERT. */
  batch?: number;
  /** Row i's payload, one column per field. */
  payloads?: { fields: FieldSpecs; rows: readonly PayloadObject[] };
}

export interface PgLoadResult {
  rows: number;
  loadSeconds: number;
  indexSeconds: number;
  /** The index's size on disk (pg_relation_size), bytes: every index of the table, the payload columns' too. */
  indexBytes: number;
  /** Building the payload columns' btree and GIN indexes (0 without payloads). */
  payloadIndexSeconds: number;
}

export async function loadPgvectorTable(o: PgLoadOptions): Promise<PgLoadResult> {
  const c = new pg.Client({ connectionString: o.url });
  await c.connect();
  try {
    const t = quotedTable(o.table);
    await c.query('CREATE EXTENSION IF NOT EXISTS vector');
    await c.query(`DROP TABLE IF EXISTS ${t}`);
    const fields = Object.entries(o.payloads?.fields ?? {});
    const columns = fields.map(([k, f]) => `, ${pgIdent(k)} ${pgColumnType(f)}`).join('');
    await c.query(`CREATE TABLE ${t} (id integer PRIMARY KEY, embedding vector(${o.dim})${columns})`);
    const n = o.vectors.length / o.dim;
    if (o.payloads !== undefined && o.payloads.rows.length !== n) throw new RangeError(`${o.payloads.rows.length} payloads for ${n} rows`);
    const names = fields.map(([k]) => `, ${pgIdent(k)}`).join('');
    const payloadValues = (i: number): string => fields.map(([k, f]) => `,${pgLiteral(o.payloads!.rows[i]![k], f, `payloads line ${i + 1}: ${k}`)}`).join('');
    const batch = o.batch ?? 500;
    let t0 = performance.now();
    for (let at = 0; at < n; at += batch) {
      const end = Math.min(n, at + batch);
      const values: string[] = [];
      for (let i = at; i < end; i++) values.push(`(${i},'${vectorLiteral(o.vectors.subarray(i * o.dim, (i + 1) * o.dim))}'${payloadValues(i)})`);
      await c.query(`INSERT INTO ${t} (id, embedding${names}) VALUES ${values.join(',')}`);
    }
    const loadSeconds = (performance.now() - t0) / 1000;
    t0 = performance.now();
    await c.query(`CREATE INDEX ON ${t} USING hnsw (embedding ${PG_DISTANCE[o.distance].opclass}) WITH (m = ${o.m}, ef_construction = ${o.efConstruction})`);
    const indexSeconds = (performance.now() - t0) / 1000;
    t0 = performance.now();
    for (const [k, f] of fields) await c.query(`CREATE INDEX ON ${t} USING ${f.array ? 'gin' : 'btree'} (${pgIdent(k)})`);
    const payloadIndexSeconds = (performance.now() - t0) / 1000;
    await c.query(`VACUUM ANALYZE ${t}`);
    const size = await c.query<{ b: string }>(`SELECT sum(pg_relation_size(indexrelid))::bigint AS b FROM pg_index WHERE indrelid = to_regclass($1)`, [t]);
    return { rows: n, loadSeconds, indexSeconds, indexBytes: Number(size.rows[0]?.b ?? 0), payloadIndexSeconds };
  } finally {
    await c.end();
  }
}
