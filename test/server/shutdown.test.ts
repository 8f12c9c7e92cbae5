// SIGTERM on a real `strata serve` child process under concurrent load: every admitted search
// (queued or running, REST or gRPC) finishes with its real answer within --drain-ms; readiness turns
// 503 first; a request sent afterwards on an open keep-alive connection gets 503 with
// Connection: close rather than a reset, also under load on many kept-alive connections; and the
// process exits 0. Ordering, not timing: searches are
// slowed (injected CXL stalls) so that the 64 are still in the engine when the signal comes, which
// the test checks through /metrics before sending it.
import { setTimeout as sleep } from 'node:timers/promises';
import * as grpc from '@grpc/grpc-js';
import { Agent, Client, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../helpers/cli.js';
import { buildIndexes, grpcClients, grpcFailure, openEngine, unary, type Indexes } from './fixture.js';
import { serveChild, type ServeChild } from './serve-child.js';

let ix: Indexes;
let expected: number[][];

beforeAll(async () => {
  ensureBuilt();
  ix = await buildIndexes();
  const reference = await openEngine(ix);
  expected = await Promise.all(
    Array.from({ length: 40 }, async (_, i) => (await reference.collection('vectors').search({ vector: ix.query(i), k: 10 })).hits.map((h) => h.id)),
  );
  await reference.close();
});

afterAll(() => ix?.tmp.cleanup());

/** `strata serve` of the test index as collection "things", on free ports. */
function serve(extra: string[]): Promise<ServeChild> {
  return serveChild([ix.l2, '--name', 'things', '--log-level', 'warn', '--memory', 'emulate', ...extra]);
}

/** Polls until `ok` (at most `tries` times, 20 ms apart): the loop is bounded, the test asserts on what it saw. */
async function until(what: string, ok: () => Promise<boolean>, tries = 1500): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await ok()) return;
    await sleep(20);
  }
  throw new Error(`gave up waiting for ${what}`);
}

async function text(url: string): Promise<{ status: number; body: string }> {
  const r = await request(url);
  return { status: r.statusCode, body: await r.body.text() };
}

