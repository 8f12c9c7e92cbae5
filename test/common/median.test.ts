import { describe, expect, it } from 'vitest';
import { median } from '../../common/median.js';

describe('median (the benches’ one reducer of repetitions)', () => {
  it('takes the middle value of an odd count, whatever the order', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([7])).toBe(7);
  });

  it('averages the two middle values of an even count', () => {
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });

  it('leaves its input in place', () => {
    const xs = [3, 1, 2];
    median(xs);
    expect(xs).toEqual([3, 1, 2]);
  });

  it('refuses an empty list instead of returning undefined as a number', () => {
    expect(() => median([])).toThrow(RangeError);
  });
});
