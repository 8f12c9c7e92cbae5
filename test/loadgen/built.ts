// The load generator's worker threads and the CLI run from dist/: compile it when it is missing
// (normally `npm run build` or `npx tsc -p tsconfig.json` has done so).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ensureBuilt, ROOT } from '../helpers/cli.js';

export function ensureLoadgenBuilt(): void {
  ensureBuilt();
  const needed = ['dist/loadgen/gt-worker.js', 'dist/cli/commands/loadgen.js', 'dist/cli/commands/plot.js'];
  if (needed.every((f) => existsSync(join(ROOT, f)))) return;
  const r = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`tsc failed:\n${r.stdout}\n${r.stderr}`);
}
