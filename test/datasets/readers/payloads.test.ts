// Payload files beside vectors: JSON Lines, one object per row; a bad line or a wrong count is an
// error naming the file and the 1-based line.
import { writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { readPayloadLines } from '../../../datasets/index.js';
import { makeTempDir } from '../../helpers/temp.js';

const tmp = makeTempDir('strata-payloads-');
afterAll(() => tmp.cleanup());
const file = (name: string, text: string): string => {
  writeFileSync(tmp.path(name), text);
  return tmp.path(name);
};

describe('payload lines', () => {
  it('reads one object per line, in row order, keys such as __proto__ kept as data', () => {
    const f = file('ok.jsonl', '{"a":1}\n{"__proto__":{"x":1},"b":[1,"é"]}\n');
    const p = readPayloadLines(f, 2);
    expect(p[0]).toEqual({ a: 1 });
    expect(Object.keys(p[1]!)).toEqual(['__proto__', 'b']);
    expect(Object.getPrototypeOf(p[1])).toBe(Object.prototype);
  });

  it('names the file and line of a line that is not JSON or not an object, and a count that differs from the rows', () => {
    expect(() => readPayloadLines(file('bad.jsonl', '{"a":1}\n{oops\n'))).toThrow(/bad\.jsonl: line 2 is not JSON/);
    expect(() => readPayloadLines(file('arr.jsonl', '{"a":1}\n[1]\n'))).toThrow(/arr\.jsonl: line 2 is not a JSON object/);
    expect(() => readPayloadLines(file('n.jsonl', '{}\n{}\n'), 3)).toThrow(/n\.jsonl: 2 payload lines for 3 rows/);
  });
});
