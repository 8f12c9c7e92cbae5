import { afterAll, describe, expect, it } from 'vitest';
import { readDataset } from '../../../datasets/index.js';
import { concat, expectRejection, makeTempDir, npyBytes, npyDict, pack, writeBytes } from './helpers.js';

const tmp = makeTempDir();
afterAll(() => tmp.cleanup());

function npyFile(name: string, bytes: Uint8Array): string {
  return writeBytes(tmp.path(name), bytes);
}

describe('npy', () => {
  it("reads a v1.0 '<f4' (rows, dim) array with its exact values", async () => {
    const file = npyFile('f4.npy', npyBytes(npyDict('<f4', '(2, 3)'), pack([1, 2.5, -3, 4, 5, 6e-3], 'f32')));
    const ds = await readDataset(file);
    expect(ds).toMatchObject({ file, format: 'npy', dim: 3, count: 2, ids: null, metric: null });
    expect(Array.from(ds.vectors)).toEqual(Array.from(Float32Array.from([1, 2.5, -3, 4, 5, 6e-3])));
  });

  it('reads v2.0 and v3.0 headers (u32 header length)', async () => {
    for (const v of [2, 3] as const) {
      const file = npyFile(`v${v}.npy`, npyBytes(npyDict('<f4', '(1, 2)'), pack([7, 8], 'f32'), v));
      const ds = await readDataset(file);
      expect(Array.from(ds.vectors)).toEqual([7, 8]);
    }
  });

  it('reads a header that is not padded to alignment', async () => {
    const file = npyFile('unpadded.npy', npyBytes("{'descr':'<f4','fortran_order':False,'shape':(2,1)}", pack([3, 4], 'f32'), 1, false));
    const ds = await readDataset(file);
    expect(Array.from(ds.vectors)).toEqual([3, 4]);
  });

  it("converts '<f8' to float32 with float32 rounding", async () => {
    const file = npyFile('f8.npy', npyBytes(npyDict('<f8', '(2, 2)'), pack([0.1, -1e-3, 1e20, 2], 'f64')));
    const ds = await readDataset(file);
    expect(ds.dim).toBe(2);
    expect(Array.from(ds.vectors)).toEqual([Math.fround(0.1), Math.fround(-1e-3), Math.fround(1e20), 2]);
  });

  it("reads '|u1' and '|i1' arrays as float32", async () => {
    const u = npyFile('u1.npy', npyBytes(npyDict('|u1', '(2, 2)'), pack([0, 255, 9, 10], 'u8')));
    expect(Array.from((await readDataset(u)).vectors)).toEqual([0, 255, 9, 10]);
    const i = npyFile('i1.npy', npyBytes(npyDict('|i1', '(1, 3)'), pack([-128, 127, -5], 'i8')));
    expect(Array.from((await readDataset(i)).vectors)).toEqual([-128, 127, -5]);
  });

  it('accepts Python 2 style long integers in the shape (100L, 2L)', async () => {
    const file = npyFile('long.npy', npyBytes(npyDict('<f4', '(1L, 2L)'), pack([1, 2], 'f32')));
    expect((await readDataset(file)).dim).toBe(2);
  });

  it('reads at most `limit` rows', async () => {
    const file = npyFile('limit.npy', npyBytes(npyDict('<f8', '(3, 1)'), pack([1, 2, 3], 'f64')));
    const ds = await readDataset(file, { limit: 2 });
    expect(ds.count).toBe(2);
    expect(Array.from(ds.vectors)).toEqual([1, 2]);
  });

  it('rejects a file without the \\x93NUMPY magic', async () => {
    const file = npyFile('magic.npy', concat(new TextEncoder().encode('NUMPY!'), new Uint8Array(64)));
    const err = await expectRejection(readDataset(file), 'STRATA_DATASET_FORMAT', file, 'not an .npy file', 'NUMPY');
    expect(err.details).toMatchObject({ file, expected: '\\x93NUMPY' });
  });

  it('rejects an unknown .npy version', async () => {
    const bytes = npyBytes(npyDict('<f4', '(1, 1)'), pack([1], 'f32'));
    bytes[6] = 4;
    const file = npyFile('v4.npy', bytes);
    const err = await expectRejection(readDataset(file), 'STRATA_DATASET_FORMAT', file, 'version 4.0');
    expect(err.details).toMatchObject({ found: '4.0' });
  });

  it("rejects an unsupported dtype '<i4', naming it and the supported ones", async () => {
    const file = npyFile('i4.npy', npyBytes(npyDict('<i4', '(1, 2)'), pack([1, 2], 'i32')));
    const err = await expectRejection(readDataset(file), 'STRATA_DATASET_FORMAT', file, '"<i4"', "'<f4'", "'|u1'");
    expect(err.details).toMatchObject({ found: '<i4' });
  });

  it("rejects big-endian '>f4' as unsupported", async () => {
    const file = npyFile('be.npy', npyBytes(npyDict('>f4', '(1, 1)'), new Uint8Array(4)));
    await expectRejection(readDataset(file), 'STRATA_DATASET_FORMAT', file, '">f4"', 'big-endian');
  });

  it('rejects a structured dtype', async () => {
    const file = npyFile('struct.npy', npyBytes("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1, 1), }", new Uint8Array(4)));
    await expectRejection(readDataset(file), 'STRATA_DATASET_FORMAT', file, 'structured');
  });

  it('rejects fortran_order True', async () => {
    const file = npyFile('fortran.npy', npyBytes(npyDict('<f4', '(2, 2)', 'True'), pack([1, 2, 3, 4], 'f32')));
    await expectRejection(readDataset(file), 'STRATA_DATASET_FORMAT', file, 'Fortran');
  });

  it('rejects 1-D and 3-D arrays, showing the shape found', async () => {
    const one = npyFile('1d.npy', npyBytes(npyDict('<f4', '(4,)'), pack([1, 2, 3, 4], 'f32')));
    const e1 = await expectRejection(readDataset(one), 'STRATA_DATASET_FORMAT', one, '(4,)', '2-D');
    expect(e1.details).toMatchObject({ found: '(4,)' });
    const three = npyFile('3d.npy', npyBytes(npyDict('<f4', '(1, 2, 2)'), pack([1, 2, 3, 4], 'f32')));
    await expectRejection(readDataset(three), 'STRATA_DATASET_FORMAT', three, '(1, 2, 2)');
  });

  it('rejects data shorter than the shape needs, naming the cut row and expected vs found bytes', async () => {
    const file = npyFile('short.npy', npyBytes(npyDict('<f4', '(3, 2)'), pack([1, 2, 3, 4, 5], 'f32')));
    const err = await expectRejection(readDataset(file), 'STRATA_DATASET_FORMAT', file, 'needs 24 data bytes', 'holds 20', 'row 2');
    expect(err.details).toMatchObject({ row: 2, expected: 24, found: 20 });
  });

  it('rejects data longer than the shape needs', async () => {
    const file = npyFile('long-data.npy', npyBytes(npyDict('|u1', '(1, 2)'), pack([1, 2, 3], 'u8')));
    const err = await expectRejection(readDataset(file), 'STRATA_DATASET_FORMAT', file, 'trailing');
    expect(err.details).toMatchObject({ expected: 2, found: 3 });
  });

  it('rejects a header length pointing past the end of the file', async () => {
    const bytes = npyBytes(npyDict('<f4', '(1, 1)'), new Uint8Array(0));
    new DataView(bytes.buffer).setUint16(8, 60_000, true);
    const file = npyFile('hdrlen.npy', bytes);
    await expectRejection(readDataset(file), 'STRATA_DATASET_FORMAT', file, 'header is truncated');
  });

  it('rejects a malformed header dict and one missing the shape key', async () => {
    const bad = npyFile('baddict.npy', npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1}", pack([1], 'f32')));
    await expectRejection(readDataset(bad), 'STRATA_DATASET_FORMAT', bad, 'malformed .npy header');
    const missing = npyFile('noshape.npy', npyBytes("{'descr': '<f4', 'fortran_order': False}", pack([1], 'f32')));
    await expectRejection(readDataset(missing), 'STRATA_DATASET_FORMAT', missing, 'lacks shape');
  });

  it("rejects NaN in '<f4' data, naming row and column", async () => {
    const file = npyFile('nan.npy', npyBytes(npyDict('<f4', '(2, 3)'), pack([1, 2, 3, 4, NaN, 6], 'f32')));
    const err = await expectRejection(readDataset(file), 'STRATA_DATASET_VALUE', file, 'row 1', 'column 1', 'NaN');
    expect(err.details).toMatchObject({ row: 1, column: 1 });
  });

  it("rejects Infinity and values beyond the float32 range in '<f8' data", async () => {
    const inf = npyFile('inf8.npy', npyBytes(npyDict('<f8', '(1, 2)'), pack([1, Infinity], 'f64')));
    await expectRejection(readDataset(inf), 'STRATA_DATASET_VALUE', inf, 'row 0', 'column 1', 'Infinity');
    const big = npyFile('big8.npy', npyBytes(npyDict('<f8', '(2, 1)'), pack([1, -1e300], 'f64')));
    const err = await expectRejection(readDataset(big), 'STRATA_DATASET_VALUE', big, 'row 1', 'column 0', 'float32 range');
    expect(err.details).toMatchObject({ row: 1, column: 0, found: '-1e+300' });
  });
});
