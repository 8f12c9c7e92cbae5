// JSON Lines: one object per line, {"id": <unsigned integer>, "vector": [numbers], ...}. Other
// fields are ignored so exports from other systems can be fed in as they are. Errors name the
// 0-based data row (what the rest of Strata counts) and the 1-based line (what an editor shows).
import { readFile } from 'node:fs/promises';
import { dimensionError, formatError, nonFinite, valueError } from '../dataset-errors.js';
import { openError } from '../file-io.js';
import { CHUNK_ROWS, report } from '../progress.js';
import type { RowReadOptions } from '../types.js';

const NEWLINE = 0x0a;

export async function readJsonlData(file: string, opts: RowReadOptions): Promise<{ dim: number; count: number; data: Float32Array; ids: Float64Array | null }> {
  let buf: Buffer;
  try {
    buf = await readFile(file);
  } catch (e) {
    throw openError(file, e);
  }

  // Counting lines first lets the result be allocated once instead of grown by doubling.
  let lines = 0;
  for (let p = buf.indexOf(NEWLINE); p >= 0; p = buf.indexOf(NEWLINE, p + 1)) lines++;
  if (buf.length > 0 && buf[buf.length - 1] !== NEWLINE) lines++;
  const total = Math.min(lines, opts.limit);

  let dim = 0;
  let vectors = new Float32Array(0);
  let ids: Float64Array | null = null;
  let withIds = false;
  const firstRowOfId = new Map<number, number>();
  const lineOfRow: number[] = [];
  let count = 0;
  let line = 0;

  for (let start = 0; start < buf.length && count < opts.limit; ) {
    let end = buf.indexOf(NEWLINE, start);
    if (end < 0) end = buf.length;
    line++;
    let text = buf.toString('utf8', start, end);
    start = end + 1;
    if (line === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (text.trim() === '') continue;

    const row = count;
    const at = `row ${row} (line ${line})`;
    const where = { row, line };
    let obj: unknown;
    try {
      obj = JSON.parse(text);
    } catch (e) {
      throw formatError(
        file,
        `${at} is not valid JSON (${(e as Error).message}): ${snippet(text)}`,
        {
          ...where,
          expected: 'a JSON object',
          found: snippet(text),
        },
        e,
      );
    }
    if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) {
      throw formatError(file, `${at} is ${kindOf(obj)}; expected a JSON object like {"id": 0, "vector": [...]}`, {
        ...where,
        expected: 'object',
        found: kindOf(obj),
      });
    }
    const rec = obj as Record<string, unknown>;

    const vec = rec['vector'];
    if (!Array.isArray(vec)) {
      const found = vec === undefined ? 'no "vector" field' : `"vector" is ${kindOf(vec)}`;
      throw formatError(file, `${at} has ${found}; expected "vector": an array of numbers`, { ...where, expected: 'array of numbers', found });
    }
    if (row === 0) {
      if (vec.length === 0) {
        throw formatError(file, `${at} has an empty "vector"; expected at least one number`, { ...where, expected: 'dimension >= 1', found: 0 });
      }
      dim = vec.length;
      vectors = new Float32Array(total * dim);
      withIds = Object.hasOwn(rec, 'id');
      if (withIds) ids = new Float64Array(total);
    } else if (vec.length !== dim) {
      throw dimensionError(file, `${at} has ${vec.length} values, expected ${dim} (the dimension of row 0)`, { ...where, expected: dim, found: vec.length });
    }

    const o = row * dim;
    for (let j = 0; j < dim; j++) {
      const v: unknown = vec[j];
      if (typeof v !== 'number') {
        throw formatError(file, `${at}, column ${j} is ${kindOf(v)}; expected a number`, { ...where, column: j, expected: 'number', found: kindOf(v) });
      }
      // JSON cannot spell NaN, but 1e999 parses to Infinity, and finite doubles can overflow float32.
      const f = Math.fround(v);
      if (f - f !== 0) throw nonFinite(file, row, j, v, `${Number.isFinite(v) ? ' (outside the float32 range)' : ''} at line ${line}`);
      vectors[o + j] = f;
    }

    const hasId = Object.hasOwn(rec, 'id');
    if (hasId !== withIds) {
      const msg = hasId ? `${at} has an "id" but row 0 (line ${lineOfRow[0]}) does not` : `${at} has no "id" but row 0 (line ${lineOfRow[0]}) does`;
      throw valueError(file, `${msg}; either every row carries an id or none does`, {
        ...where,
        expected: withIds ? 'an id' : 'no id',
        found: hasId ? 'an id' : 'no id',
      });
    }
    if (ids !== null) {
      const id = rec['id'];
      if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 0) {
        const found = typeof id === 'number' ? String(id) : `${kindOf(id)} ${snippet(JSON.stringify(id) ?? '')}`;
        throw valueError(file, `${at} has id ${found}; expected a non-negative safe integer (0 to 2^53-1)`, {
          ...where,
          expected: 'non-negative safe integer',
          found,
        });
      }
      const earlier = firstRowOfId.get(id);
      if (earlier !== undefined) {
        throw valueError(file, `${at} repeats id ${id}, already used by row ${earlier} (line ${lineOfRow[earlier]}); ids must be unique`, {
          ...where,
          expected: 'unique id',
          found: id,
          firstRow: earlier,
        });
      }
      firstRowOfId.set(id, row);
      ids[row] = id;
    }
    lineOfRow.push(line);
    count++;
    if (count % CHUNK_ROWS === 0) await report(opts.onProgress, count, total);
  }

  if (count === 0) {
    throw formatError(file, 'has no data rows; expected at least one JSON line with a "vector"', { expected: 'at least one row', found: 0 });
  }
  // Blank lines were counted in the allocation; hand back exactly `count` rows.
  if (vectors.length !== count * dim) vectors = vectors.slice(0, count * dim);
  if (ids !== null && ids.length !== count) ids = ids.slice(0, count);
  await report(opts.onProgress, count, count);
  return { dim, count, data: vectors, ids };
}

function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'string') return `a string ${snippet(JSON.stringify(v))}`;
  if (typeof v === 'undefined') return 'missing';
  return `${typeof v} ${String(v)}`;
}

function snippet(s: string): string {
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}
