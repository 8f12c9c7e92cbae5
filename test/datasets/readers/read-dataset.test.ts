import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../../common/paths.js';
import {
  DATASET_FORMATS,
  detectFormat,
  readDataset,
  readFvecsMatrix,
  readGroundTruth,
  readIvecs,
  writeFbin,
  writeFvecs,
  writeIvecs,
} from '../../../datasets/index.js';
import { binBytes, expectRejection, expectSameArray, expectThrow, f32, makeTempDir, writeBytes } from './helpers.js';

const tmp = makeTempDir();
afterAll(() => tmp.cleanup());

describe('detectFormat', () => {
  it('maps every supported extension to its format, case-insensitively', () => {
    const cases: [string, string][] = [
      ['a/base.fvecs', 'fvecs'],
      ['b.bvecs', 'bvecs'],
      ['c.fbin', 'fbin'],
      ['d.u8bin', 'u8bin'],
      ['e.i8bin', 'i8bin'],
      ['f.npy', 'npy'],
      ['g.hdf5', 'hdf5'],
      ['h.H5', 'hdf5'],
      ['i.jsonl', 'jsonl'],
      ['j.NDJSON', 'jsonl'],
      ['/data/sift.v2.FVECS', 'fvecs'],
    ];
    for (const [file, format] of cases) expect(detectFormat(file)).toBe(format);
    expect([...DATASET_FORMATS].sort()).toEqual(['bvecs', 'fbin', 'fvecs', 'hdf5', 'i8bin', 'jsonl', 'npy', 'u8bin']);
  });

  it('rejects an unknown extension, naming the file and listing supported extensions', () => {
    const err = expectThrow(
      () => detectFormat('data/vectors.csv'),
      'STRATA_DATASET_FORMAT',
      'data/vectors.csv',
      '".csv"',
      '.fvecs',
      '.npy',
      '.hdf5',
      '.ndjson',
    );
    expect(err.details).toMatchObject({ file: 'data/vectors.csv', found: '.csv' });
  });

  it('rejects a file name without an extension', () => {
    expectThrow(() => detectFormat('vectors'), 'STRATA_DATASET_FORMAT', 'vectors', 'without an extension');
  });
});

describe('readDataset options', () => {
  it('uses an explicit format for a file whose extension does not say it', async () => {
    const file = writeBytes(tmp.path('base.bin'), binBytes(2, 2, [1, 2, 3, 4], 'f32'));
    const ds = await readDataset(file, { format: 'fbin' });
    expect(ds).toMatchObject({ format: 'fbin', dim: 2, count: 2 });
    expect(Array.from(ds.vectors)).toEqual([1, 2, 3, 4]);
    await expectRejection(readDataset(file), 'STRATA_DATASET_FORMAT', file, '".bin"');
  });

  it('rejects a limit that is not a positive integer and an unknown format', async () => {
    const file = writeBytes(tmp.path('opts.fbin'), binBytes(1, 1, [1], 'f32'));
    for (const limit of [0, -1, 1.5, Number.NaN]) {
      await expectRejection(readDataset(file, { limit }), 'STRATA_INVALID_ARGUMENT', 'limit');
    }
    await expectRejection(readDataset(file, { format: 'csv' as never }), 'STRATA_INVALID_ARGUMENT', 'format', '"csv"');
  });

  it('rejects a missing file as an invalid argument naming it', async () => {
    const file = tmp.path('missing.fvecs');
    const err = await expectRejection(readDataset(file), 'STRATA_INVALID_ARGUMENT', file, 'no such file');
    expect(err.details).toMatchObject({ file });
    await expectRejection(readDataset(tmp.path('missing.jsonl')), 'STRATA_INVALID_ARGUMENT', 'missing.jsonl', 'no such file');
    await expectRejection(readIvecs(tmp.path('missing.ivecs')), 'STRATA_INVALID_ARGUMENT', 'missing.ivecs');
  });

  it('rejects a directory given as the dataset', async () => {
    await expectRejection(readDataset(tmp.dir, { format: 'fvecs' }), 'STRATA_INVALID_ARGUMENT', tmp.dir);
  });
});

describe('readGroundTruth dispatch', () => {
  it('rejects an unsupported ground-truth extension, listing the supported ones', async () => {
    const err = await expectRejection(readGroundTruth('gt.txt'), 'STRATA_DATASET_FORMAT', 'gt.txt', '.ivecs', '.ibin', '.hdf5');
    expect(err.details).toMatchObject({ file: 'gt.txt', found: '.txt' });
  });
});

describe('writers', () => {
  it('reject a dim that does not divide the data, a non-positive dim, empty data and the wrong array type', async () => {
    const file = tmp.path('w.fvecs');
    await expectRejection(writeFvecs(file, f32([1, 2, 3]), 2), 'STRATA_INVALID_ARGUMENT', 'not a positive multiple of dim 2');
    await expectRejection(writeFbin(file, f32([1, 2]), 0), 'STRATA_INVALID_ARGUMENT', 'dim');
    await expectRejection(writeIvecs(file, new Int32Array(0), 4), 'STRATA_INVALID_ARGUMENT', 'length 0');
    await expectRejection(writeIvecs(file, f32([1]) as unknown as Int32Array, 1), 'STRATA_INVALID_ARGUMENT', 'Int32Array');
  });

  it('write files that cross the 65536-row chunk size intact', async () => {
    const rows = 65_537;
    const data = new Int32Array(rows * 3);
    for (let i = 0; i < data.length; i++) data[i] = i - 5;
    const ivecs = tmp.path('big.ivecs');
    await writeIvecs(ivecs, data, 3);
    expectSameArray((await readIvecs(ivecs)).data, data);
    const floats = Float32Array.from(data);
    const fbin = tmp.path('big.fbin');
    await writeFbin(fbin, floats, 3);
    expectSameArray((await readDataset(fbin)).vectors, floats);
  });
});

describe('shared SIFT sample', () => {
  const dir = join(projectRoot(), '..', 'shared', 'datasets', 'sift-128-euclidean-10k');
  const base = join(dir, 'base.fvecs');

  it.skipIf(!existsSync(base))('reads the 10k SIFT base (10000 × 128, integer-valued) and its 100 × 100 ground truth', async () => {
    const ds = await readDataset(base);
    expect(ds).toMatchObject({ format: 'fvecs', count: 10_000, dim: 128, ids: null });
    expect(ds.vectors.length).toBe(10_000 * 128);
    // SIFT descriptors are small non-negative integers stored as float32.
    expect(ds.vectors.every((v) => Number.isInteger(v) && v >= 0 && v <= 255)).toBe(true);

    const gt = await readGroundTruth(join(dir, 'groundtruth.ivecs'));
    expect(gt).toMatchObject({ count: 100, dim: 100 });
    expect(gt.data.every((id) => id >= 0 && id < 10_000)).toBe(true);

    const query = await readFvecsMatrix(join(dir, 'query.fvecs'));
    expect(query).toMatchObject({ count: 100, dim: 128 });

    // The nearest neighbour of query 0 really is at the recorded distance.
    const dist = await readFvecsMatrix(join(dir, 'groundtruth_dist.fvecs'));
    expect(dist).toMatchObject({ count: 100, dim: 100 });
    const nn = gt.data[0]!;
    let sq = 0;
    for (let j = 0; j < 128; j++) sq += (query.data[j]! - ds.vectors[nn * 128 + j]!) ** 2;
    expect(Math.sqrt(sq)).toBeCloseTo(dist.data[0]!, 2);
  });
});
