// UUID points' ids both ways, in typed arrays: every pair set reads back from either side, as a pair
// of Maps would; ids outside the UUID range and strings that are no canonical UUID are refused as
// pairs and found by no lookup; the arrays cost bytes, not V8 heap objects, a point.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UUID_ID_BASE } from '../../storage/point-ids.js';
import { UuidIds } from '../../storage/uuid-ids.js';
import { expectStrataError } from '../helpers/temp.js';

const uuidArb = fc.uuid().map((u) => u.toLowerCase());

describe('UuidIds', () => {
  it('reads every pair back both ways, as two Maps would, through growth of the arrays and the table', () => {
    fc.assert(
      fc.property(fc.uniqueArray(uuidArb, { maxLength: 3000 }), fc.integer({ min: 0, max: 5 }), (uuids, gap) => {
        const m = new UuidIds();
        const byUuid = new Map<string, number>();
        uuids.forEach((u, i) => {
          const id = UUID_ID_BASE + i * (gap + 1);
          m.set(u, id);
          byUuid.set(u, id);
        });
        expect(m.size).toBe(byUuid.size);
        for (const [u, id] of byUuid) {
          expect(m.get(u)).toBe(id);
          expect(m.uuidOf(id)).toBe(u);
        }
        const seen: Array<[string, number]> = [];
        m.forEach((u, id) => seen.push([u, id]));
        expect(seen).toEqual([...byUuid].sort((a, b) => a[1] - b[1]));
        expect(m.get('00000000-0000-4000-8000-00000000000f')).toBe(byUuid.get('00000000-0000-4000-8000-00000000000f'));
        expect(m.uuidOf(7)).toBeNull();
        expect(m.uuidOf(UUID_ID_BASE + 3 * 3001 * 6)).toBeNull();
      }),
      { numRuns: 40 },
    );
  });

  it('refuses an id outside the UUID range and a UUID not in canonical form', () => {
    const m = new UuidIds();
    expectStrataError(() => m.set('0f0e0d0c-0b0a-4908-8706-050403020100', 12), 'STRATA_INTERNAL');
    expectStrataError(() => m.set('0F0E0D0C-0B0A-4908-8706-050403020100', UUID_ID_BASE), 'STRATA_INTERNAL');
    expect(m.size).toBe(0);
    // A lookup of any other string finds nothing, as a Map's would.
    m.set('0f0e0d0c-0b0a-4908-8706-050403020100', UUID_ID_BASE);
    expect(m.get('0F0E0D0C-0B0A-4908-8706-050403020100')).toBeUndefined();
    expect(m.get('not a uuid')).toBeUndefined();
    expect(m.get('0f0e0d0c-0b0a-4908-8706-050403020100')).toBe(UUID_ID_BASE);
  });

  it('costs about 24 bytes of typed arrays a UUID point', () => {
    const m = new UuidIds();
    const n = 100_000;
    for (let i = 0; i < n; i++) m.set(`00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`, UUID_ID_BASE + i);
    // 16 bytes and a held byte an id, grown by half; a table slot of 4 bytes kept at most half full.
    expect(m.byteLength()).toBeLessThanOrEqual(1.5 * n * 17 + 4 * 4 * n);
    expect(m.uuidOf(UUID_ID_BASE + 77_777)).toBe(`00000000-0000-4000-8000-${(77_777).toString(16).padStart(12, '0')}`);
  });
});
