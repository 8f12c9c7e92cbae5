// Runs the real `strata` command (bin/strata.js over the compiled dist/) as a child process.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BIN = join(ROOT, 'bin', 'strata.js');

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function strata(args: readonly string[], timeoutMs = 120_000): CliResult {
  const env = { ...process.env };
  delete env['STRATA_KERNELS'];
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8', env, timeout: timeoutMs });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The single JSON line a command printed on stdout. */
export function jsonLine<T = Record<string, unknown>>(r: CliResult): T {
  const lines = r.stdout.split('\n').filter((l) => l.trim() !== '');
  if (lines.length !== 1) throw new Error(`expected one line of JSON on stdout, got ${lines.length}:\n${r.stdout}\nstderr:\n${r.stderr}`);
  return JSON.parse(lines[0]!) as T;
}

/** Compiles dist/ (TypeScript and the WASM kernels) when it is missing; normally `npm run build` did. */
export function ensureBuilt(): void {
  const run = (args: string[]): void => {
    const r = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`build step ${args.join(' ')} failed:\n${r.stdout}\n${r.stderr}`);
  };
  if (!existsSync(join(ROOT, 'dist', 'cli', 'strata.js'))) run([join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json']);
  if (!existsSync(join(ROOT, 'dist', 'kernels', 'distance.wasm'))) run([join(ROOT, 'index', 'kernels', 'build-wasm.mjs')]);
}
