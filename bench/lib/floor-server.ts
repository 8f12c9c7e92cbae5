// The service bench's floor: a server that does everything a search request costs except Strata's
// own work. It answers every search with the bytes of one answer captured from the real server (JSON,
// or that answer packed as MessagePack), so the load generator runs its real loop, decodes answers of
// the real size and checks them, while the server side costs only its HTTP stack:
// - `node`: node:http reads the body and writes the canned answer (no framework, no parse);
// - `fastify`: fastify with the request body parsed as `strata serve` parses it (JSON, or MessagePack
//   through the server's own parser), then the canned answer.
// The gap between a served row and the fastify floor is what Strata itself spends per request.
// With a third argument, fastify also burns that many µs of CPU on its event loop per search before
// answering: the search's own CPU, where `strata serve --search-threads 0` spends it, so the floor then
// runs at the served row's rate and wakes as it does (per-request costs fall as more requests share
// each wake-up of the event loop, so a floor at another rate would not compare).
// `fastify-thread` burns it on one worker thread instead, as `--search-threads 1` spends it: the
// searches waiting go over together through a two-counter shared-memory mailbox (Atomics, no
// message port), the leanest hand-off we know, so its QPS is the most any fastify server with one
// search thread could serve on this machine; `node-thread` does the same behind bare node:http.
// Run by service-bench.ts: node dist/bench/lib/floor-server.js <node|fastify|node-thread|fastify-thread> <captured.json> [burn µs];
// prints "REST  <url>".
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Worker } from 'node:worker_threads';
import Fastify from 'fastify';
import { Packr } from 'msgpackr';
import { waitAsync } from '../../common/wait-async.js';
import { registerMsgpackParser } from '../../server/rest/codec.js';

/** What service-bench captured from `strata serve`: the bodies of GET /, GET /collections/{c} and one search answer (JSON). */
export interface CapturedAnswers {
  root: string;
  collection: string;
  search: string;
}

const WANTS_MSGPACK = /msgpack/i;

function canned(c: CapturedAnswers): { json: Buffer; msgpack: Buffer } {
  return { json: Buffer.from(c.search), msgpack: new Packr({ moreTypes: true, useRecords: false }).pack(JSON.parse(c.search)) };
}

/** Busy for `us` microseconds of wall time (the process has the CPU to itself unless the machine is shared). */
function burn(us: number): void {
  const end = process.hrtime.bigint() + BigInt(Math.round(us * 1000));
  while (process.hrtime.bigint() < end);
}

// The search thread of the -thread floors: sleeps until the event loop has posted searches (counter
// 0 ahead of what it took), burns their CPU, then publishes them done (counter 1). It burns wall
// time, as `burn` does: preempted mid-burn it still finishes on time, so the floor errs in its own
// favour against a real search, which would finish later.
const BURNER = `
const { workerData } = require('node:worker_threads');
const { ctl, us } = workerData;
let taken = 0;
for (;;) {
  Atomics.wait(ctl, 0, taken);
  const posted = Atomics.load(ctl, 0);
  const end = process.hrtime.bigint() + BigInt(Math.round((posted - taken) * us * 1000));
  taken = posted;
  while (process.hrtime.bigint() < end);
  Atomics.store(ctl, 1, taken);
  Atomics.notify(ctl, 1);
}`;

/** A function that has one worker thread burn `us` of CPU and resolves when it has (in order). */
function threadBurner(us: number): () => Promise<void> {
  const ctl = new Int32Array(new SharedArrayBuffer(8));
  new Worker(BURNER, { eval: true, workerData: { ctl, us } }).unref();
  const waiting: Array<() => void> = [];
  let answered = 0;
  let watching = false;
  const settle = (): void => {
    const done = Atomics.load(ctl, 1);
    while (answered < done) {
      answered++;
      waiting.shift()!();
    }
    if (waiting.length === 0) {
      watching = false;
      return;
    }
    const w = waitAsync(ctl, 1, done);
    if (w.async) void w.value.then(settle);
    else queueMicrotask(settle);
  };
  return () =>
    new Promise<void>((resolve) => {
      waiting.push(resolve);
      Atomics.add(ctl, 0, 1);
      Atomics.notify(ctl, 0);
      if (!watching) {
        watching = true;
        settle();
      }
    });
}

async function nodeFloor(c: CapturedAnswers, burnUs: number): Promise<number> {
  const answer = canned(c);
  const searched = burnUs > 0 ? threadBurner(burnUs) : null;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.on('data', () => {});
    req.on('end', async () => {
      const url = req.url ?? '/';
      const search = req.method === 'POST';
      if (search && searched !== null) await searched();
      const msgpack = search && WANTS_MSGPACK.test(req.headers.accept ?? '');
      const body = search ? (msgpack ? answer.msgpack : answer.json) : Buffer.from(url === '/' ? c.root : c.collection);
      res.writeHead(200, { 'content-type': msgpack ? 'application/msgpack' : 'application/json; charset=utf-8', 'content-length': body.length });
      res.end(body);
    });
  });
  // Keep-alive as long as the real server's, so the client never reconnects mid-run.
  server.keepAliveTimeout = 72_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

async function fastifyFloor(c: CapturedAnswers, burnUs: number, onThread: boolean): Promise<number> {
  const answer = canned(c);
  const searched = onThread && burnUs > 0 ? threadBurner(burnUs) : null;
  const app = Fastify({ logger: false, keepAliveTimeout: 72_000 });
  registerMsgpackParser(app);
  app.get('/', async (_req, reply) => reply.type('application/json; charset=utf-8').send(c.root));
  app.get('/collections/:c', async (_req, reply) => reply.type('application/json; charset=utf-8').send(c.collection));
  app.post('/collections/:c/points/search', async (req, reply) => {
    if (searched !== null) await searched();
    else if (burnUs > 0) burn(burnUs);
    return WANTS_MSGPACK.test(req.headers.accept ?? '')
      ? reply.type('application/msgpack').send(answer.msgpack)
      : reply.type('application/json; charset=utf-8').send(answer.json);
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return (app.server.address() as AddressInfo).port;
}

const [kind, file, burnArg] = process.argv.slice(2);
const burnUs = Number(burnArg ?? 0);
const KINDS = ['node', 'fastify', 'node-thread', 'fastify-thread'];
if (kind === undefined || !KINDS.includes(kind) || file === undefined || !(burnUs >= 0) || (kind === 'node' && burnUs > 0)) {
  process.stderr.write('usage: floor-server.js <node|fastify|node-thread|fastify-thread> <captured.json> [burn µs; not with node]\n');
  process.exit(2);
}
const captured = JSON.parse(readFileSync(file, 'utf8')) as CapturedAnswers;
const port = kind.startsWith('node') ? await nodeFloor(captured, burnUs) : await fastifyFloor(captured, burnUs, kind === 'fastify-thread');
process.stdout.write(`REST  http://127.0.0.1:${port}\n`);
process.on('SIGTERM', () => process.exit(0));
