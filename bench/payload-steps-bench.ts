// A collection's payload work that once ran in one step of the event loop, at a million points, in
// process, each beside what it replaced in the same run (the longest step is what a health probe
// would wait):
// - a range index's pairs sorted by radix, whole and a pass a step, against a comparison sort;
// - one write merged into them against sorting them afresh;
// - a compaction's capture of the payloads, its choice of link blocks, and its swap's placement of
//   every row (ahead in steps against in one);
// - a filter no index answers, checked over every point in one step against a step of rows at a time;
// - a range filter after many writes, its index's pairs sorted in the query's step against over steps;
// - a filtered scroll's page of ids, by sorting every match against selecting the page's;
// - its state file read back over turns against in one step, and its payloads parsed a part at a
//   time against as one text.
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { smallestFrom } from '../common/smallest.js';
import { sortPairSteps, sortPairs } from '../index/payload-index/pair-sort.js';
import { NUMBER_CODEC, PointValues } from '../index/payload-index/point-values.js';
import { SortedValues } from '../index/payload-index/sorted-values.js';
import { decodeLiveState, emptyLiveState, encodeLiveState, payloadPart } from '../storage/live-store.js';
import { PointPayloads } from '../storage/point-payloads.js';
import { parseFilter } from '../index/filter/parse.js';
import { LIVE_STATE_FILE, readCompacted, readCompactedInTurns, writeCompacted } from '../storage/compacted.js';

const o = new Command()
  .option('--points <n>', 'points', Number, 1_000_000)
  .option('--reps <n>', 'rounds of each side-by-side pair', Number, 3)
  .parse(process.argv)
  .opts<{ points: number; reps: number }>();

const n = o.points;
let seed = 7;
const next = (): number => {
  seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
  return seed;
};
const ms = (t0: number): number => performance.now() - t0;
const f = (x: number): string => x.toFixed(1);

/** Runs a generator to its end: its steps, its longest step and its whole time, ms. */
function stepped<T>(g: Generator<void, T, void>): { steps: number; longest: number; total: number; value: T } {
  const t0 = performance.now();
  let steps = 0;
  let longest = 0;
  for (;;) {
    const t = performance.now();
    const r = g.next();
    longest = Math.max(longest, ms(t));
    steps++;
    if (r.done === true) return { steps, longest, total: ms(t0), value: r.value };
  }
}

// 1. Sorting every pair: radix against a comparison sort of a permutation, on the same keys.
const keys = Float64Array.from({ length: n }, () => next() % 400_000);
for (let r = 0; r < o.reps; r++) {
  const ids = Uint32Array.from({ length: n }, (_, i) => i);
  let t = performance.now();
  const order = Uint32Array.from({ length: n }, (_, j) => j).sort((a, b) => keys[a]! - keys[b]! || a - b);
  Float64Array.from(order, (j) => keys[j]!);
  Uint32Array.from(order, (j) => ids[j]!);
  const comparison = ms(t);
  const k = keys.slice();
  t = performance.now();
  sortPairs(k, ids.slice());
  const radix = ms(t);
  const passes = stepped(sortPairSteps(keys.slice(), ids));
  console.log(
    `sort ${n} pairs: comparison ${f(comparison)} ms, radix ${f(radix)} ms (${(comparison / radix).toFixed(1)}x); radix over ${passes.steps} steps, longest ${f(passes.longest)} ms`,
  );
}

// 2. A range index told of one write: merged in place against sorted afresh.
const model = new PointValues<number>(NUMBER_CODEC);
for (let id = 0; id < n; id++) model.set(id, [keys[id]!]);
const told = (sv: SortedValues): SortedValues => {
  model.forEach((vs, id) => sv.changed(id, [], vs.length));
  return sv;
};
const live = told(new SortedValues(model));
live.ordered({});
for (let r = 0; r < o.reps; r++) {
  const id = next() % n;
  live.changed(id, model.get(id)!, 0);
  model.set(id, [next() % 400_000]);
  live.changed(id, [], 1);
  let t = performance.now();
  live.ordered({});
  const merged = ms(t);
  const afresh = told(new SortedValues(model));
  t = performance.now();
  afresh.ordered({});
  const sorted = ms(t);
  console.log(`one write into ${n} pairs: merged ${f(merged)} ms, sorted afresh ${f(sorted)} ms (${(sorted / merged).toFixed(0)}x)`);
}

// 3. A compaction's payload work over a collection of n points, four fields, each indexed.
const p = new PointPayloads(
  (x) => (typeof x === 'number' ? x : null),
  (id) => id,
);
for (let i = 0; i < n; i++)
  p.upsert(i, { rank: next() % 400_000, len: 2 + (next() % 14), first: String.fromCharCode(97 + (next() % 26)), tags: next() % 2 ? ['s50'] : ['s10'] });
for (const [field, type] of [
  ['rank', 'integer'],
  ['len', 'integer'],
  ['first', 'keyword'],
  ['tags', 'keyword'],
] as const) {
  await p.prepareIndex({ field, params: { type } });
  p.createIndex({ field, params: { type } });
}
p.beginCapture();
const capture = stepped(p.captureSteps(payloadPart));
console.log(`capture of ${n} payloads: ${capture.steps} steps, longest ${f(capture.longest)} ms, in all ${f(capture.total)} ms`);
const links = stepped(p.linkBlockSteps(Float64Array.from({ length: n }, (_, i) => i)));
console.log(`link blocks over ${n} points: ${links.value.length} blocks in ${links.steps} steps, longest ${f(links.longest)} ms, in all ${f(links.total)} ms`);

