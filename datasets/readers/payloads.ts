// Payloads beside a vector file: JSON Lines, line i the payload (a JSON object) of row i. A line that
// is not JSON or not an object, or a count that differs from the rows', is an error naming the file
// and the (1-based) line.
import { readFileSync } from 'node:fs';
import { invalidArgument, StrataError } from '../../common/errors.js';

export type PayloadObject = Record<string, unknown>;

export function readPayloadLines(file: string, rows?: number): PayloadObject[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw invalidArgument('payloads', `cannot read ${file}: ${(e as Error).message}`, { file });
  }
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const out: PayloadObject[] = [];
  for (const [i, line] of lines.entries()) {
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch (e) {
      throw new StrataError('STRATA_DATASET_FORMAT', `${file}: line ${i + 1} is not JSON (${(e as Error).message})`, { file, row: i });
    }
    if (typeof v !== 'object' || v === null || Array.isArray(v))
      throw new StrataError('STRATA_DATASET_FORMAT', `${file}: line ${i + 1} is not a JSON object`, { file, row: i });
    out.push(v as PayloadObject);
  }
  if (rows !== undefined && out.length !== rows)
    throw new StrataError('STRATA_DATASET_FORMAT', `${file}: ${out.length} payload lines for ${rows} rows`, { file, expected: rows, found: out.length });
  return out;
}
