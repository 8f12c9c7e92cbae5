// The index directory's payload file (index/format/payload-file.ts): payloads and index fields
// written through writeIndex come back equal (odd keys, unicode, nesting, arrays, large labels), the
// file is consumed from a one-shot generator, an index without it reads as null, and damage (a
// flipped byte, truncation, a file the manifest does not list, a foreign header) is refused.
import { cpSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MANIFEST, PAYLOAD_FILE } from '../../../index/format/constants.js';
import { loadIndex } from '../../../index/format/load-index.js';
import { type BasePayload, checkBasePayloads, forEachBasePayload, readBasePayloads, writeBasePayloads } from '../../../index/format/payload-file.js';
import type { IndexSpec } from '../../../index/payload-index/params.js';
import { verifyIndex } from '../../../index/format/verify-index.js';
import { writeIndex } from '../../../index/format/write-index.js';
import { buildSmallIndex, type SmallIndex } from '../../helpers/small-index.js';
import { expectStrataError, makeTempDir, type TempDir } from '../../helpers/temp.js';

let small: SmallIndex;
let tmp: TempDir;
let golden: string;
let caseNo = 0;

// Parsed from JSON text: an object literal would set the prototype instead of making a key.
const ODD: Record<string, unknown> = JSON.parse(
  '{"__proto__": {"polluted": true}, "constructor": "c", "toString": 1, "": "empty key", "a.b": [1, 2], "ключ": "значение", "emoji": "🦀 \\ud800 lone", "nested": {"x": [{"y": null}, [true, false]], "deep": {"deeper": {"deepest": -0.5}}}, "big": 9007199254740991}',
) as Record<string, unknown>;

function payloadOf(label: number): Record<string, unknown> {
  return label % 7 === 0 ? ODD : { label, tag: `t${label % 5}`, tags: [`a${label % 3}`, `b${label % 2}`], price: label / 4, ok: label % 2 === 0 };
}

const INDEXES: IndexSpec[] = [
  { field: 'tag', params: { type: 'keyword' } },
  { field: 'price', params: { type: 'float' } },
  { field: 'nested.x[].y', params: { type: 'integer' } },
  { field: 'title', params: { type: 'text', tokenizer: 'word', lowercase: true } },
  { field: '"a.b"', params: { type: 'integer' } },
];

/** A one-shot source, as the build streams it: each entry made when asked for. */
function* entries(labels: Iterable<number>): Generator<BasePayload> {
  for (const l of labels) yield [l, payloadOf(l)];
}

const LABELS = [...Array.from({ length: 500 }, (_, i) => i * 3), Number.MAX_SAFE_INTEGER];

beforeAll(() => {
  small = buildSmallIndex({ count: 500 });
  tmp = makeTempDir('strata-payload-file-');
  golden = tmp.path('golden');
  writeIndex(small.index, golden, small.info, { payloads: { entries: entries(LABELS), indexes: INDEXES } });
});

afterAll(() => tmp?.cleanup());

function copyGolden(): string {
  const dir = tmp.path(`case-${++caseNo}`);
  cpSync(golden, dir, { recursive: true });
  return dir;
}

const sha256 = (data: Uint8Array | string): string => createHash('sha256').update(data).digest('hex');

/** Replaces the payload file's text and re-lists it in the manifest, as a buggy writer would leave it. */
function rewriteListed(dir: string, text: string): void {
  const path = join(dir, PAYLOAD_FILE);
  writeFileSync(path, text);
  const m = JSON.parse(readFileSync(join(dir, MANIFEST), 'utf8')) as { files: Record<string, { bytes: number; sha256: string }> };
  m.files[PAYLOAD_FILE] = { bytes: Buffer.byteLength(text), sha256: sha256(text) };
  writeFileSync(join(dir, MANIFEST), JSON.stringify(m));
}

