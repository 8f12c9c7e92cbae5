// pgvector search over node-postgres (`pg`): the same closed or open loop, recall and latency as the
// Strata clients, pointed at the database users would otherwise run, so the two are measured by one
// harness. A table `name (id integer | bigint, embedding vector(d))` with an HNSW index on
// embedding is searched by `ORDER BY embedding <op> $1 LIMIT k`, the operator being the index's
// (probe-pgvector.ts reads it). One prepared statement per connection; ef is set when a connection
// starts (hnsw.ef_search), so a search is one round trip, as a Strata search is. A batch (`--batch`)
// is one statement too: the vectors as one array parameter, each searched through the index by a
// LATERAL subquery (the plan is a nested loop over index scans, one per vector).
import pg from 'pg';
import type { QdrantDistance } from '../ground-truth.js';
import { allRequests, transportStatus, type ClientOptions, type SearchAnswer, type SearchClient } from './types.js';
import { errorMessage } from '../../common/errors.js';

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
  /** Per query, a WHERE expression (pg-where.ts) that its search is restricted to; absent: none. */
  wheres?: readonly string[];
  /** pgvector's hnsw.iterative_scan: how a filtered scan goes on past ef_search candidates (off: it does not). */
  iterativeScan?: PgIterativeScan;
}

export type PgIterativeScan = 'off' | 'relaxed_order' | 'strict_order';

/** SQLSTATE of a server-side failure (pg's DatabaseError), or null for a transport failure. */
function sqlState(e: unknown): string | null {
  const code = (e as { code?: unknown; severity?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && (e as { severity?: unknown }).severity !== undefined ? code : null;
}

export function pgvectorClient(o: PgvectorClientOptions): SearchClient {
  const n = o.queries.length / o.dim;
  const literals = Array.from({ length: n }, (_, q) => vectorLiteral(o.queries.subarray(q * o.dim, (q + 1) * o.dim)));
  const requests = allRequests(n, o.batch);
  const op = PG_DISTANCE[o.distance].operator;
  const table = quotedTable(o.table);
  const text =
    o.batch === 1
      ? `SELECT 1, id, embedding ${op} $1 AS d FROM ${table} ORDER BY embedding ${op} $1 LIMIT ${o.k}`
      : `SELECT q.i, r.id, r.d FROM unnest($1::vector[]) WITH ORDINALITY AS q(v, i) CROSS JOIN LATERAL ` +
        `(SELECT id, embedding ${op} q.v AS d FROM ${table} ORDER BY embedding ${op} q.v LIMIT ${o.k}) r`;
  const name = o.batch === 1 ? 'strata-loadgen-search' : 'strata-loadgen-batch';
  // A filtered search is its own statement per query (the WHERE differs): parsed and planned each
  // time, as an application sending filters would have it.
  const filtered = o.wheres?.map((w) => `SELECT 1, id, embedding ${op} $1 AS d FROM ${table} WHERE ${w} ORDER BY embedding ${op} $1 LIMIT ${o.k}`);
  if (filtered !== undefined && o.batch !== 1) throw new RangeError('filtered pgvector searches are single queries');
  const iterative = o.iterativeScan !== undefined ? ` -c hnsw.iterative_scan=${o.iterativeScan}` : '';
  const pool = new pg.Pool({
    connectionString: o.connectionString,
    max: o.connections,
    // Set at connection start: no SET round trip per search, and a search past the timeout is
    // cancelled by the server itself (SQLSTATE 57014), as a Strata server bounds its own.
    options: `-c hnsw.ef_search=${o.ef} -c statement_timeout=${o.timeoutMs}${iterative}`,
    connectionTimeoutMillis: o.timeoutMs,
  });
  // An idle connection's error (the server went away) is reported by the next search that uses the pool.
  pool.on('error', () => {});
  return {
    async search(r: number): Promise<SearchAnswer> {
      const qs = requests[r % requests.length]!;
      try {
        const values = o.batch === 1 ? [literals[qs[0]!]!] : [qs.map((q) => literals[q]!)];
        const res = await pool.query<[number | string, number | string, number]>(
          filtered !== undefined ? { text: filtered[qs[0]!]!, values, rowMode: 'array' } : { name, text, values, rowMode: 'array' },
        );
        const at = o.now();
        // Rows are numbered by their query (1-based ordinality). SQL promises no order for a join's
        // rows, so each query's k rows are put nearest first here.
        const rows: Array<Array<[number, number]>> = Array.from({ length: o.batch }, () => []);
        for (const row of res.rows) rows[Number(row[0]) - 1]?.push([Number(row[1]), Number(row[2])]);
        const answers = rows.map((hits) => {
          hits.sort((a, b) => a[1] - b[1]);
          const ids = new Float64Array(hits.length);
          const scores = new Float64Array(hits.length);
          hits.forEach(([id, d], i) => {
            ids[i] = id;
            scores[i] = scoreOf(o.distance, d);
          });
          return { ids, scores, cost: null };
        });
        return { ok: true, at, answers };
      } catch (e) {
        const at = o.now();
        const state = sqlState(e);
        const message = errorMessage(e);
        if (state === '57014') return { ok: false, at, status: 'timeout', transport: false, message };
        if (state !== null) return { ok: false, at, status: `SQLSTATE ${state}`, transport: false, message };
        return { ok: false, at, status: transportStatus(e), transport: true, message };
      }
    },
    close: () => pool.end(),
  };
}
