// `strata build` with payloads, through the real command: from JSONL rows' `payload` members and
// from fvecs beside `--payloads`, and into a shard set; `--index-field` recorded; what the index
// directory's payload file holds read back equal (odd keys, unicode, nesting, arrays); a damaged
// payload file failing `strata verify`; and bad flags or payload files refused by name, before any
// index is written.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateClustered } from '../../datasets/index.js';
import { writeFvecs } from '../../datasets/writers.js';
import { shardOf } from '../../index/build/build-shards.js';
import { PAYLOAD_FILE } from '../../index/format/constants.js';
import { readBasePayloads } from '../../index/format/payload-file.js';
import { ensureBuilt, jsonLine, strata, type CliResult } from '../helpers/cli.js';
import { makeTempDir, type TempDir } from '../helpers/temp.js';

const COUNT = 400;
const DIM = 8;
const set = generateClustered({ count: COUNT, dim: DIM, clusters: 4, seed: 3 }, 1);
const FAST = ['--m', '8', '--ef-construction', '40', '--profile-samples', '50'];

let tmp: TempDir;
let fvecs: string;

/** Row r's payload as JSON text: odd keys need text (an object literal's "__proto__" sets the prototype). */
function payloadText(r: number): string {
  if (r % 9 === 0) return `{"__proto__": {"r": ${r}}, "constructor": null, "ключ": "значение 🦀", "a.b": [${r}, {"c": [true, null]}]}`;
  return JSON.stringify({ row: r, color: ['red', 'green', 'blue'][r % 3], price: r / 8, tags: [`t${r % 4}`], nested: { level: { deep: r % 2 === 0 } } });
}

const idOf = (r: number): number => 1000 + 7 * r;

function expectOk(r: CliResult): void {
  expect(r.status, `stderr:\n${r.stderr}`).toBe(0);
}

function expectFailure(r: CliResult, ...fragments: string[]): void {
  expect(r.status, `stdout:\n${r.stdout}`).toBe(2);
  for (const f of fragments) expect(r.stderr).toContain(f);
}

/** What readBasePayloads gives, as a label -> payload map (payloads compared with toStrictEqual). */
function readBack(dir: string): Map<number, Record<string, unknown>> {
  const got = readBasePayloads(dir);
  expect(got).not.toBeNull();
  return new Map(got!.payloads);
}

beforeAll(async () => {
  ensureBuilt();
  tmp = makeTempDir('strata-build-payloads-');
  fvecs = tmp.path('base.fvecs');
  await writeFvecs(fvecs, set.base, DIM);
});
afterAll(() => tmp?.cleanup());

