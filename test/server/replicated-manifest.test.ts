// deploy/k8s/strata-replicated.yaml against `strata serve`, `strata router` and itself: the shard
// replicas run flags the command takes and follow their own shard's stream on every NATS server of
// the StatefulSet; the router's shard groups name every replica pod of every shard in order and it
// sends writes to replicas (--replicated-writes); the NATS routes name every NATS pod; the
// disruption budgets select the pods they protect.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { BIN, ROOT } from '../helpers/cli.js';

interface Container {
  command?: string[];
  args?: string[];
  ports: Array<{ name: string; containerPort: number }>;
  volumeMounts?: Array<{ name: string; mountPath: string; readOnly?: boolean }>;
}
interface Doc {
  kind: string;
  metadata: { name: string };
  data?: Record<string, string>;
  spec: {
    replicas?: number;
    serviceName?: string;
    selector?: { matchLabels: Record<string, string> };
    ports?: Array<{ name: string; port: number }>;
    template?: { metadata: { labels: Record<string, string> }; spec: { containers: Container[] } };
  };
}

const docs = parseAllDocuments(readFileSync(`${ROOT}/deploy/k8s/strata-replicated.yaml`, 'utf8')).map((d) => d.toJS() as Doc);
const sets = docs.filter((d) => d.kind === 'StatefulSet');
const nats = sets.find((d) => d.metadata.name === 'strata-nats')!;
const natsService = docs.find((d) => d.kind === 'Service' && d.metadata.name === nats.spec.serviceName)!;
const shardSets = sets.filter((d) => d !== nats).sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
const router = docs.find((d) => d.kind === 'Deployment')!;
const routerCommand = router.spec.template!.spec.containers[0]!.command!;
const flag = (command: string[], name: string): string | undefined => (command.includes(name) ? command[command.indexOf(name) + 1] : undefined);
const portOf = (service: Doc, name: string): number => service.spec.ports!.find((p) => p.name === name)!.port;
const help = (command: string): string => execFileSync(process.execPath, [BIN, command, '--help'], { encoding: 'utf8' });

describe('deploy/k8s/strata-replicated.yaml', () => {
  it('runs each shard as replicas of strata serve following its own stream on every NATS server, with flags the command takes', () => {
    expect(shardSets.length).toBeGreaterThanOrEqual(2);
    const serveHelp = help('serve');
    const clientPort = portOf(natsService, 'client');
    const natsUrls = Array.from({ length: nats.spec.replicas! }, (_, i) => `nats://${nats.metadata.name}-${i}.${nats.spec.serviceName}:${clientPort}`);
    shardSets.forEach((set, shard) => {
      expect(set.spec.replicas, set.metadata.name).toBeGreaterThanOrEqual(2);
      const c = set.spec.template!.spec.containers[0]!;
      const command = c.command!;
      expect(command.slice(0, 4)).toEqual(['node', '/opt/strata/bin/strata.js', 'serve', `/indexes/shard-${shard}`]);
      for (const f of command.filter((a) => a.startsWith('--'))) expect(serveHelp, f).toContain(f);
      expect(flag(command, '--write-log')!.split(',')).toEqual(natsUrls);
      expect(flag(command, '--write-log-stream')).toBe(`strata-shard-${shard}`);
      expect(Number(flag(command, '--write-log-replicas'))).toBeLessThanOrEqual(nats.spec.replicas!);
      // The data directory (what a replica applied, where it resumes after a restart) is a writable volume.
      const data = c.volumeMounts!.find((m) => m.mountPath === flag(command, '--data-dir'));
      expect(data?.readOnly ?? false).toBe(false);
      expect(Number(flag(command, '--port'))).toBe(c.ports.find((p) => p.name === 'rest')!.containerPort);
    });
  });

  it('routes writes to any replica, and names every replica pod of every shard, in order, on its REST port', () => {
    const routerHelp = help('router');
    for (const f of routerCommand.filter((a) => a.startsWith('--'))) expect(routerHelp, f).toContain(f);
    expect(routerCommand).toContain('--replicated-writes');
    const groups = flag(routerCommand, '--shards')!
      .split(',')
      .map((g) => g.split('|'));
    expect(groups).toEqual(
      shardSets.map((set) => {
        const service = docs.find((d) => d.kind === 'Service' && d.metadata.name === set.spec.serviceName)!;
        return Array.from({ length: set.spec.replicas! }, (_, j) => `http://${set.metadata.name}-${j}.${set.spec.serviceName}:${portOf(service, 'rest')}`);
      }),
    );
  });

  it('clusters the NATS servers by routes naming every pod on the cluster port', () => {
    const conf = docs.find((d) => d.kind === 'ConfigMap')!.data!['nats.conf']!;
    const routes = [...conf.matchAll(/nats:\/\/([\w.-]+):(\d+)/g)].map((m) => `${m[1]}:${m[2]}`);
    const clusterPort = portOf(natsService, 'cluster');
    expect(routes).toEqual(Array.from({ length: nats.spec.replicas! }, (_, i) => `${nats.metadata.name}-${i}.${nats.spec.serviceName}:${clusterPort}`));
  });

  it('has a disruption budget selecting the pods of NATS and of every shard', () => {
    const pdbs = docs.filter((d) => d.kind === 'PodDisruptionBudget');
    const selects = (pdb: Doc, labels: Record<string, string>): boolean => Object.entries(pdb.spec.selector!.matchLabels).every(([k, v]) => labels[k] === v);
    for (const set of [nats, ...shardSets]) {
      const labels = set.spec.template!.metadata.labels;
      const own = pdbs.filter((p) => selects(p, labels));
      expect(own.length, set.metadata.name).toBe(1);
      // No budget of one shard selects another shard's pods.
      for (const other of shardSets.filter((s) => s !== set)) expect(selects(own[0]!, other.spec.template!.metadata.labels)).toBe(false);
    }
  });
});
