import { describe, expect, it } from 'vitest';
import { Slots } from '../../common/slots.js';

describe('Slots', () => {
  it('holds what was added until its slot is removed, and counts it', () => {
    const s = new Slots<string>();
    const a = s.add('a');
    const b = s.add('b');
    expect(s.size).toBe(2);
    s.remove(a);
    expect(s.size).toBe(1);
    expect(s.values()).toEqual(['b']);
    s.remove(b);
    expect(s.values()).toEqual([]);
  });

  it('reuses freed slots instead of growing', () => {
    const s = new Slots<number>();
    const slots = new Set<number>();
    for (let round = 0; round < 100; round++) {
      const held = [s.add(1), s.add(2), s.add(3)];
      for (const h of held) slots.add(h);
      for (const h of held) s.remove(h);
    }
    expect(slots.size).toBe(3);
    expect(s.size).toBe(0);
  });

  it('ignores a second remove of the same slot', () => {
    const s = new Slots<string>();
    const a = s.add('a');
    s.add('b');
    s.remove(a);
    s.remove(a);
    expect(s.size).toBe(1);
    const c = s.add('c');
    const d = s.add('d');
    expect(c).not.toBe(d);
    expect(s.values().sort()).toEqual(['b', 'c', 'd']);
  });

  it('lets a caller remove entries while walking values()', () => {
    const s = new Slots<number>();
    const slots = [s.add(1), s.add(2), s.add(3)];
    let i = 0;
    for (const v of s.values()) {
      expect(v).toBe(i + 1);
      s.remove(slots[i++]!);
    }
    expect(s.size).toBe(0);
  });
});
