// The insertion search block's one layout table (index/kernels/insert-control.ts) against the
// AssemblyScript constants the build generated from it: a table edited without a rebuild leaves the
// WASM search reading other offsets than the build thread writes.
import { describe, expect, it } from 'vitest';
import { INSERT, INSERT_BYTES } from '../../../index/kernels/insert-control.js';
import { asName, generatedConstants } from '../../helpers/generated-constants.js';

describe('insertion search block layout', () => {
  it('gives the WASM side every field of the table at the same offset, and nothing else', () => {
    const expected = new Map<string, number>(Object.entries(INSERT).map(([field, at]) => [asName('I', field), at]));
    expected.set('INSERT_BYTES', INSERT_BYTES);
    expect(Object.fromEntries(generatedConstants('insert-control'))).toEqual(Object.fromEntries(expected));
  });

  it('keeps every field word-aligned, inside the block and apart from the others', () => {
    const at = Object.values(INSERT).sort((a, b) => a - b);
    for (const [i, x] of at.entries()) {
      expect(x % 4).toBe(0);
      expect(x + 4).toBeLessThanOrEqual(INSERT_BYTES);
      if (i > 0) expect(x).toBeGreaterThanOrEqual(at[i - 1]! + 4);
    }
  });
});