describe('SIGTERM under load', () => {
  it('finishes every admitted search, refuses new ones with 503 and Connection: close, and exits 0', async () => {
    // ~3 ms per CXL access on one search thread: the 64 searches take seconds, the steps after the
    // signal milliseconds. (At 0.3 ms they took ~0.1-0.2 s once foreseeing hid most list reads, and
    // the steps after the signal sometimes outlasted them: the order checked below then failed.)
    const s = await serve(['--search-threads', '1', '--inject', '--cxl-latency-ns', '3000000', '--drain-ms', '120000']);
    const agent = new Agent({ connections: 64 });
    const keep = new Client(s.rest, { pipelining: 1 });
    const c = grpcClients(s.grpc!);
    try {
      // A keep-alive connection that is idle when the signal comes.
      const first = await keep.request({ method: 'GET', path: '/collections' });
      await first.body.text();
      expect(first.statusCode).toBe(200);

      let done = 0;
      const rest = Array.from({ length: 48 }, async (_, i) => {
        const r = await request(`${s.rest}/collections/things/points/search`, {
          method: 'POST',
          dispatcher: agent,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ vector: Array.from(ix.query(i % 40)), limit: 10 }),
        });
        const body = (await r.body.json()) as { result: Array<{ id: number }> | null; status: unknown };
        done++;
        return { status: r.statusCode, ids: body.result?.map((p) => p.id) ?? null, i };
      });
      const rpc = Array.from({ length: 16 }, async (_, j) => {
        const i = 48 + j;
        const r = await unary(c.points, 'Search', { collection_name: 'things', vector: Array.from(ix.query(i % 40)), limit: 10 }, new grpc.Metadata(), 300_000);
        done++;
        return { ids: (r['result'] as Array<{ id: number }>).map((p) => p.id), i };
      });
      // All 64 are admitted (queued, running or answered by the engine) before the signal.
      await until('64 searches admitted', async () => {
        const m = (await text(`${s.rest}/metrics`)).body;
        const value = (name: string): number => Number(new RegExp(`^${name}\\{collection="things"\\} (\\d+)`, 'm').exec(m)?.[1] ?? 0);
        return value('strata_queue_depth') + value('strata_searches_total') === 64;
      });

      s.child.kill('SIGTERM');
      // Readiness turns 503 first (the port stays open while draining).
      await until('/readyz to turn 503', async () => (await text(`${s.rest}/readyz`)).status === 503);
      // A new request on the idle keep-alive connection: 503, and the server closes that connection.
      const late = await keep.request({
        method: 'POST',
        path: '/collections/things/points/search',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ vector: Array.from(ix.query(0)), limit: 10 }),
      });
      const lateBody = (await late.body.json()) as { status: { error: string } };
      const stillRunning = 64 - done;
      expect(late.statusCode).toBe(503);
      expect(late.headers['connection']).toBe('close');
      expect(lateBody.status.error).toMatch(/shutting down/);
      expect((await grpcFailure(unary(c.points, 'Count', { collection_name: 'things' }))).code).toBe(grpc.status.UNAVAILABLE);
      // The refusal came while admitted searches were still running: the order the test is about.
      expect(stillRunning).toBeGreaterThan(0);
      console.info(`still running when the late request was refused: ${stillRunning} of 64`);

      // Every admitted search finished with its real answer.
      for (const r of await Promise.all(rest)) {
        expect(r.status, `REST search ${r.i}`).toBe(200);
        expect(r.ids, `REST search ${r.i}`).toEqual(expected[r.i % 40]);
      }
      for (const r of await Promise.all(rpc)) expect(r.ids, `gRPC search ${r.i}`).toEqual(expected[r.i % 40]);
      expect(await s.exited).toBe(0);
      expect(s.stderr()).toMatch(/SIGTERM, draining \(up to 120000 ms\)/);
      expect(s.stderr()).toMatch(/stopped/);
    } finally {
      c.close();
      await keep.close().catch(() => {});
      await agent.close();
      if (s.child.exitCode === null) s.child.kill('SIGKILL');
    }
  });

  it('answers every request on a kept-alive connection during the drain, 503 with Connection: close, and resets none', async () => {
    const s = await serve(['--search-threads', '1', '--drain-ms', '10000']);
    // One connection per loop, so that a loop's idle connection is its own to send on again.
    const clients = Array.from({ length: 32 }, () => new Client(s.rest, { pipelining: 1 }));
    let answers = 0;
    let signalled = false;
    const body = JSON.stringify({ vector: Array.from(ix.query(0)), limit: 10 });
    // Each loop sends searches on its kept-alive connection until an answer says
    // Connection: close (a client then goes elsewhere) or a request fails: a failure is what the
    // test counts. Some loops think a while between requests, so that their connections sit idle
    // across the steps of the shutdown.
    const loops = Array.from({ length: 32 }, async (_, i) => {
      const seen: Array<{ status: number; afterSignal: boolean }> = [];
      for (;;) {
        try {
          const r = await clients[i]!.request({
            method: 'POST',
            path: '/collections/things/points/search',
            headers: { 'content-type': 'application/json' },
            body,
          });
          await r.body.text();
          seen.push({ status: r.statusCode, afterSignal: signalled });
          answers++;
          if (r.headers['connection'] === 'close') return { seen, error: null };
          await sleep(i % 8 === 7 ? 10 * i : i % 4);
        } catch (e) {
          const { code, syscall } = e as { code?: string; syscall?: string };
          return { seen, error: `${code ?? String(e)} (${syscall ?? '?'})` };
        }
      }
    });
    try {
      await until('the load to run', async () => answers >= 200);
      signalled = true;
      s.child.kill('SIGTERM');
      const ends = await Promise.all(loops);
      const refused = ends.flatMap((e) => e.seen).filter((a) => a.afterSignal && a.status === 503).length;
      const failures = ends.flatMap((e) => (e.error === null ? [] : [e.error]));
      console.info(`after SIGTERM: ${refused} answers of 503, failures: ${failures.join(', ') || 'none'}`);
      expect(failures).toEqual([]);
      // Every loop ended on an answer sent after the signal, and some were refusals: it came mid-load.
      for (const e of ends) expect(e.seen.at(-1)?.afterSignal).toBe(true);
      expect(refused).toBeGreaterThan(0);
      expect(await s.exited).toBe(0);
    } finally {
      await Promise.all(clients.map((c) => c.close().catch(() => {})));
      if (s.child.exitCode === null) s.child.kill('SIGKILL');
    }
  });

  it('keeps --drain-ms hard: a search that never ends gets 503 and the process still exits 0', async () => {
    // ~1000 s per CXL access: the search would never finish by itself.
    const s = await serve(['--search-threads', '1', '--inject', '--cxl-latency-ns', '1e12', '--drain-ms', '300']);
    try {
      const stuck = request(`${s.rest}/collections/things/points/search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ vector: Array.from(ix.query(0)), limit: 10 }),
      });
      await until('the search in the engine', async () => /strata_queue_depth\{collection="things"\} 1\b/.test((await text(`${s.rest}/metrics`)).body));
      s.child.kill('SIGTERM');
      const r = await stuck;
      const body = (await r.body.json()) as { status: { error: string } };
      expect(r.statusCode).toBe(503);
      expect(body.status.error).toMatch(/drain deadline/);
      // A guard far beyond the drain: a process waiting on the thread would be killed by it instead.
      const guard = sleep(60_000, 'guard' as const, { ref: false });
      expect(await Promise.race([s.exited, guard])).toBe(0);
    } finally {
      if (s.child.exitCode === null) s.child.kill('SIGKILL');
    }
  });
});
