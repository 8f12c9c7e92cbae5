// Replicas of a shard following one shared write log kept by NATS JetStream (Debian's nats-server,
// started here; .ci/run installs it): two `strata serve --write-log` child processes serve shard 0
// of a `strata build --shards 2` set, a third serves shard 1, and the router sends each write to
// any replica of its shard (--replicated-writes). Upserts through the router reach both replicas;
// a write taken by either replica reaches the other; a replica killed with SIGKILL while writes go
// on catches up from the log when restarted, and nothing acknowledged is lost; wait=true through the
// router is read-your-writes on every replica (by log sequence); a write retried with its write id
// is applied once; UUIDs written to two replicas at once are numbered alike on both (in log order).
import { type ChildProcessByStdio, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mulberry32 } from '../../common/random.js';
import { generateClustered, writeFvecs } from '../../datasets/index.js';
import { buildShards, shardOf } from '../../index/build/build-shards.js';
import { buildRouter, type StrataRouter } from '../../server/router/router-server.js';
import { makeTempDir } from '../helpers/temp.js';
import { http } from './fixture.js';
import { type ServeChild, serveChild } from './serve-child.js';

const DIM = 8;
const COUNT = 1200;
const NAME = 'vectors';

/** nats-server on PATH or where Debian's package puts it; null when absent (the tests then skip). */
function natsServerBinary(): string | null {
  for (const p of ['/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server']) if (existsSync(p)) return p;
  const which = spawnSync('sh', ['-c', 'command -v nats-server'], { encoding: 'utf8' });
  return which.status === 0 && which.stdout.trim() !== '' ? which.stdout.trim() : null;
}

const NATS = natsServerBinary();
const tmp = makeTempDir('strata-replication-');

/** The vector a point id is always written with: checks recompute it. */
function vectorOf(id: number): number[] {
  const r = mulberry32(id + 7);
  return Array.from({ length: DIM }, () => Math.fround(r() * 2 - 1));
}

let nats: ChildProcessByStdio<null, Readable, Readable> | null = null;
let natsUrl = '';
const children: ServeChild[] = [];
let replicaA: ServeChild;
let replicaB: ServeChild;
let shard1: ServeChild;
let router: StrataRouter;
let routerUrl = '';

