// deploy/k8s/strata-shards.yaml against the server it deploys: every probe hits a path the server
// serves without an API key, on the port the container serves it on; and since the pods bind
// 0.0.0.0, the API key's secret is required (a missing secret must not start an open server).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { DEFAULT_ANSWER_LIMIT, resolveOptions } from '../../server/options.js';
import { HEALTH_PATHS } from '../../server/rest/routes/health.js';
import { ROOT } from '../helpers/cli.js';
import { grpcClients, http, servedSuite, unary } from './fixture.js';

interface Port {
  name?: string;
  containerPort?: number;
  port?: number;
}
interface Probe {
  httpGet?: { path: string; port: string | number };
  grpc?: { port: number; service?: string };
  tcpSocket?: unknown;
  exec?: unknown;
}
interface Container {
  name: string;
  command?: string[];
  args?: string[];
  env?: Array<{ name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } } }>;
  ports?: Port[];
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  startupProbe?: Probe;
}
interface Doc {
  kind: string;
  spec: { ports?: Port[]; template?: { spec: { containers: Container[] } } };
}

const docs = parseAllDocuments(readFileSync(`${ROOT}/deploy/k8s/strata-shards.yaml`, 'utf8')).map((d) => d.toJS() as Doc);
const set = docs.find((d) => d.kind === 'StatefulSet')!;
const container = set.spec.template!.spec.containers.find((c) => c.name === 'strata')!;
const commandLine = [...(container.command ?? []), ...(container.args ?? [])].join(' ');

/** The value of a `--flag value` in the container's command line, or undefined. */
function flag(name: string): string | undefined {
  return new RegExp(`${name}[ =](\\S+)`).exec(commandLine)?.[1];
}

function containerPort(ref: string | number): number {
  if (typeof ref === 'number') return ref;
  const p = container.ports?.find((x) => x.name === ref);
  if (!p?.containerPort) throw new Error(`probe port "${ref}" is not a named container port`);
  return p.containerPort;
}

const probes = (['readinessProbe', 'livenessProbe', 'startupProbe'] as const).flatMap((k) => (container[k] ? [[k, container[k]] as const] : []));

// The real server, run with a key.
const t = servedSuite({ server: { apiKey: 'manifest-test-key' } });

describe('deploy/k8s/strata-shards.yaml', () => {
  it('probes only paths the server answers without a key, on the ports it serves them on', async () => {
    expect(commandLine).toMatch(/strata\.js serve /);
    expect(probes.map(([k]) => k)).toEqual(expect.arrayContaining(['readinessProbe', 'livenessProbe']));
    const restPort = Number(flag('--port') ?? resolveOptions({}).port);
    const grpcPort = Number(flag('--grpc-port') ?? resolveOptions({}).grpcPort);
    for (const [kind, probe] of probes) {
      if (probe.httpGet) {
        expect(HEALTH_PATHS as readonly string[], kind).toContain(probe.httpGet.path);
        expect(containerPort(probe.httpGet.port), kind).toBe(restPort);
        // The real server, run with a key, answers the probe without one.
        const r = await http(t.srv.url, 'GET', probe.httpGet.path);
        expect(r.status, `${kind} ${probe.httpGet.path}`).toBe(200);
      } else if (probe.grpc) {
        expect(probe.grpc.port, kind).toBe(grpcPort);
        const c = grpcClients(t.srv.addr.grpc!);
        try {
          expect(await unary(c.health, 'Check', { service: probe.grpc.service ?? '' })).toEqual({ status: 'SERVING' });
        } finally {
          c.close();
        }
      } else {
        throw new Error(`${kind}: only httpGet and grpc probes are checked here`);
      }
    }
    // The Service exposes the same ports under the same names.
    const service = docs.find((d) => d.kind === 'Service')!;
    for (const p of service.spec.ports ?? []) expect(containerPort(p.name!)).toBe(p.port);
    // Both gRPC APIs are exposed on the ports the pod serves them on.
    expect(containerPort('grpc')).toBe(grpcPort);
    expect(containerPort('qdrant-grpc')).toBe(Number(flag('--qdrant-grpc-port') ?? resolveOptions({}).qdrantGrpcPort));
  });

  it('binds every interface, so it requires the API key secret and does not opt out of authentication', () => {
    const host = flag('--host') ?? '127.0.0.1';
    expect(host).toBe('0.0.0.0');
    expect(commandLine).not.toContain('--insecure-no-auth');
    // The server refuses exactly this without a key: a missing secret must stop the pod, not open it.
    expect(() => resolveOptions({ host })).toThrow(/no API key is set/);
    const key = container.env?.find((e) => e.name === 'STRATA_API_KEY');
    expect(key?.valueFrom?.secretKeyRef).toBeDefined();
    expect(key!.valueFrom!.secretKeyRef!.optional).not.toBe(true);
    expect(commandLine).not.toMatch(/--api-key/);
    // Limits that matter to the probes: the default answer bound is in force (no --answer-limit).
    expect(flag('--answer-limit') ?? String(DEFAULT_ANSWER_LIMIT)).toBe(String(DEFAULT_ANSWER_LIMIT));
  });

  it('keeps the systemd unit fail-closed too', () => {
    const unit = readFileSync(`${ROOT}/deploy/systemd/strata.service`, 'utf8');
    const exec = /^ExecStart=((?:.*\\\n)*.*)$/m.exec(unit)![1]!;
    expect(exec).toMatch(/strata\.js serve/);
    expect(exec).toMatch(/--host 0\.0\.0\.0/);
    expect(exec).not.toContain('--insecure-no-auth');
    expect(exec).not.toMatch(/--api-key/);
    expect(unit).toMatch(/^EnvironmentFile=-?\/etc\/strata\/env$/m);
  });
});
