// Before any load on --protocol pgvector: the database answers, has pgvector, has the table with an
// `embedding` vector column and an `id` column, and an HNSW index on embedding whose operator class
// tells the distance (for recall and for the ORDER BY operator). Each failure is a clear error here
// rather than a step full of SQL errors.
import pg from 'pg';
import { PG_DISTANCE, quotedTable, TABLE_NAME } from './clients/pgvector.js';
import { collectionMissing, endpointDown, pgvectorUnusable, unauthenticated } from './errors.js';
import type { QdrantDistance } from './ground-truth.js';
import type { TargetInfo } from './probe.js';
import type { PgTarget } from './target.js';
import { invalidArgument } from '../common/errors.js';

const PROBE_TIMEOUT_MS = 5000;

const DISTANCE_OF: Readonly<Record<string, QdrantDistance>> = Object.fromEntries(
  Object.entries(PG_DISTANCE).map(([d, { opclass }]) => [opclass, d as QdrantDistance]),
);

export async function probePgvector(t: PgTarget, table: string): Promise<TargetInfo> {
  if (!TABLE_NAME.test(table)) throw invalidArgument('--collection', `"${table}" is not a table name (letters, digits and _, optionally schema.table)`);
  const c = new pg.Client({ connectionString: t.connectionString, connectionTimeoutMillis: PROBE_TIMEOUT_MS });
  c.on('error', () => {});
  try {
    await c.connect();
  } catch (e) {
    const state = (e as { code?: unknown }).code;
    // 28P01 / 28000: the server answered and refused these credentials.
    if (state === '28P01' || state === '28000') throw unauthenticated(t.display);
    throw endpointDown('--url', t.display, e, 'PostgreSQL');
  }
  try {
    const ext = await c.query<{ extversion: string; server: string }>(
      "SELECT extversion, current_setting('server_version') AS server FROM pg_extension WHERE extname = 'vector'",
    );
    if (ext.rows.length === 0) throw pgvectorUnusable(t.display, 'pgvector-missing', 'the database has no pgvector extension (CREATE EXTENSION vector)');
    const rel = await c.query<{ oid: number | null }>('SELECT to_regclass($1)::oid AS oid', [quotedTable(table)]);
    const oid = rel.rows[0]?.oid ?? null;
    if (oid === null) {
      const tables = await c.query<{ name: string }>(
        "SELECT DISTINCT c.relname AS name FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid WHERE a.atttypid = 'vector'::regtype AND c.relkind = 'r' AND NOT a.attisdropped ORDER BY 1",
      );
      throw collectionMissing(
        table,
        t.display,
        tables.rows.map((r) => r.name),
      );
    }
    const cols = await c.query<{ attname: string; typmod: number; type: string }>(
      "SELECT attname, atttypmod AS typmod, format_type(atttypid, NULL) AS type FROM pg_attribute WHERE attrelid = $1 AND attname IN ('id', 'embedding') AND NOT attisdropped",
      [oid],
    );
    const emb = cols.rows.find((r) => r.attname === 'embedding');
    if (!cols.rows.some((r) => r.attname === 'id') || emb === undefined || emb.type !== 'vector')
      throw pgvectorUnusable(t.display, 'pgvector-columns', `table ${table} needs columns id (integer) and embedding (vector(d))`);
    let dim = emb.typmod;
    if (dim <= 0) {
      const d = await c.query<{ d: number }>(`SELECT vector_dims(embedding) AS d FROM ${quotedTable(table)} LIMIT 1`);
      dim = d.rows[0]?.d ?? 0;
    }
    const idx = await c.query<{ opclass: string }>(
      `SELECT opc.opcname AS opclass FROM pg_index i
         JOIN pg_class ic ON ic.oid = i.indexrelid JOIN pg_am am ON am.oid = ic.relam
         JOIN pg_opclass opc ON opc.oid = i.indclass[0]
         JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
        WHERE i.indrelid = $1 AND am.amname = 'hnsw' AND a.attname = 'embedding'`,
      [oid],
    );
    const distance = idx.rows.map((r) => DISTANCE_OF[r.opclass]).find((d) => d !== undefined);
    if (distance === undefined)
      throw pgvectorUnusable(
        t.display,
        'no-hnsw-index',
        `table ${table} has no HNSW index on embedding with vector_l2_ops, vector_ip_ops or vector_cosine_ops: --ef (hnsw.ef_search) would mean nothing`,
      );
    // The planner's estimate once it is large (an exact count would scan a big table before every
    // run); below that, or before the table was ever analysed, the exact count is cheap.
    const est = (await c.query<{ n: number }>('SELECT reltuples AS n FROM pg_class WHERE oid = $1', [oid])).rows[0]?.n ?? -1;
    const points = est >= 1e6 ? Math.round(est) : Number((await c.query<{ n: string }>(`SELECT count(*) AS n FROM ${quotedTable(table)}`)).rows[0]?.n ?? 0);
    return {
      collection: table,
      dim,
      distance,
      points,
      server: { title: 'pgvector', version: `${ext.rows[0]!.extversion} (PostgreSQL ${ext.rows[0]!.server})` },
      strata: null,
    };
  } finally {
    await c.end().catch(() => {});
  }
}
