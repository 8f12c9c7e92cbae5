// Where `strata build` takes payloads from: the `payload` member of each JSONL row, or with
// `--payloads <file.jsonl>` beside any other vector format one JSON object per line (line i the
// payload of row i). The input is read twice, line by line, and never held: once before the graph
// is built, to judge every line (a bad payload must not cost a graph build), and once while the
// index is written, each point straight into the payload file.
import { accessSync, constants, statSync } from 'node:fs';
import { errorMessage, invalidArgument, StrataError } from '../../common/errors.js';
import type { DatasetFormat } from '../../datasets/index.js';
import type { BasePayload } from '../format/payload-file.js';
import { readTextLines } from '../format/json-lines.js';

export interface PayloadInput {
  file: string;
  /** member: the `payload` member of each JSONL row; lines: line i of a payloads file is row i's. */
  kind: 'member' | 'lines';
  /** Rows of the input (the dataset read), which the payloads must match. */
  rows: number;
  /** Rows with a payload. */
  points: number;
}

const BOM = 0xfeff;
const PROGRESS_ROWS = 65536;

function formatError(file: string, line: number, row: number, why: string): StrataError {
  return new StrataError('STRATA_DATASET_FORMAT', `${file}: line ${line} (row ${row}) ${why}`, { file, line, row });
}

function kindOf(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

/** A line's text as JSON.parse should see it: the first line without a byte-order mark. */
function lineText(number: number, text: string): string {
  return number === 1 && text.charCodeAt(0) === BOM ? text.slice(1) : text;
}

/**
 * Each row's payload in input order (null: none), for the first `rows` rows. JSONL rows are counted
 * as datasets/readers/jsonl.ts counts them (blank lines skipped); a payloads file has no blank lines,
 * since a skipped line would shift every payload after it onto the wrong row.
 */
function* rowPayloads(file: string, kind: PayloadInput['kind'], rows: number, limited: boolean): Generator<Record<string, unknown> | null> {
  let row = 0;
  const lines = readTextLines(file, (line) => {
    throw formatError(file, line, row, 'is not valid UTF-8');
  });
  for (const { number, text: raw } of lines) {
    const text = lineText(number, raw);
    if (text.trim() === '') {
      if (kind === 'member') continue;
      throw formatError(file, number, row, `is empty; expected row ${row}'s payload as a JSON object ({} for none)`);
    }
    if (row === rows) {
      if (limited) return;
      throw new StrataError('STRATA_DATASET_FORMAT', `${file}: holds more than the input's ${rows} rows (line ${number} is one too many)`, {
        file,
        line: number,
        expected: rows,
      });
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      throw formatError(file, number, row, `is not valid JSON (${(e as Error).message})`);
    }
    let payload: unknown = value;
    if (kind === 'member') {
      // The vector reader judged the row already; only its payload member is new here.
      payload = (value as Record<string, unknown>)['payload'];
      if (payload === undefined || payload === null) payload = null;
      else if (typeof payload !== 'object' || Array.isArray(payload))
        throw formatError(file, number, row, `has "payload" ${kindOf(payload)}; expected a JSON object`);
    } else if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
      throw formatError(file, number, row, `is ${kindOf(payload)}; expected a JSON object ({} for no payload)`);
    }
    yield payload as Record<string, unknown> | null;
    row++;
  }
  if (row < rows) {
    throw new StrataError('STRATA_DATASET_FORMAT', `${file}: has payloads for ${row} rows, the input has ${rows}`, { file, expected: rows, found: row });
  }
}

export interface PayloadSourceOptions {
  input: string;
  /** The input's format, as read. */
  format: DatasetFormat;
  /** --payloads */
  payloads?: string;
  /** --limit: the input was cut, so a longer payloads file is not an error. */
  limit?: number;
}

/**
 * Refuses, before anything is read, --payloads beside a JSONL input (its rows carry their payloads)
 * and a --payloads path that is not a readable file.
 */
export function checkPayloadsOption(o: { payloads?: string }, format: DatasetFormat): void {
  if (o.payloads === undefined) return;
  if (format === 'jsonl') {
    throw invalidArgument('--payloads', `a JSONL input carries each row's payload in its "payload" member; --payloads is for the other vector formats`);
  }
  try {
    accessSync(o.payloads, constants.R_OK);
    if (!statSync(o.payloads).isFile()) throw new Error('not a file');
  } catch (e) {
    throw invalidArgument('--payloads', `cannot read ${o.payloads}: ${errorMessage(e)}`, { file: o.payloads });
  }
}

/**
 * Judges every payload against the `rows` the input held, line by line, reporting progress; null
 * when the build has no payloads (no --payloads, and not JSONL).
 */
export async function checkPayloadInput(
  o: PayloadSourceOptions,
  rows: number,
  onProgress?: (done: number, total: number) => void,
): Promise<PayloadInput | null> {
  checkPayloadsOption(o, o.format);
  const kind = o.payloads !== undefined ? 'lines' : o.format === 'jsonl' ? 'member' : null;
  if (kind === null) return null;
  const file = o.payloads ?? o.input;
  let done = 0;
  let points = 0;
  for (const payload of rowPayloads(file, kind, rows, o.limit !== undefined)) {
    if (payload !== null) points++;
    if (++done % PROGRESS_ROWS === 0 && onProgress) {
      onProgress(done, rows);
      // The loop is synchronous: a progress bar repaints only between its turns.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
  onProgress?.(rows, rows);
  return { file, kind, rows, points };
}

/**
 * The payloads as the payload file takes them, one at a time: [label, payload] for each row with a
 * payload. `pick` (ascending input rows) keeps a subset, a shard's: the i-th kept row is `ids[i]`;
 * without it row r is `ids[r]`, or r itself without ids.
 */
export function* basePayloadEntries(input: PayloadInput, ids: Float64Array | null, pick: readonly number[] | null = null): Generator<BasePayload> {
  let row = -1;
  let kept = 0;
  for (const payload of rowPayloads(input.file, input.kind, input.rows, true)) {
    row++;
    let at = row;
    if (pick !== null) {
      if (pick[kept] !== row) continue;
      at = kept++;
    }
    if (payload !== null) yield [ids ? ids[at]! : at, payload];
  }
}
