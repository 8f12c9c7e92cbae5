import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { readDataset, readFvecsMatrix, readGroundTruth, readIvecs, writeFvecs, writeIvecs } from '../../../datasets/index.js';
import { concat, expectRejection, expectSameArray, f32, makeTempDir, pack, vecsBytes, writeBytes } from './helpers.js';

const tmp = makeTempDir();
afterAll(() => tmp.cleanup());

describe('fvecs', () => {
  it('reads hand-encoded fvecs rows row-major with their exact float32 values', async () => {
    const file = writeBytes(
      tmp.path('known.fvecs'),
      vecsBytes(
        [
          [1.5, -2, 3],
          [0, 0.25, 1e10],
        ],
        'f32',
      ),
    );
    const ds = await readDataset(file);
    expect(ds).toMatchObject({ file, format: 'fvecs', dim: 3, count: 2, ids: null, metric: null });
    expect(Array.from(ds.vectors)).toEqual([1.5, -2, 3, 0, 0.25, 1e10]);
  });

  it('writes fvecs as int32 dimension then float32 values per row, byte for byte', async () => {
    const file = tmp.path('written.fvecs');
    await writeFvecs(file, f32([1, 2, 3, -4, 5.5, 6]), 3);
    expect(new Uint8Array(readFileSync(file))).toEqual(
      vecsBytes(
        [
          [1, 2, 3],
          [-4, 5.5, 6],
        ],
        'f32',
      ),
    );
  });

  it('round-trips random float32 vectors through writeFvecs and readDataset bit for bit', async () => {
    const dim = 17;
    const count = 301;
    const vectors = new Float32Array(dim * count);
    for (let i = 0; i < vectors.length; i++) vectors[i] = Math.sin(i * 12.9898) * 1000 * (i % 7 === 0 ? 1e-30 : 1);
    const file = tmp.path('random.fvecs');
    await writeFvecs(file, vectors, dim);
    const ds = await readDataset(file);
    expect(ds.dim).toBe(dim);
    expect(ds.count).toBe(count);
    expectSameArray(ds.vectors, vectors);
    const m = await readFvecsMatrix(file);
    expect(m).toMatchObject({ file, dim, count });
    expectSameArray(m.data, vectors);
  });

  it('keeps rows in order across 65536-row chunks and reports progress per chunk, ending at the total', async () => {
    const count = 70_000;
    const dim = 2;
    const vectors = new Float32Array(count * dim);
    for (let r = 0; r < count; r++) {
      vectors[r * 2] = r;
      vectors[r * 2 + 1] = -r;
    }
    const file = tmp.path('big.fvecs');
    await writeFvecs(file, vectors, dim);
    const calls: [number, number][] = [];
    const ds = await readDataset(file, { onProgress: (done, total) => calls.push([done, total]) });
    expect(ds.count).toBe(count);
    expect(ds.vectors[65_536 * 2]).toBe(65_536);
    expect(ds.vectors[(count - 1) * 2 + 1]).toBe(-(count - 1));
    expect(calls).toEqual([
      [65_536, count],
      [count, count],
    ]);
  });

  it('reads at most `limit` rows and ignores a truncated tail beyond them', async () => {
    const good = vecsBytes(
      [
        [1, 2],
        [3, 4],
        [5, 6],
      ],
      'f32',
    );
    const file = writeBytes(tmp.path('limit.fvecs'), concat(good, new Uint8Array([2, 0, 0])));
    const ds = await readDataset(file, { limit: 2 });
    expect(ds.count).toBe(2);
    expect(Array.from(ds.vectors)).toEqual([1, 2, 3, 4]);
  });

  it('rejects an fvecs file whose last row is truncated, naming the row and expected vs found bytes', async () => {
    const bytes = vecsBytes(
      [
        [1, 2, 3],
        [4, 5, 6],
        [7, 8, 9],
      ],
      'f32',
    );
    const file = writeBytes(tmp.path('cut.fvecs'), bytes.subarray(0, bytes.length - 5));
    const err = await expectRejection(readDataset(file), 'STRATA_DATASET_FORMAT', file, 'row 2', 'truncated', '16 bytes', 'found 11');
    expect(err.details).toMatchObject({ file, row: 2, expected: 16, found: 11 });
  });

  it.each([2 ** 30, 2 ** 31 - 1, 5000])('rejects a row-0 dimension header of %i that the file cannot hold, naming file, row and sizes', async (dim) => {
    // A garbage header used to size a buffer of 4 GiB ("Invalid typed array length", naming no file).
    const head = new Uint8Array(4);
    new DataView(head.buffer).setInt32(0, dim, true);
    const file = writeBytes(tmp.path(`huge-dim-${dim}.fvecs`), concat(head, new Uint8Array(40)));
    const err = await expectRejection(readDataset(file), 'STRATA_DATASET_FORMAT', file, 'row 0', `dimension ${dim}`, 'file size 44 bytes');
    expect(err.details).toMatchObject({ file, row: 0, expected: 4 + 4 * dim, found: 44 });
    await expectRejection(readIvecs(file), 'STRATA_DATASET_FORMAT', file, 'row 0');
  });

  it('rejects an fvecs file cut inside the dimension header of a row, naming that row', async () => {
    const file = writeBytes(
      tmp.path('cut-header.fvecs'),
      concat(
        vecsBytes(
          [
            [1, 2],
            [3, 4],
          ],
          'f32',
        ),
        new Uint8Array([2, 0]),
      ),
    );
    const err = await expectRejection(readDataset(file), 'STRATA_DATASET_FORMAT', file, 'row 2', 'truncated');
    expect(err.details).toMatchObject({ row: 2, expected: 12, found: 2 });
  });

  it('rejects an fvecs file with a row of another dimension, naming the row and both dimensions', async () => {
    const file = writeBytes(
      tmp.path('mixed.fvecs'),
      vecsBytes(
        [
          [1, 2, 3],
          [4, 5, 6],
          [7, 8, 9, 10],
          [1, 1, 1],
        ],
        'f32',
      ),
    );
    const err = await expectRejection(readDataset(file), 'STRATA_DATASET_DIMENSION', file, 'row 2', 'dimension 4', 'expected 3');
    expect(err.details).toMatchObject({ file, row: 2, expected: 3, found: 4 });
  });

  it('reports a shorter last row as a dimension mismatch rather than truncation', async () => {
    const file = writeBytes(
      tmp.path('mixed-tail.fvecs'),
      vecsBytes(
        [
          [1, 2, 3],
          [4, 5, 6],
          [7, 8],
        ],
        'f32',
      ),
    );
    const err = await expectRejection(readDataset(file), 'STRATA_DATASET_DIMENSION', file, 'row 2');
    expect(err.details).toMatchObject({ row: 2, expected: 3, found: 2 });
  });

  it('rejects NaN in an fvecs file, naming file, row and column', async () => {
    const file = writeBytes(
      tmp.path('nan.fvecs'),
      vecsBytes(
        [
          [1, 2, 3],
          [4, 5, NaN],
        ],
        'f32',
      ),
    );
    const err = await expectRejection(readDataset(file), 'STRATA_DATASET_VALUE', file, 'row 1', 'column 2', 'NaN');
    expect(err.details).toMatchObject({ file, row: 1, column: 2, found: 'NaN' });
  });

  it('rejects -Infinity in an fvecs file, naming row and column', async () => {
    const file = writeBytes(tmp.path('inf.fvecs'), vecsBytes([[-Infinity, 2]], 'f32'));
    const err = await expectRejection(readDataset(file), 'STRATA_DATASET_VALUE', file, 'row 0', 'column 0', '-Infinity');
    expect(err.details).toMatchObject({ row: 0, column: 0 });
  });

  it('rejects an fvecs file whose first row declares a non-positive dimension', async () => {
    const file = writeBytes(tmp.path('neg.fvecs'), concat(pack([-3], 'i32'), pack([1, 2, 3], 'f32')));
    const err = await expectRejection(readDataset(file), 'STRATA_DATASET_FORMAT', file, 'row 0', 'dimension -3');
    expect(err.details).toMatchObject({ row: 0, found: -3 });
  });

  it('rejects an empty fvecs file', async () => {
    const file = writeBytes(tmp.path('empty.fvecs'), new Uint8Array(0));
    await expectRejection(readDataset(file), 'STRATA_DATASET_FORMAT', file, 'empty');
  });
});

