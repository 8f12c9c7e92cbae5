// The prepared query header's one layout table (index/kernels/prepared-query.ts) against the
// AssemblyScript constants the build generated from it, and its fields against one another.
import { describe, expect, it } from 'vitest';
import { PREPARED } from '../../../index/kernels/prepared-query.js';
import { asName, generatedConstants } from '../../helpers/generated-constants.js';

describe('prepared query header layout', () => {
  it('gives the code kernel every field of the table at the same offset, and nothing else', () => {
    const expected = Object.fromEntries(Object.entries(PREPARED).map(([field, at]) => [asName('P', field), at]));
    expect(Object.fromEntries(generatedConstants('prepared-query'))).toEqual(expected);
  });

  it('keeps the fields word-aligned and apart, the weights after all of them', () => {
    const fields = Object.entries(PREPARED).sort((a, b) => a[1] - b[1]);
    for (const [i, [field, at]] of fields.entries()) {
      expect(at % 4, field).toBe(0);
      const next = fields[i + 1];
      const bytes = field === 'mSumW' ? 8 : 4;
      if (next !== undefined) expect(at + bytes, `${field} runs into ${next[0]}`).toBeLessThanOrEqual(next[1]);
    }
    expect(fields[fields.length - 1]![0]).toBe('weights');
  });
});