async function startNats(port = -1): Promise<void> {
  nats = spawn(NATS!, ['-js', '-sd', tmp.path('jetstream'), '-a', '127.0.0.1', '-p', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const bound = await new Promise<number>((resolve, reject) => {
    const seen = (d: Buffer): void => {
      log += d.toString();
      const m = /Listening for client connections on [\d.]+:(\d+)/.exec(log);
      if (m) resolve(Number(m[1]));
    };
    nats!.stdout.on('data', seen);
    nats!.stderr.on('data', seen);
    nats!.on('exit', (code) => reject(new Error(`nats-server exited (${code}):\n${log}`)));
  });
  natsUrl = `nats://127.0.0.1:${bound}`;
}

async function replica(dataDir: string, shard: number, port = 0): Promise<ServeChild> {
  const s = await serveChild([
    '--port',
    String(port),
    tmp.path('shards', `shard-${shard}`),
    '--name',
    NAME,
    '--data-dir',
    dataDir,
    '--write-log',
    natsUrl,
    '--write-log-stream',
    `test-shard-${shard}`,
    '--no-grpc',
    '--search-threads',
    '0',
    '--log-level',
    'silent',
  ]);
  children.push(s);
  return s;
}

/** Points of `ids` a server holds, by id, with their vectors. */
async function held(url: string, ids: Array<number | string>): Promise<Map<string, number[]>> {
  const r = await http(url, 'POST', `/collections/${NAME}/points`, { ids, with_vector: true });
  expect(r.status, r.text).toBe(200);
  const out = new Map<string, number[]>();
  for (const p of (r.body as { result: Array<{ id: number | string; vector: number[] }> }).result) out.set(String(p.id), p.vector);
  return out;
}

/** Waits (polling) until `url` holds exactly the expected points of `ids`, with their vectors. */
async function converges(url: string, expected: Map<number, boolean>, timeoutMs = 20_000): Promise<void> {
  const ids = [...expected.keys()];
  const until = Date.now() + timeoutMs;
  for (;;) {
    const got = await held(url, ids);
    const wrong = ids.filter((id) => (expected.get(id) ? got.get(String(id))?.join() !== vectorOf(id).join() : got.has(String(id))));
    if (wrong.length === 0) return;
    if (Date.now() > until) throw new Error(`${url} differs from the log at ${wrong.length} ids, e.g. ${wrong.slice(0, 5).join(', ')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const upsert = (url: string, ids: number[]) =>
  http(url, 'PUT', `/collections/${NAME}/points?wait=true`, { points: ids.map((id) => ({ id, vector: vectorOf(id), payload: { id } })) });

describe.skipIf(NATS === null)('replicas following a NATS JetStream write log', () => {
  beforeAll(async () => {
    await startNats();
    const set = generateClustered({ count: COUNT, dim: DIM, clusters: 6, seed: 3 }, 10);
    const input = tmp.path('base.fvecs');
    await writeFvecs(input, set.base, DIM);
    await buildShards({
      input,
      out: tmp.path('shards'),
      shards: 2,
      metric: 'l2',
      m: 8,
      efConstruction: 40,
      dramBudget: '30%',
      placement: 'profile',
      profileSamples: 100,
    });
    replicaA = await replica(tmp.path('a'), 0);
    replicaB = await replica(tmp.path('b'), 0);
    shard1 = await replica(tmp.path('c'), 1);
    router = buildRouter({
      shards: [[replicaA.rest, replicaB.rest], [shard1.rest]],
      partial: 'fail',
      timeoutMs: 5000,
      hedgeMs: 1000,
      apiKey: null,
      bodyLimit: 32 << 20,
      logLevel: 'silent',
      replicatedWrites: true,
    });
    routerUrl = await router.app.listen({ host: '127.0.0.1', port: 0 });
  }, 120_000);

  afterAll(async () => {
    await router?.close();
    for (const c of children) if (c.child.exitCode === null) c.child.kill('SIGKILL');
    await Promise.all(children.map((c) => c.exited));
    if (nats) {
      nats.kill('SIGTERM');
      await new Promise((r) => nats!.once('exit', r));
    }
    tmp.cleanup();
  });

  it('sends writes through the router to both replicas of their shard, and a replica restarted after SIGKILL catches up losing nothing', async () => {
    const expected0 = new Map<number, boolean>();
    const expected1 = new Map<number, boolean>();
    const note = (id: number, live: boolean): void => void (shardOf(id, 2) === 0 ? expected0 : expected1).set(id, live);
    let next = 100_000;
    const batch = (n: number): number[] => Array.from({ length: n }, () => next++);
    for (let b = 0; b < 10; b++) {
      const ids = batch(10);
      const r = await upsert(routerUrl, ids);
      expect(r.status, r.text).toBe(200);
      for (const id of ids) note(id, true);
    }
    expect(expected0.size).toBeGreaterThan(20);
    expect(expected1.size).toBeGreaterThan(20);
    await converges(replicaA.rest, expected0);
    await converges(replicaB.rest, expected0);
    await converges(shard1.rest, expected1);

    // Replica B dies; writes go on through the router (which fails over to A) and straight to A.
    replicaB.child.kill('SIGKILL');
    await replicaB.exited;
    for (let b = 0; b < 5; b++) {
      const ids = batch(10);
      expect((await upsert(routerUrl, ids)).status).toBe(200);
      for (const id of ids) note(id, true);
    }
    const gone = [...expected0.keys()].slice(0, 6);
    const del = await http(routerUrl, 'POST', `/collections/${NAME}/points/delete?wait=true`, { points: gone });
    expect(del.status, del.text).toBe(200);
    for (const id of gone) note(id, false);
    const direct = batch(40).filter((id) => shardOf(id, 2) === 0);
    expect((await upsert(replicaA.rest, direct)).status).toBe(200);
    for (const id of direct) note(id, true);
    await converges(replicaA.rest, expected0);

    // Restarted on its data directory (and port: the router knows it there), B applies what it
    // missed, from its last applied record on.
    replicaB = await replica(tmp.path('b'), 0, Number(new URL(replicaB.rest).port));
    await converges(replicaB.rest, expected0);
    const count = async (url: string): Promise<number> =>
      ((await http(url, 'POST', `/collections/${NAME}/points/count`, {})).body as { result: { count: number } }).result.count;
    expect(await count(replicaB.rest)).toBe(await count(replicaA.rest));
    const base0 = (await count(replicaA.rest)) - [...expected0.values()].filter(Boolean).length;
    expect(base0).toBeGreaterThan(COUNT / 4);

    // A write taken by B reaches A.
    const fromB = batch(30).filter((id) => shardOf(id, 2) === 0);
    expect((await upsert(replicaB.rest, fromB)).status).toBe(200);
    for (const id of fromB) note(id, true);
    await converges(replicaA.rest, expected0);
    await converges(shard1.rest, expected1);
  }, 120_000);

  it('wait=true through the router is read-your-writes on every replica, by log sequence', async () => {
    for (let round = 0; round < 5; round++) {
      const ids = Array.from({ length: 20 }, (_, i) => 500_000 + round * 20 + i).filter((id) => shardOf(id, 2) === 0);
      const w = await upsert(routerUrl, ids);
      expect(w.status, w.text).toBe(200);
      const seq = (w.body as { result: { operation_id: number } }).result.operation_id;
      // No polling: the router answered once every replica had applied the write's sequence.
      for (const url of [replicaA.rest, replicaB.rest]) {
        const got = await held(url, ids);
        expect(
          ids.map((id) => got.get(String(id))?.join()),
          url,
        ).toEqual(ids.map((id) => vectorOf(id).join()));
        const info = await http(url, 'GET', `/collections/${NAME}`);
        expect((info.body as { result: { strata: { live: { write_log_seq: number } } } }).result.strata.live.write_log_seq).toBeGreaterThanOrEqual(seq);
      }
    }
    // With replica B paused, the router's answer waits for it (the write itself reaches A, after
    // the hedge delay if it was sent to B first); resumed, B has the write when the answer comes.
    const ids = Array.from({ length: 20 }, (_, i) => 600_000 + i).filter((id) => shardOf(id, 2) === 0);
    replicaB.child.kill('SIGSTOP');
    let answered = false;
    const pending = upsert(routerUrl, ids).then((r) => {
      answered = true;
      return r;
    });
    try {
      await new Promise((r) => setTimeout(r, 1500));
      expect(answered).toBe(false);
    } finally {
      replicaB.child.kill('SIGCONT');
    }
    expect((await pending).status).toBe(200);
    expect([...(await held(replicaB.rest, ids)).keys()].sort()).toEqual(ids.map(String).sort());
    const bad = await http(replicaA.rest, 'GET', `/collections/${NAME}`, undefined, { headers: { 'strata-write-seq': 'soon' } });
    expect(bad.status).toBe(400);
    expect(bad.text).toMatch(/strata-write-seq/);
  }, 60_000);

  it('applies a write retried with the same write id once: a late copy does not undo a later write of the same point', async () => {
    const id = 700_000;
    const body = (v: number[]) => ({ points: [{ id, vector: v }] });
    const first = vectorOf(1);
    const second = vectorOf(2);
    const put = (url: string, v: number[], writeId: string) =>
      http(url, 'PUT', `/collections/${NAME}/points?wait=true`, body(v), { headers: { 'strata-write-id': writeId } });
    const w1 = await put(replicaA.rest, first, 'write-one');
    const w2 = await put(replicaB.rest, second, 'write-two');
    // The first write again, as a failover or hedge would resend it, after the second one.
    const again = await put(replicaB.rest, first, 'write-one');
    expect([w1.status, w2.status, again.status]).toEqual([200, 200, 200]);
    const seqOf = (r: { body: unknown }): number => (r.body as { result: { operation_id: number } }).result.operation_id;
    expect(seqOf(again)).toBe(seqOf(w1));
    expect(seqOf(w2)).toBeGreaterThan(seqOf(w1));
    const until = Date.now() + 20_000;
    for (const url of [replicaA.rest, replicaB.rest]) {
      let v: number[] | undefined;
      do v = (await held(url, [id])).get(String(id));
      while (v?.join() !== second.join() && Date.now() < until);
      expect(v, url).toEqual(second);
    }
    const badId = await http(replicaA.rest, 'PUT', `/collections/${NAME}/points`, body(first), { headers: { 'strata-write-id': 'no spaces allowed' } });
    expect(badId.status).toBe(400);
    expect(badId.text).toMatch(/strata-write-id/);
  }, 60_000);

  it('creates and deletes a collection on every replica of every shard through the router, and replicates its writes', async () => {
    const name = 'made-by-router';
    const made = await http(routerUrl, 'PUT', `/collections/${name}`, { vectors: { size: DIM, distance: 'Cosine' } });
    expect(made.status, made.text).toBe(200);
    for (const s of [replicaA, replicaB, shard1]) expect((await http(s.rest, 'GET', `/collections/${name}`)).status, s.rest).toBe(200);
    const again = await http(routerUrl, 'PUT', `/collections/${name}`, { vectors: { size: DIM, distance: 'Cosine' } });
    expect([again.status, again.headers['strata-code']]).toEqual([409, 'STRATA_COLLECTION_EXISTS']);
    const ids = Array.from({ length: 30 }, (_, i) => i + 1);
    const w = await http(routerUrl, 'PUT', `/collections/${name}/points?wait=true`, { points: ids.map((id) => ({ id, vector: vectorOf(id) })) });
    expect(w.status, w.text).toBe(200);
    const on0 = ids.filter((id) => shardOf(id, 2) === 0);
    for (const s of [replicaA, replicaB]) {
      const r = await http(s.rest, 'POST', `/collections/${name}/points`, { ids: on0 });
      expect((r.body as { result: unknown[] }).result.length, s.rest).toBe(on0.length);
    }
    expect((await http(routerUrl, 'POST', `/collections/${name}/points/count`, {})).body).toMatchObject({ result: { count: ids.length } });
    const gone = await http(routerUrl, 'DELETE', `/collections/${name}`);
    expect(gone.status, gone.text).toBe(200);
    for (const s of [replicaA, replicaB, shard1]) expect((await http(s.rest, 'GET', `/collections/${name}`)).status, s.rest).toBe(404);
    // Made again under the same name, it starts empty on every replica: the stream's records of the
    // deleted one are not its own (not even after a restart, which resumes from its logged start).
    expect((await http(routerUrl, 'PUT', `/collections/${name}`, { vectors: { size: DIM, distance: 'Cosine' } })).status).toBe(200);
    expect((await http(routerUrl, 'POST', `/collections/${name}/points/count`, {})).body).toMatchObject({ result: { count: 0 } });
    const one = await http(routerUrl, 'PUT', `/collections/${name}/points?wait=true`, { points: [{ id: 1, vector: vectorOf(1) }] });
    expect(one.status, one.text).toBe(200);
    shard1.child.kill('SIGKILL');
    await shard1.exited;
    shard1 = await replica(tmp.path('c'), 1, Number(new URL(shard1.rest).port));
    const counts = await Promise.all(
      [replicaA, replicaB, shard1].map(
        async (s) => ((await http(s.rest, 'POST', `/collections/${name}/points/count`, {})).body as { result: { count: number } }).result.count,
      ),
    );
    expect(counts.reduce((a, b) => a + b, 0) - (shardOf(1, 2) === 0 ? counts[1]! : 0)).toBe(1);
    expect((await http(routerUrl, 'DELETE', `/collections/${name}`)).status).toBe(200);
  }, 60_000);

  it('numbers UUID points written to two replicas at once alike on both (in log order)', async () => {
    const uuids = Array.from({ length: 20 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
    const writes = uuids.map((u, i) =>
      http(i % 2 === 0 ? replicaA.rest : replicaB.rest, 'PUT', `/collections/${NAME}/points?wait=true`, { points: [{ id: u, vector: vectorOf(i) }] }),
    );
    for (const w of await Promise.all(writes)) expect(w.status, w.text).toBe(200);
    const until = Date.now() + 20_000;
    let a: Map<string, number[]>;
    let b: Map<string, number[]>;
    do {
      a = await held(replicaA.rest, uuids);
      b = await held(replicaB.rest, uuids);
    } while ((a.size < uuids.length || b.size < uuids.length) && Date.now() < until);
    expect([a.size, b.size]).toEqual([uuids.length, uuids.length]);
    uuids.forEach((u, i) => {
      expect(a.get(u)).toEqual(vectorOf(i));
      expect(b.get(u)).toEqual(vectorOf(i));
    });
    // Scroll walks points in internal-number order: the same order on both means the same numbers.
    const order = async (url: string): Promise<string[]> => {
      const r = await http(url, 'POST', `/collections/${NAME}/points/scroll`, { limit: 10_000 });
      return (r.body as { result: { points: Array<{ id: number | string }> } }).result.points.map((p) => String(p.id));
    };
    const orderA = await order(replicaA.rest);
    expect(orderA.filter((id) => uuids.includes(id)).length).toBe(uuids.length);
    expect(await order(replicaB.rest)).toEqual(orderA);
  }, 60_000);

  it('refuses writes with 503 STRATA_WRITE_LOG while the log service is down, keeps serving reads, and takes writes again once it is back', async () => {
    const port = Number(new URL(natsUrl).port);
    nats!.kill('SIGKILL');
    await new Promise((r) => nats!.once('exit', r));
    const id = 800_000 + [0, 1, 2, 3, 4].find((i) => shardOf(800_000 + i, 2) === 0)!;
    const refused = await upsert(replicaA.rest, [id]);
    expect([refused.status, refused.headers['strata-code']]).toEqual([503, 'STRATA_WRITE_LOG']);
    expect(refused.text).toMatch(/write log/);
    const counted = await http(replicaA.rest, 'POST', `/collections/${NAME}/points/count`, {});
    expect(counted.status).toBe(200);
    // Back on the same port and store: the replicas reconnect and resume their streams.
    await startNats(port);
    const until = Date.now() + 30_000;
    let ok = await upsert(replicaA.rest, [id]);
    while (ok.status !== 200 && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 250));
      ok = await upsert(replicaA.rest, [id]);
    }
    expect(ok.status, ok.text).toBe(200);
    await converges(replicaB.rest, new Map([[id, true]]));
  }, 90_000);
});