describe('payload file round trip', () => {
  it('reads back every payload, by label and in order, equal to what was written', () => {
    const got = readBasePayloads(golden);
    expect(got).not.toBeNull();
    expect(got!.payloads.map(([l]) => l)).toEqual(LABELS);
    for (const [label, payload] of got!.payloads) expect(payload).toStrictEqual(payloadOf(label));
  });

  it('streams the same points to forEachBasePayload, and nothing for an index without the file', () => {
    const seen: BasePayload[] = [];
    expect(forEachBasePayload(golden, (label, payload) => seen.push([label, payload]))).toEqual(INDEXES);
    expect(seen).toStrictEqual(readBasePayloads(golden)!.payloads);
    const none = tmp.path('stream-none');
    writeIndex(small.index, none, small.info);
    let calls = 0;
    expect(
      forEachBasePayload(none, () => {
        calls++;
      }),
    ).toBeNull();
    expect(calls).toBe(0);
  });

  it('keeps a "__proto__" key as data: an own member, and the prototype untouched', () => {
    const odd = readBasePayloads(golden)!.payloads.find(([l]) => l === 0)![1];
    expect(Object.hasOwn(odd, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(odd)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(odd, '__proto__')!.value).toEqual({ polluted: true });
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(odd['emoji']).toBe('🦀 \ud800 lone');
  });

  it('records the index fields with their parameters, key paths in canonical spelling', () => {
    expect(readBasePayloads(golden)!.indexes).toEqual(INDEXES);
  });

  it('is listed in the manifest with its size and SHA-256, and the index still loads', () => {
    const m = loadIndex(golden).manifest;
    const bytes = readFileSync(join(golden, PAYLOAD_FILE));
    expect(m.files[PAYLOAD_FILE]).toEqual({ bytes: bytes.byteLength, sha256: sha256(bytes) });
  });

  it('is reported by verify: points and index count', () => {
    const r = verifyIndex(golden);
    expect(r.ok).toBe(true);
    expect(r.payloads).toEqual({ points: LABELS.length, indexes: INDEXES.length });
    expect(checkBasePayloads(golden)!.points).toBe(LABELS.length);
  });

  it('writes index fields without payloads, and reads an index written without either as null', () => {
    const only = tmp.path('indexes-only');
    writeIndex(small.index, only, small.info, { payloads: { entries: [], indexes: [{ field: 'k', params: { type: 'bool' } }] } });
    expect(readBasePayloads(only)).toEqual({ payloads: [], indexes: [{ field: 'k', params: { type: 'bool' } }] });
    const none = tmp.path('no-payloads');
    writeIndex(small.index, none, small.info);
    expect(readBasePayloads(none)).toBeNull();
    expect(verifyIndex(none).payloads).toBeNull();
  });
});

describe('a damaged payload file', () => {
  it('with one byte changed is refused by read and by verify as STRATA_INDEX_CORRUPT', () => {
    const dir = copyGolden();
    const path = join(dir, PAYLOAD_FILE);
    const bytes = readFileSync(path);
    // A digit inside a label: still valid JSON, so only the checksum can tell.
    const at = bytes.indexOf('\n[3,') + 2;
    bytes[at] = '4'.charCodeAt(0);
    writeFileSync(path, bytes);
    const e = expectStrataError(() => readBasePayloads(dir), 'STRATA_INDEX_CORRUPT');
    expect(e.message).toContain(PAYLOAD_FILE);
    expect(e.message).toContain('SHA-256 mismatch');
    expect(expectStrataError(() => verifyIndex(dir), 'STRATA_INDEX_CORRUPT').message).toContain(PAYLOAD_FILE);
  });

  it('truncated is refused on load, before any data is read', () => {
    const dir = copyGolden();
    const path = join(dir, PAYLOAD_FILE);
    truncateSync(path, readFileSync(path).byteLength - 10);
    expect(expectStrataError(() => loadIndex(dir), 'STRATA_INDEX_CORRUPT').message).toContain('truncated');
    expect(expectStrataError(() => readBasePayloads(dir), 'STRATA_INDEX_CORRUPT').message).toContain('truncated');
  });

  it('missing while listed, or present while not listed, is refused', () => {
    const missing = copyGolden();
    rmSync(join(missing, PAYLOAD_FILE));
    expect(expectStrataError(() => readBasePayloads(missing), 'STRATA_INDEX_CORRUPT').message).toContain('missing');
    const unlisted = tmp.path('unlisted');
    writeIndex(small.index, unlisted, small.info);
    cpSync(join(golden, PAYLOAD_FILE), join(unlisted, PAYLOAD_FILE));
    expect(expectStrataError(() => readBasePayloads(unlisted), 'STRATA_INDEX_CORRUPT').message).toContain('not listed in the manifest');
  });

  it('that checksums but holds what no writer writes is refused naming the line', () => {
    const header = JSON.stringify({ format: 'strata-payloads', version: 1, indexes: [] });
    const cases: Array<[string, string]> = [
      [`${header}\n[1,{}]\n[2,[]]\n`, 'line 3: the payload is not a JSON object'],
      [`${header}\n[-1,{}]\n`, 'line 2: the label is not a non-negative safe integer'],
      [`${header}\n{"a":1}\n`, 'line 2 is not a [label, payload] pair'],
      [`${header}\n[1,{}\n`, 'line 2 is not valid JSON'],
      ['{"format":"other"}\n', 'line 1 is not a strata-payloads header'],
      [`${JSON.stringify({ format: 'strata-payloads', version: 1, indexes: [{ field: 'a', params: { type: 'vector' } }] })}\n`, 'indexes[0].params.type'],
      [`${JSON.stringify({ format: 'strata-payloads', version: 1, indexes: [{ field: 'a..b', params: { type: 'bool' } }] })}\n`, 'indexes[0].field'],
      ['', 'is empty'],
    ];
    for (const [text, why] of cases) {
      const dir = copyGolden();
      rewriteListed(dir, text);
      expect(expectStrataError(() => readBasePayloads(dir), 'STRATA_INDEX_CORRUPT').message).toContain(why);
    }
    const dir = copyGolden();
    rewriteListed(dir, `${JSON.stringify({ format: 'strata-payloads', version: 9, indexes: [] })}\n`);
    expect(expectStrataError(() => readBasePayloads(dir), 'STRATA_INDEX_VERSION').message).toContain('version 9');
  });
});

describe('writeBasePayloads', () => {
  it('refuses a payload that is not an object, a bad label, and a key indexed twice, leaving no file', () => {
    const cases: Array<[BasePayload[], IndexSpec[], string]> = [
      [[[1, [] as unknown as Record<string, unknown>]], [], 'is not a JSON object'],
      [[[1.5, {}]], [], 'label 1.5'],
      [
        [],
        [
          { field: 'a', params: { type: 'bool' } },
          { field: '"a"', params: { type: 'keyword' } },
        ],
        'indexes[1].field: "a" is indexed twice',
      ],
      [[], [{ field: 'a', params: { type: 'keyword', tokenizer: 'word' } }], 'indexes[0].params.tokenizer'],
    ];
    for (const [payloads, indexes, why] of cases) {
      const dir = tmp.path(`write-${++caseNo}`);
      cpSync(golden, dir, { recursive: true });
      rmSync(join(dir, PAYLOAD_FILE));
      expect(expectStrataError(() => writeBasePayloads(dir, payloads, indexes), 'STRATA_INVALID_ARGUMENT').message).toContain(why);
      expect(() => readFileSync(join(dir, PAYLOAD_FILE))).toThrow();
    }
  });

  it('streams: the source is asked for each entry only as the file is written', () => {
    const dir = tmp.path('streamed');
    let made = 0;
    let maxAhead = 0;
    let written = 0;
    function* counted(): Generator<BasePayload> {
      for (let i = 0; i < 200_000; i++) {
        made++;
        maxAhead = Math.max(maxAhead, made - written);
        yield [i, { i }];
      }
    }
    writeIndex(small.index, dir, small.info, {
      payloads: {
        entries: counted(),
        indexes: [],
        onProgress: (n) => {
          written = n;
        },
      },
    });
    expect(made).toBe(200_000);
    // Progress is reported every 65,536 points: the generator never runs further ahead than that.
    expect(maxAhead).toBeLessThanOrEqual(65_537);
    expect(checkBasePayloads(dir)!.points).toBe(200_000);
  });
});
