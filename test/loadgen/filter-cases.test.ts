// Reading `--filters`: every family's filters are parsed by Qdrant's rules before any load, and a bad
// file or filter is refused naming the file, the family and the query.
import { writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { readFilterCases, UNFILTERED } from '../../loadgen/filter-cases.js';
import { makeTempDir } from '../helpers/temp.js';

const tmp = makeTempDir('strata-filter-cases-');
afterAll(() => tmp.cleanup());

function file(v: unknown): string {
  const f = tmp.path(`${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(f, typeof v === 'string' ? v : JSON.stringify(v));
  return f;
}

const red = { must: [{ key: 'colour', match: { value: 'red' } }] };
const cases = (families: unknown[]): unknown => ({ schema: 'strata-filters/1', fields: { colour: { type: 'keyword' } }, families });

describe('filter cases', () => {
  it('takes per-query filters or one filter for all, and puts the unfiltered family first when asked', () => {
    const c = readFilterCases(
      file(
        cases([
          { name: 'a', kind: 'keyword', filters: [red, red, red] },
          { name: 'b', filter: red },
        ]),
      ),
      2,
      true,
    );
    expect(c.families.map((f) => f.name)).toEqual([UNFILTERED, 'a', 'b']);
    expect(c.families[0]!.parsed).toEqual([null, null]);
    expect(c.families[1]!.json).toEqual([red, red]);
    expect(c.families[2]!.parsed[1]!.must![0]).toMatchObject({ kind: 'match_value', value: 'red' });
    expect(c.families[2]!.kind).toBe('custom');
  });

  it('refuses a bad filter naming the file, family and query', () => {
    const f = file(cases([{ name: 'bad', filters: [red, { must: [{ key: 'colour', match: { value: 1.5 } }] }] }]));
    expect(() => readFilterCases(f, 2)).toThrow(new RegExp(`--filters: ${f}: family "bad": families\\[0\\]\\.filters\\[1\\]\\.must\\[0\\]\\.match\\.value`));
  });

  it('refuses too few filters, a repeated name, and a file that is not a cases file', () => {
    expect(() => readFilterCases(file(cases([{ name: 'a', filters: [red] }])), 2)).toThrow(/families\[0\]\.filters: 1 filters for 2 queries/);
    expect(() =>
      readFilterCases(
        file(
          cases([
            { name: 'a', filter: red },
            { name: 'a', filter: red },
          ]),
        ),
        1,
      ),
    ).toThrow(/the name "a" is used twice/);
    expect(() => readFilterCases(file('{"families": []}'), 1)).toThrow(/expected \{"schema": "strata-filters\/1"/);
    expect(() => readFilterCases(file('not json'), 1)).toThrow(/not a readable JSON file/);
  });
});
