// The OpenAPI document against the real server: docs/openapi.json is what server/openapi/document.ts
// generates, every operation it describes is a route the server answers with one of the statuses the
// document lists for it, and every REST route the server registers is described. Adding a route
// without documenting it (or documenting one the server does not have) fails here.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../engine/engine.js';
import { openApiDocument } from '../../server/openapi/document.js';
import { buildIndexes, here, http, openEngine, startServer, type Indexes, type Running } from './fixture.js';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
const METHODS: ReadonlySet<string> = new Set(['GET', 'POST', 'PUT', 'DELETE', 'PATCH']);

interface Operation {
  method: Method;
  /** OpenAPI form: /collections/{collection_name}. */
  path: string;
  statuses: string[];
}

interface Doc {
  paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
}

function documented(doc: Doc): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const m = method.toUpperCase();
      if (METHODS.has(m)) ops.push({ method: m as Method, path, statuses: Object.keys(op.responses) });
    }
  }
  return ops;
}

/** fastify's route form (/collections/:collection_name) into OpenAPI's. */
const openApiPath = (url: string): string => url.replace(/:(\w+)/g, '{$1}');

/**
 * The routes fastify registered, read back from its route tree (`printRoutes`): each line is one
 * node, its depth given by the tree drawing, its text the path segment below its parent and, when a
 * route ends there, its methods.
 */
function registered(tree: string): Array<{ method: string; path: string }> {
  const routes: Array<{ method: string; path: string }> = [];
  const prefixes: string[] = [];
  for (const line of tree.split('\n')) {
    const m = /^([│├└─\s]*?)(?:[├└]── )(.*?)(?: \(([^)]*)\))?$/u.exec(line);
    if (!m) continue;
    const depth = Math.floor((m[1] ?? '').length / 4);
    const path = (prefixes[depth - 1] ?? '') + (m[2] ?? '');
    prefixes[depth] = path;
    prefixes.length = depth + 1;
    for (const method of (m[3] ?? '').split(',').map((s) => s.trim())) {
      if (METHODS.has(method)) routes.push({ method, path: openApiPath(path) });
    }
  }
  return routes;
}

/** A concrete URL for a documented path: an unknown collection, so that no request changes state. */
const concrete = (path: string): string =>
  path.replace('{collection_name}', 'no-such-collection').replace('{id}', '1').replace('{snapshot_name}', 'none.snapshot').replace('{field_name}', 'f');

let ix: Indexes;
let engine: Engine;
let srv: Running;

beforeAll(async () => {
  ix = await buildIndexes();
  engine = await openEngine(ix, { dataDir: ix.tmp.path('data') });
  srv = await startServer(engine);
});

afterAll(async () => {
  await srv?.close();
  await engine?.close();
  ix?.tmp.cleanup();
});

describe('the OpenAPI document', () => {
  it('checked in as docs/openapi.json equals what server/openapi/document.ts generates', () => {
    const file = JSON.parse(readFileSync(here('..', '..', 'docs', 'openapi.json'), 'utf8')) as unknown;
    expect(file).toEqual(JSON.parse(JSON.stringify(openApiDocument())));
  });

  it('describes only routes the server registers', () => {
    const routes = new Set(registered(srv.server.rest.printRoutes({ commonPrefix: false })).map((r) => `${r.method} ${r.path}`));
    const missing = documented(openApiDocument() as unknown as Doc)
      .map((o) => `${o.method} ${o.path}`)
      .filter((o) => !routes.has(o));
    expect(missing).toEqual([]);
  });

  it('describes every route the server registers', () => {
    const ops = new Set(documented(openApiDocument() as unknown as Doc).map((o) => `${o.method} ${o.path}`));
    const routes = registered(srv.server.rest.printRoutes({ commonPrefix: false }));
    expect(routes.length).toBeGreaterThan(10);
    const undocumented = routes.map((r) => `${r.method} ${r.path}`).filter((r) => !ops.has(r));
    expect(undocumented).toEqual([]);
  });

  it('lists, for every operation, the status the server answers it with', async () => {
    const wrong: string[] = [];
    for (const op of documented(openApiDocument() as unknown as Doc)) {
      const body = op.method === 'GET' || op.method === 'DELETE' ? undefined : {};
      const r = await http(srv.url, op.method, concrete(op.path), body);
      const routeMissing = r.text.includes('no endpoint');
      if (routeMissing || !op.statuses.includes(String(r.status))) wrong.push(`${op.method} ${op.path}: ${r.status} ${r.text.slice(0, 120)}`);
    }
    expect(wrong).toEqual([]);
  });
});
