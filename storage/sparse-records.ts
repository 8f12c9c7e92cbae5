// Sparse vectors as the write-ahead log and the compaction state carry them: per vector name, the
// positions (in a record's ids) or ids that hold one, their lengths, and every index and value
// concatenated as little-endian bytes (MessagePack packs byte arrays as binary, not number lists).
import type { SparseEntries } from '../index/sparse/sparse-column.js';
import type { SparseVector } from '../index/sparse/sparse-vector.js';
import { columnsByName } from './record-columns.js';

/** One name's vectors in a record: `at` are positions in the record's ids. */
export interface SparseColumnBytes {
  at: number[];
  lengths: number[];
  indices: Uint8Array;
  values: Uint8Array;
}

/** A record's sparse vectors by name (absent names: none given). */
export type SparseRecord = Record<string, SparseColumnBytes>;

/** The sparse vectors of a compaction's state, by name: as SparseEntries, with byte arrays. */
export type SparseState = Record<string, { ids: number[]; lengths: number[]; indices: Uint8Array; values: Uint8Array }>;

/** Byte arrays from a decoder may sit at any offset of a shared buffer: copy before viewing words. */
function words(b: Uint8Array): ArrayBuffer {
  return new Uint8Array(b).buffer;
}

function concat(vectors: readonly SparseVector[]): { lengths: number[]; indices: Uint8Array; values: Uint8Array } {
  const total = vectors.reduce((n, v) => n + v.indices.length, 0);
  const indices = new Uint32Array(total);
  const values = new Float32Array(total);
  let o = 0;
  for (const v of vectors) {
    indices.set(v.indices, o);
    values.set(v.values, o);
    o += v.indices.length;
  }
  return { lengths: vectors.map((v) => v.indices.length), indices: new Uint8Array(indices.buffer), values: new Uint8Array(values.buffer) };
}

/** The record form of each point's sparse vectors (list[i]: point i's, by name, or none); undefined when no point has one. */
export function sparseRecordOf(list: ReadonlyArray<Readonly<Record<string, SparseVector>> | undefined>): SparseRecord | undefined {
  const byName = columnsByName(list);
  if (byName.size === 0) return undefined;
  const out: SparseRecord = {};
  for (const [name, c] of byName) out[name] = { at: c.at, ...concat(c.vectors) };
  return out;
}

/** Calls fn for each vector of one name's column: its key (position or id) and the vector. */
function forEachVector(
  keys: readonly number[],
  lengths: readonly number[],
  indices: Uint8Array,
  values: Uint8Array,
  fn: (key: number, v: SparseVector) => void,
): void {
  const ix = new Uint32Array(words(indices));
  const vx = new Float32Array(words(values));
  let o = 0;
  keys.forEach((key, j) => {
    const n = lengths[j]!;
    fn(key, { indices: ix.subarray(o, o + n), values: vx.subarray(o, o + n) });
    o += n;
  });
}

/** A record's vectors by position: out[i] maps each name to point i's vector (absent: point i has none). */
export function sparseByPosition(rec: SparseRecord | undefined): Array<Map<string, SparseVector> | undefined> {
  const out: Array<Map<string, SparseVector> | undefined> = [];
  for (const [name, c] of Object.entries(rec ?? {}))
    forEachVector(c.at, c.lengths, c.indices, c.values, (i, v) => {
      let m = out[i];
      if (m === undefined) out[i] = m = new Map();
      m.set(name, v);
    });
  return out;
}

export function sparseStateOf(columns: ReadonlyMap<string, { entries(): SparseEntries }>): SparseState {
  const out: SparseState = {};
  for (const [name, col] of columns) {
    const e = col.entries();
    out[name] = {
      ids: e.ids,
      lengths: e.lengths,
      indices: new Uint8Array(e.indices.buffer, e.indices.byteOffset, e.indices.byteLength),
      values: new Uint8Array(e.values.buffer, e.values.byteOffset, e.values.byteLength),
    };
  }
  return out;
}

/** A saved name's vectors as SparseEntries (typed arrays of their own). */
export function entriesOf(s: SparseState[string]): SparseEntries {
  return { ids: s.ids, lengths: s.lengths, indices: new Uint32Array(words(s.indices)), values: new Float32Array(words(s.values)) };
}

/** Why a record's sparse vectors do not hold together (positions within `points`, lengths against bytes), or null. */
export function sparseRecordProblem(rec: unknown, points: number): string | null {
  if (rec === undefined) return null;
  if (typeof rec !== 'object' || rec === null) return 'sparse vectors are not a map of names';
  for (const [name, c] of Object.entries(rec as Record<string, Partial<SparseColumnBytes>>)) {
    const { at, lengths, indices, values } = c;
    if (!Array.isArray(at) || !Array.isArray(lengths) || at.length !== lengths.length) return `sparse vector ${name}: positions and lengths differ`;
    if (at.some((i) => !Number.isSafeInteger(i) || i < 0 || i >= points)) return `sparse vector ${name}: a position is not one of the record's points`;
    const total = lengths.reduce((n: number, l) => n + (Number.isSafeInteger(l) && l >= 0 ? l : Number.NaN), 0);
    if (!(indices instanceof Uint8Array) || !(values instanceof Uint8Array) || indices.length !== total * 4 || values.length !== total * 4)
      return `sparse vector ${name}: ${indices?.length} index bytes and ${values?.length} value bytes for ${total} entries`;
  }
  return null;
}
