// Real shard servers with data directories, one single server to compare the router with, and a
// router over the shards, all on loopback: what the router's route tests stand on.
import { Engine } from '../../engine/engine.js';
import { buildRouter, type StrataRouter } from '../../server/router/router-server.js';
import type { TempDir } from '../helpers/temp.js';
import { type Running, startServer } from './fixture.js';

/** A router over the given shard URLs (one replica each), listening on a free loopback port. */
export async function listenRouter(shardUrls: string[]): Promise<{ router: StrataRouter; url: string }> {
  const router = buildRouter({
    shards: shardUrls.map((u) => [u]),
    partial: 'fail',
    timeoutMs: 60_000,
    hedgeMs: 50,
    apiKey: null,
    bodyLimit: 32 << 20,
    logLevel: 'silent',
  });
  const url = await router.app.listen({ host: '127.0.0.1', port: 0 });
  return { router, url };
}

export interface RouterCluster {
  shards: Running[];
  /** One server given every write the router is given. */
  single: Running;
  router: StrataRouter;
  url: string;
  close(): Promise<void>;
}

export async function startRouterCluster(tmp: TempDir, shardCount: number): Promise<RouterCluster> {
  const engines: Engine[] = [];
  const servers: Running[] = [];
  const open = async (dir: string): Promise<Running> => {
    const engine = await Engine.open([], { searchThreads: 0, memory: { mode: 'emulate' }, dataDir: tmp.path(dir) });
    engines.push(engine);
    const s = await startServer(engine, { grpcPort: null });
    servers.push(s);
    return s;
  };
  const shards: Running[] = [];
  for (let i = 0; i < shardCount; i++) shards.push(await open(`shard-${i}`));
  const single = await open('single');
  const { router, url } = await listenRouter(shards.map((s) => s.url));
  return {
    shards,
    single,
    router,
    url,
    async close() {
      await router.close();
      for (const s of servers) await s.close().catch(() => {});
      for (const e of engines) await e.close();
    },
  };
}
