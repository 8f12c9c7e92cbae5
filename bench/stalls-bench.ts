// The heaviest requests a user may send, against a served GloVe-100k collection with payloads and
// payload indexes (`strata fetch glove-100 --attributes`): each sent alone while a client probes
// GET /healthz every 2 ms, and the longest probe reported beside the request's own time. A probe
// waits as long as the server's event loop is held, which is what a health check would see. Bodies
// are encoded before the probing starts, and answers are read as bytes, so the client's own work
// does not stretch the probes. A compaction is probed from its request to its answer: its cut, the
// build on a worker thread, and its swap.
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { request } from 'undici';
import { readFvecsMatrix, readPayloadLines } from '../datasets/index.js';
import { type Served, serveDataDir, stop } from './lib/strata-children.js';

const o = new Command()
  .option('--dir <dir>', 'the GloVe set with word attributes (strata fetch glove-100 --attributes)', '.strata/datasets/glove-f')
  .option('--json <file>', 'also write the rows as JSON')
  .option('--md <file>', 'also write the table as Markdown')
  .parse(process.argv)
  .opts<{ dir: string; json?: string; md?: string }>();

const C = '/collections/bench';
const UPSERT_BATCH = 500;

async function call(s: Served, method: string, path: string, body?: string): Promise<{ status: number; ms: number; bytes: number }> {
  const t0 = performance.now();
  const r = await request(`${s.rest}${path}`, {
    method: method as 'GET',
    headers: { 'content-type': 'application/json' },
    ...(body !== undefined ? { body } : {}),
  });
  const bytes = (await r.body.arrayBuffer()).byteLength;
  return { status: r.statusCode, ms: performance.now() - t0, bytes };
}

