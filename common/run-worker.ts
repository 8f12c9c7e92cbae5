// One task on a worker thread of its own: the first message the worker posts is the answer; what it
// throws (as a WireError, worker-errors.ts) or an exit before answering is the error.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { StrataError } from './errors.js';
import { projectRoot } from './paths.js';
import { fromWorker } from './worker-errors.js';

/** A compiled worker script under dist/ (path parts as in the source tree, .js); missing: build first. */
export function distWorker(...parts: string[]): string {
  const f = join(projectRoot(), 'dist', ...parts);
  if (!existsSync(f)) throw new StrataError('STRATA_INTERNAL', `${f} is missing: run npm run build`, { file: f });
  return f;
}

/** Runs the worker at `file` on `workerData`; `what` names it in errors. `transfer`: buffers of workerData that move to it. */
export function runWorker<T>(file: string, workerData: unknown, what: string, transfer: ArrayBuffer[] = []): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const w = new Worker(file, { workerData, transferList: transfer });
    let answered = false;
    w.once('message', (m: T) => {
      answered = true;
      resolve(m);
    });
    w.once('error', (e) => reject(fromWorker(e, what)));
    w.once('exit', (code) => {
      if (!answered) reject(new StrataError('STRATA_WORKER_FAILED', `${what} exited with code ${code} without an answer`));
    });
  });
}