describe('bvecs', () => {
  it('reads bvecs uint8 rows as float32, including 0 and 255', async () => {
    const file = writeBytes(
      tmp.path('known.bvecs'),
      vecsBytes(
        [
          [0, 1, 255, 128],
          [7, 7, 7, 200],
        ],
        'u8',
      ),
    );
    const ds = await readDataset(file);
    expect(ds).toMatchObject({ format: 'bvecs', dim: 4, count: 2 });
    expect(Array.from(ds.vectors)).toEqual([0, 1, 255, 128, 7, 7, 7, 200]);
  });

  it('rejects a bvecs file whose last row is truncated, naming the row', async () => {
    const bytes = vecsBytes(
      [
        [1, 2, 3],
        [4, 5, 6],
      ],
      'u8',
    );
    const file = writeBytes(tmp.path('cut.bvecs'), bytes.subarray(0, bytes.length - 1));
    const err = await expectRejection(readDataset(file), 'STRATA_DATASET_FORMAT', file, 'row 1', 'truncated');
    expect(err.details).toMatchObject({ row: 1, expected: 7, found: 6 });
  });

  it('rejects a bvecs file with mixed dimensions, naming the row', async () => {
    const file = writeBytes(tmp.path('mixed.bvecs'), vecsBytes([[1, 2], [3, 4], [5, 6], [7]], 'u8'));
    const err = await expectRejection(readDataset(file), 'STRATA_DATASET_DIMENSION', file, 'row 3');
    expect(err.details).toMatchObject({ row: 3, expected: 2, found: 1 });
  });
});

