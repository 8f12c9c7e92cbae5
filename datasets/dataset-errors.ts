// One place that shapes dataset errors, so every reader names the file first and fills the same
// `details` keys ({file, row?, expected?, found?}) that the CLI prints and tests assert on.
import { StrataError, type ErrorCode } from '../common/errors.js';

export interface Where {
  row?: number;
  expected?: string | number;
  found?: string | number;
  [key: string]: string | number | boolean | null | undefined;
}

function make(code: ErrorCode, file: string, message: string, where: Where, cause?: unknown): StrataError {
  const details: Record<string, string | number | boolean | null | undefined> = { file };
  for (const [k, v] of Object.entries(where)) if (v !== undefined) details[k] = v;
  return new StrataError(code, `${file}: ${message}`, details, cause === undefined ? undefined : { cause });
}

export function formatError(file: string, message: string, where: Where = {}, cause?: unknown): StrataError {
  return make('STRATA_DATASET_FORMAT', file, message, where, cause);
}

export function valueError(file: string, message: string, where: Where = {}): StrataError {
  return make('STRATA_DATASET_VALUE', file, message, where);
}

export function dimensionError(file: string, message: string, where: Where = {}): StrataError {
  return make('STRATA_DATASET_DIMENSION', file, message, where);
}

/**
 * Rejects NaN and ±Infinity in values[from, to), where values is a row-major matrix of width dim.
 * Graph construction silently degrades on non-finite distances, so they must never reach the
 * builder.
 */
export function checkFinite(file: string, values: Float32Array, dim: number, from = 0, to = values.length): void {
  for (let i = from; i < to; i++) {
    const v = values[i]!;
    // v - v is NaN exactly for NaN and ±Infinity: one subtraction instead of two predicates.
    if (v - v !== 0) throw nonFinite(file, Math.floor(i / dim), i % dim, v);
  }
}

export function nonFinite(file: string, row: number, column: number, v: number, note = ''): StrataError {
  const found = Number.isNaN(v) ? 'NaN' : Number.isFinite(v) ? String(v) : v > 0 ? 'Infinity' : '-Infinity';
  return valueError(file, `row ${row}, column ${column} is ${found}${note}; expected a finite number`, {
    row,
    column,
    expected: 'finite number',
    found,
  });
}

/**
 * Narrows n wider values (float64, or integers) into out[o..o+n) as float32, refusing any value that
 * is not finite or does not fit float32, named by its row and column (out holds rows of dim).
 */
export function storeAsFloat32(file: string, values: ArrayLike<number>, n: number, out: Float32Array, o: number, dim: number): void {
  for (let i = 0; i < n; i++) {
    const v = values[i]!;
    const f = Math.fround(v);
    if (f - f !== 0) {
      const at = o + i;
      throw nonFinite(file, Math.floor(at / dim), at % dim, v, Number.isFinite(v) ? ' (outside the float32 range)' : '');
    }
    out[o + i] = f;
  }
}
