// Sparse vectors in process: a corpus shaped like learned-sparse and BM25 document vectors (a Zipf
// vocabulary, tens of terms a document, IDF-weighted values), searched through the inverted index
// (index/sparse/sparse-column.ts) and, side by side in the same run, by scoring every stored vector
// (what a store without postings does): CPU per query at p50 and p99, with and without a filter of a
// tenth of the points, the postings the query's terms hold against the entries the pruned search
// read (what pruning saved), the answers checked equal, and the bytes a point costs.
import { Command } from 'commander';
import { mulberry32 } from '../common/random.js';
import { SparseColumn } from '../index/sparse/sparse-column.js';
import type { SparseVector } from '../index/sparse/sparse-vector.js';

const o = new Command()
  .option('--points <n>', 'documents', Number, 100_000)
  .option('--vocab <n>', 'distinct terms', Number, 30_000)
  .option('--doc-terms <n>', 'mean terms a document', Number, 60)
  .option('--query-terms <list>', 'terms a query, one run each (comma-separated)', '5,30')
  .option('--queries <n>', 'queries a run', Number, 300)
  .option('--scan-queries <n>', 'queries of the full-scan comparison', Number, 20)
  .option('--json <file>', 'also write the results as JSON')
  .parse(process.argv)
  .opts<{ points: number; vocab: number; docTerms: number; queryTerms: string; queries: number; scanQueries: number; json?: string }>();