describe('ivecs', () => {
  it('round-trips int32 ids, including -1 and 2^31-1, through writeIvecs, readIvecs and readGroundTruth', async () => {
    const data = Int32Array.from([0, 5, -1, 2147483647, 42, 7]);
    const file = tmp.path('gt.ivecs');
    await writeIvecs(file, data, 3);
    expect(new Uint8Array(readFileSync(file))).toEqual(
      vecsBytes(
        [
          [0, 5, -1],
          [2147483647, 42, 7],
        ],
        'i32',
      ),
    );
    const m = await readIvecs(file);
    expect(m).toMatchObject({ file, count: 2, dim: 3 });
    expect(m.data).toEqual(data);
    const gt = await readGroundTruth(file);
    expect(gt.data).toEqual(data);
  });

  it('rejects an ivecs file with mixed dimensions, naming the row', async () => {
    const file = writeBytes(
      tmp.path('mixed.ivecs'),
      vecsBytes(
        [
          [1, 2, 3],
          [1, 2],
        ],
        'i32',
      ),
    );
    const err = await expectRejection(readIvecs(file), 'STRATA_DATASET_DIMENSION', file, 'row 1');
    expect(err.details).toMatchObject({ row: 1, expected: 3, found: 2 });
  });

  it('rejects an ivecs file whose last row is truncated, naming the row', async () => {
    const bytes = vecsBytes(
      [
        [1, 2],
        [3, 4],
      ],
      'i32',
    );
    const file = writeBytes(tmp.path('cut.ivecs'), bytes.subarray(0, bytes.length - 4));
    await expectRejection(readGroundTruth(file), 'STRATA_DATASET_FORMAT', file, 'row 1', 'truncated');
  });
});
