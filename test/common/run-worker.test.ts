import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isStrataError } from '../../common/errors.js';
import { distWorker, runWorker } from '../../common/run-worker.js';
import { makeTempDir } from '../helpers/temp.js';

const tmp = makeTempDir('strata-run-worker-');
afterAll(() => tmp.cleanup());

const script = (name: string, body: string): string => {
  const f = join(tmp.path('.'), name);
  writeFileSync(f, `import { parentPort, workerData } from 'node:worker_threads';\n${body}\n`);
  return f;
};

describe('one task on a worker thread', () => {
  it('answers with the first message the worker posts', async () => {
    expect(await runWorker<number>(script('double.mjs', 'parentPort.postMessage(workerData * 2);'), 21, 'doubler')).toBe(42);
  });

  it('fails naming the worker when it throws, or exits without answering', async () => {
    for (const [file, want] of [
      ['throws.mjs', /doubler failed: no/],
      ['quiet.mjs', /doubler exited with code 0 without an answer/],
    ] as const) {
      const body = file === 'throws.mjs' ? "throw new Error('no');" : '';
      const err = await runWorker(script(file, body), 1, 'doubler').catch((e: unknown) => e);
      expect(isStrataError(err, 'STRATA_WORKER_FAILED')).toBe(true);
      expect((err as Error).message).toMatch(want);
    }
  });

  it('refuses a worker script that is not built, naming it', () => {
    expect(() => distWorker('no', 'such-worker.js')).toThrow(/such-worker\.js is missing: run npm run build/);
  });
});