describe('strata build with payloads', () => {
  it('from JSONL: each row\'s "payload" member under its id, rows without one left out, index fields recorded', () => {
    const rows: string[] = [];
    for (let r = 0; r < COUNT; r++) {
      const vector = JSON.stringify(Array.from(set.base.subarray(r * DIM, (r + 1) * DIM)));
      rows.push(r % 5 === 4 ? `{"id": ${idOf(r)}, "vector": ${vector}}` : `{"id": ${idOf(r)}, "vector": ${vector}, "payload": ${payloadText(r)}}`);
    }
    const input = tmp.path('points.jsonl');
    writeFileSync(input, rows.join('\n') + '\n');
    const out = tmp.path('from-jsonl');
    const r = strata([
      'build',
      input,
      '--out',
      out,
      ...FAST,
      '--index-field',
      'color:keyword',
      '--index-field',
      'nested.level.deep:bool',
      '--index-field',
      'tags[]:text',
      '--json',
    ]);
    expectOk(r);
    const summary = jsonLine<{ payloads: { points: number; indexes: unknown[] } }>(r);
    const expected = new Map<number, unknown>();
    for (let i = 0; i < COUNT; i++) if (i % 5 !== 4) expected.set(idOf(i), JSON.parse(payloadText(i)));
    expect(summary.payloads.points).toBe(expected.size);
    const got = readBack(out);
    expect([...got.keys()].sort((a, b) => a - b)).toEqual([...expected.keys()].sort((a, b) => a - b));
    for (const [id, p] of expected) expect(got.get(id)).toStrictEqual(p);
    const odd = got.get(idOf(0))!;
    expect(Object.hasOwn(odd, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(odd)).toBe(Object.prototype);
    expect(readBasePayloads(out)!.indexes).toEqual([
      { field: 'color', params: { type: 'keyword' } },
      { field: 'nested.level.deep', params: { type: 'bool' } },
      { field: 'tags[]', params: { type: 'text', tokenizer: 'word', lowercase: true } },
    ]);
    expect(summary.payloads.indexes).toEqual(readBasePayloads(out)!.indexes);
    const v = jsonLine<{ ok: boolean; payloads: unknown }>(strata(['verify', out]));
    expect(v).toMatchObject({ ok: true, payloads: { points: expected.size, indexes: 3 } });
  });

  it("from fvecs and --payloads: line i is row i's payload, with progress and a line of the summary", () => {
    const file = tmp.path('payloads.jsonl');
    writeFileSync(file, Array.from({ length: COUNT }, (_, i) => payloadText(i)).join('\n') + '\n');
    const out = tmp.path('from-fvecs');
    const r = strata(['build', fvecs, '--out', out, ...FAST, '--payloads', file, '--index-field', 'price:float']);
    expectOk(r);
    expect(r.stdout).toContain(`payloads: ${COUNT} points with a payload; indexes price:float`);
    // Progress as for the other phases (plain lines off a terminal): judging the payloads, then writing them.
    expect(r.stderr).toContain(`payloads: ${COUNT}/${COUNT} (100.0%)`);
    expect(r.stderr).toContain(`write: ${COUNT}/${COUNT} (100.0%)`);
    const got = readBack(out);
    expect(got.size).toBe(COUNT);
    for (let i = 0; i < COUNT; i++) expect(got.get(i)).toStrictEqual(JSON.parse(payloadText(i)));
  });

  it('with --payload-m: filter links over the indexed fields, reported in the summary, verified; a bad value refused by name', async () => {
    const n = 2600;
    const big = generateClustered({ count: n, dim: DIM, clusters: 4, seed: 5 }, 1);
    const input = tmp.path('links.fvecs');
    await writeFvecs(input, big.base, DIM);
    const file = tmp.path('links-payloads.jsonl');
    writeFileSync(file, Array.from({ length: n }, (_, i) => JSON.stringify({ color: i % 2 === 0 ? 'red' : 'blue', price: i })).join('\n') + '\n');
    const out = tmp.path('links');
    const args = [
      'build',
      input,
      '--out',
      out,
      ...FAST,
      '--payloads',
      file,
      '--index-field',
      'color:keyword',
      '--index-field',
      'price:integer',
      '--payload-m',
      '4',
    ];
    const r = strata([...args, '--json']);
    expectOk(r);
    const summary = jsonLine<{ links: { blocks: number; members: number; cxlBytes: number } }>(r);
    // Two colours, and the prices cut into value ranges holding every point once.
    expect(summary.links.members).toBe(2 * n);
    expect(summary.links.blocks).toBeGreaterThan(3);
    // The lists (a record of 1 + 2 × payload_m words per membership), and the lookup: 8 bytes per
    // membership and 4 per point, plus one.
    expect(summary.links.cxlBytes).toBe(2 * n * 4 * (1 + 8) + 2 * n * 8 + 4 * (n + 1));
    expect(jsonLine<{ ok: boolean }>(strata(['verify', out])).ok).toBe(true);
    const text = strata([...args, '--force']);
    expectOk(text);
    expect(text.stdout).toContain(`filter links: ${summary.links.blocks} blocks, ${2 * n} memberships`);
    expectFailure(strata([...args.slice(0, -1), '1', '--force']), 'payload-m: must be 0');
  });

  it('into a shard set: each shard holds the payloads of its own rows', () => {
    const file = tmp.path('payloads-shards.jsonl');
    writeFileSync(file, Array.from({ length: COUNT }, (_, i) => payloadText(i)).join('\n') + '\n');
    const out = tmp.path('shards');
    expectOk(strata(['build', fvecs, '--out', out, ...FAST, '--payloads', file, '--shards', '3', '--index-field', 'color:keyword']));
    let total = 0;
    for (let s = 0; s < 3; s++) {
      const got = readBack(join(out, `shard-${s}`));
      for (const [label, p] of got) {
        expect(shardOf(label, 3)).toBe(s);
        expect(p).toStrictEqual(JSON.parse(payloadText(label)));
      }
      expect(readBasePayloads(join(out, `shard-${s}`))!.indexes).toEqual([{ field: 'color', params: { type: 'keyword' } }]);
      total += got.size;
    }
    expect(total).toBe(COUNT);
  });

  it('warns, naming a budget that holds one, when the payload indexes leave the DRAM budget no room for a code', () => {
    const tight = tmp.path('tight');
    const args = [
      fvecs,
      '--payloads',
      tmp.path('rows.jsonl'),
      ...FAST,
      '--index-field',
      'color:keyword',
      '--index-field',
      'price:float',
      '--index-field',
      'row:integer',
    ];
    writeFileSync(tmp.path('rows.jsonl'), Array.from({ length: COUNT }, (_, r) => payloadText(r)).join('\n') + '\n');
    const r = strata(['build', ...args, '--out', tight, '--dram-budget', '10%']);
    expectOk(r);
    expect(r.stdout).toContain('no code: even rq2');
    const m =
      /warning: the DRAM budget holds no code after the upper layers and the payload indexes \([\d.]+ MiB\): every distance a search computes reads a full vector from the CXL tier; --dram-budget (\d+MiB) or more keeps a code/.exec(
        r.stderr,
      );
    expect(m, r.stderr).not.toBeNull();
    // The budget it names holds a code (on this small set, the whole index at full precision), and then nothing is said.
    const enough = strata(['build', ...args, '--out', tmp.path('enough'), '--dram-budget', m![1]!]);
    expectOk(enough);
    expect(enough.stdout).not.toContain('does not fit');
    expect(enough.stderr).not.toContain('warning');
  });

  it('with index fields and no payloads writes a payload file of index fields only; without either, none', () => {
    const out = tmp.path('fields-only');
    expectOk(strata(['build', fvecs, '--out', out, ...FAST, '--index-field', 'when:datetime', '--index-field', 'where:geo']));
    expect(readBasePayloads(out)).toEqual({
      payloads: [],
      indexes: [
        { field: 'when', params: { type: 'datetime' } },
        { field: 'where', params: { type: 'geo' } },
      ],
    });
    const plain = tmp.path('plain');
    expectOk(strata(['build', fvecs, '--out', plain, ...FAST]));
    expect(existsSync(join(plain, PAYLOAD_FILE))).toBe(false);
    expect(readBasePayloads(plain)).toBeNull();
  });

  it('a payload file with a byte changed fails strata verify with STRATA_INDEX_CORRUPT naming it', () => {
    const file = tmp.path('payloads-verify.jsonl');
    writeFileSync(file, Array.from({ length: COUNT }, (_, i) => payloadText(i)).join('\n') + '\n');
    const out = tmp.path('damaged');
    expectOk(strata(['build', fvecs, '--out', out, ...FAST, '--payloads', file]));
    const path = join(out, PAYLOAD_FILE);
    const bytes = readFileSync(path);
    const at = bytes.indexOf('"green"') + 1;
    bytes[at] = 'G'.charCodeAt(0);
    writeFileSync(path, bytes);
    expectFailure(strata(['verify', out]), 'STRATA_INDEX_CORRUPT', path, 'SHA-256 mismatch');
  });
});

describe('strata build refuses, before writing an index', () => {
  const out = (): string => tmp.path(`refused-${Math.random().toString(36).slice(2)}`);

  it('a bad --index-field, naming the flag', () => {
    for (const [flag, why] of [
      ['color', 'expected key:type'],
      ['color:varchar', 'unknown type "varchar"'],
      ['a..b:keyword', 'key path "a..b"'],
    ] as const) {
      const dir = out();
      expectFailure(strata(['build', fvecs, '--out', dir, ...FAST, '--index-field', flag]), 'STRATA_INVALID_ARGUMENT', '--index-field', why);
      expect(existsSync(dir)).toBe(false);
    }
  });

  it('a --payloads file with a line too few, bad JSON or a non-object, naming the file and line', () => {
    const good = Array.from({ length: COUNT }, (_, i) => payloadText(i));
    const cases: Array<[string[], string]> = [
      [good.slice(1), `has payloads for ${COUNT - 1} rows, the input has ${COUNT}`],
      [[...good.slice(0, 10), '{"a": ', ...good.slice(11)], 'line 11 (row 10) is not valid JSON'],
      [[...good.slice(0, 3), '[1, 2]', ...good.slice(4)], 'line 4 (row 3) is an array; expected a JSON object'],
    ];
    for (const [lines, why] of cases) {
      const file = tmp.path(`bad-${Math.random().toString(36).slice(2)}.jsonl`);
      writeFileSync(file, lines.join('\n') + '\n');
      const dir = out();
      expectFailure(strata(['build', fvecs, '--out', dir, ...FAST, '--payloads', file]), 'STRATA_DATASET_FORMAT', file, why);
      expect(existsSync(dir)).toBe(false);
    }
  });

  it('--payloads beside a JSONL input, or naming a file that is not there', () => {
    const input = tmp.path('one.jsonl');
    writeFileSync(input, '{"vector": [1, 2]}\n');
    expectFailure(strata(['build', input, '--out', out(), '--payloads', input]), 'STRATA_INVALID_ARGUMENT', '--payloads');
    const missing = tmp.path('missing.jsonl');
    expectFailure(strata(['build', fvecs, '--out', out(), '--payloads', missing]), 'STRATA_INVALID_ARGUMENT', `--payloads: cannot read ${missing}`);
  });
});
