// `strata serve` as a child process (bin/strata.js over dist/), for tests of the command itself:
// started on free ports, resolved once it has printed its addresses and example query.
import { type ChildProcessByStdio, spawn, spawnSync } from 'node:child_process';
import type { Readable } from 'node:stream';
import { BIN, ROOT } from '../helpers/cli.js';

/** A shell snippet: bind-mount dir read-only over itself, then run `then`. */
function readOnlyMount(dir: string, then: string): string {
  const q = `'${dir.replace(/'/g, `'\\''`)}'`;
  return `mount --bind ${q} ${q} && mount -o remount,bind,ro ${q} && ${then}`;
}

/** Whether this process may make a read-only bind mount in a private mount namespace (root, unshare). */
export function readOnlyMountWorks(dir: string): boolean {
  const r = spawnSync('unshare', ['-m', 'sh', '-c', readOnlyMount(dir, `! touch ${JSON.stringify(`${dir}/.probe`)} 2>/dev/null`)]);
  return r.status === 0;
}

export interface ServeChild {
  child: ChildProcessByStdio<null, Readable, Readable>;
  /** e.g. http://127.0.0.1:40123 */
  rest: string;
  /** host:port, or null with --no-grpc. */
  grpc: string | null;
  /** host:port of Qdrant's gRPC API, unless --no-qdrant-grpc. */
  qdrantGrpc: string | null;
  exited: Promise<number | null>;
  stdout(): string;
  stderr(): string;
}

/** `strata serve <args>` with `env` over this process's environment (STRATA_API_KEY unset unless given). */
export async function serveChild(
  args: readonly string[],
  env: Record<string, string | undefined> = {},
  /** Run under bash with `ulimit -f <KiB>`: writes past it fail with EFBIG, as on a full disk. */
  fileSizeLimitKiB?: number,
  /**
   * Run in a private mount namespace where this directory is bind-mounted read-only: writes there
   * fail with EROFS, as on a read-only file system (needs root: readOnlyMountWorks()).
   */
  readOnlyDir?: string,
  /** Run on these CPUs only (taskset -c): its affinity, so its available parallelism. */
  cpus?: string,
): Promise<ServeChild> {
  // Every port free unless the test names one (commander keeps the last value of a repeated flag).
  const argv = [BIN, 'serve', '--port', '0', '--grpc-port', '0', '--qdrant-grpc-port', '0', ...args];
  const opts = { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] as ['ignore', 'pipe', 'pipe'], env: { ...process.env, STRATA_API_KEY: undefined, ...env } };
  const child =
    cpus !== undefined
      ? spawn('taskset', ['-c', cpus, process.execPath, ...argv], opts)
      : readOnlyDir !== undefined
        ? spawn('unshare', ['-m', 'sh', '-c', readOnlyMount(readOnlyDir, 'exec "$0" "$@"'), process.execPath, ...argv], opts)
        : fileSizeLimitKiB === undefined
          ? spawn(process.execPath, argv, opts)
          : spawn('bash', ['-c', `ulimit -f ${fileSizeLimitKiB} && exec "$0" "$@"`, process.execPath, ...argv], opts);
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', () => /^curl .*$/m.test(out) && resolve());
    void exited.then((code) => reject(new Error(`strata serve exited (${code}) before printing its addresses:\n${out}\n${err}`)));
  });
  return {
    child,
    rest: /^REST\s+(\S+)/m.exec(out)![1]!,
    grpc: /^gRPC\s+(\d\S*)/m.exec(out)?.[1] ?? null,
    qdrantGrpc: /^Qdrant gRPC\s+(\d\S*)/m.exec(out)?.[1] ?? null,
    exited,
    stdout: () => out,
    stderr: () => err,
  };
}

/** Starts `strata serve --data-dir dataDir` once more, runs `check` on its REST address, then kills it. */
export async function checkAfterRestart(dataDir: string, check: (rest: string) => Promise<void>): Promise<void> {
  const s = await serveChild(['--data-dir', dataDir, '--no-grpc', '--log-level', 'silent']);
  try {
    await check(s.rest);
  } finally {
    s.child.kill('SIGKILL');
    await s.exited;
  }
}