const rnd = mulberry32(11);
// Zipf(1) over the vocabulary: the cumulative weights, drawn from by binary search.
const cumulative = new Float64Array(o.vocab);
for (let t = 0, sum = 0; t < o.vocab; t++) cumulative[t] = sum += 1 / (t + 1);
const total = cumulative[o.vocab - 1]!;
function term(): number {
  const x = rnd() * total;
  let lo = 0;
  let hi = o.vocab - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cumulative[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** `n` distinct Zipf terms with term-frequency-like values (1 + a saturating count), sorted. */
function vectorOf(n: number): SparseVector {
  const tf = new Map<number, number>();
  while (tf.size < n) {
    const t = term();
    tf.set(t, (tf.get(t) ?? 0) + 1);
  }
  const indices = Uint32Array.from([...tf.keys()].sort((a, b) => a - b));
  return { indices, values: Float32Array.from(indices, (t) => (tf.get(t)! * 2.2) / (tf.get(t)! + 1.2)) };
}

function heapUsed(): number {
  globalThis.gc?.();
  return process.memoryUsage().heapUsed;
}

const col = new SparseColumn('idf');
const docs: SparseVector[] = [];
let entries = 0;
const tBuild = performance.now();
for (let id = 0; id < o.points; id++) {
  // Document lengths vary: a quarter to twice the mean.
  const v = vectorOf(Math.max(1, Math.round(o.docTerms * (0.25 + 1.75 * rnd()))));
  docs.push(v);
  entries += v.indices.length;
  col.set(id, v);
}
const buildMs = performance.now() - tBuild;
const bytes = col.bytes();
console.log(
  `${o.points} points, ${(entries / o.points).toFixed(1)} terms each, vocabulary ${o.vocab}: built in ${(buildMs / 1000).toFixed(2)} s, ${(bytes / o.points).toFixed(0)} B a point (${(bytes / entries).toFixed(1)} B an entry)`,
);

/** The full scan: every stored vector scored against the query (what the postings save). */
function scan(q: SparseVector, k: number, accept?: (id: number) => boolean): number[] {
  const weights = new Map<number, number>();
  for (let j = 0; j < q.indices.length; j++) weights.set(q.indices[j]!, q.values[j]!);
  const scored: Array<{ id: number; score: number }> = [];
  for (let id = 0; id < docs.length; id++) {
    if (accept !== undefined && !accept(id)) continue;
    const d = docs[id]!;
    let shared = false;
    for (let i = 0; i < d.indices.length && !shared; i++) shared = weights.has(d.indices[i]!);
    if (!shared) continue;
    // The column's own score, so the answers compare exactly.
    scored.push({ id, score: col.score(id, q)! });
  }
  return scored
    .sort((a, b) => b.score - a.score || a.id - b.id)
    .slice(0, k)
    .map((h) => h.id);
}

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
}

const tenth = (id: number): boolean => id % 10 === 3;
const rows: Array<Record<string, number | string>> = [];
for (const qt of o.queryTerms.split(',').map(Number)) {
  const queries = Array.from({ length: o.queries }, () => vectorOf(qt));
  for (const [label, accept] of [
    ['all points', undefined],
    ['a tenth', tenth],
  ] as const) {
    // Pruned and unpruned alternate query by query, so that both meet the same machine.
    const times: number[] = [];
    const fullTimes: number[] = [];
    let touched = 0;
    let reads = 0;
    let fullReads = 0;
    let sameAsFull = 0;
    for (const q of queries) {
      let r0 = col.reads;
      let t0 = performance.now();
      const got = col.search(q, 10, accept);
      times.push(performance.now() - t0);
      reads += col.reads - r0;
      r0 = col.reads;
      t0 = performance.now();
      const full = col.search(q, 10, accept, false);
      fullTimes.push(performance.now() - t0);
      fullReads += col.reads - r0;
      if (JSON.stringify(got.map((h) => h.id)) === JSON.stringify(full.map((h) => h.id))) sameAsFull++;
      for (let j = 0; j < q.indices.length; j++) touched += col.documentFrequency(q.indices[j]!);
    }
    const scanTimes: number[] = [];
    let same = 0;
    for (const q of queries.slice(0, o.scanQueries)) {
      const t0 = performance.now();
      const want = scan(q, 10, accept);
      scanTimes.push(performance.now() - t0);
      const got = col.search(q, 10, accept).map((h) => h.id);
      if (JSON.stringify(got) === JSON.stringify(want)) same++;
    }
    const p50 = percentile(times, 0.5);
    const row = {
      queryTerms: qt,
      filter: label,
      postingsPerQuery: Math.round(touched / queries.length),
      readsPerQuery: Math.round(reads / queries.length),
      unprunedReadsPerQuery: Math.round(fullReads / queries.length),
      p50Ms: p50,
      p99Ms: percentile(times, 0.99),
      unprunedP50Ms: percentile(fullTimes, 0.5),
      prunedOverUnpruned: p50 / percentile(fullTimes, 0.5),
      sameAsUnpruned: `${sameAsFull}/${queries.length}`,
      scanP50Ms: percentile(scanTimes, 0.5),
      scanOverIndex: percentile(scanTimes, 0.5) / p50,
      sameAnswers: `${same}/${scanTimes.length}`,
    };
    rows.push(row);
    console.log(
      `${qt} terms, ${label}: ${row.postingsPerQuery} postings a query, ${row.readsPerQuery} read (unpruned ${row.unprunedReadsPerQuery}); index p50 ${p50.toFixed(3)} ms, p99 ${row.p99Ms.toFixed(3)} ms; unpruned p50 ${row.unprunedP50Ms.toFixed(3)} ms (pruned / unpruned ${row.prunedOverUnpruned.toFixed(2)}, same answers ${row.sameAsUnpruned}); full scan p50 ${row.scanP50Ms.toFixed(2)} ms (${row.scanOverIndex.toFixed(0)}×); same answers ${row.sameAnswers}`,
    );
  }
}
// The column's own V8 heap: a second one built from the first's entries (typed arrays, off the heap).
const saved = col.entries();
const heap0 = heapUsed();
const again = SparseColumn.fromEntries('idf', saved);
const heapPerPoint = (heapUsed() - heap0) / o.points;
console.log(`V8 heap of a column: ${heapPerPoint.toFixed(1)} B a point (${again.size} points)`);

if (o.json) {
  const { writeFileSync } = await import('node:fs');
  const out = { date: new Date().toISOString(), parameters: o, bytesPerPoint: bytes / o.points, heapPerPoint, buildSeconds: buildMs / 1000, rows };
  writeFileSync(o.json, `${JSON.stringify(out, null, 2)}\n`);
}
