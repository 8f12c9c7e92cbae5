// readTextLines (index/format/json-lines.ts): lines split exactly across its read chunks, a last
// line without a newline, empty lines kept, and bytes that are not UTF-8 reported with their line.
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTextLines } from '../../../index/format/json-lines.js';
import { makeTempDir, type TempDir } from '../../helpers/temp.js';

let tmp: TempDir;
beforeAll(() => {
  tmp = makeTempDir('strata-lines-');
});
afterAll(() => tmp?.cleanup());

const fail = (line: number): never => {
  throw new Error(`bad line ${line}`);
};

function lines(bytes: Uint8Array | string): Array<[number, string]> {
  const path = tmp.path(`f-${Math.random().toString(36).slice(2)}`);
  writeFileSync(path, bytes);
  return [...readTextLines(path, fail)].map((l) => [l.number, l.text]);
}

describe('readTextLines', () => {
  it('numbers lines from 1, keeps empty ones, and counts a last line without a newline', () => {
    expect(lines('a\n\nb\nc')).toEqual([
      [1, 'a'],
      [2, ''],
      [3, 'b'],
      [4, 'c'],
    ]);
    expect(lines('a\n')).toEqual([[1, 'a']]);
    expect(lines('')).toEqual([]);
  });

  it('joins lines longer than a read chunk, and characters split between chunks', () => {
    // Multi-byte characters at every offset, so some straddle the 1 MiB chunk boundary.
    const long = 'é🦀x'.repeat(200_000);
    const text = `short\n${long}\n${long.slice(1)}\nend`;
    const got = lines(text);
    expect(got.map(([n]) => n)).toEqual([1, 2, 3, 4]);
    expect(got[1]![1]).toBe(long);
    expect(got[2]![1]).toBe(long.slice(1));
    expect(got[3]![1]).toBe('end');
  });

  it('reports bytes that are not UTF-8 with the number of their line', () => {
    const bytes = Buffer.concat([Buffer.from('ok\nok\n'), Buffer.from([0x7b, 0xff, 0x7d]), Buffer.from('\n')]);
    expect(() => lines(bytes)).toThrow('bad line 3');
  });
});
