// deploy/k8s/strata-router.yaml against `strata router` and the shard StatefulSet: the flags are
// ones the command takes, the shard URLs name every shard pod of the StatefulSet in ordinal order
// on its REST port, the probes hit paths the router answers without an API key, and each
// PodDisruptionBudget selects the pods it is meant to protect.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { buildRouter, type StrataRouter } from '../../server/router/router-server.js';
import { BIN, ROOT } from '../helpers/cli.js';
import { http, servedSuite } from './fixture.js';

interface Doc {
  kind: string;
  metadata: { name: string };
  spec: {
    replicas?: number;
    serviceName?: string;
    selector?: { matchLabels: Record<string, string> };
    ports?: Array<{ name: string; port: number }>;
    template?: {
      metadata: { labels: Record<string, string> };
      spec: { containers: Array<{ command: string[]; ports: Array<{ name: string; containerPort: number }>; readinessProbe: Probe; livenessProbe: Probe }> };
    };
  };
}
interface Probe {
  httpGet: { path: string; port: string };
}

const load = (file: string): Doc[] => parseAllDocuments(readFileSync(`${ROOT}/deploy/k8s/${file}`, 'utf8')).map((d) => d.toJS() as Doc);
const shardDocs = load('strata-shards.yaml');
const routerDocs = load('strata-router.yaml');
const set = shardDocs.find((d) => d.kind === 'StatefulSet')!;
const shardService = shardDocs.find((d) => d.kind === 'Service')!;
const deployment = routerDocs.find((d) => d.kind === 'Deployment')!;
const container = deployment.spec.template!.spec.containers[0]!;
const command = container.command;
const flagValue = (name: string): string | undefined => command[command.indexOf(name) + 1];

// A shard server with a key, and a router in front of it with the same key (as in the manifest).
const KEY = 'router-manifest-key';
const t = servedSuite({ server: { apiKey: KEY } });
let router: StrataRouter;
let url: string;
beforeAll(async () => {
  router = buildRouter({
    shards: [[t.srv.url]],
    partial: 'fail',
    timeoutMs: 2000,
    hedgeMs: 50,
    apiKey: KEY,
    shardApiKey: KEY,
    bodyLimit: 1 << 20,
    logLevel: 'silent',
  });
  url = await router.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await router?.close();
});

describe('deploy/k8s/strata-router.yaml', () => {
  it('runs strata router with flags the command takes', () => {
    expect(command.slice(0, 3)).toEqual(['node', '/opt/strata/bin/strata.js', 'router']);
    const help = execFileSync(process.execPath, [BIN, 'router', '--help'], { encoding: 'utf8' });
    for (const f of command.filter((a) => a.startsWith('--'))) expect(help, f).toContain(f);
    expect(['fail', 'allow']).toContain(flagValue('--partial'));
    expect(Number(flagValue('--port'))).toBe(container.ports.find((p) => p.name === 'rest')!.containerPort);
    expect(Number(flagValue('--grpc-port'))).toBe(container.ports.find((p) => p.name === 'grpc')!.containerPort);
  });

  it('names every shard pod of the StatefulSet, in ordinal order, on its REST port', () => {
    const shards = flagValue('--shards')!.split(',');
    const restPort = shardService.spec.ports!.find((p) => p.name === 'rest')!.port;
    expect(shards).toEqual(Array.from({ length: set.spec.replicas! }, (_, i) => `http://${set.metadata.name}-${i}.${set.spec.serviceName}:${restPort}`));
  });

  it('probes paths the router answers without a key, while answering searches only with it', async () => {
    for (const probe of [container.readinessProbe, container.livenessProbe]) {
      expect(probe.httpGet.port).toBe('rest');
      expect((await http(url, 'GET', probe.httpGet.path)).status, probe.httpGet.path).toBe(200);
    }
    expect((await http(url, 'POST', '/collections/vectors/points/count', {})).status).toBe(401);
    const counted = await http(url, 'POST', '/collections/vectors/points/count', {}, { headers: { 'api-key': KEY } });
    expect(counted.status, counted.text).toBe(200);
  });

  it('has disruption budgets whose selectors match the shard and router pods', () => {
    const pdbs = routerDocs.filter((d) => d.kind === 'PodDisruptionBudget');
    const labelsOf = (d: Doc): Record<string, string> => d.spec.template!.metadata.labels;
    const selects = (pdb: Doc, labels: Record<string, string>): boolean => Object.entries(pdb.spec.selector!.matchLabels).every(([k, v]) => labels[k] === v);
    expect(pdbs.some((p) => selects(p, labelsOf(set)))).toBe(true);
    expect(pdbs.some((p) => selects(p, labelsOf(deployment)))).toBe(true);
  });
});
