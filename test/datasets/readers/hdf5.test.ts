import h5wasm from 'h5wasm/node';
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readDataset, readGroundTruth } from '../../../datasets/index.js';
import { expectRejection, expectSameArray, f32, makeTempDir } from './helpers.js';

const tmp = makeTempDir();
afterAll(() => tmp.cleanup());

type Data = Float32Array | Float64Array | Int32Array | Uint8Array | BigInt64Array;

/** Writes an ann-benchmarks style file: 2-D datasets plus an optional `distance` file attribute. */
function writeH5(name: string, datasets: Record<string, { data: Data; shape: number[] }>, distance?: string): string {
  const file = tmp.path(name);
  const f = new h5wasm.File(file, 'w');
  try {
    for (const [key, { data, shape }] of Object.entries(datasets)) f.create_dataset({ name: key, data, shape });
    if (distance !== undefined) f.create_attribute('distance', distance);
  } finally {
    f.close();
  }
  return file;
}

const TRAIN = f32([1, 2, 3, 4, 5, 6, -7, 8.5, 9]);
const TEST = f32([0.5, 0.25, 0.125]);
const NEIGHBORS = Int32Array.from([2, 0, 1, 1, 2, 0]);

let annFile = '';

beforeAll(async () => {
  await h5wasm.ready;
  annFile = writeH5(
    'sample-3-euclidean.hdf5',
    {
      train: { data: TRAIN, shape: [3, 3] },
      test: { data: TEST, shape: [1, 3] },
      neighbors: { data: NEIGHBORS, shape: [1, 6] },
      distances: { data: f32([0, 1, 2, 3, 4, 5]), shape: [1, 6] },
    },
    'euclidean',
  );
});

