import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { MessageChannel, Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { StrataError } from '../../common/errors.js';
import { projectRoot } from '../../common/paths.js';
import { fromWorker, isWireError, throwsAcrossThreads, toWire } from '../../common/worker-errors.js';
import { makeTempDir, thrown } from '../helpers/temp.js';

/** What a structured clone (postMessage between threads) makes of a value. */
function cloned(v: unknown): Promise<unknown> {
  const { port1, port2 } = new MessageChannel();
  return new Promise((resolve) => {
    port2.once('message', (m) => {
      port1.close();
      port2.close();
      resolve(m);
    });
    port1.postMessage(v);
  });
}

const original = new StrataError('STRATA_DATASET_FORMAT', 'base.fvecs: row 3 is truncated', { file: 'base.fvecs', row: 3, expected: 512, found: 7 });

describe('errors across threads', () => {
  it('a StrataError posted as it is loses its code and details: the reason for the wire form', async () => {
    const c = (await cloned(original)) as Error & { code?: unknown; details?: unknown };
    expect(c).not.toBeInstanceOf(StrataError);
    expect(c.code).toBeUndefined();
    expect(c.details).toBeUndefined();
  });

  it('comes back as the same StrataError (class, code, message, details) from its wire form', async () => {
    const c = await cloned(toWire(original));
    expect(isWireError(c)).toBe(true);
    const e = fromWorker(c, 'test worker');
    expect(e).toBeInstanceOf(StrataError);
    expect(e.code).toBe(original.code);
    expect(e.message).toBe(original.message);
    expect(e.details).toEqual(original.details);
    expect(e.stack).toBe(original.stack);
  });

  it('makes anything else STRATA_WORKER_FAILED naming the worker, the original as its cause', async () => {
    const c = await cloned(toWire(new RangeError('out of memory')));
    const e = fromWorker(c, 'test worker');
    expect(e.code).toBe('STRATA_WORKER_FAILED');
    expect(e.message).toBe('test worker failed: out of memory');
    expect(e.cause).toBe(c);
    expect(fromWorker({ strataWireError: 1, code: 'NOT_A_CODE', message: 'x', details: {} }, 'w').code).toBe('STRATA_WORKER_FAILED');
  });

  it('throwsAcrossThreads passes results through and throws StrataErrors in their wire form', () => {
    const task = throwsAcrossThreads((n: number) => {
      if (n < 0) throw original;
      return n * 2;
    });
    expect(task(2)).toBe(4);
    expect(isWireError(thrown(() => task(-1)))).toBe(true);
  });

  it('an uncaught wire error in a plain worker thread reaches the error listener whole', async () => {
    // the shape of loadgen/gt-worker.ts: a module that throws at top level
    const lib = (f: string): string => JSON.stringify(pathToFileURL(join(projectRoot(), 'dist', 'common', f)).href);
    const tmp = makeTempDir('strata-worker-errors-');
    try {
      const file = tmp.path('throws.mjs');
      writeFileSync(
        file,
        `import { StrataError } from ${lib('errors.js')};\nimport { toWire } from ${lib('worker-errors.js')};\n` +
          `throw toWire(new StrataError('STRATA_INVALID_ARGUMENT', '--k: too large', { field: '--k' }));\n`,
      );
      const w = new Worker(file);
      const got = await new Promise<unknown>((resolve) => w.once('error', resolve));
      const e = fromWorker(got, 'w');
      expect(e.code).toBe('STRATA_INVALID_ARGUMENT');
      expect(e.message).toBe('--k: too large');
      expect(e.details).toEqual({ field: '--k' });
    } finally {
      tmp.cleanup();
    }
  });
});
