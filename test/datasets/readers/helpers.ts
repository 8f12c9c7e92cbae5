// Fixture builders that encode the file formats independently of the code under test, so a reader
// and a writer cannot agree on the same mistake.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { StrataError, type ErrorCode } from '../../../common/errors.js';

export function makeTempDir(): { dir: string; path: (name: string) => string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'strata-datasets-'));
  return { dir, path: (name) => join(dir, name), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export type Elem = 'f32' | 'i32' | 'u8' | 'i8' | 'f64';

const SIZE: Record<Elem, number> = { f32: 4, i32: 4, u8: 1, i8: 1, f64: 8 };

function put(dv: DataView, off: number, elem: Elem, v: number): void {
  switch (elem) {
    case 'f32':
      dv.setFloat32(off, v, true);
      break;
    case 'f64':
      dv.setFloat64(off, v, true);
      break;
    case 'i32':
      dv.setInt32(off, v, true);
      break;
    case 'u8':
      dv.setUint8(off, v);
      break;
    case 'i8':
      dv.setInt8(off, v);
      break;
  }
}

/** Packs values little-endian. */
export function pack(values: readonly number[], elem: Elem): Uint8Array {
  const out = new Uint8Array(values.length * SIZE[elem]);
  const dv = new DataView(out.buffer);
  values.forEach((v, i) => put(dv, i * SIZE[elem], elem, v));
  return out;
}

export function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** .fvecs/.ivecs/.bvecs: each row is int32 dimension + values; rows may differ, to build bad files. */
export function vecsBytes(rows: readonly (readonly number[])[], elem: 'f32' | 'i32' | 'u8'): Uint8Array {
  return concat(...rows.flatMap((r) => [pack([r.length], 'i32'), pack(r, elem)]));
}

/** .fbin/.u8bin/.i8bin/.ibin: u32 n, u32 d, then values. */
export function binBytes(n: number, d: number, values: readonly number[], elem: 'f32' | 'i32' | 'u8' | 'i8'): Uint8Array {
  const head = new Uint8Array(8);
  const dv = new DataView(head.buffer);
  dv.setUint32(0, n, true);
  dv.setUint32(4, d, true);
  return concat(head, pack(values, elem));
}

/** An .npy file with the given header dict text, padded as numpy does so data starts 64-aligned. */
export function npyBytes(dict: string, data: Uint8Array, version: 1 | 2 | 3 = 1, pad = true): Uint8Array {
  const pre = version === 1 ? 10 : 12;
  let header = dict;
  const total = pre + header.length + 1;
  header += (pad ? ' '.repeat((64 - (total % 64)) % 64) : '') + '\n';
  const head = new Uint8Array(pre);
  head.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, version, 0]);
  const dv = new DataView(head.buffer);
  if (version === 1) dv.setUint16(8, header.length, true);
  else dv.setUint32(8, header.length, true);
  return concat(head, new TextEncoder().encode(header), data);
}

export function npyDict(descr: string, shape: string, fortran = 'False'): string {
  return `{'descr': '${descr}', 'fortran_order': ${fortran}, 'shape': ${shape}, }`;
}

export function writeBytes(file: string, bytes: Uint8Array): string {
  writeFileSync(file, bytes);
  return file;
}

/** Awaits a rejection and checks it is a StrataError with `code` whose message contains every part. */
export async function expectRejection(p: Promise<unknown>, code: ErrorCode, ...parts: string[]): Promise<StrataError> {
  let caught: unknown;
  try {
    await p;
  } catch (e) {
    caught = e;
  }
  return checkError(caught, code, parts);
}

export function expectThrow(fn: () => unknown, code: ErrorCode, ...parts: string[]): StrataError {
  let caught: unknown;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  return checkError(caught, code, parts);
}

function checkError(caught: unknown, code: ErrorCode, parts: string[]): StrataError {
  expect(caught, 'expected an error to be thrown').toBeInstanceOf(StrataError);
  const err = caught as StrataError;
  expect(err.code).toBe(code);
  for (const part of parts) expect(err.message).toContain(part);
  return err;
}

/** Float32 rounding of a list, for comparing against what a float32 reader must return. */
export function f32(values: readonly number[]): Float32Array {
  return Float32Array.from(values);
}

/**
 * Bitwise equality of two typed arrays. Much faster than toEqual on 100k+ elements, and on a
 * mismatch it reports the first differing index instead of a huge diff.
 */
export function expectSameArray(actual: Float32Array | Int32Array, expected: Float32Array | Int32Array): void {
  expect(actual.constructor.name).toBe(expected.constructor.name);
  expect(actual.length).toBe(expected.length);
  const a = Buffer.from(actual.buffer, actual.byteOffset, actual.byteLength);
  const b = Buffer.from(expected.buffer, expected.byteOffset, expected.byteLength);
  if (!a.equals(b)) {
    const i = actual.findIndex((v, k) => !Object.is(v, expected[k]));
    expect(actual[i], `first difference at index ${i}`).toBe(expected[i]);
  }
}
