// Runs a script in a child `node --trace-gc-nvp` and reads V8's own count of what its scavenges
// promoted between the script's `---- start` and `---- end` lines: the tests that hold request-path
// objects to dying young (test/engine/young-garbage.test.ts, test/server/lifecycle.test.ts).
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect } from 'vitest';
import { busiestIsolate, type Scavenges } from './gc-trace.js';

/** file: URL of a compiled module under dist/ (the child runs plain JavaScript), e.g. 'engine/engine.js'. */
export function distUrl(path: string): string {
  return pathToFileURL(resolve(import.meta.dirname, '../../dist', path)).href;
}

/**
 * Writes `source` to dir/name (a file, not --eval: worker threads inherit the child's flags, and
 * --input-type stops them), runs it with `args` (and `gc()`, to age long-lived objects into the old
 * space as a running server's are), and returns the scavenges of its busiest isolate (the main one:
 * a search thread's allocates little) inside the start/end markers.
 */
export function scavengesOf(dir: string, name: string, source: string, args: string[]): Scavenges {
  const script = join(dir, name);
  writeFileSync(script, source);
  const r = spawnSync(process.execPath, ['--trace-gc-nvp', '--expose-gc', script, ...args], { encoding: 'utf8', maxBuffer: 1 << 26 });
  expect(r.status, r.stderr).toBe(0);
  const lines = r.stdout.split('\n');
  return busiestIsolate(lines.slice(lines.indexOf('---- start'), lines.indexOf('---- end')));
}
