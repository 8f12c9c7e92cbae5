// Where `strata build` takes payloads from (index/build/payload-input.ts): a JSONL input's `payload`
// members or a --payloads file, judged line by line against the rows read, then streamed as
// [label, payload] by id, by row, or for a shard's rows; every mistake names the file and line.
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basePayloadEntries, checkPayloadInput, type PayloadSourceOptions } from '../../../index/build/payload-input.js';
import { StrataError } from '../../../common/errors.js';
import { makeTempDir, rejected, type TempDir } from '../../helpers/temp.js';

let tmp: TempDir;
let n = 0;
beforeAll(() => {
  tmp = makeTempDir('strata-payload-input-');
});
afterAll(() => tmp?.cleanup());

function file(text: string | Buffer): string {
  const path = tmp.path(`f-${++n}.jsonl`);
  writeFileSync(path, text);
  return path;
}

const lines = (...objs: unknown[]): string => objs.map((o) => JSON.stringify(o)).join('\n') + '\n';

function linesFile(text: string): PayloadSourceOptions {
  return { input: tmp.path('vectors.fvecs'), format: 'fvecs', payloads: file(text) };
}

async function failure(o: PayloadSourceOptions, rows: number): Promise<StrataError> {
  const e = await rejected(checkPayloadInput(o, rows));
  expect(e).toBeInstanceOf(StrataError);
  return e as StrataError;
}

describe('a --payloads file', () => {
  it('gives line i to row i, by id when the input has ids, else by row number', async () => {
    const input = (await checkPayloadInput(linesFile(lines({ a: 1 }, {}, { b: [2, { c: 'ü' }] })), 3))!;
    expect(input).toMatchObject({ kind: 'lines', rows: 3, points: 3 });
    expect([...basePayloadEntries(input, null)]).toEqual([
      [0, { a: 1 }],
      [1, {}],
      [2, { b: [2, { c: 'ü' }] }],
    ]);
    expect([...basePayloadEntries(input, Float64Array.from([10, 20, 30]))].map(([l]) => l)).toEqual([10, 20, 30]);
  });

  it("keeps only a shard's rows, labelled by the shard's ids", async () => {
    const input = (await checkPayloadInput(linesFile(lines({ r: 0 }, { r: 1 }, { r: 2 }, { r: 3 })), 4))!;
    expect([...basePayloadEntries(input, Float64Array.from([101, 103]), [1, 3])]).toEqual([
      [101, { r: 1 }],
      [103, { r: 3 }],
    ]);
  });

  it('must have exactly a line per row, unless the input was cut with --limit', async () => {
    const text = lines({}, {}, {});
    expect((await failure(linesFile(text), 4)).message).toContain('has payloads for 3 rows, the input has 4');
    expect((await failure(linesFile(text), 2)).message).toContain("more than the input's 2 rows (line 3 is one too many)");
    expect((await checkPayloadInput({ ...linesFile(text), limit: 2 }, 2))!.points).toBe(2);
  });

  it('refuses bad JSON, a non-object, an empty line and bytes that are not UTF-8, naming the file and line', async () => {
    const cases: Array<[string | Buffer, string]> = [
      ['{}\n{"a":\n{}\n', 'line 2 (row 1) is not valid JSON'],
      ['{}\n[1,2]\n', 'line 2 (row 1) is an array; expected a JSON object'],
      ['{}\nnull\n', 'line 2 (row 1) is null'],
      ['{}\n"x"\n', 'line 2 (row 1) is a string'],
      ['{}\n\n{}\n', 'line 2 (row 1) is empty'],
      [Buffer.from([0x7b, 0x7d, 0x0a, 0x7b, 0xc3, 0x7d, 0x0a]), 'line 2 (row 1) is not valid UTF-8'],
    ];
    for (const [text, why] of cases) {
      const o = linesFile(text as string);
      const e = await failure(o, 3);
      expect(e.code).toBe('STRATA_DATASET_FORMAT');
      expect(e.message).toContain(o.payloads!);
      expect(e.message).toContain(why);
    }
  });

  it('is refused when it cannot be read, naming --payloads and the path', async () => {
    for (const path of [tmp.path('no-such.jsonl'), tmp.dir]) {
      const e = await failure({ input: tmp.path('x.fvecs'), format: 'fvecs', payloads: path }, 1);
      expect(e.code).toBe('STRATA_INVALID_ARGUMENT');
      expect(e.message).toContain(`--payloads: cannot read ${path}`);
    }
  });

  it('is refused beside a JSONL input, whose rows carry their own payloads', async () => {
    const e = await failure({ input: file(lines({ vector: [1] })), format: 'jsonl', payloads: file('{}\n') }, 1);
    expect(e.code).toBe('STRATA_INVALID_ARGUMENT');
    expect(e.message).toContain('--payloads');
  });
});

describe('a JSONL input', () => {
  it('gives each row its "payload" member, rows without one none, counting rows as the vector reader does', async () => {
    const text = `\ufeff${JSON.stringify({ id: 5, vector: [1], payload: { k: 'a' } })}\n\n  \n${lines({ id: 6, vector: [2] }, { id: 7, vector: [3], payload: null }, { id: 8, vector: [4], payload: { k: 'b' } })}`;
    const input = (await checkPayloadInput({ input: file(text), format: 'jsonl' }, 4))!;
    expect(input).toMatchObject({ kind: 'member', rows: 4, points: 2 });
    expect([...basePayloadEntries(input, Float64Array.from([5, 6, 7, 8]))]).toEqual([
      [5, { k: 'a' }],
      [8, { k: 'b' }],
    ]);
  });

  it('refuses a "payload" that is not an object, naming the file and line', async () => {
    const path = file(lines({ vector: [1], payload: {} }, { vector: [2], payload: [1] }));
    const e = await failure({ input: path, format: 'jsonl' }, 2);
    expect(e.message).toContain(`${path}: line 2 (row 1) has "payload" an array; expected a JSON object`);
  });

  it('reads nothing for other formats without --payloads', async () => {
    expect(await checkPayloadInput({ input: tmp.path('x.fvecs'), format: 'fvecs' }, 10)).toBeNull();
  });
});
