// Shared setup of the server tests: small real indexes (2,000 × 16-d clustered, M 8, efConstruction
// 64, 20% DRAM), an engine over them, a real server on free ports, and plain clients (undici for REST,
// proto-loader + grpc-js for gRPC).
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { request } from 'undici';
import { afterAll, beforeAll } from 'vitest';
import { Engine, type OpenEngineOptions } from '../../engine/engine.js';
import { buildIndex } from '../../index/build/build-index.js';
import { writeFvecs, generateClustered } from '../../datasets/index.js';
import type { Metric } from '../../index/kernels/kernels.js';
import { buildServer, type ServerAddresses, type StrataServer } from '../../server/app.js';
import { loadPackage } from '../../server/grpc/protos.js';
import type { ServerOptions } from '../../server/options.js';
import { packMsgpack, unpackMsgpack } from '../../server/rest/codec.js';
import { makeTempDir, type TempDir } from '../helpers/temp.js';

export const DIM = 16;
export const COUNT = 2000;

export interface Indexes {
  tmp: TempDir;
  /** Euclidean index, served as collection "vectors". */
  l2: string;
  /** Cosine index of the same data, served as "cosine". */
  cosine: string;
  /** Dot-product index of the same data (built with `ip: true`). */
  ip: string;
  queries: Float32Array;
  query(i: number): Float32Array;
}

export async function buildIndexes(opts: { cosine?: boolean; ip?: boolean } = {}): Promise<Indexes> {
  const tmp = makeTempDir('strata-server-');
  const set = generateClustered({ count: COUNT, dim: DIM, clusters: 8, seed: 11 }, 40);
  const base = tmp.path('base.fvecs');
  await writeFvecs(base, set.base, DIM);
  const build = (out: string, metric: Metric): Promise<unknown> =>
    buildIndex({ input: base, out, metric, m: 8, efConstruction: 64, dramBudget: '20%', placement: 'profile', profileSamples: 200 });
  await build(tmp.path('l2'), 'l2');
  if (opts.cosine) await build(tmp.path('cosine'), 'cosine');
  if (opts.ip) await build(tmp.path('ip'), 'ip');
  return {
    tmp,
    l2: tmp.path('l2'),
    cosine: tmp.path('cosine'),
    ip: tmp.path('ip'),
    queries: set.queries,
    query: (i) => set.queries.slice(i * DIM, (i + 1) * DIM),
  };
}

export function openEngine(ix: Indexes, o: OpenEngineOptions = {}, cosine = false): Promise<Engine> {
  const specs = [{ dir: ix.l2, name: 'vectors' }, ...(cosine ? [{ dir: ix.cosine, name: 'cosine' }] : [])];
  return Engine.open(specs, { searchThreads: 0, memory: { mode: 'emulate' }, ...o });
}

export interface Running {
  server: StrataServer;
  addr: ServerAddresses;
  url: string;
  close(): Promise<void>;
}

/** A real server on free ports (REST and gRPC), quiet logs. */
export async function startServer(engine: Engine, o: ServerOptions = {}): Promise<Running> {
  const server = buildServer(engine, { port: 0, grpcPort: 0, qdrantGrpcPort: null, logLevel: 'silent', ...o });
  const addr = await server.listen();
  return { server, addr, url: addr.rest, close: () => server.close() };
}

export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  text: string;
}

