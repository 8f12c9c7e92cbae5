// `strata serve` end to end (bin/strata.js over dist/): serves an index directory, prints its URLs and
// a ready-to-paste curl query that works, and exits 0 after draining on SIGTERM.
import { spawnSync } from 'node:child_process';
import { QdrantClient as QdrantGrpcClient } from '@qdrant/js-client-grpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveOptions } from '../../server/options.js';
import { BIN, ensureBuilt, ROOT, strata } from '../helpers/cli.js';
import { buildIndexes, http, type Indexes } from './fixture.js';
import { serveChild } from './serve-child.js';

let ix: Indexes;

beforeAll(async () => {
  ensureBuilt();
  ix = await buildIndexes();
});

afterAll(() => ix?.tmp.cleanup());

describe('strata serve', () => {
  it('serves an index directory under --name, prints a working curl example, and exits 0 on SIGTERM', async () => {
    const s = await serveChild([ix.l2, '--name', 'things', '--log-level', 'warn', '--memory', 'emulate', '--search-threads', '0']);
    try {
      const out = s.stdout();
      expect(s.rest).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(s.grpc).toMatch(/^127\.0\.0\.1:\d+$/);
      expect(out).toContain('things (2000 points, 16-d)');
      const curl = /^curl .* -X POST (\S+) .* -d '(.*)'$/m.exec(out)!;
      expect(curl[1]).toBe(`${s.rest}/collections/things/points/search`);
      const r = await http(s.rest, 'POST', '/collections/things/points/search', JSON.parse(curl[2]!));
      expect(r.status).toBe(200);
      expect((r.body as { result: unknown[] }).result).toHaveLength(5);
      expect((await http(s.rest, 'GET', '/readyz')).status).toBe(200);
    } finally {
      s.child.kill('SIGTERM');
    }
    expect(await s.exited).toBe(0);
    expect(s.stderr()).toMatch(/SIGTERM, draining/);
    expect(s.stderr()).toMatch(/stopped/);
  });

  it('on one effective CPU runs cheap searches on the event loop and says so; --inline never keeps them on the search thread', async () => {
    const inlineTasks = async (rest: string): Promise<number> => {
      const m = (await http(rest, 'GET', '/metrics')).text;
      return Number(/^strata_search_inline_tasks_total (\S+)$/m.exec(m)![1]);
    };
    const search = async (rest: string, ef: number): Promise<number[]> => {
      const r = await http(rest, 'POST', '/collections/things/points/search', { vector: Array.from(ix.query(3)), limit: 5, params: { hnsw_ef: ef } });
      expect(r.status).toBe(200);
      return (r.body as { result: Array<{ id: number }> }).result.map((p) => p.id);
    };
    const common = [ix.l2, '--name', 'things', '--log-level', 'warn', '--memory', 'emulate', '--search-threads', '1', '--no-grpc'];
    const one = await serveChild(common, {}, undefined, undefined, '0');
    const never = await serveChild([...common, '--inline', 'never'], {}, undefined, undefined, '0');
    try {
      expect(one.stdout()).toMatch(/^search {2}1 thread\(s\); searches of Σ max\(ef, k\) ≤ 1024 a task run on the event loop: 1 effective CPU \(affinity 1, /m);
      expect(never.stdout()).not.toMatch(/^search /m);
      const cheap = await search(one.rest, 32);
      expect(await inlineTasks(one.rest)).toBe(1);
      // Above the budget the search goes to the search thread, and answers alike either way.
      expect(await search(one.rest, 2000)).toEqual(await search(never.rest, 2000));
      expect(await inlineTasks(one.rest)).toBe(1);
      expect(cheap).toEqual(await search(never.rest, 32));
      expect(await inlineTasks(never.rest)).toBe(0);
    } finally {
      one.child.kill('SIGTERM');
      never.child.kill('SIGTERM');
    }
    expect(await one.exited).toBe(0);
    expect(await never.exited).toBe(0);
  });

  it('never prints the API key: the example reads it from $STRATA_API_KEY, and works with it', async () => {
    const KEY = 'k-7d1f0c5e-never-printed';
    const s = await serveChild([ix.l2, '--name', 'things', '--no-grpc', '--log-level', 'info', '--memory', 'emulate', '--search-threads', '0'], {
      STRATA_API_KEY: KEY,
    });
    try {
      const out = s.stdout();
      const curl = /^curl .* -X POST (\S+) .* -H "api-key: \$STRATA_API_KEY" -d '(.*)'$/m.exec(out)!;
      expect(curl).not.toBeNull();
      expect(out).toMatch(/^try \(with STRATA_API_KEY set to the key in your shell\):$/m);
      // The example as a shell would run it, with the key from the environment.
      const r = await http(s.rest, 'POST', '/collections/things/points/search', JSON.parse(curl[2]!), { headers: { 'api-key': KEY } });
      expect(r.status).toBe(200);
      expect((await http(s.rest, 'POST', '/collections/things/points/search', JSON.parse(curl[2]!))).status).toBe(401);
    } finally {
      s.child.kill('SIGTERM');
    }
    expect(await s.exited).toBe(0);
    expect(s.stdout() + s.stderr()).not.toContain(KEY);
  });

  it('fails closed: an empty key is an error naming where it came from, and 0.0.0.0 needs a key or --insecure-no-auth', () => {
    const run = (args: string[], env: Record<string, string | undefined>): { status: number | null; stderr: string } => {
      const r = spawnSync(process.execPath, [BIN, 'serve', ix.l2, '--port', '0', '--no-grpc', '--no-qdrant-grpc', '--memory', 'emulate', ...args], {
        cwd: ROOT,
        encoding: 'utf8',
        env: { ...process.env, STRATA_API_KEY: undefined, ...env },
        timeout: 60_000,
      });
      return { status: r.status, stderr: r.stderr };
    };
    const emptyEnv = run([], { STRATA_API_KEY: '' });
    expect(emptyEnv.status).toBe(2);
    expect(emptyEnv.stderr).toMatch(/STRATA_INVALID_ARGUMENT: STRATA_API_KEY: is set but empty/);
    const emptyFlag = run(['--api-key', ''], {});
    expect(emptyFlag.status).toBe(2);
    expect(emptyFlag.stderr).toMatch(/STRATA_INVALID_ARGUMENT: --api-key: is set but empty/);
    const blank = run(['--api-key', '   '], { STRATA_API_KEY: 'a-real-key' });
    expect(blank.stderr).toMatch(/--api-key: is set but empty/);
    const open = run(['--host', '0.0.0.0'], {});
    expect(open.status).toBe(2);
    expect(open.stderr).toMatch(/--host: 0\.0\.0\.0 takes connections from other machines and no API key is set: .*--insecure-no-auth/);
    const open6 = run(['--host', '::'], {});
    expect(open6.stderr).toMatch(/--host: :: takes connections from other machines/);
  });

  it("serves Qdrant's gRPC API by default, on Qdrant's port unless told, beside strata.v1; each can be turned off", async () => {
    // Qdrant's clients default to 6334 for gRPC: Strata's defaults must leave them unchanged.
    expect(resolveOptions({})).toMatchObject({ port: 6333, qdrantGrpcPort: 6334, grpcPort: 6335 });
    const both = await serveChild([ix.l2, '--name', 'things', '--log-level', 'warn', '--memory', 'emulate', '--search-threads', '0']);
    try {
      expect(both.qdrantGrpc).toMatch(/^127\.0\.0\.1:\d+$/);
      expect(both.grpc).toMatch(/^127\.0\.0\.1:\d+$/);
      expect(both.qdrantGrpc).not.toBe(both.grpc);
      const [host, port] = both.qdrantGrpc!.split(':');
      const client = new QdrantGrpcClient({ host: host!, port: Number(port), checkCompatibility: false });
      const info = await client.api('collections').get({ collectionName: 'things' });
      expect(Number(info.result?.pointsCount)).toBe(2000);
    } finally {
      both.child.kill('SIGTERM');
    }
    expect(await both.exited).toBe(0);
    const neither = await serveChild([ix.l2, '--name', 'things', '--log-level', 'warn', '--memory', 'emulate', '--no-grpc', '--no-qdrant-grpc']);
    try {
      expect(neither.qdrantGrpc).toBeNull();
      expect(neither.grpc).toBeNull();
      expect(neither.stdout()).toMatch(/^Qdrant gRPC {2}disabled$/m);
      expect(neither.stdout()).toMatch(/^gRPC {2}disabled$/m);
    } finally {
      neither.child.kill('SIGTERM');
    }
    expect(await neither.exited).toBe(0);
  });

  it('drains and exits 0 on a SIGTERM sent the moment it prints its addresses, as a supervisor may', async () => {
    // The race is narrow: a few starts make a handler installed after the addresses fail.
    for (let i = 0; i < 4; i++) {
      const s = await serveChild([
        ix.l2,
        '--name',
        'things',
        '--log-level',
        'warn',
        '--memory',
        'emulate',
        '--search-threads',
        '0',
        '--no-grpc',
        '--no-qdrant-grpc',
      ]);
      s.child.kill('SIGTERM');
      expect(await s.exited, `start ${i}: ${s.stderr()}`).toBe(0);
      expect(s.stderr()).toMatch(/SIGTERM, draining/);
    }
  });

  it('refuses a --name count that does not match the directories, naming the option', () => {
    const r = strata(['serve', ix.l2, ix.l2, '--name', 'one', '--port', '0', '--no-grpc', '--no-qdrant-grpc']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/STRATA_INVALID_ARGUMENT: --name given 1 times for 2 index directories/);
  });

  it('refuses --demo together with index directories', () => {
    const r = strata(['serve', ix.l2, '--demo', '--port', '0', '--no-grpc', '--no-qdrant-grpc']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--demo serves the embedded dataset/);
  });
});
