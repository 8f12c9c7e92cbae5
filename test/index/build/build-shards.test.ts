import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isStrataError } from '../../../common/errors.js';
import { bruteForceKnn, generateClustered } from '../../../datasets/index.js';
import { writeFvecs } from '../../../datasets/writers.js';
import { buildIndex } from '../../../index/build/build-index.js';
import { buildShards, readShardMap, SHARD_MAP_FILE, shardOf } from '../../../index/build/build-shards.js';
import { openIndex } from '../../../index/open-index.js';
import { runBatch } from '../../../index/search/batch.js';
import { jsonLine, strata } from '../../helpers/cli.js';
import { makeTempDir, type TempDir, thrown } from '../../helpers/temp.js';

const dim = 16;
const set = generateClustered({ count: 3000, dim, clusters: 10, seed: 8 }, 50);
let tmp: TempDir;
let input: string;
const build = { m: 12, efConstruction: 80, profileSamples: 100, dramBudget: '30%' };

beforeAll(async () => {
  tmp = makeTempDir();
  input = tmp.path('base.fvecs');
  await writeFvecs(input, set.base, dim);
});
afterAll(() => tmp.cleanup());

/** k nearest over all shards: each shard's top k by distance, merged (what a router does). */
function searchShards(dirs: string[], k: number, ef: number): Float64Array {
  const parts = dirs.map((d) => {
    const { index } = openIndex(d, { mode: 'emulate' });
    return runBatch(index, set.queries, { k, ef });
  });
  const nq = set.queries.length / dim;
  const out = new Float64Array(nq * k);
  for (let q = 0; q < nq; q++) {
    const all: Array<[number, number]> = [];
    for (const p of parts) for (let j = 0; j < k; j++) if (p.labels[q * k + j]! >= 0) all.push([p.distances[q * k + j]!, p.labels[q * k + j]!]);
    all.sort((a, b) => a[0] - b[0]);
    for (let j = 0; j < k; j++) out[q * k + j] = all[j]?.[1] ?? -1;
  }
  return out;
}

function recall(labels: Float64Array, k: number): number {
  const gt = bruteForceKnn(set.base, set.queries, dim, k, 'l2');
  let hit = 0;
  const nq = set.queries.length / dim;
  for (let q = 0; q < nq; q++) {
    const want = new Set(Array.from(gt.ids.subarray(q * k, q * k + k)));
    for (let j = 0; j < k; j++) if (want.has(labels[q * k + j]!)) hit++;
  }
  return hit / (nq * k);
}

describe('strata build --shards', () => {
  it('splits the rows by id hash into shard indexes that carry global ids, with a checked shard map', async () => {
    const out = tmp.path('sharded');
    const r = await buildShards({ input, out, shards: 3, ...build });
    const map = readShardMap(out);
    expect(map.shards.map((s) => s.dir)).toEqual(['shard-0', 'shard-1', 'shard-2']);
    expect(map.shards.reduce((a, s) => a + s.count, 0)).toBe(3000);
    expect(r.shards.map((s) => s.count)).toEqual(map.shards.map((s) => s.count));
    // Every row is in exactly the shard its id hashes to, under its global id.
    const seen = new Set<number>();
    for (const s of map.shards) {
      const { index } = openIndex(join(out, s.dir), { mode: 'emulate' });
      for (const id of index.labels) {
        expect(shardOf(id, 3)).toBe(s.shard);
        expect(seen.has(id)).toBe(false);
        seen.add(id);
      }
    }
    expect(seen.size).toBe(3000);
    // Merged top-k over the shards finds what one index over all the rows finds, at the same ef.
    const single = tmp.path('single');
    await buildIndex({ input, out: single, ...build });
    const { index } = openIndex(single, { mode: 'emulate' });
    const one = recall(runBatch(index, set.queries, { k: 10, ef: 48 }).labels, 10);
    const merged = recall(
      searchShards(
        map.shards.map((s) => join(out, s.dir)),
        10,
        48,
      ),
      10,
    );
    expect(merged).toBeGreaterThanOrEqual(one - 0.01);
  });

  it('refuses a damaged shard map or a changed shard, and replaces only a shard set with --force', async () => {
    const out = tmp.path('damaged');
    await buildShards({ input, out, shards: 2, ...build });
    const file = join(out, SHARD_MAP_FILE);
    const text = readFileSync(file, 'utf8');
    writeFileSync(
      file,
      text.replace(/"count": (\d+)/, (_, n) => `"count": ${Number(n) + 1}`),
    );
    expect(
      isStrataError(
        thrown(() => readShardMap(out)),
        'STRATA_INDEX_CORRUPT',
      ),
    ).toBe(true);
    writeFileSync(file, text);
    const manifest = join(out, 'shard-1', 'manifest.json');
    writeFileSync(manifest, readFileSync(manifest, 'utf8').replace('"name"', '"name" '));
    expect((thrown(() => readShardMap(out)) as Error).message).toMatch(/shard 1: .* does not match the map/);
    // --force replaces a shard set; it refuses anything else.
    await expect(buildShards({ input, out, shards: 2, ...build })).rejects.toMatchObject({ code: 'STRATA_INDEX_EXISTS' });
    await buildShards({ input, out, shards: 2, force: true, ...build });
    expect(readShardMap(out).shards).toHaveLength(2);
    await expect(buildShards({ input, out: tmp.dir, shards: 2, force: true, ...build })).rejects.toMatchObject({ code: 'STRATA_INDEX_EXISTS' });
  });

  it('is reachable from the CLI, which names a bad shard count', () => {
    const out = tmp.path('cli');
    const r = strata(['build', input, '-o', out, '--shards', '2', '--m', '12', '--ef-construction', '60', '--profile-samples', '50', '--json']);
    expect(r.status).toBe(0);
    const j = jsonLine<{ map: { shards: unknown[]; count: number } }>(r);
    expect(j.map.shards).toHaveLength(2);
    expect(j.map.count).toBe(3000);
    const bad = strata(['build', input, '-o', tmp.path('bad'), '--shards', '1']);
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toMatch(/--shards/);
  });
});