/** A REST call over undici; `msgpack` sends and accepts MessagePack instead of JSON. */
export async function http(
  url: string,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH',
  path: string,
  body?: unknown,
  o: { msgpack?: boolean; headers?: Record<string, string>; raw?: string | Buffer } = {},
): Promise<HttpAnswer> {
  const headers: Record<string, string> = { ...o.headers };
  let payload: string | Buffer | undefined = o.raw;
  if (body !== undefined) {
    payload = o.msgpack ? packMsgpack(body) : JSON.stringify(body);
    headers['content-type'] ??= o.msgpack ? 'application/msgpack' : 'application/json';
  }
  if (o.msgpack) headers['accept'] = 'application/msgpack';
  const r = await request(url + path, { method, headers, ...(payload !== undefined ? { body: payload } : {}) });
  const buf = Buffer.from(await r.body.arrayBuffer());
  const type = String(r.headers['content-type'] ?? '');
  let parsed: unknown = null;
  if (type.includes('msgpack')) parsed = unpackMsgpack(buf);
  else if (type.includes('json')) parsed = JSON.parse(buf.toString('utf8'));
  return { status: r.statusCode, headers: r.headers, body: parsed, text: type.includes('msgpack') ? '' : buf.toString('utf8') };
}

/** The Qdrant score the documentation promises for an engine distance. */
export function expectedScore(metric: Metric, distance: number): number {
  return metric === 'l2' ? Math.sqrt(Math.max(0, distance)) : 1 - distance;
}

// ---- gRPC ----

export type Unary = (req: object, md?: grpc.Metadata) => Promise<Record<string, unknown>>;

export interface GrpcClients {
  points: grpc.Client & Record<string, unknown>;
  collections: grpc.Client & Record<string, unknown>;
  health: grpc.Client & Record<string, unknown>;
  close(): void;
}

export function grpcClients(target: string): GrpcClients {
  const pkg = loadPackage() as unknown as {
    strata: { v1: { Points: grpc.ServiceClientConstructor; Collections: grpc.ServiceClientConstructor } };
    grpc: { health: { v1: { Health: grpc.ServiceClientConstructor } } };
  };
  const creds = grpc.credentials.createInsecure();
  const points = new pkg.strata.v1.Points(target, creds) as GrpcClients['points'];
  const collections = new pkg.strata.v1.Collections(target, creds) as GrpcClients['collections'];
  const health = new pkg.grpc.health.v1.Health(target, creds) as GrpcClients['health'];
  return { points, collections, health, close: () => [points, collections, health].forEach((c) => c.close()) };
}

export interface GrpcFailure {
  code: grpc.status;
  details: string;
  strataCode: string | undefined;
}

/** Calls a unary method; resolves with the answer or rejects with {code, details, strataCode}. */
export function unary(
  client: GrpcClients['points'],
  method: string,
  req: object,
  md = new grpc.Metadata(),
  deadlineMs = 10_000,
): Promise<Record<string, unknown>> {
  const fn = client[method] as (
    r: object,
    m: grpc.Metadata,
    o: grpc.CallOptions,
    cb: (e: grpc.ServiceError | null, v: Record<string, unknown>) => void,
  ) => void;
  return new Promise((resolve, reject) => {
    fn.call(client, req, md, { deadline: Date.now() + deadlineMs }, (e, v) => {
      if (e) reject({ code: e.code, details: e.details, strataCode: e.metadata?.get('strata-code')[0]?.toString() } satisfies GrpcFailure);
      else resolve(v);
    });
  });
}

export async function grpcFailure(p: Promise<unknown>): Promise<GrpcFailure> {
  try {
    await p;
  } catch (e) {
    return e as GrpcFailure;
  }
  throw new Error('expected the gRPC call to fail, it succeeded');
}

export const here = (...p: string[]): string => join(__dirname, ...p);

export interface ServedSuite {
  ix: Indexes;
  engine: Engine;
  srv: Running;
}

/**
 * The usual suite setup: indexes, an engine over them and a server, made in beforeAll and closed in
 * afterAll. The fields are filled in by the time the suite's tests run.
 */
export function servedSuite(o: { engine?: OpenEngineOptions; server?: ServerOptions } = {}): ServedSuite {
  const s = {} as ServedSuite;
  beforeAll(async () => {
    s.ix = await buildIndexes();
    s.engine = await openEngine(s.ix, o.engine);
    s.srv = await startServer(s.engine, o.server);
  });
  afterAll(async () => {
    await s.srv?.close();
    await s.engine?.close();
    s.ix?.tmp.cleanup();
  });
  return s;
}
