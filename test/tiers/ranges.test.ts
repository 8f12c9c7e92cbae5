import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isStrataError } from '../../common/errors.js';
import { formatRangeList, parseRangeList } from '../../tiers/topology.js';

describe('parseRangeList', () => {
  it('parses kernel lists of single ids and ranges', () => {
    expect(parseRangeList('0-1,3')).toEqual([0, 1, 3]);
    expect(parseRangeList('0\n')).toEqual([0]);
    expect(parseRangeList('2-4,0')).toEqual([0, 2, 3, 4]);
    expect(parseRangeList('0-6:2')).toEqual([0, 2, 4, 6]);
  });

  it('returns no ids for an empty list (a CPU-less node cpulist)', () => {
    expect(parseRangeList('')).toEqual([]);
    expect(parseRangeList('\n')).toEqual([]);
  });

  it('removes duplicates and overlaps', () => {
    expect(parseRangeList('1-3,2-4,3')).toEqual([1, 2, 3, 4]);
  });

  it('rejects malformed lists with STRATA_INVALID_ARGUMENT', () => {
    for (const bad of ['a', '1-', '-1', '3-1', '1,,2', '0x1', '1-2:0']) {
      let err: unknown;
      try {
        parseRangeList(bad);
      } catch (e) {
        err = e;
      }
      expect(isStrataError(err, 'STRATA_INVALID_ARGUMENT'), bad).toBe(true);
    }
  });
});

describe('formatRangeList', () => {
  it('collapses runs into ranges', () => {
    expect(formatRangeList([0, 1, 2, 5, 7, 8])).toBe('0-2,5,7-8');
    expect(formatRangeList([])).toBe('');
    expect(formatRangeList([3, 1, 2, 2])).toBe('1-3');
  });

  it('round-trips with parseRangeList', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 0, max: 300 }), { maxLength: 60 }), (ids) => {
        const sorted = [...ids].sort((a, b) => a - b);
        expect(parseRangeList(formatRangeList(ids))).toEqual(sorted);
      }),
    );
  });
});
