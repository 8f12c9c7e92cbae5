// Datetimes as Qdrant reads them, in filter bounds and in payload values alike: RFC 3339
// ("2024-01-31T10:14:31.5+02:00"), the same with a space for the "T", without seconds, or a bare
// date; a value without a zone is UTC, as Qdrant documents. The instant is counted in microseconds
// (Qdrant's precision; finer fractions are cut) in one float64: exact within 2^53 µs of 1970 (years
// 1685 to 2255), and a few tens of microseconds coarse further out.

const DATETIME = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|z|[+-]\d{2}(?::?\d{2})?)?)?$/;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const;

function daysIn(year: number, month: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]!;
}

/** Microseconds since 1970-01-01T00:00:00Z, or undefined when `s` is not a datetime Qdrant reads. */
export function parseDatetime(s: string): number | undefined {
  const m = DATETIME.exec(s);
  if (!m) return undefined;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const [hour, minute, second] = [Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0)];
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  const micros = m[7] === undefined ? 0 : Number(m[7].slice(0, 6).padEnd(6, '0'));
  let offsetMinutes = 0;
  const zone = m[8];
  if (zone !== undefined && zone !== 'Z' && zone !== 'z') {
    const digits = zone.slice(1).replace(':', '');
    const hh = Number(digits.slice(0, 2));
    const mm = Number(digits.slice(2) || '0');
    if (hh > 23 || mm > 59) return undefined;
    offsetMinutes = (zone[0] === '-' ? -1 : 1) * (hh * 60 + mm);
  }
  const seconds = daysFromCivil(year, month, day) * 86_400 + hour * 3600 + (minute - offsetMinutes) * 60 + second;
  return seconds * 1_000_000 + micros;
}

/** Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's days_from_civil). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}
