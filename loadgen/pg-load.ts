// Fills a pgvector table from a vector file's rows (id = row number, as Strata's labels and the
// ground-truth files number them) and builds its HNSW index, timed apart.
import pg from 'pg';
import { PG_DISTANCE, quotedTable, vectorLiteral } from './clients/pgvector.js';
import type { QdrantDistance } from './ground-truth.js';

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
}

export interface PgLoadResult {
  rows: number;
  loadSeconds: number;
  indexSeconds: number;
  /** The index's size on disk (pg_relation_size), bytes. */
  indexBytes: number;
}

export async function loadPgvectorTable(o: PgLoadOptions): Promise<PgLoadResult> {
  const c = new pg.Client({ connectionString: o.url });
  await c.connect();
  try {
    const t = quotedTable(o.table);
    await c.query('CREATE EXTENSION IF NOT EXISTS vector');
    await c.query(`DROP TABLE IF EXISTS ${t}`);
    await c.query(`CREATE TABLE ${t} (id integer PRIMARY KEY, embedding vector(${o.dim}))`);
    const n = o.vectors.length / o.dim;
    const batch = o.batch ?? 500;
    let t0 = performance.now();
    for (let at = 0; at < n; at += batch) {
      const end = Math.min(n, at + batch);
      const values: string[] = [];
      for (let i = at; i < end; i++) values.push(`(${i},'${vectorLiteral(o.vectors.subarray(i * o.dim, (i + 1) * o.dim))}')`);
      await c.query(`INSERT INTO ${t} (id, embedding) VALUES ${values.join(',')}`);
    }
    const loadSeconds = (performance.now() - t0) / 1000;
    t0 = performance.now();
    await c.query(`CREATE INDEX ON ${t} USING hnsw (embedding ${PG_DISTANCE[o.distance].opclass}) WITH (m = ${o.m}, ef_construction = ${o.efConstruction})`);
    const indexSeconds = (performance.now() - t0) / 1000;
    await c.query(`VACUUM ANALYZE ${t}`);
    const size = await c.query<{ b: string }>(`SELECT sum(pg_relation_size(indexrelid))::bigint AS b FROM pg_index WHERE indrelid = to_regclass($1)`, [t]);
    return { rows: n, loadSeconds, indexSeconds, indexBytes: Number(size.rows[0]?.b ?? 0) };
  } finally {
    await c.end();
  }
}
