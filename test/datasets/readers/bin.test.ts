import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { readDataset, readGroundTruth, writeFbin } from '../../../datasets/index.js';
import { binBytes, concat, expectRejection, f32, makeTempDir, writeBytes } from './helpers.js';

const tmp = makeTempDir();
afterAll(() => tmp.cleanup());

describe('fbin / u8bin / i8bin / ibin', () => {
  it('writes fbin as u32 count, u32 dim, then row-major float32, byte for byte', async () => {
    const file = tmp.path('written.fbin');
    await writeFbin(file, f32([1, -2, 3.25, 4, 5, 6]), 2);
    expect(new Uint8Array(readFileSync(file))).toEqual(binBytes(3, 2, [1, -2, 3.25, 4, 5, 6], 'f32'));
  });

  it('round-trips float32 vectors through writeFbin and readDataset', async () => {
    const vectors = f32(Array.from({ length: 5 * 9 }, (_, i) => (i - 20) / 3));
    const file = tmp.path('rt.fbin');
    await writeFbin(file, vectors, 9);
    const ds = await readDataset(file);
    expect(ds).toMatchObject({ file, format: 'fbin', dim: 9, count: 5, ids: null, metric: null });
    expect(ds.vectors).toEqual(vectors);
  });

  it('reads a u8bin file as float32 values, including 0 and 255', async () => {
    const file = writeBytes(tmp.path('known.u8bin'), binBytes(2, 3, [0, 255, 17, 128, 1, 2], 'u8'));
    const ds = await readDataset(file);
    expect(ds).toMatchObject({ format: 'u8bin', dim: 3, count: 2 });
    expect(Array.from(ds.vectors)).toEqual([0, 255, 17, 128, 1, 2]);
  });

  it('reads an i8bin file keeping negative values (-128..127)', async () => {
    const file = writeBytes(tmp.path('known.i8bin'), binBytes(2, 2, [-128, 127, -1, 0], 'i8'));
    const ds = await readDataset(file);
    expect(ds).toMatchObject({ format: 'i8bin', dim: 2, count: 2 });
    expect(Array.from(ds.vectors)).toEqual([-128, 127, -1, 0]);
  });

  it('reads .ibin ground truth ids through readGroundTruth', async () => {
    const file = writeBytes(tmp.path('gt.ibin'), binBytes(2, 3, [9, 8, 7, 1, 2, 2147483647], 'i32'));
    const gt = await readGroundTruth(file);
    expect(gt).toMatchObject({ file, count: 2, dim: 3 });
    expect(Array.from(gt.data)).toEqual([9, 8, 7, 1, 2, 2147483647]);
  });

  it('reads at most `limit` rows of an fbin file', async () => {
    const file = writeBytes(tmp.path('limit.fbin'), binBytes(3, 2, [1, 2, 3, 4, 5, 6], 'f32'));
    const ds = await readDataset(file, { limit: 2 });
    expect(ds.count).toBe(2);
    expect(Array.from(ds.vectors)).toEqual([1, 2, 3, 4]);
  });

  it('rejects an fbin file shorter than its header implies, stating expected vs actual bytes and the cut row', async () => {
    const bytes = binBytes(3, 2, [1, 2, 3, 4, 5, 6], 'f32');
    const file = writeBytes(tmp.path('short.fbin'), bytes.subarray(0, bytes.length - 3));
    const err = await expectRejection(readDataset(file), 'STRATA_DATASET_FORMAT', file, '32 bytes', 'is 29 bytes', 'row 2');
    expect(err.details).toMatchObject({ file, row: 2, expected: 32, found: 29 });
  });

  it('rejects an fbin file with trailing bytes after the declared rows', async () => {
    const file = writeBytes(tmp.path('long.fbin'), concat(binBytes(1, 2, [1, 2], 'f32'), new Uint8Array(4)));
    const err = await expectRejection(readDataset(file), 'STRATA_DATASET_FORMAT', file, 'should be 16 bytes', 'is 20 bytes');
    expect(err.details).toMatchObject({ expected: 16, found: 20 });
  });

  it('rejects a u8bin file shorter than its 8-byte header', async () => {
    const file = writeBytes(tmp.path('tiny.u8bin'), new Uint8Array([1, 0, 0]));
    const err = await expectRejection(readDataset(file), 'STRATA_DATASET_FORMAT', file, 'header is truncated');
    expect(err.details).toMatchObject({ expected: 8, found: 3 });
  });

  it('rejects a bin header declaring zero rows or zero dimension', async () => {
    const noRows = writeBytes(tmp.path('norows.fbin'), binBytes(0, 4, [], 'f32'));
    await expectRejection(readDataset(noRows), 'STRATA_DATASET_FORMAT', noRows, '0 rows');
    const noDim = writeBytes(tmp.path('nodim.i8bin'), binBytes(4, 0, [], 'i8'));
    await expectRejection(readDataset(noDim), 'STRATA_DATASET_FORMAT', noDim, 'dimension 0');
  });

  it('rejects Infinity in an fbin file, naming file, row and column', async () => {
    const file = writeBytes(tmp.path('inf.fbin'), binBytes(3, 2, [1, 2, 3, 4, 5, Infinity], 'f32'));
    const err = await expectRejection(readDataset(file), 'STRATA_DATASET_VALUE', file, 'row 2', 'column 1', 'Infinity');
    expect(err.details).toMatchObject({ file, row: 2, column: 1, found: 'Infinity' });
  });

  it('rejects an .ibin whose size disagrees with its header', async () => {
    const file = writeBytes(tmp.path('bad.ibin'), binBytes(2, 2, [1, 2, 3], 'i32'));
    const err = await expectRejection(readGroundTruth(file), 'STRATA_DATASET_FORMAT', file, 'row 1');
    expect(err.details).toMatchObject({ expected: 24, found: 20 });
  });
});
