// pgvector search over node-postgres (`pg`): the same closed or open loop, recall and latency as the
// Strata clients, pointed at the database users would otherwise run, so the two are measured by one
// harness. A table `name (id integer | bigint, embedding vector(d))` with an HNSW index on
// embedding is searched by `ORDER BY embedding <op> $1 LIMIT k`, the operator being the index's
// (probe-pgvector.ts reads it). One prepared statement per connection; ef is set when a connection
// starts (hnsw.ef_search), so a search is one round trip, as a Strata search is.
import pg from 'pg';
import type { QdrantDistance } from '../ground-truth.js';
import { transportStatus, type ClientOptions, type SearchAnswer, type SearchClient } from './types.js';

/** pgvector's operator and HNSW operator class for each distance. */
export const PG_DISTANCE: Readonly<Record<QdrantDistance, { operator: string; opclass: string }>> = {
  Euclid: { operator: '<->', opclass: 'vector_l2_ops' },
  Dot: { operator: '<#>', opclass: 'vector_ip_ops' },
  Cosine: { operator: '<=>', opclass: 'vector_cosine_ops' },
};

/** pgvector's distance as the score the Strata clients report (Qdrant's convention, for tie-aware recall). */
export function scoreOf(distance: QdrantDistance, d: number): number {
  // <-> is the Euclidean distance (Qdrant's Euclid score); <#> is the negated inner product;
  // <=> is 1 - cosine similarity.
  return distance === 'Euclid' ? d : distance === 'Dot' ? -d : 1 - d;
}

/** A table name, optionally schema-qualified, as a quoted SQL identifier; anything else is refused by the probe. */
export function quotedTable(name: string): string {
  return name
    .split('.')
    .map((p) => `"${p}"`)
    .join('.');
}

export const TABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}(\.[A-Za-z_][A-Za-z0-9_]{0,62})?$/;

/** A vector as pgvector's text input: nine significant digits give every float32 back exactly. */
export function vectorLiteral(v: Float32Array): string {
  let s = '[';
  for (let i = 0; i < v.length; i++) s += (i === 0 ? '' : ',') + v[i]!.toPrecision(9);
  return `${s}]`;
}

export interface PgvectorClientOptions extends ClientOptions {
  connectionString: string;
  table: string;
  distance: QdrantDistance;
  queries: Float32Array;
  dim: number;
}

/** SQLSTATE of a server-side failure (pg's DatabaseError), or null for a transport failure. */
function sqlState(e: unknown): string | null {
  const code = (e as { code?: unknown; severity?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && (e as { severity?: unknown }).severity !== undefined ? code : null;
}

export function pgvectorClient(o: PgvectorClientOptions): SearchClient {
  const n = o.queries.length / o.dim;
  const literals = Array.from({ length: n }, (_, q) => vectorLiteral(o.queries.subarray(q * o.dim, (q + 1) * o.dim)));
  const op = PG_DISTANCE[o.distance].operator;
  const text = `SELECT id, embedding ${op} $1 AS d FROM ${quotedTable(o.table)} ORDER BY embedding ${op} $1 LIMIT ${o.k}`;
  const pool = new pg.Pool({
    connectionString: o.connectionString,
    max: o.connections,
    // Set at connection start: no SET round trip per search, and a search past the timeout is
    // cancelled by the server itself (SQLSTATE 57014), as a Strata server bounds its own.
    options: `-c hnsw.ef_search=${o.ef} -c statement_timeout=${o.timeoutMs}`,
    connectionTimeoutMillis: o.timeoutMs,
  });
  // An idle connection's error (the server went away) is reported by the next search that uses the pool.
  pool.on('error', () => {});
  return {
    async search(q: number): Promise<SearchAnswer> {
      try {
        const r = await pool.query<[number | string, number]>({ name: 'strata-loadgen-search', text, values: [literals[q % n]!], rowMode: 'array' });
        const at = o.now();
        const ids = new Float64Array(r.rows.length);
        const scores = new Float64Array(r.rows.length);
        for (let i = 0; i < r.rows.length; i++) {
          const row = r.rows[i]!;
          ids[i] = Number(row[0]);
          scores[i] = scoreOf(o.distance, Number(row[1]));
        }
        return { ok: true, at, ids, scores, cost: null };
      } catch (e) {
        const at = o.now();
        const state = sqlState(e);
        const message = e instanceof Error ? e.message : String(e);
        if (state === '57014') return { ok: false, at, status: 'timeout', transport: false, message };
        if (state !== null) return { ok: false, at, status: `SQLSTATE ${state}`, transport: false, message };
        return { ok: false, at, status: transportStatus(e), transport: true, message };
      }
    },
    close: () => pool.end(),
  };
}
