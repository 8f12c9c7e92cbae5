// Shutdown of Qdrant's gRPC API with the rest of the server (server/app.ts): once draining, the port
// stays open and new calls are refused UNAVAILABLE with retry-after, the health check still answers,
// and close() resolves although a client still holds its HTTP/2 connection (GOAWAY, then the
// sessions are cut after a grace period).
import { ConnectError, ConnectErrorCode, QdrantClient } from '@qdrant/js-client-grpc';
import { afterAll, describe, expect, it } from 'vitest';
import { Engine } from '../../engine/engine.js';
import { makeTempDir } from '../helpers/temp.js';
import { startServer } from './fixture.js';

const tmp = makeTempDir('strata-qdrant-drain-');
let engine: Engine | undefined;

afterAll(async () => {
  await engine?.close();
  tmp.cleanup();
});

describe('Qdrant gRPC shutdown', () => {
  it('refuses new calls once draining and closes with a client connected', async () => {
    engine = await Engine.open([], { searchThreads: 0, memory: { mode: 'emulate' }, dataDir: tmp.path('data') });
    const srv = await startServer(engine, { grpcPort: null, qdrantGrpcPort: 0, grpcDrainMs: 200 });
    const client = new QdrantClient({ host: '127.0.0.1', port: srv.addr.qdrantGrpcPort!, checkCompatibility: false });
    expect((await client.api('collections').list({})).collections).toEqual([]);
    srv.server.drain();
    const e = await client
      .api('collections')
      .list({})
      .then(
        () => null,
        (x: unknown) => x,
      );
    expect(e).toBeInstanceOf(ConnectError);
    expect((e as ConnectError).code, (e as ConnectError).message).toBe(ConnectErrorCode.Unavailable);
    expect((e as ConnectError).rawMessage).toContain('STRATA_SHUTTING_DOWN');
    expect((e as ConnectError).metadata.get('retry-after')).toBe('1');
    expect((await client.api('service').healthCheck({})).version).not.toBe('');
    const t0 = Date.now();
    await srv.close();
    expect(Date.now() - t0).toBeLessThan(5000);
  }, 30_000);
});