async function must(s: Served, method: string, path: string, body: unknown): Promise<void> {
  const r = await request(`${s.rest}${path}`, { method: method as 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await r.body.text();
  if (r.statusCode !== 200) throw new Error(`${method} ${path}: ${r.statusCode} ${text.slice(0, 300)}`);
}

interface Row {
  request: string;
  status: number;
  ms: number;
  answerBytes: number;
  longestProbeMs: number;
  probes: number;
}

/** Sends one request while probing /healthz; the probes' longest wait and the request's time. */
async function probed(s: Served, name: string, method: string, path: string, body?: unknown): Promise<Row> {
  const text = body === undefined ? undefined : JSON.stringify(body);
  let stop = false;
  let longest = 0;
  let probes = 0;
  const probe = (async () => {
    while (!stop) {
      const t = performance.now();
      await (await request(`${s.rest}/healthz`)).body.arrayBuffer();
      longest = Math.max(longest, performance.now() - t);
      probes++;
      await new Promise((r) => setTimeout(r, 2));
    }
  })();
  await new Promise((r) => setTimeout(r, 50));
  const r = await call(s, method, path, text);
  stop = true;
  await probe;
  if (r.status !== 200) throw new Error(`${name}: ${method} ${path} answered ${r.status}`);
  const row = { request: name, status: r.status, ms: r.ms, answerBytes: r.bytes, longestProbeMs: longest, probes };
  console.log(`${name}: ${r.status} in ${r.ms.toFixed(0)} ms, longest probe ${longest.toFixed(0)} ms (${probes} probes)`);
  return row;
}

const tmp = mkdtempSync(join(tmpdir(), 'strata-stalls-'));
const s = await serveDataDir(join(tmp, 'data'), { threads: 1 });
try {
  const base = await readFvecsMatrix(join(o.dir, 'base.fvecs'));
  const payloads = readPayloadLines(join(o.dir, 'payloads.jsonl'), base.count);
  const fields = (JSON.parse(readFileSync(join(o.dir, 'filters.json'), 'utf8')) as { fields: Record<string, { type: string }> }).fields;
  await must(s, 'PUT', C, { vectors: { size: base.dim, distance: 'Cosine' } });
  for (let at = 0; at < base.count; at += UPSERT_BATCH) {
    const points = [];
    for (let i = at; i < Math.min(base.count, at + UPSERT_BATCH); i++)
      points.push({ id: i, vector: Array.from(base.data.subarray(i * base.dim, (i + 1) * base.dim)), payload: payloads[i] });
    await must(s, 'PUT', `${C}/points?wait=true`, { points });
  }
  for (const [field, spec] of Object.entries(fields)) await must(s, 'PUT', `${C}/index?wait=true`, { field_name: field, field_schema: spec.type });
  await must(s, 'POST', `${C}/compact`, {});
  console.log(`loaded ${base.count} points, ${Object.keys(fields).length} payload indexes, compacted`);

  const vector = Array.from(base.data.subarray(0, base.dim));
  const letters = { must: [{ key: 'alpha', match: { value: true } }] };
  const rows: Row[] = [];
  const add = async (name: string, method: string, path: string, body?: unknown): Promise<void> => {
    rows.push(await probed(s, name, method, path, body));
  };
  await add('scroll 10,000 points with payloads, filtered', 'POST', `${C}/points/scroll`, { limit: 10_000, with_payload: true, filter: letters });
  await add('scroll 5,000 points with vectors and payloads', 'POST', `${C}/points/scroll`, { limit: 5000, with_payload: true, with_vector: true });
  await add('search, match any of 20,000 integers', 'POST', `${C}/points/search`, {
    vector,
    limit: 10,
    filter: { must: [{ key: 'rank', match: { any: Array.from({ length: 20_000 }, (_, i) => i * 7) } }] },
  });
  await add('search matrix, sample 1,000', 'POST', `${C}/points/search/matrix/pairs`, { sample: 1000, limit: 10 });
  await add('count, values_count (its index reads every point)', 'POST', `${C}/points/count`, {
    filter: { must: [{ key: 'tags', values_count: { gte: 1 } }] },
    exact: true,
  });
  await add('set payload by filter, an unindexed key', 'POST', `${C}/points/payload?wait=true`, { payload: { mark: 1 }, filter: letters });
  const marked = { must: [{ key: 'mark', match: { value: 1 } }] };
  await add('count, a key no index answers (checked per point)', 'POST', `${C}/points/count`, { filter: marked, exact: true });
  await add('search, a key no index answers', 'POST', `${C}/points/search`, { vector, limit: 10, filter: marked });
  await add('set payload by filter, an indexed key', 'POST', `${C}/points/payload?wait=true`, { payload: { tags: ['s50'] }, filter: letters });
  await add('delete payload keys by filter', 'POST', `${C}/points/payload/delete?wait=true`, { keys: ['mark'], filter: letters });
  await add('create a snapshot', 'POST', `${C}/snapshots`, {});
  const snapDir = join(tmp, 'data', 'snapshots');
  const [sub] = readdirSync(snapDir);
  const [file] = readdirSync(join(snapDir, sub!)).filter((f) => f.endsWith('.snapshot'));
  await add('recover that snapshot as a new collection', 'PUT', '/collections/copy/snapshots/recover?wait=true', {
    location: `file://${join(snapDir, sub!, file!)}`,
  });
  // A range filter's sorted pairs take each write in: the first range query after a write used to sort them all again.
  const ranged = { vector, limit: 10, filter: { must: [{ key: 'rank', range: { lt: 170_000 } }] } };
  await call(s, 'POST', `${C}/points/search`, JSON.stringify(ranged));
  await add('search, a range filter', 'POST', `${C}/points/search`, ranged);
  await must(s, 'POST', `${C}/points/payload?wait=true`, { payload: { rank: 5 }, points: [7] });
  await add('the same search, after a payload write to one point', 'POST', `${C}/points/search`, ranged);
  const fresh = Array.from({ length: 1000 }, (_, i) => ({
    id: base.count + i,
    vector: Array.from(base.data.subarray(i * base.dim, (i + 1) * base.dim)),
    payload: payloads[i],
  }));
  await add('upsert 1,000 points', 'PUT', `${C}/points?wait=true`, { points: fresh });
  await add('compact: the cut, the build, the swap', 'POST', `${C}/compact`, {});
  await add('delete points by filter (len ≥ 8)', 'POST', `${C}/points/delete?wait=true`, { filter: { must: [{ key: 'len', range: { gte: 8 } }] } });

  const md = [
    `### Event-loop stalls: ${base.count} GloVe points, ${Object.keys(fields).length} payload indexes`,
    '',
    '`npm run bench -- stalls' + (o.dir !== '.strata/datasets/glove-f' ? ` --dir ${o.dir}` : '') + '`',
    '',
    '| request | request ms | longest /healthz wait, ms | probes |',
    '| --- | --- | --- | --- |',
    ...rows.map((r) => `| ${r.request} | ${r.ms.toFixed(0)} | ${r.longestProbeMs.toFixed(0)} | ${r.probes} |`),
  ].join('\n');
  console.log(`\n${md}`);
  if (o.md) writeFileSync(o.md, `${md}\n`);
  if (o.json) writeFileSync(o.json, `${JSON.stringify({ points: base.count, rows }, null, 2)}\n`);
} finally {
  await stop(s);
  rmSync(tmp, { recursive: true, force: true });
}
