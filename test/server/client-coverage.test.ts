// docs/clients.md against the official clients and a real server: every method of
// @qdrant/js-client-rest's QdrantClient and every RPC of Qdrant's gRPC services is listed once; a
// "works" or "refused" row's proof is a test that calls it; every "not served" one answers 501
// STRATA_NOT_IMPLEMENTED (REST) or UNIMPLEMENTED (gRPC), saying why; every route the REST client
// can call is one Strata serves or answers that way. It also calls the methods whose row names this
// test as their proof.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, sep } from 'node:path';
import { ConnectError, ConnectErrorCode } from '@qdrant/js-client-grpc';
import { QdrantClient } from '@qdrant/js-client-rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { qdrantServices, snapshotsService } from '../../server/grpc/qdrant/descriptors.js';
import { NOT_SERVED } from '../../server/rest/routes/not-served.js';
import { ROOT } from '../helpers/cli.js';
import { type QdrantServed, serveForQdrantClients } from './qdrant-served.js';

interface Row {
  name: string;
  status: 'works' | 'refused' | 'not served';
  proof: string;
}

/** The rows of the table under `heading` in docs/clients.md. */
function rows(heading: string): Row[] {
  const doc = readFileSync(join(ROOT, 'docs', 'clients.md'), 'utf8');
  const section = doc.slice(doc.indexOf(heading));
  const table = section.slice(0, section.indexOf('\n\n', section.indexOf('|')) + 1);
  return [...table.matchAll(/^\| `([^`]+)` \| (works|refused|not served) \| (.*) \|$/gm)].map((m) => ({
    name: m[1]!,
    status: m[2] as Row['status'],
    proof: m[3]!,
  }));
}

const restRows = rows('## REST');
const grpcRows = rows('## gRPC');
const restMethods = Object.getOwnPropertyNames(QdrantClient.prototype).filter((n) => n !== 'constructor' && n !== 'api');
const { qdrant, collections, points } = qdrantServices();
const services = [qdrant, collections, points, snapshotsService()];
const rpcs = services.flatMap((s) => s.methods.map((m) => `${s.typeName}/${m.name}`));

/** The test files a proof cell links to. */
const proofFiles = (proof: string): string[] => [...proof.matchAll(/\(\.\.\/test\/server\/([\w.-]+)\)/g)].map((m) => m[1]!);

let served: QdrantServed;
let client: QdrantClient;
const NAME = 'coverage';

beforeAll(async () => {
  served = await serveForQdrantClients('strata-client-coverage-');
  client = served.rest;
  await client.createCollection(NAME, { vectors: { size: 3, distance: 'Cosine' } });
  await client.upsert(NAME, { wait: true, points: Array.from({ length: 20 }, (_, i) => ({ id: i, vector: [1, i, i % 3] })) });
}, 60_000);

afterAll(async () => {
  await served?.close();
});

describe('docs/clients.md', () => {
  it('lists every method of the REST client and every RPC of the gRPC services, once', () => {
    expect(restRows.map((r) => r.name).sort()).toEqual([...restMethods].sort());
    expect(grpcRows.map((r) => r.name).sort()).toEqual([...rpcs].sort());
  });

  it('names, for every method that works or is refused, a test that calls it', () => {
    for (const r of restRows.filter((x) => x.status !== 'not served')) {
      const files = proofFiles(r.proof);
      expect(files.length, r.name).toBeGreaterThan(0);
      for (const f of files) expect(readFileSync(join(ROOT, 'test', 'server', f), 'utf8'), `${r.name} in ${f}`).toContain(`.${r.name}(`);
    }
    for (const r of grpcRows.filter((x) => x.status !== 'not served')) {
      const method = r.name.split('/')[1]!;
      const call = `.${method[0]!.toLowerCase()}${method.slice(1)}(`;
      const files = proofFiles(r.proof);
      expect(files.length, r.name).toBeGreaterThan(0);
      for (const f of files) expect(readFileSync(join(ROOT, 'test', 'server', f), 'utf8'), `${r.name} in ${f}`).toContain(call);
    }
  });
});

describe('the official clients against strata serve', () => {
  it('answers every REST method marked "not served" 501, saying why', async () => {
    const calls: Record<string, () => Promise<unknown>> = {
      updateCollectionCluster: () => client.updateCollectionCluster(NAME, { move_shard: { shard_id: 0, from_peer_id: 1, to_peer_id: 2 } }),
      listFullSnapshots: () => client.listFullSnapshots(),
      createFullSnapshot: () => client.createFullSnapshot(),
      deleteFullSnapshot: () => client.deleteFullSnapshot('x'),
      recoverShardFromSnapshot: () => client.recoverShardFromSnapshot(NAME, 0, { location: 'file:///x' }),
      listShardSnapshots: () => client.listShardSnapshots(NAME, 0),
      createShardSnapshot: () => client.createShardSnapshot(NAME, 0, {}),
      deleteShardSnapshot: () => client.deleteShardSnapshot(NAME, 0, 'x', {}),
      listShardKeys: () => client.listShardKeys(NAME),
      createShardKey: () => client.createShardKey(NAME, { shard_key: 'k' }),
      deleteShardKey: () => client.deleteShardKey(NAME, { shard_key: 'k' }),
      clusterTelemetry: () => client.clusterTelemetry(),
      getOptimizations: () => client.getOptimizations(NAME),
    };
    const notServed = restRows.filter((r) => r.status === 'not served').map((r) => r.name);
    expect(Object.keys(calls).sort()).toEqual([...notServed].sort());
    for (const [name, call] of Object.entries(calls)) {
      const e = (await call().then(
        () => null,
        (x: unknown) => x,
      )) as { status?: number; data?: { status?: { error?: string } } } | null;
      expect(e?.status, name).toBe(501);
      expect(e?.data?.status?.error, name).toMatch(/is not run by Strata: .+/);
    }
  });

  it('answers every RPC marked "not served" UNIMPLEMENTED', async () => {
    const grpc = served.grpc;
    const calls: Record<string, () => Promise<unknown>> = {
      'qdrant.Collections/UpdateCollectionClusterSetup': () => grpc.api('collections').updateCollectionClusterSetup({ collectionName: NAME }),
      'qdrant.Collections/CreateShardKey': () => grpc.api('collections').createShardKey({ collectionName: NAME }),
      'qdrant.Collections/DeleteShardKey': () => grpc.api('collections').deleteShardKey({ collectionName: NAME }),
      'qdrant.Collections/ListShardKeys': () => grpc.api('collections').listShardKeys({ collectionName: NAME }),
      'qdrant.Snapshots/CreateFull': () => grpc.api('snapshots').createFull({}),
      'qdrant.Snapshots/ListFull': () => grpc.api('snapshots').listFull({}),
      'qdrant.Snapshots/DeleteFull': () => grpc.api('snapshots').deleteFull({ snapshotName: 'x' }),
    };
    expect(Object.keys(calls).sort()).toEqual(
      grpcRows
        .filter((r) => r.status === 'not served')
        .map((r) => r.name)
        .sort(),
    );
    for (const [name, call] of Object.entries(calls)) {
      const e = await call().then(
        () => null,
        (x: unknown) => x,
      );
      expect(e instanceof ConnectError ? e.code : e, name).toBe(ConnectErrorCode.Unimplemented);
    }
  });

  it('serves, or answers 501, every route the REST client can call', async () => {
    // The client's own route table: its package's generated API client, beside its entry point.
    const entry = createRequire(import.meta.url).resolve('@qdrant/js-client-rest');
    const dist = entry.slice(0, entry.lastIndexOf(`${sep}dist${sep}`) + 5);
    const api = readFileSync(join(dist, 'esm', 'openapi', 'generated_api_client.js'), 'utf8');
    const routes = [...api.matchAll(/\.path\('([^']+)'\)\s*\.method\('(\w+)'\)/g)].map((m) => `${m[2]!.toUpperCase()} ${m[1]!}`);
    expect(routes.length).toBeGreaterThan(60);
    const doc = JSON.parse(readFileSync(join(ROOT, 'docs', 'openapi.json'), 'utf8')) as { paths: Record<string, Record<string, unknown>> };
    const documented = new Set(Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`)));
    const missing = routes.filter((r) => !documented.has(r));
    expect(missing).toEqual([]);
    const refused = new Set(NOT_SERVED.map((r) => `${r.method} ${r.url.replace(/:(\w+)/g, '{$1}')}`));
    for (const r of refused) expect(routes, r).toContain(r);
  });

  it('runs the methods whose proof is this test: versionInfo, collectionClusterInfo, recommend_batch, discoverBatchPoints, recreateCollection', async () => {
    expect((await client.versionInfo()).version).toMatch(/^\d+\.\d+\.\d+$/);
    const cluster = await client.collectionClusterInfo(NAME);
    expect(cluster).toMatchObject({ shard_count: 1, local_shards: [{ shard_id: 0, points_count: 20, state: 'Active' }], remote_shards: [] });
    const viaAlias = await client.recommend_batch(NAME, { searches: [{ positive: [1], limit: 3 }] });
    expect(viaAlias).toEqual(await client.recommendBatch(NAME, { searches: [{ positive: [1], limit: 3 }] }));
    expect(viaAlias[0]).toHaveLength(3);
    const discovered = await client.discoverBatchPoints(NAME, {
      searches: [{ target: 4, context: [{ positive: 5, negative: 6 }], limit: 2, params: { exact: true } }],
    });
    expect(discovered[0]).toHaveLength(2);
    await client.recreateCollection('again', { vectors: { size: 2, distance: 'Dot' } });
    await client.upsert('again', { wait: true, points: [{ id: 1, vector: [1, 0] }] });
    await client.recreateCollection('again', { vectors: { size: 2, distance: 'Dot' } });
    expect((await client.count('again')).count).toBe(0);
  });
});
