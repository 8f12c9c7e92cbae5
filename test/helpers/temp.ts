// Shared test helpers: temporary directories that are always removed, and capturing a thrown error
// so a test can assert on its code, message and details.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { StrataError, type ErrorCode } from '../../common/errors.js';

export interface TempDir {
  readonly dir: string;
  path(...parts: string[]): string;
  cleanup(): void;
}

/** A fresh directory under the OS temp dir; call cleanup() (e.g. in afterEach/afterAll). */
export function makeTempDir(prefix = 'strata-test-'): TempDir {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, path: (...parts) => join(dir, ...parts), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Runs fn and returns what it threw; fails the test if it returned normally. */
export function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  throw new Error('expected the call to throw, it returned normally');
}

/** Awaits p and returns what it rejected with; fails the test if it resolved. */
export async function rejected(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected the promise to reject, it resolved');
}

/** Asserts that fn throws a StrataError with `code`, and returns it for further checks. */
export function expectStrataError(fn: () => unknown, code: ErrorCode): StrataError {
  const e = thrown(fn);
  expect(e).toBeInstanceOf(StrataError);
  const se = e as StrataError;
  expect(se.code, se.message).toBe(code);
  return se;
}
