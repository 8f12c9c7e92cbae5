// What the load generator learns of a collection before it runs (loadgen/probe.ts), against a real
// server: the vector's size and distance of an unnamed vector, and a clear refusal, naming the
// vector, of a collection whose vector is named (the load generator sends unnamed vectors only).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../engine/engine.js';
import { probeRest } from '../../loadgen/probe.js';
import { makeTempDir, rejected } from '../helpers/temp.js';
import { http, type Running, startServer } from '../server/fixture.js';

const tmp = makeTempDir('strata-loadgen-probe-');
let engine: Engine;
let srv: Running;

beforeAll(async () => {
  engine = await Engine.open([], { searchThreads: 0, memory: { mode: 'emulate' }, dataDir: tmp.path('data') });
  srv = await startServer(engine, { grpcPort: null });
  expect((await http(srv.url, 'PUT', '/collections/plain', { vectors: { size: 4, distance: 'Dot' } })).status).toBe(200);
  expect((await http(srv.url, 'PUT', '/collections/named', { vectors: { 'text-dense': { size: 4, distance: 'Dot' } } })).status).toBe(200);
});

afterAll(async () => {
  await srv?.close();
  await engine?.close();
  tmp.cleanup();
});

describe('the load generator probing a collection', () => {
  it('reads an unnamed vector, and refuses a named one naming it', async () => {
    expect(await probeRest(srv.url, 'plain', undefined)).toMatchObject({ collection: 'plain' });
    const e = (await rejected(probeRest(srv.url, 'named', undefined))) as Error;
    expect(e.message).toMatch(/its vector is named \(text-dense\): the load generator sends unnamed vectors only/);
  });
});
