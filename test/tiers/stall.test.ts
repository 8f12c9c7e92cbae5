// The emulated CXL stall takes the time it claims: measured by an independent clock around it, a
// stall is never shorter than asked (only a lower bound is checked: the machine is shared, so an
// upper bound would be a timing assertion).
import { describe, expect, it } from 'vitest';
import { Stall, stallNs } from '../../tiers/stall.js';

describe('stall', () => {
  it.each([500, 5_000, 50_000, 500_000])('lasts at least the %i ns asked, by its own and by another clock', (ns) => {
    const s = new Stall();
    for (let r = 0; r < 5; r++) {
      const t0 = process.hrtime.bigint();
      const measured = s.pay(ns);
      const outside = Number(process.hrtime.bigint() - t0);
      expect(measured).toBeGreaterThanOrEqual(ns);
      expect(outside).toBeGreaterThanOrEqual(ns);
    }
  });

  it('reports what it measured, not what it was asked', () => {
    const t0 = process.hrtime.bigint();
    const measured = stallNs(200_000);
    const outside = Number(process.hrtime.bigint() - t0);
    // The measured time fits inside the span an outside clock saw.
    expect(measured).toBeLessThanOrEqual(outside);
    expect(measured).toBeGreaterThanOrEqual(200_000);
  });

  it('pays nothing for nothing', () => {
    expect(new Stall().pay(0)).toBe(0);
    expect(new Stall().pay(-5)).toBe(0);
  });
});
