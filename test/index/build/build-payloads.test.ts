// buildIndex given payloads in memory (what a compaction has: the live points' payloads by label and
// the collection's payload indexes) writes them into the index's payload file; a shard set refuses
// them, since it splits the input's rows itself; a JSONL input without payloads gets no payload file.
import { payloadIndexSizing } from '../../../index/payload-index/index-bytes.js';
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateClustered } from '../../../datasets/index.js';
import { buildIndex } from '../../../index/build/build-index.js';
import { buildShards } from '../../../index/build/build-shards.js';
import { type BasePayload, readBasePayloads } from '../../../index/format/payload-file.js';
import { makeTempDir, rejected, type TempDir } from '../../helpers/temp.js';
import { StrataError } from '../../../common/errors.js';

const dim = 8;
const count = 300;
const set = generateClustered({ count, dim, clusters: 3, seed: 5 }, 1);
const ids = Float64Array.from({ length: count }, (_, i) => 50_000 + i);
const dataset = { file: 'compaction of c', format: 'fvecs' as const, dim, count, vectors: set.base, ids, metric: null };
const fast = { m: 8, efConstruction: 40, profileSamples: 20 };
let tmp: TempDir;

beforeAll(() => {
  tmp = makeTempDir('strata-build-payloads-');
});
afterAll(() => tmp?.cleanup());

describe('buildIndex with basePayloads', () => {
  it('writes the payloads by label and the indexes with their parameters, after any --index-field', async () => {
    const entries: BasePayload[] = Array.from({ length: count / 2 }, (_, i) => [ids[2 * i]!, { i, body: `word ${i}` }]);
    const out = tmp.path('compacted');
    const s = await buildIndex({
      input: dataset.file,
      out,
      dataset: { ...dataset, vectors: set.base.slice() },
      ...fast,
      indexFields: ['i:integer'],
      basePayloads: { entries, indexes: [{ field: 'body', params: { type: 'text', tokenizer: 'whitespace', lowercase: false } }] },
    });
    expect(s.payloads?.points).toBe(entries.length);
    // The planner set the two indexes' DRAM aside, measured over these payloads.
    expect(s.plan.dram.payloadIndexes).toBe(
      payloadIndexSizing(entries, [
        { field: 'i', params: { type: 'integer' } },
        { field: 'body', params: { type: 'text', tokenizer: 'whitespace', lowercase: false } },
      ]).bytes,
    );
    expect(s.plan.dram.payloadIndexes).toBeGreaterThan(0);
    expect(readBasePayloads(out)).toEqual({
      payloads: entries,
      indexes: [
        { field: 'i', params: { type: 'integer' } },
        { field: 'body', params: { type: 'text', tokenizer: 'whitespace', lowercase: false } },
      ],
    });
  });

  it('writes no payload file for a JSONL input whose rows carry no payload', async () => {
    const input = tmp.path('plain.jsonl');
    const rows = Array.from({ length: count }, (_, r) => JSON.stringify({ id: ids[r], vector: Array.from(set.base.subarray(r * dim, (r + 1) * dim)) }));
    writeFileSync(input, rows.join('\n') + '\n');
    const out = tmp.path('plain');
    const s = await buildIndex({ input, out, ...fast });
    expect(s.payloads).toBeNull();
    expect(readBasePayloads(out)).toBeNull();
  });

  it('is refused by a shard set', async () => {
    const e = await rejected(buildShards({ input: 'x.fvecs', out: tmp.path('shards'), shards: 2, ...fast, basePayloads: { entries: [], indexes: [] } }));
    expect(e).toBeInstanceOf(StrataError);
    expect((e as StrataError).message).toContain('basePayloads');
  });
});
