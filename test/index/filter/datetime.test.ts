// Datetimes as Qdrant reads them: RFC 3339 with a zone, without one (UTC), with a space, bare dates.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDatetime } from '../../../index/filter/datetime.js';

const ms = (iso: string) => Date.parse(iso) * 1000;

describe('parseDatetime', () => {
  it('reads RFC 3339 with zones, in microseconds', () => {
    expect(parseDatetime('2024-01-31T10:14:31Z')).toBe(ms('2024-01-31T10:14:31Z'));
    expect(parseDatetime('2024-01-31T12:14:31+02:00')).toBe(ms('2024-01-31T10:14:31Z'));
    expect(parseDatetime('2024-01-31T05:44:31-0430')).toBe(ms('2024-01-31T10:14:31Z'));
    expect(parseDatetime('2024-01-31T10:14:31.123456789Z')).toBe(ms('2024-01-31T10:14:31.123Z') + 456);
  });
  it('takes a datetime without a zone as UTC, and reads the space, minute and date-only forms', () => {
    expect(parseDatetime('2024-01-31T10:14:31')).toBe(ms('2024-01-31T10:14:31Z'));
    expect(parseDatetime('2024-01-31 10:14:31.5')).toBe(ms('2024-01-31T10:14:31.500Z'));
    expect(parseDatetime('2024-01-31 10:14')).toBe(ms('2024-01-31T10:14:00Z'));
    expect(parseDatetime('2024-01-31')).toBe(ms('2024-01-31T00:00:00Z'));
    expect(parseDatetime('0050-06-01')).toBe(ms('0050-06-01T00:00:00Z'));
  });
  it.each([
    'abc',
    '2024-13-01',
    '2024-02-30',
    '2023-02-29',
    '2024-01-31T24:00:00Z',
    '2024-01-31T10:60',
    '2024-01-31T10:14:31+25:00',
    '2024-1-31',
    '2024-01-31T',
  ])('refuses %j', (s) => expect(parseDatetime(s)).toBeUndefined());
  it('accepts 29 February in a leap year', () => expect(parseDatetime('2024-02-29')).toBe(ms('2024-02-29T00:00:00Z')));
  it('agrees with Date on every instant of years 1 to 9999 (to the millisecond)', () => {
    fc.assert(
      fc.property(fc.date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }), (d) => {
        expect(parseDatetime(d.toISOString())).toBe(d.getTime() * 1000);
      }),
    );
  });
});
