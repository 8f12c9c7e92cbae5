import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, errorMessage, StrataError, isStrataError, readOnly } from '../../common/errors.js';

describe('error registry', () => {
  it('lists exactly the registry codes, with the same meanings, in docs/errors.md', () => {
    const doc = readFileSync(join(__dirname, '..', '..', 'docs', 'errors.md'), 'utf8');
    const rows = [...doc.matchAll(/^\| `([A-Z_]+)` \| (.+) \|$/gm)].map((m) => [m[1], m[2]]);
    expect(Object.fromEntries(rows)).toEqual(ERROR_CODES);
  });

  it('carries its code and details and is recognised by code', () => {
    const e = new StrataError('STRATA_INDEX_CORRUPT', 'x: bad', { file: 'x' });
    expect(isStrataError(e, 'STRATA_INDEX_CORRUPT')).toBe(true);
    expect(isStrataError(e, 'STRATA_KERNEL')).toBe(false);
    expect(e.details).toEqual({ file: 'x' });
  });
});

describe('errorMessage', () => {
  it("is an Error's own message, and anything else thrown as a string", () => {
    expect(errorMessage(new StrataError('STRATA_INTERNAL', 'boom'))).toBe('boom');
    expect(errorMessage(new TypeError('bad type'))).toBe('bad type');
    expect(errorMessage('plain')).toBe('plain');
    expect(errorMessage(42)).toBe('42');
  });
});

describe('readOnly', () => {
  it('is STRATA_READ_ONLY in one wording, naming the subject, the reason and the remedy, with its details', () => {
    const e = readOnly('collection "c"', 'no-data-dir', 'serve it with --data-dir', { allow: 'GET' });
    expect(isStrataError(e, 'STRATA_READ_ONLY')).toBe(true);
    expect(e.message).toBe('collection "c" takes no writes (no --data-dir): serve it with --data-dir');
    expect(e.details).toEqual({ allow: 'GET' });
    expect(readOnly('x', 'index-dir', 'y').message).toMatch(/^x takes no writes \(served from an index directory/);
  });
});