describe('ann-benchmarks hdf5', () => {
  it("reads the 'train' dataset with its values and takes metric l2 from distance=euclidean", async () => {
    const ds = await readDataset(annFile);
    expect(ds).toMatchObject({ file: annFile, format: 'hdf5', dim: 3, count: 3, ids: null, metric: 'l2' });
    expect(ds.vectors).toEqual(TRAIN);
  });

  it("reads the 'test' queries when hdf5Dataset is 'test'", async () => {
    const ds = await readDataset(annFile, { hdf5Dataset: 'test' });
    expect(ds).toMatchObject({ dim: 3, count: 1 });
    expect(ds.vectors).toEqual(TEST);
  });

  it('maps distance angular to cosine and dot to ip, and gives null for jaccard or no attribute', async () => {
    const train = { train: { data: f32([1, 2]), shape: [1, 2] } };
    expect((await readDataset(writeH5('angular.hdf5', train, 'angular'))).metric).toBe('cosine');
    expect((await readDataset(writeH5('dot.h5', train, 'dot'))).metric).toBe('ip');
    expect((await readDataset(writeH5('jaccard.hdf5', train, 'jaccard'))).metric).toBeNull();
    expect((await readDataset(writeH5('none.hdf5', train))).metric).toBeNull();
  });

  it('converts float64 and uint8 train data to float32', async () => {
    const f64 = writeH5('f64.hdf5', { train: { data: Float64Array.from([0.1, 2, -3, 1e10]), shape: [2, 2] } });
    expect(Array.from((await readDataset(f64)).vectors)).toEqual([Math.fround(0.1), 2, -3, Math.fround(1e10)]);
    const u8 = writeH5('u8.hdf5', { train: { data: Uint8Array.from([0, 255, 3, 4]), shape: [2, 2] } });
    expect(Array.from((await readDataset(u8)).vectors)).toEqual([0, 255, 3, 4]);
  });

  it('reads rows in order across 65536-row chunks, honours limit and reports progress', async () => {
    const rows = 70_000;
    const data = new Float32Array(rows * 2);
    for (let r = 0; r < rows; r++) data.set([r, r + 0.5], r * 2);
    const file = writeH5('big.hdf5', { train: { data, shape: [rows, 2] } });
    const calls: [number, number][] = [];
    const ds = await readDataset(file, { onProgress: (d, t) => calls.push([d, t]) });
    expect(ds.count).toBe(rows);
    expectSameArray(ds.vectors, data);
    expect(calls).toEqual([
      [65_536, rows],
      [rows, rows],
    ]);
    const limited = await readDataset(file, { limit: 5 });
    expect(limited.count).toBe(5);
    expect(Array.from(limited.vectors)).toEqual([0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5]);
  });

  it("reads ground-truth ids from 'neighbors' through readGroundTruth", async () => {
    const gt = await readGroundTruth(annFile);
    expect(gt).toMatchObject({ file: annFile, count: 1, dim: 6 });
    expect(gt.data).toEqual(NEIGHBORS);
  });

  it('reads int64 neighbors as int32 and rejects ids that do not fit int32, naming the row', async () => {
    const ok = writeH5('i64.hdf5', { neighbors: { data: BigInt64Array.from([1n, 2n, 3n, 4n]), shape: [2, 2] } });
    expect(Array.from((await readGroundTruth(ok)).data)).toEqual([1, 2, 3, 4]);
    const bad = writeH5('i64-big.hdf5', { neighbors: { data: BigInt64Array.from([1n, 2n, 3n, 1n << 40n]), shape: [2, 2] } });
    const err = await expectRejection(readGroundTruth(bad), 'STRATA_DATASET_VALUE', bad, 'row 1', 'int32');
    expect(err.details).toMatchObject({ row: 1, column: 1 });
  });

  it('rejects a missing dataset, naming the dataset and the file and listing what exists', async () => {
    const file = writeH5('no-train.hdf5', { test: { data: TEST, shape: [1, 3] } });
    const err = await expectRejection(readDataset(file), 'STRATA_DATASET_FORMAT', file, '"train"', 'test');
    expect(err.details).toMatchObject({ file, dataset: 'train', expected: 'train', found: 'test' });
    await expectRejection(readGroundTruth(file), 'STRATA_DATASET_FORMAT', file, '"neighbors"');
    await expectRejection(readDataset(file, { hdf5Dataset: 'no/such/group' }), 'STRATA_DATASET_FORMAT', file, '"no/such/group"');
  });

  it('rejects a file that is not HDF5 despite its extension', async () => {
    const file = tmp.path('fake.hdf5');
    writeFileSync(file, 'this is not an HDF5 file');
    await expectRejection(readDataset(file), 'STRATA_DATASET_FORMAT', file, 'not a readable HDF5 file');
  });

  it('rejects a 1-D train dataset, showing its shape', async () => {
    const file = writeH5('1d.hdf5', { train: { data: f32([1, 2, 3]), shape: [3] } });
    const err = await expectRejection(readDataset(file), 'STRATA_DATASET_FORMAT', file, '"train"', '(3)', '2-D');
    expect(err.details).toMatchObject({ found: '(3)' });
  });

  it('rejects NaN in train data, naming row and column', async () => {
    const file = writeH5('nan.hdf5', { train: { data: f32([1, 2, 3, NaN]), shape: [2, 2] } });
    const err = await expectRejection(readDataset(file), 'STRATA_DATASET_VALUE', file, 'row 1', 'column 1', 'NaN');
    expect(err.details).toMatchObject({ row: 1, column: 1 });
  });

  it('rejects float neighbors as not being integer ids', async () => {
    const file = writeH5('float-gt.hdf5', { neighbors: { data: f32([1, 2]), shape: [1, 2] } });
    await expectRejection(readGroundTruth(file), 'STRATA_DATASET_FORMAT', file, 'float32', 'integer');
  });

  it('rejects a missing hdf5 file as an invalid argument naming it', async () => {
    const file = tmp.path('absent.hdf5');
    await expectRejection(readDataset(file), 'STRATA_INVALID_ARGUMENT', file, 'no such file');
  });
});
