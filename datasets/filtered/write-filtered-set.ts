// The filtered benchmark sets on disk: the vectors in TEXMEX layout with exact unfiltered ground
// truth (writeTexmexSet / writeWordSet), `payloads.jsonl` (line i: the payload of base row i, the
// form `strata build --payloads` and `strata loadgen --payloads` read) and `filters.json` (the
// fields and the filter families, FilterCases). Filtered ground truth is not stored: it depends on the
// families, and the load generator computes it exactly from these files.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mulberry32 } from '../../common/random.js';
import { type ClusteredSpec, generateClustered } from '../generate/clustered.js';
import { type WrittenSet, writeTexmexSet } from '../generate/write-set.js';
import { splitRows, type WordVectors } from '../real/word-vectors.js';
import { type WordSetOptions, writeWordSet } from '../real/write-word-set.js';
import { clusterLabel, type Payload, selectivityTags, wordAttributes } from './attributes.js';
import { clusterFamilies, FILTER_CASES_SCHEMA, type FilterCases, type FilterFamily, PRICE_SPAN, wordFamilies } from './families.js';
import { CLUSTER_FIELDS, type FieldSpecs, WORD_FIELDS } from './fields.js';

export interface WrittenFilteredSet extends WrittenSet {
  payloads: string;
  filters: string;
}

/** Writes payloads.jsonl and filters.json into a set's directory. */
function writeFilterFiles(set: WrittenSet, payloads: readonly Payload[], fields: FieldSpecs, families: FilterFamily[]): WrittenFilteredSet {
  const out: WrittenFilteredSet = { ...set, payloads: join(set.dir, 'payloads.jsonl'), filters: join(set.dir, 'filters.json') };
  writeFileSync(out.payloads, payloads.map((p) => `${JSON.stringify(p)}\n`).join(''));
  const cases: FilterCases = { schema: FILTER_CASES_SCHEMA, fields, families };
  writeFileSync(out.filters, `${JSON.stringify(cases)}\n`);
  return out;
}

/** A clustered set whose `label` is each row's cluster, `price` uniform, `tags` at fixed rates. */
export async function writeFilteredClusteredSet(dir: string, spec: ClusteredSpec, queries: number, k: number): Promise<WrittenFilteredSet> {
  const g = generateClustered(spec, queries);
  const m = g.clusters!;
  const set = await writeTexmexSet(dir, g.base, g.queries, g.dim, k, g.metric);
  // Its own stream: the attributes must not shift the vectors' seed sequence.
  const rnd = mulberry32(spec.seed ^ 0x5eed);
  const payloads = Array.from(m.base, (c): Payload => ({ label: clusterLabel(c), price: rnd() * PRICE_SPAN, tags: selectivityTags(rnd) }));
  return writeFilterFiles(set, payloads, CLUSTER_FIELDS, clusterFamilies(m, g.dim, spec.seed + 1));
}

/** GloVe (or any word-vector set) split as writeWordSet splits it, with each word's attributes. */
export async function writeFilteredWordSet(dir: string, wv: WordVectors, o: WordSetOptions): Promise<WrittenFilteredSet> {
  const set = await writeWordSet(dir, wv, o);
  const split = splitRows(wv.words.length, o.count, o.queries, o.seed);
  const rnd = mulberry32(o.seed ^ 0x5eed);
  const payloads = Array.from(split.base, (r): Payload => ({ ...wordAttributes(wv.words[r]!, r), tags: selectivityTags(rnd) }));
  return writeFilterFiles(set, payloads, WORD_FIELDS, wordFamilies(payloads, split.queries, o.seed + 1));
}
