// `strata router`: a stateless REST front (the same Qdrant-compatible paths, JSON or MessagePack)
// over shard servers built by `strata build --shards N`. Searches fan out to every shard and their
// hits merge by score; counts add up; a point is fetched from the shard its id hashes to (the
// shard map's function, shardOf); writes go to that shard. Shards answer the router in MessagePack.
// When a shard does not answer (every replica failed, or the per-shard deadline passed), the policy
// decides: `fail` (default) answers 502 STRATA_UNREACHABLE naming the shard; `allow` answers from
// the shards that did, and says so in the envelope: `partial: true, missing_shards: [i, …]`.
import { randomUUID } from 'node:crypto';
import { fastify, type FastifyInstance, type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import { Counter, Registry } from 'prom-client';
import { invalidArgument, StrataError, readOnly } from '../../common/errors.js';
import { shardOf } from '../../index/build/build-shards.js';
import { keyCheck, presentedKey, UNAUTHENTICATED_MESSAGE } from '../auth.js';
import { arrayAt, bodyObject, objectAt, optionalInt, pointIdAt } from '../api/fields.js';
import { VERSION } from '../../common/version.js';
import { window } from '../api/requests.js';
import { MAX_UPSERT, WRITE_ID_HEADER, WRITE_SEQ_HEADER } from '../api/writes.js';
import { MAX_LIMIT } from '../options.js';
import { codecFor, registerMsgpackParser, send } from '../rest/codec.js';
import { ok } from '../rest/envelope.js';
import { answerError, MAX_PARAM_LENGTH } from '../rest/error-handler.js';
import { type ShardAnswer, ShardFailure, ShardSet, shardsUnreachable } from './shard-set.js';

export type PartialPolicy = 'fail' | 'allow';

export interface RouterOptions {
  shards: string[][];
  partial: PartialPolicy;
  timeoutMs: number;
  hedgeMs: number;
  apiKey: string | null;
  /** The key the shard servers ask for (default: none). */
  shardApiKey?: string | null;
  bodyLimit: number;
  logLevel: string;
  /**
   * The shard servers follow a shared write log (`strata serve --write-log`): a write goes to any
   * replica of its shard, which publishes it there for all of them. Without it a shard with more
   * than one replica refuses writes (they would reach one replica only).
   */
  replicatedWrites?: boolean;
}

interface Hit {
  id: number;
  score: number;
  [k: string]: unknown;
}

type Params = { collection_name: string };
const C = '/collections/:collection_name';
const enc = (name: string): string => encodeURIComponent(name);

/** A shard's answer passed on to the client as is (a 4xx: the request's fault, named by the shard). */
class Relayed extends Error {
  constructor(readonly answer: ShardAnswer) {
    super(`relayed ${answer.status}`);
  }
}

export interface StrataRouter {
  app: FastifyInstance;
  shards: ShardSet;
  close(): Promise<void>;
}

export function buildRouter(o: RouterOptions): StrataRouter {
  const shards = new ShardSet(o.shards, { timeoutMs: o.timeoutMs, hedgeMs: o.hedgeMs, apiKey: o.shardApiKey ?? null });
  const app = fastify({
    logger: { level: o.logLevel },
    bodyLimit: o.bodyLimit,
    logController: new LogController({ disableRequestLogging: true }),
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: (err, req, reply) => {
      answerError(err, req, reply, o.bodyLimit);
    },
  });
  registerMsgpackParser(app);
  const registry = new Registry();
  const missingTotal = new Counter({
    name: 'strata_router_missing_shards_total',
    help: 'Requests answered or failed without a shard, by shard.',
    labelNames: ['shard'],
    registers: [registry],
  });
  const check = keyCheck(o.apiKey);
  app.addHook('onRequest', (req, _reply, done) => {
    if (req.routeOptions.config?.public === true) return done();
    if (check && !check(presentedKey(req.headers['api-key'], req.headers.authorization)))
      return done(new StrataError('STRATA_UNAUTHENTICATED', UNAUTHENTICATED_MESSAGE, {}));
    done();
  });
  // Relayed shard answers keep their status and envelope; every other error is answered as the
  // server answers it (server/rest/error-handler.ts).
  app.setErrorHandler((err: unknown, req, reply) => {
    if (err instanceof Relayed) {
      if (err.answer.code !== undefined) reply.header('strata-code', err.answer.code);
      return reply.code(err.answer.status).send(err.answer.body);
    }
    return answerError(err, req, reply, o.bodyLimit);
  });
  app.setNotFoundHandler((req, reply) =>
    answerError(
      new StrataError('STRATA_ROUTE_NOT_FOUND', `no endpoint ${req.method} ${req.url.split('?')[0] ?? ''} on the router`, {}),
      req,
      reply,
      o.bodyLimit,
    ),
  );

  /** Every shard's answer to one call, with the policy applied to the missing ones. */
  async function fanOut(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown): Promise<{ answers: ShardAnswer[]; missing: number[] }> {
    const all = await shards.all(method, path, body);
    const failed = all.filter((a): a is ShardFailure => a instanceof ShardFailure);
    for (const f of failed) missingTotal.inc({ shard: String(f.shard) });
    const answers = all.filter((a): a is ShardAnswer => !(a instanceof ShardFailure));
    // A request one shard refuses (4xx) every shard refuses: pass the first refusal on.
    const refused = answers.find((a) => a.status >= 400);
    if (refused) throw new Relayed(refused);
    if (failed.length > 0 && (o.partial === 'fail' || answers.length === 0)) throw shardsUnreachable(failed);
    return { answers, missing: failed.map((f) => f.shard) };
  }

  const resultOf = <T>(a: ShardAnswer): T => (a.body as { result: T }).result;
  const partialFields = (missing: number[]): Record<string, unknown> => (missing.length > 0 ? { partial: true, missing_shards: missing } : {});

  /** Whether larger scores are better: Euclid scores are distances, Dot and Cosine similarities. */
  const distanceOf = new Map<string, string>();
  async function higherIsBetter(name: string): Promise<boolean> {
    let d = distanceOf.get(name);
    if (d === undefined) {
      const { answers } = await fanOut('GET', `/collections/${enc(name)}`);
      d = String(resultOf<{ config: { params: { vectors: { distance: string } } } }>(answers[0]!).config.params.vectors.distance);
      distanceOf.set(name, d);
    }
    return d !== 'Euclid';
  }

  function mergeHits(lists: Hit[][], higher: boolean, offset: number, limit: number): Hit[] {
    const all = lists.flat();
    all.sort((a, b) => (higher ? b.score - a.score : a.score - b.score) || a.id - b.id);
    return all.slice(offset, offset + limit);
  }

  // Shards answer the router in MessagePack, so vectors arrive as Float32Array: MessagePack passes
  // them on as they are; JSON writes them as arrays of numbers.
  const asArrays = (_k: string, v: unknown): unknown => (ArrayBuffer.isView(v) ? Array.from(v as Float32Array) : v);
  const reply = (req: FastifyRequest, r: FastifyReply, result: unknown, extra: Record<string, unknown> = {}): FastifyReply => {
    const codec = codecFor(req);
    if (!codec.msgpack) r.type('application/json; charset=utf-8').serializer((p) => JSON.stringify(p, asArrays));
    return send(r, codec, ok(r, result, extra));
  };

  const open = { config: { public: true } };
  app.get('/livez', open, async (_req, r) => r.type('text/plain').send('livez check passed'));
  app.get('/healthz', open, async (_req, r) => r.type('text/plain').send('healthz check passed'));
  app.get('/readyz', open, async (_req, r) => {
    const all = await shards.all('GET', '/readyz');
    const down = all.map((a, i) => (a instanceof ShardFailure || a.status !== 200 ? i : -1)).filter((i) => i >= 0);
    const ready = down.length === 0 || (o.partial === 'allow' && down.length < all.length);
    return r
      .code(ready ? 200 : 503)
      .type('text/plain')
      .send(down.length === 0 ? `ready: ${all.length} shards` : `${ready ? 'ready (partial)' : 'not ready'}: shards ${down.join(', ')} not ready`);
  });
  app.get('/metrics', async (_req, r) => {
    const lines = [...shards.calls.entries()].map(([k, n]) => {
      const [shard, url, outcome] = k.split(' ');
      return `strata_router_shard_calls_total{shard="${shard}",replica="${url}",outcome="${outcome}"} ${n}`;
    });
    return r
      .type('text/plain')
      .send(
        `${await registry.metrics()}# HELP strata_router_shard_calls_total Calls to shard replicas, by outcome.\n# TYPE strata_router_shard_calls_total counter\n${lines.join('\n')}\n`,
      );
  });
  app.get('/', async () => ({ title: 'strata router', version: VERSION, shards: shards.count }));

  app.get('/collections', async (req, r) => {
    const { answers, missing } = await fanOut('GET', '/collections');
    const names = new Set<string>();
    for (const a of answers) for (const c of resultOf<{ collections: Array<{ name: string }> }>(a).collections) names.add(c.name);
    return reply(req, r, { collections: [...names].map((name) => ({ name })) }, partialFields(missing));
  });

  app.get<{ Params: Params }>(C, async (req, r) => {
    const { answers, missing } = await fanOut('GET', `/collections/${enc(req.params.collection_name)}`);
    const views = answers.map((a) =>
      resultOf<Record<string, unknown> & { status: string; points_count: number; indexed_vectors_count: number; segments_count: number }>(a),
    );
    const rank = { green: 0, yellow: 1, red: 2 } as Record<string, number>;
    const worst = views.reduce((w, v) => ((rank[v.status] ?? 2) > (rank[w] ?? 2) ? v.status : w), 'green');
    const sum = (k: 'points_count' | 'indexed_vectors_count' | 'segments_count'): number => views.reduce((s, v) => s + (v[k] ?? 0), 0);
    const view = {
      ...views[0],
      status: missing.length > 0 ? 'red' : worst,
      points_count: sum('points_count'),
      indexed_vectors_count: sum('indexed_vectors_count'),
      segments_count: sum('segments_count'),
      router: { shards: shards.count, missing_shards: missing },
    };
    return reply(req, r, view, partialFields(missing));
  });

  /**
   * Creating, deleting or compacting a collection goes to every replica of every shard; it succeeds
   * only when all of them did it. A replica's refusal (a 4xx: the name is taken, the config is bad)
   * is passed on; one that does not answer fails the call naming it (the others have done it:
   * retrying a delete or a compaction is harmless, a create then meets 409 where it was done).
   * Answers, by shard, every replica's.
   */
  async function everywhere(name: string, method: 'PUT' | 'DELETE' | 'POST', path: string, body?: unknown) {
    // A collection made again under its name may have another distance: forget the cached one.
    if (method !== 'POST') distanceOf.delete(name);
    const byShard = await Promise.all(Array.from({ length: shards.count }, (_, i) => shards.replicaAnswers(i, method, path, body)));
    const all = byShard.flat();
    const refused = all.find((a) => a.answer !== null && a.answer.status >= 400 && a.answer.status < 500);
    if (refused) throw new Relayed(refused.answer!);
    const failed = all.filter((a) => a.answer === null || a.answer.status >= 500);
    if (failed.length > 0)
      throw new StrataError(
        'STRATA_UNREACHABLE',
        `${failed.length} of ${all.length} replicas did not answer: ${failed.map((f) => `${f.url} (${f.reason ?? `status ${f.answer!.status}`})`).join(', ')}`.slice(
          0,
          600,
        ),
        { replicas: failed.map((f) => f.url).join(',') },
      );
    return byShard.map((answers) => answers.map((a) => resultOf<unknown>(a.answer!)));
  }

  app.put<{ Params: Params; Body: unknown }>(C, async (req, r) =>
    reply(req, r, (await everywhere(req.params.collection_name, 'PUT', `/collections/${enc(req.params.collection_name)}`, req.body ?? {}))[0]![0], {}),
  );
  app.delete<{ Params: Params }>(C, async (req, r) =>
    reply(req, r, (await everywhere(req.params.collection_name, 'DELETE', `/collections/${enc(req.params.collection_name)}`))[0]![0], {}),
  );
  // Every replica compacts its own copy; the answer adds the shards up (a shard's figures are its
  // first replica's: the replicas hold the same points) and takes the longest time.
  app.post<{ Params: Params }>(`${C}/compact`, async (req, r) => {
    const byShard = (await everywhere(req.params.collection_name, 'POST', `/collections/${enc(req.params.collection_name)}/compact`)) as Array<
      Array<{ compacted: boolean; points: number; seconds: number; fresh_before: number; hidden_before: number; fresh_after: number; hidden_after: number }>
    >;
    const firsts = byShard.map((s) => s[0]!);
    const sum = (k: 'points' | 'fresh_before' | 'hidden_before' | 'fresh_after' | 'hidden_after'): number => firsts.reduce((a, s) => a + s[k], 0);
    return reply(
      req,
      r,
      {
        compacted: firsts.some((s) => s.compacted),
        points: sum('points'),
        seconds: Math.max(...byShard.flat().map((s) => s.seconds)),
        fresh_before: sum('fresh_before'),
        hidden_before: sum('hidden_before'),
        fresh_after: sum('fresh_after'),
        hidden_after: sum('hidden_after'),
      },
      {},
    );
  });

  app.post<{ Params: Params; Body: unknown }>(`${C}/points/search`, async (req, r) => {
    const b = bodyObject(req.body);
    // Each shard is asked for limit + offset from 0 (the server's own window rules, limit 10 by default).
    const { limit, offset } = window(b, '', 10);
    const name = req.params.collection_name;
    const { answers, missing } = await fanOut('POST', `/collections/${enc(name)}/points/search`, { ...b, limit: limit + offset, offset: 0 });
    const hits = mergeHits(
      answers.map((a) => resultOf<Hit[]>(a)),
      await higherIsBetter(name),
      offset,
      limit,
    );
    return reply(req, r, hits, partialFields(missing));
  });

  app.post<{ Params: Params; Body: unknown }>(`${C}/points/search/batch`, async (req, r) => {
    const b = bodyObject(req.body);
    const searches = arrayAt(b['searches'], 'searches', 10_000).map((s, i) => objectAt(s, `searches[${i}]`));
    const windows = searches.map((s, i) => window(s, `searches[${i}].`, 10));
    const name = req.params.collection_name;
    const { answers, missing } = await fanOut('POST', `/collections/${enc(name)}/points/search/batch`, {
      ...b,
      searches: searches.map((s, i) => ({ ...s, limit: windows[i]!.limit + windows[i]!.offset, offset: 0 })),
    });
    const higher = await higherIsBetter(name);
    const lists = answers.map((a) => resultOf<Hit[][]>(a));
    const result = windows.map((w, i) =>
      mergeHits(
        lists.map((l) => l[i] ?? []),
        higher,
        w.offset,
        w.limit,
      ),
    );
    return reply(req, r, result, partialFields(missing));
  });

  app.post<{ Params: Params; Body: unknown }>(`${C}/points/count`, async (req, r) => {
    const { answers, missing } = await fanOut('POST', `/collections/${enc(req.params.collection_name)}/points/count`, bodyObject(req.body));
    return reply(req, r, { count: answers.reduce((s, a) => s + resultOf<{ count: number }>(a).count, 0) }, partialFields(missing));
  });

  app.post<{ Params: Params; Body: unknown }>(`${C}/points`, async (req, r) => {
    const b = bodyObject(req.body);
    const ids = arrayAt(b['ids'], 'ids', MAX_LIMIT).map((v, i) => pointIdAt(v, `ids[${i}]`));
    const { answers, missing } = await fanOut('POST', `/collections/${enc(req.params.collection_name)}/points`, b);
    const byId = new Map<number, unknown>();
    for (const a of answers) for (const p of resultOf<Array<{ id: number }>>(a)) byId.set(Number(p.id), p);
    // In request order, each existing id once (as a single server answers).
    const seen = new Set<number>();
    const out: unknown[] = [];
    for (const id of ids) {
      if (id === null || seen.has(id) || !byId.has(id)) continue;
      seen.add(id);
      out.push(byId.get(id));
    }
    return reply(req, r, out, partialFields(missing));
  });

  /** One call to one shard: its failure is the request's 502, a 4xx its answer. */
  async function callOne(shard: number, method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown, headers?: Record<string, string>): Promise<ShardAnswer> {
    const a = await shards.call(shard, method, path, body, headers).catch((e: unknown) => {
      throw e instanceof ShardFailure ? shardsUnreachable([e]) : e;
    });
    if (a.status >= 400) throw new Relayed(a);
    return a;
  }

  /** Ids grouped by the shard they hash to (null ids, which never match, left out). */
  function byShard<T>(items: readonly T[], idOf: (item: T, i: number) => number | null): Map<number, T[]> {
    const groups = new Map<number, T[]>();
    items.forEach((item, i) => {
      const id = idOf(item, i);
      if (id === null) return;
      const s = shardOf(id, shards.count);
      const g = groups.get(s);
      if (g) g.push(item);
      else groups.set(s, [item]);
    });
    return groups;
  }

  app.get<{ Params: Params & { id: string } }>(`${C}/points/:id`, async (req, r) => {
    const id = pointIdAt(req.params.id, 'id');
    if (id === null) throw new StrataError('STRATA_POINT_NOT_FOUND', `no point with id ${req.params.id.slice(0, 64)}`, {});
    const shard = shardOf(id, shards.count);
    return reply(req, r, resultOf(await callOne(shard, 'GET', `/collections/${enc(req.params.collection_name)}/points/${id}`)));
  });

  app.post<{ Params: Params; Body: unknown }>(`${C}/points/scroll`, async (req, r) => {
    const b = bodyObject(req.body);
    const limit = optionalInt(b['limit'], 'limit', 1, MAX_LIMIT) ?? 10;
    const { answers, missing } = await fanOut('POST', `/collections/${enc(req.params.collection_name)}/points/scroll`, { ...b, limit });
    const pages = answers.map((a) => resultOf<{ points: Array<{ id: number }>; next_page_offset: number | null }>(a));
    const points = pages.flatMap((p) => p.points).sort((x, y) => Number(x.id) - Number(y.id));
    // The next page starts at the first id not returned: the (limit+1)-th merged id, or the
    // smallest next offset a shard gave.
    const nexts = pages.map((p) => p.next_page_offset).filter((n): n is number => n !== null);
    const next = points.length > limit ? Number(points[limit]!.id) : nexts.length > 0 ? Math.min(...nexts) : null;
    return reply(req, r, { points: points.slice(0, limit), next_page_offset: next }, partialFields(missing));
  });

  /** Writes go to the shard of each id: the groups must all be acknowledged. */
  async function routeWrites<T>(
    name: string,
    method: 'PUT' | 'POST',
    path: string,
    wait: boolean,
    groups: Map<number, T[]>,
    bodyOf: (items: T[]) => unknown,
  ): Promise<Array<{ operation_id: number; status: string }>> {
    for (const shard of groups.keys()) {
      if (shards.replicas(shard).length > 1 && o.replicatedWrites !== true)
        throw readOnly(
          `shard ${shard}`,
          'unreplicated-writes',
          `a write would reach one of its ${shards.replicas(shard).length} replicas only; start the shard servers with --write-log and the router with --replicated-writes`,
          { allow: '' },
        );
    }
    return Promise.all(
      [...groups.entries()].map(async ([shard, items]) => {
        // One id per write and shard, the same on a failover or hedged retry: behind a shared write
        // log the copy is dropped, so a write retried on another replica is applied once.
        const headers = o.replicatedWrites === true ? { [WRITE_ID_HEADER]: randomUUID() } : undefined;
        const result = resultOf<{ operation_id: number; status: string }>(
          await callOne(shard, method, `/collections/${enc(name)}${path}`, bodyOf(items), headers),
        );
        // wait=true: read-your-writes through the router, whichever replica the next read reaches.
        // Every replica is asked to answer once it has applied the log up to the write's sequence
        // (its operation_id); one that is down or slow is skipped (restarted, it catches up from
        // the log, but may answer reads before it has: docs/api.md).
        if (headers !== undefined && wait && shards.replicas(shard).length > 1 && result.operation_id > 0)
          await shards.everyReplica(shard, 'GET', `/collections/${enc(name)}`, { [WRITE_SEQ_HEADER]: String(result.operation_id) });
        return result;
      }),
    );
  }

  const waitQuery = (wait: string | undefined): string => (wait === 'true' ? '?wait=true' : '');
  /** The shards' answers to one write as one: the highest operation id, and their status. */
  const writeAnswer = (req: FastifyRequest, r: FastifyReply, results: Array<{ operation_id: number; status: string }>): FastifyReply =>
    reply(req, r, { operation_id: Math.max(0, ...results.map((x) => x.operation_id)), status: results[0]?.status ?? 'completed' });

  app.put<{ Params: Params; Body: unknown; Querystring: { wait?: string } }>(`${C}/points`, async (req, r) => {
    const b = bodyObject(req.body);
    const points = arrayAt(b['points'], 'points', MAX_UPSERT).map((p, i) => objectAt(p, `points[${i}]`));
    const groups = byShard(points, (p, i) => {
      const id = pointIdAt(p['id'], `points[${i}].id`);
      if (id === null) throw invalidArgument(`points[${i}].id`, 'must be an unsigned integer below 2^53');
      return id;
    });
    return writeAnswer(
      req,
      r,
      await routeWrites(req.params.collection_name, 'PUT', `/points${waitQuery(req.query.wait)}`, req.query.wait === 'true', groups, (ps) => ({ points: ps })),
    );
  });

  app.post<{ Params: Params; Body: unknown; Querystring: { wait?: string } }>(`${C}/points/delete`, async (req, r) => {
    const b = bodyObject(req.body);
    const ids = arrayAt(b['points'], 'points', MAX_LIMIT).map((v, i) => pointIdAt(v, `points[${i}]`));
    const groups = byShard(ids, (id) => id);
    return writeAnswer(
      req,
      r,
      await routeWrites(req.params.collection_name, 'POST', `/points/delete${waitQuery(req.query.wait)}`, req.query.wait === 'true', groups, (ps) => ({
        points: ps,
      })),
    );
  });

  // Set (POST: merge) or overwrite (PUT) payloads: the ids grouped by shard, the payload to each.
  for (const method of ['POST', 'PUT'] as const) {
    app.route<{ Params: Params; Body: unknown; Querystring: { wait?: string } }>({
      method,
      url: `${C}/points/payload`,
      handler: async (req, r) => {
        const b = bodyObject(req.body);
        const payload = objectAt(b['payload'], 'payload');
        const ids = arrayAt(b['points'], 'points', MAX_LIMIT).map((v, i) => pointIdAt(v, `points[${i}]`));
        const groups = byShard(ids, (id) => id);
        const path = `/points/payload${waitQuery(req.query.wait)}`;
        return writeAnswer(
          req,
          r,
          await routeWrites(req.params.collection_name, method, path, req.query.wait === 'true', groups, (ps) => ({ points: ps, payload })),
        );
      },
    });
  }

  return {
    app,
    shards,
    close: async () => {
      await app.close();
      await shards.close();
    },
  };
}
