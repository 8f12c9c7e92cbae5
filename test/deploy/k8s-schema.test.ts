// Every Kubernetes manifest under deploy/k8s validates against the Kubernetes API schemas, offline
// (kubernetes-models: the OpenAPI schemas compiled to validators), so a typo in a field name's
// type or a missing required field fails CI instead of a cluster's apply.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { ROOT } from '../helpers/cli.js';

const K8S = join(ROOT, 'deploy', 'k8s');

interface K8sObject {
  apiVersion: string;
  kind: string;
  [field: string]: unknown;
}

type Validator = new (data: K8sObject) => { validate(): void };

/** The kubernetes-models class for an object's apiVersion and kind (core group: "v1"). */
async function modelFor(o: K8sObject): Promise<Validator> {
  const [group, version] = o.apiVersion.includes('/') ? o.apiVersion.split('/') : ['', o.apiVersion];
  const module = (await import(`kubernetes-models/${group ? `${group}/` : ''}${version}/${o.kind}`)) as Record<string, Validator>;
  const model = module[o.kind];
  if (!model) throw new Error(`no schema for ${o.apiVersion} ${o.kind}`);
  return model;
}

function objects(file: string): K8sObject[] {
  return parseAllDocuments(readFileSync(join(K8S, file), 'utf8'))
    .map((d) => d.toJS() as K8sObject | null)
    .filter((o): o is K8sObject => o !== null);
}

const files = readdirSync(K8S).filter((f) => /\.ya?ml$/.test(f));

describe('Kubernetes manifests', () => {
  it('are there to check', () => {
    expect(files.length).toBeGreaterThan(0);
    expect(files.flatMap(objects).length).toBeGreaterThan(1);
  });

  it.each(files)('%s: every object validates against its Kubernetes schema', async (file) => {
    for (const o of objects(file)) {
      const Model = await modelFor(o);
      expect(() => new Model(o).validate(), `${o.kind} ${String((o['metadata'] as { name?: string } | undefined)?.name)}`).not.toThrow();
    }
  });

  it('rejects a manifest with a wrong field type or a missing required field (the validator is live)', async () => {
    const set = files.flatMap(objects).find((o) => o.kind === 'StatefulSet')!;
    const Model = await modelFor(set);
    const spec = set['spec'] as Record<string, unknown>;
    expect(() => new Model({ ...set, spec: { ...spec, replicas: 'three' } }).validate()).toThrow(/replicas/);
    const { selector: _selector, ...noSelector } = spec;
    expect(() => new Model({ ...set, spec: noSelector }).validate()).toThrow(/selector/);
  });
});
