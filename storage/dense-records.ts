// Secondary dense vectors (named vectors beside the tiered one) as the write-ahead log and the
// compaction state carry them: per name, the positions (in a record's ids) or ids that hold one, and
// their floats one after another as little-endian bytes (MessagePack packs byte arrays as binary).
import type { DenseEntries } from '../index/fresh/dense-column.js';
import { columnsByName } from './record-columns.js';

/** One name's vectors in a record: `at` are positions in the record's ids. */
export interface DenseColumnBytes {
  at: number[];
  vectors: Uint8Array;
}

/** A record's secondary vectors by name (absent names: none given). */
export type DenseRecord = Record<string, DenseColumnBytes>;

/** The secondary vectors of a compaction's state, by name. */
export type DenseState = Record<string, { ids: number[]; vectors: Uint8Array }>;

function bytesOf(f: Float32Array): Uint8Array {
  return new Uint8Array(f.buffer, f.byteOffset, f.byteLength);
}

/** Byte arrays from a decoder may sit at any offset of a shared buffer: copy before viewing floats. */
function floatsOf(b: Uint8Array): Float32Array {
  return new Float32Array(new Uint8Array(b).buffer);
}

/** The record form of each point's secondary vectors (list[i]: point i's, by name, or none); undefined when no point has one. */
export function denseRecordOf(list: ReadonlyArray<Readonly<Record<string, Float32Array>> | undefined>): DenseRecord | undefined {
  const byName = columnsByName(list);
  if (byName.size === 0) return undefined;
  const out: DenseRecord = {};
  for (const [name, c] of byName) {
    const dim = c.vectors[0]!.length;
    const all = new Float32Array(c.vectors.length * dim);
    c.vectors.forEach((v, j) => all.set(v, j * dim));
    out[name] = { at: c.at, vectors: bytesOf(all) };
  }
  return out;
}

/** A record's vectors by position: out[i] maps each name to point i's vector (absent: point i has none). */
export function denseByPosition(rec: DenseRecord | undefined): Array<Map<string, Float32Array> | undefined> {
  const out: Array<Map<string, Float32Array> | undefined> = [];
  for (const [name, c] of Object.entries(rec ?? {})) {
    const all = floatsOf(c.vectors);
    const dim = all.length / c.at.length;
    c.at.forEach((i, j) => {
      let m = out[i];
      if (m === undefined) out[i] = m = new Map();
      m.set(name, all.subarray(j * dim, (j + 1) * dim));
    });
  }
  return out;
}

/** A saved name's vectors as DenseEntries (a typed array of their own). */
export function denseEntriesOf(s: DenseState[string]): DenseEntries {
  return { ids: s.ids, vectors: floatsOf(s.vectors) };
}

/** Why a record's secondary vectors do not hold together (positions within `points`, bytes a whole number of vectors), or null. */
export function denseRecordProblem(rec: unknown, points: number): string | null {
  if (rec === undefined) return null;
  if (typeof rec !== 'object' || rec === null) return 'secondary vectors are not a map of names';
  for (const [name, c] of Object.entries(rec as Record<string, Partial<DenseColumnBytes>>)) {
    const { at, vectors } = c;
    if (!Array.isArray(at) || at.length === 0) return `vector ${name}: no positions`;
    if (at.some((i) => !Number.isSafeInteger(i) || i < 0 || i >= points)) return `vector ${name}: a position is not one of the record's points`;
    if (!(vectors instanceof Uint8Array) || vectors.length === 0 || vectors.length % (4 * at.length) !== 0)
      return `vector ${name}: ${vectors?.length} bytes for ${at.length} vectors`;
  }
  return null;
}
