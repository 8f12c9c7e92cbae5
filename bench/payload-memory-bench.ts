// Memory per point of payloads with four fields (a keyword, an integer, a float, a keyword array),
// side by side in one run: the live store's old Map of payload objects against the payload rows
// (storage/point-payloads.ts: columnar store + typed id map), without and with a payload index on
// each field. Each configuration is measured in its own child process after a full GC: V8 heap
// (what the GC scans) and array buffers (typed arrays, off the V8 heap), per point; and for the rows,
// the bytes the store and each index report (what `GET /collections/{c}` shows), after one filter on
// each field (a range index holds its sorted pairs from its first range query on).
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import type { FieldSchema } from '../index/payload-index/field-index.js';
import { parseFilter } from '../index/filter/parse.js';
import { PointPayloads } from '../storage/point-payloads.js';

const CITIES = 1000;
const FIELDS: Array<[string, FieldSchema]> = [
  ['city', 'keyword'],
  ['rank', 'integer'],
  ['price', 'float'],
  ['tags', 'keyword'],
];

function payloadOf(i: number): Record<string, unknown> {
  return { city: `city-${(i * 7919) % CITIES}`, rank: i, price: ((i * 2654435761) % 100000) / 100, tags: [`t${i % 13}`, `t${i % 7}`] };
}

type Mode = 'map' | 'rows' | 'rows+indexes';

interface Measured {
  heapPerPoint: number;
  buffersPerPoint: number;
  reported: { values: number; rows: number; indexes: Record<string, number> } | null;
}

function usage(): { heap: number; buffers: number } {
  const gc = (globalThis as { gc?: () => void }).gc!;
  gc();
  gc();
  const m = process.memoryUsage();
  return { heap: m.heapUsed, buffers: m.arrayBuffers };
}

function child(mode: Mode, n: number): Measured {
  const before = usage();
  let keep: unknown;
  let reported: Measured['reported'] = null;
  if (mode === 'map') {
    const m = new Map<number, Record<string, unknown>>();
    for (let i = 0; i < n; i++) m.set(i, payloadOf(i));
    keep = m;
  } else {
    const p = new PointPayloads(
      (id) => (typeof id === 'number' ? id : null),
      (id) => id,
    );
    if (mode === 'rows+indexes') for (const [field, type] of FIELDS) p.createIndex({ field, params: { type } });
    for (let i = 0; i < n; i++) p.upsert(i, payloadOf(i));
    // One filter on each field, as a served collection is asked: a range index sorts its pairs then.
    if (mode === 'rows+indexes')
      for (const [field, type] of FIELDS)
        p.match(parseFilter({ must: [type === 'keyword' ? { key: field, match: { value: 'city-1' } } : { key: field, range: { gte: 10, lt: 20 } }] }));
    reported = p.bytes();
    keep = p;
  }
  const after = usage();
  if (keep === null) throw new Error('unreachable');
  return { heapPerPoint: (after.heap - before.heap) / n, buffersPerPoint: (after.buffers - before.buffers) / n, reported };
}

const o = new Command()
  .option('--points <list>', 'point counts, comma-separated', '100000,200000,400000')
  .option('--json <file>', 'also write the rows as JSON')
  .option('--child <mode>', 'internal: measure one configuration')
  .option('--n <n>', 'internal: points of the child', Number)
  .parse(process.argv)
  .opts<{ points: string; json?: string; child?: Mode; n?: number }>();

if (o.child !== undefined) {
  process.stdout.write(JSON.stringify(child(o.child, o.n!)));
} else {
  const self = fileURLToPath(import.meta.url);
  const rows: Array<{ mode: Mode; points: number } & Measured> = [];
  for (const n of o.points.split(',').map(Number)) {
    for (const mode of ['map', 'rows', 'rows+indexes'] as const) {
      const out = execFileSync(process.execPath, ['--expose-gc', self, '--child', mode, '--n', String(n)], { encoding: 'utf8', maxBuffer: 1 << 20 });
      const m = JSON.parse(out) as Measured;
      rows.push({ mode, points: n, ...m });
      const rep = m.reported
        ? ` | values ${(m.reported.values / n).toFixed(1)} B/pt (CXL tier), rows ${(m.reported.rows / n).toFixed(1)} B/pt, indexes ${
            Object.entries(m.reported.indexes)
              .map(([k, b]) => `${k} ${(b / n).toFixed(1)}`)
              .join(', ') || '—'
          } B/pt`
        : '';
      console.log(
        `${mode.padEnd(13)} ${String(n).padStart(8)} points: V8 heap ${m.heapPerPoint.toFixed(1)} B/pt, array buffers ${m.buffersPerPoint.toFixed(1)} B/pt${rep}`,
      );
    }
  }
  if (o.json) {
    const { writeFileSync } = await import('node:fs');
    writeFileSync(o.json, `${JSON.stringify({ fields: FIELDS, rows }, null, 2)}\n`);
  }
}