// A compaction's swap placing every row in the new base (its lookup a Map from id to node, as
// engine/base-lookup.ts keeps): in one step, against in steps ahead and a patch of the points
// written since (a thousand here) at the swap.
const nodeOf = new Map<number, number>();
for (let i = 0; i < n; i++) nodeOf.set(i, (i * 7919) % n);
const moved = Array.from({ length: 1000 }, () => next() % n);
for (let r = 0; r < o.reps; r++) {
  let t = performance.now();
  p.placeAll((id) => nodeOf.get(id) ?? -1);
  const oneStep = ms(t);
  const ahead = stepped(p.placeSteps((id) => nodeOf.get(id)));
  t = performance.now();
  p.placeAhead(ahead.value, moved);
  const patch = ms(t);
  console.log(
    `a swap placing ${n} rows: in one step ${f(oneStep)} ms; ahead ${ahead.steps} steps, longest ${f(ahead.longest)} ms, then at the swap ${f(patch)} ms`,
  );
}

// A condition no index answers, over every point (a count, a page): checked in one step against
// a step of rows at a time.
const residual = parseFilter({ must_not: [{ key: 'note', match: { value: 'x' } }] });
for (let r = 0; r < o.reps; r++) {
  const t = performance.now();
  p.match(parseFilter({ must_not: [{ key: 'note', match: { value: 'x' } }] }));
  const oneStep = ms(t);
  p.upsert(0, { rank: r, len: 3, first: 'a', tags: ['s10'] });
  const checked = stepped(p.matchSteps(residual));
  console.log(
    `a condition no index answers, over ${checked.value.rows.size} points: in one step ${f(oneStep)} ms; in ${checked.steps} steps, longest ${f(checked.longest)} ms`,
  );
}

// A filter with a range, first read after many writes left the range index's pairs to sort afresh
// (a bulk load): sorted in the query's step, as a query did, against over steps before it.
const ranged = parseFilter({
  must: [
    { key: 'first', match: { value: 'a' } },
    { key: 'rank', range: { lt: 40_000 } },
  ],
});
const rewrite = (): void => {
  for (let i = 0; i < n / 5; i++) p.upsert((i * 5 + (next() % 5)) % n, { rank: next() % 400_000, len: 3, first: 'a', tags: ['s10'] });
};
for (let r = 0; r < o.reps; r++) {
  rewrite();
  const t = performance.now();
  p.match(ranged);
  const oneStep = ms(t);
  rewrite();
  const ordered = stepped(p.matchSteps(ranged));
  console.log(
    `a range filter after ${n / 5} writes: sorted in the query's step ${f(oneStep)} ms; over ${ordered.steps} steps, longest ${f(ordered.longest)} ms`,
  );
}

// A filtered scroll's page: the first ids past its offset among half the points matching, taken by
// a comparator sort of them all (as a page did) against a selection of the page's ids.
const matching = Float64Array.from({ length: n >> 1 }, () => next() % (4 * n));
for (let r = 0; r < o.reps; r++) {
  for (const page of [100, 10_000]) {
    let t = performance.now();
    const all = Array.from(matching).sort((a, b) => a - b);
    all.slice(0, page);
    const sorted = ms(t);
    t = performance.now();
    smallestFrom(matching, Number.NEGATIVE_INFINITY, page);
    const selected = ms(t);
    console.log(
      `a page of ${page} of ${matching.length} matching ids: sorted all ${f(sorted)} ms, selected ${f(selected)} ms (${(sorted / selected).toFixed(0)}x)`,
    );
  }
}

// 4. A saved state's payloads: parsed a part at a time (as a restore reads them) against as one text.
const pairs = capture.value.flatMap((b) => JSON.parse(`[${Buffer.from(b).toString('utf8')}]`) as Array<[number, Record<string, unknown>]>);
const state = decodeLiveState(encodeLiveState({ ...emptyLiveState(), payloads: pairs }));
let longestPart = 0;
let read = 0;
const it = state.payloads[Symbol.iterator]();
for (let t = performance.now(), r = it.next(); r.done !== true; t = performance.now(), r = it.next()) {
  longestPart = Math.max(longestPart, ms(t));
  read++;
}
const whole = JSON.stringify(pairs);
const t = performance.now();
JSON.parse(whole);
console.log(`a saved state of ${read} payloads: longest part parsed in ${f(longestPart)} ms, the whole text in ${f(ms(t))} ms`);

// 5. The state file a compaction left, read back as a restore opens it: in one step (read, hashed,
// unpacked) against over turns, where the longest turn is the longest gap between two timer ticks.
const dir = mkdtempSync(join(tmpdir(), 'strata-payload-steps-'));
try {
  mkdirSync(join(dir, 'base-1-a'));
  writeCompacted(dir, 'base-1-a', 1n, { ...emptyLiveState(), payloads: pairs });
  const bytes = statSync(join(dir, 'base-1-a', LIVE_STATE_FILE)).size;
  for (let r = 0; r < o.reps; r++) {
    let t = performance.now();
    readCompacted(dir);
    const oneStep = ms(t);
    let longest = 0;
    let last = performance.now();
    const tick = setInterval(() => {
      longest = Math.max(longest, ms(last));
      last = performance.now();
    }, 1);
    t = performance.now();
    await readCompactedInTurns(dir);
    const inTurns = ms(t);
    clearInterval(tick);
    longest = Math.max(longest, ms(last));
    console.log(`a state file of ${f(bytes / 2 ** 20)} MB: read in one step ${f(oneStep)} ms; over turns ${f(inTurns)} ms, longest turn ${f(longest)} ms`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
