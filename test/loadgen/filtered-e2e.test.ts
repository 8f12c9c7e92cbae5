// A filtered run against a real Strata server on a free loopback port: a generated set whose labels
// follow its clusters, upserted with its payloads into a live collection, payload indexes on every
// field, compacted; every family of its filters.json sent in Qdrant's REST search body. The load
// generator's recall and short answers must equal those of the same searches run in process
// through the engine (so the filter went over the wire and was judged on the same truth), and every
// answer that asked for stats must name the plan the server ran.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FilterCases, readFvecsMatrix, readPayloadLines, writeFilteredClusteredSet, type WrittenFilteredSet } from '../../datasets/index.js';
import { Engine } from '../../engine/engine.js';
import { readFilterCases } from '../../loadgen/filter-cases.js';
import { filteredGroundTruth } from '../../loadgen/filtered-truth.js';
import { runLoadgen } from '../../loadgen/index.js';
import { recallOfFilteredAnswers } from '../../loadgen/recall.js';
import { startServer, type Running } from '../server/fixture.js';
import { makeTempDir, type TempDir } from '../helpers/temp.js';
import { ensureLoadgenBuilt } from './built.js';

const N = 2000;
const DIM = 16;
const QUERIES = 20;
const K = 10;
const EF = 16;

let tmp: TempDir;
let set: WrittenFilteredSet;
let engine: Engine;
let server: Running;

beforeAll(async () => {
  ensureLoadgenBuilt();
  tmp = makeTempDir('strata-filtered-e2e-');
  set = await writeFilteredClusteredSet(tmp.path('set'), { count: N, dim: DIM, clusters: 10, seed: 8 }, QUERIES, K);
  const base = await readFvecsMatrix(set.base);
  const payloads = readPayloadLines(set.payloads, N);
  const cases = JSON.parse(readFileSync(set.filters, 'utf8')) as FilterCases;
  engine = await Engine.open([], { searchThreads: 0, memory: { mode: 'emulate' }, dataDir: tmp.path('data') });
  const c = await engine.createCollection({ name: 'labelled', dim: DIM, metric: 'l2', m: 8, efConstruction: 64 });
  await c.upsert(Array.from({ length: N }, (_, i) => ({ key: i, vector: base.data.slice(i * DIM, (i + 1) * DIM), payload: payloads[i]! })));
  for (const [field, spec] of Object.entries(cases.fields)) await c.createPayloadIndex(field, { type: spec.type });
  await engine.compact('labelled');
  server = await startServer(engine);
}, 120_000);

afterAll(async () => {
  await server?.close();
  await engine?.close();
  tmp?.cleanup();
});

describe('a filtered run against a real Strata server', () => {
  it("reports the engine's own filtered recall and short answers for every family, and the plans it ran", async () => {
    const report = await runLoadgen({
      url: server.url,
      collection: 'labelled',
      queries: set.query,
      base: set.base,
      payloads: set.payloads,
      filters: set.filters,
      ef: [EF],
      concurrency: [2],
      durationS: 30,
      maxRequests: QUERIES,
      warmup: 0,
      statsEvery: 1,
    });
    const cases = readFilterCases(set.filters, QUERIES);
    const base = await readFvecsMatrix(set.base);
    const q = await readFvecsMatrix(set.query);
    const truths = filteredGroundTruth({
      base: base.data,
      payloads: readPayloadLines(set.payloads, N),
      queries: q.data,
      dim: DIM,
      k: K,
      distance: 'Euclid',
      families: cases.families.map((f) => f.parsed),
      keys: cases.families.map((f) => f.json),
    });
    const c = engine.collection('labelled');
    for (const [i, fam] of cases.families.entries()) {
      const r = report.results[i]!;
      expect(r.filter!.family).toBe(fam.name);
      expect(r.errors).toEqual({});
      const ids: Float64Array[] = [];
      const scores: Float64Array[] = [];
      const plans: Record<string, number> = {};
      for (let j = 0; j < QUERIES; j++) {
        const a = await c.search({ vector: q.data.slice(j * DIM, (j + 1) * DIM), k: K, ef: EF, filter: fam.parsed[j]! });
        ids.push(Float64Array.from(a.hits, (h) => h.id));
        // Qdrant's Euclid score is the distance; hnswlib's is its square.
        scores.push(Float64Array.from(a.hits, (h) => Math.sqrt(h.distance)));
        plans[a.filter!.plan] = (plans[a.filter!.plan] ?? 0) + 1;
      }
      const inProcess = recallOfFilteredAnswers(truths[i]!.gt, truths[i]!.matched, K, ids, scores);
      expect(r.recall!.mean, fam.name).toBeCloseTo(inProcess.recall!.mean, 9);
      expect(r.filter!.shortAnswers, fam.name).toBe(inProcess.shortAnswers);
      expect(r.filter!.plans, fam.name).toEqual(plans);
    }
  }, 120_000);
});
