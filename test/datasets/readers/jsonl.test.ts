import { writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { readDataset } from '../../../datasets/index.js';
import { expectRejection, makeTempDir } from './helpers.js';

const tmp = makeTempDir();
afterAll(() => tmp.cleanup());

function jsonl(name: string, text: string): string {
  const file = tmp.path(name);
  writeFileSync(file, text);
  return file;
}

describe('jsonl', () => {
  it('reads ids and vectors, ignoring other fields', async () => {
    const file = jsonl(
      'ids.jsonl',
      [
        '{"id": 10, "vector": [1, 2.5, -3], "title": "a"}',
        '{"vector": [4, 5, 6], "id": 3, "meta": {"x": [1, "y"]}}',
        '{"id": 9007199254740991, "vector": [0.1, 0, 1e-3]}',
      ].join('\n') + '\n',
    );
    const ds = await readDataset(file);
    expect(ds).toMatchObject({ file, format: 'jsonl', dim: 3, count: 3, metric: null });
    expect(Array.from(ds.vectors)).toEqual([1, 2.5, -3, 4, 5, 6, Math.fround(0.1), 0, Math.fround(1e-3)]);
    expect(ds.ids).toBeInstanceOf(Float64Array);
    expect(Array.from(ds.ids!)).toEqual([10, 3, 9007199254740991]);
  });

  it('returns ids = null when no line has an id', async () => {
    const ds = await readDataset(jsonl('noids.jsonl', '{"vector": [1, 2]}\n{"vector": [3, 4]}'));
    expect(ds.ids).toBeNull();
    expect(Array.from(ds.vectors)).toEqual([1, 2, 3, 4]);
  });

  it('skips blank lines, accepts CRLF line ends and a UTF-8 BOM, and detects .ndjson', async () => {
    const file = jsonl('crlf.ndjson', '\uFEFF{"id": 1, "vector": [1]}\r\n\r\n   \r\n{"id": 2, "vector": [2]}\r\n\n');
    const ds = await readDataset(file);
    expect(ds).toMatchObject({ format: 'jsonl', count: 2, dim: 1 });
    expect(Array.from(ds.vectors)).toEqual([1, 2]);
    expect(Array.from(ds.ids!)).toEqual([1, 2]);
  });

  it('reads at most `limit` rows and stops before later bad lines', async () => {
    const file = jsonl('limit.jsonl', '{"vector": [1]}\n{"vector": [2]}\nnot json\n');
    const ds = await readDataset(file, { limit: 2 });
    expect(ds.count).toBe(2);
    expect(Array.from(ds.vectors)).toEqual([1, 2]);
  });

  it('reports progress every 65536 rows and at the end', async () => {
    const rows = 70_000;
    const lines: string[] = [];
    for (let r = 0; r < rows; r++) lines.push(`{"id": ${r * 2}, "vector": [${r}, 1]}`);
    const file = jsonl('big.jsonl', lines.join('\n'));
    const calls: [number, number][] = [];
    const ds = await readDataset(file, { onProgress: (d, t) => calls.push([d, t]) });
    expect(ds.count).toBe(rows);
    expect(ds.vectors[(rows - 1) * 2]).toBe(rows - 1);
    expect(ds.ids![rows - 1]).toBe((rows - 1) * 2);
    expect(calls).toEqual([
      [65_536, rows],
      [rows, rows],
    ]);
  });

  it('rejects invalid JSON, naming the 0-based row and the 1-based line', async () => {
    const file = jsonl('badjson.jsonl', '{"vector": [1]}\n\n{"vector": [2,]}\n');
    const err = await expectRejection(readDataset(file), 'STRATA_DATASET_FORMAT', file, 'row 1 (line 3)', 'not valid JSON');
    expect(err.details).toMatchObject({ file, row: 1, line: 3 });
  });

  it('rejects a line that is not a JSON object', async () => {
    const file = jsonl('array.jsonl', '[1, 2]\n');
    await expectRejection(readDataset(file), 'STRATA_DATASET_FORMAT', file, 'row 0 (line 1)', 'an array', 'JSON object');
  });

  it('rejects a row without "vector" or with a non-array vector', async () => {
    const missing = jsonl('novec.jsonl', '{"vector": [1]}\n{"id": 1, "embedding": [2]}\n');
    const err = await expectRejection(readDataset(missing), 'STRATA_DATASET_FORMAT', missing, 'row 1 (line 2)', 'no "vector"');
    expect(err.details).toMatchObject({ row: 1, line: 2 });
    const str = jsonl('strvec.jsonl', '{"vector": "1,2"}\n');
    await expectRejection(readDataset(str), 'STRATA_DATASET_FORMAT', str, 'row 0 (line 1)', '"vector" is a string');
  });

  it('rejects an empty vector', async () => {
    const file = jsonl('emptyvec.jsonl', '{"vector": []}\n');
    await expectRejection(readDataset(file), 'STRATA_DATASET_FORMAT', file, 'row 0 (line 1)', 'empty');
  });

  it('rejects non-number vector entries, naming row, line and column', async () => {
    const file = jsonl('nonnum.jsonl', '{"vector": [1, 2]}\n{"vector": [3, "4"]}\n');
    const err = await expectRejection(readDataset(file), 'STRATA_DATASET_FORMAT', file, 'row 1 (line 2), column 1', 'string', 'expected a number');
    expect(err.details).toMatchObject({ row: 1, line: 2, column: 1 });
    const nul = jsonl('null.jsonl', '{"vector": [null]}\n');
    await expectRejection(readDataset(nul), 'STRATA_DATASET_FORMAT', nul, 'row 0 (line 1), column 0', 'null');
  });

  it('rejects a row of the wrong dimension with STRATA_DATASET_DIMENSION', async () => {
    const file = jsonl('dim.jsonl', '{"vector": [1, 2]}\n{"vector": [1, 2]}\n\n{"vector": [1, 2, 3]}\n');
    const err = await expectRejection(readDataset(file), 'STRATA_DATASET_DIMENSION', file, 'row 2 (line 4)', 'has 3 values, expected 2');
    expect(err.details).toMatchObject({ row: 2, line: 4, expected: 2, found: 3 });
  });

  it('rejects numbers that overflow to Infinity or beyond float32, naming row and column', async () => {
    const inf = jsonl('inf.jsonl', '{"vector": [1, 1e999]}\n');
    const err = await expectRejection(readDataset(inf), 'STRATA_DATASET_VALUE', inf, 'row 0, column 1', 'Infinity', 'line 1');
    expect(err.details).toMatchObject({ row: 0, column: 1, found: 'Infinity' });
    const big = jsonl('big-f32.jsonl', '{"vector": [1]}\n{"vector": [-1e39]}\n');
    await expectRejection(readDataset(big), 'STRATA_DATASET_VALUE', big, 'row 1, column 0', 'float32 range');
  });

  it('rejects ids that are negative, fractional, strings, or beyond 2^53-1', async () => {
    const cases: [string, string][] = [
      ['-1', 'id -1'],
      ['1.5', 'id 1.5'],
      ['"7"', 'a string "7"'],
      ['9007199254740992', 'id 9007199254740992'],
      ['null', 'null'],
    ];
    for (const [i, [id, shown]] of cases.entries()) {
      const file = jsonl(`badid${i}.jsonl`, `{"id": 0, "vector": [1]}\n{"id": ${id}, "vector": [2]}\n`);
      const err = await expectRejection(readDataset(file), 'STRATA_DATASET_VALUE', file, 'row 1 (line 2)', shown, 'non-negative safe integer');
      expect(err.details).toMatchObject({ row: 1, line: 2 });
    }
  });

  it('rejects a duplicate id, naming both rows', async () => {
    const file = jsonl('dup.jsonl', '{"id": 5, "vector": [1]}\n{"id": 6, "vector": [2]}\n\n{"id": 5, "vector": [3]}\n');
    const err = await expectRejection(readDataset(file), 'STRATA_DATASET_VALUE', file, 'row 2 (line 4)', 'repeats id 5', 'row 0 (line 1)');
    expect(err.details).toMatchObject({ row: 2, line: 4, found: 5, firstRow: 0 });
  });

  it('rejects files where some rows have ids and others do not', async () => {
    const later = jsonl('mixed1.jsonl', '{"id": 1, "vector": [1]}\n{"vector": [2]}\n');
    await expectRejection(readDataset(later), 'STRATA_DATASET_VALUE', later, 'row 1 (line 2)', 'no "id"');
    const first = jsonl('mixed2.jsonl', '{"vector": [1]}\n{"id": 1, "vector": [2]}\n');
    await expectRejection(readDataset(first), 'STRATA_DATASET_VALUE', first, 'row 1 (line 2)', 'has an "id"');
  });

  it('rejects a file with no data rows', async () => {
    const file = jsonl('blank.jsonl', '\n  \n');
    await expectRejection(readDataset(file), 'STRATA_DATASET_FORMAT', file, 'no data rows');
  });
});
