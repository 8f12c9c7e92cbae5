// A throwaway PostgreSQL cluster with pgvector, for the comparison bench and the load generator's
// pgvector test: initdb into a temporary directory, one postgres process on a loopback port, gone
// with stop(). Debian's packages put each major version under /usr/lib/postgresql/N/bin; pgvector
// is built from Debian's source package (bench/install-pgvector.sh). PostgreSQL refuses to run as
// root, so as root the cluster runs as the `postgres` user the packages create.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { errorMessage } from '../common/errors.js';

/** The newest installed server's bin directory with initdb and postgres, or null. STRATA_PG_BIN overrides. */
export function pgBinDir(): string | null {
  const forced = process.env['STRATA_PG_BIN'];
  if (forced) return existsSync(join(forced, 'postgres')) ? forced : null;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((v) => /^\d+$/.test(v) && existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length > 0 ? join(root, versions[0]!, 'bin') : null;
}

/** pgvector's library beside that server (what CREATE EXTENSION vector loads). */
export function hasPgvector(bin: string): boolean {
  try {
    const lib = execFileSync(join(bin, 'pg_config'), ['--pkglibdir'], { encoding: 'utf8' }).trim();
    return existsSync(join(lib, 'vector.so'));
  } catch {
    return existsSync(join(bin, '..', 'lib', 'vector.so'));
  }
}

/** Why no cluster can start here, or null when one can. */
export function pgUnavailable(): string | null {
  const bin = pgBinDir();
  if (bin === null) return 'no PostgreSQL server under /usr/lib/postgresql (apt-get install postgresql)';
  if (!hasPgvector(bin)) return `no pgvector beside ${bin} (bash bench/install-pgvector.sh)`;
  if (process.getuid?.() === 0) {
    try {
      execFileSync('id', ['-u', 'postgres'], { stdio: 'ignore' });
    } catch {
      return 'running as root and there is no postgres user to run the server as';
    }
  }
  return null;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => (typeof a === 'object' && a !== null ? resolve(a.port) : reject(new Error('no port'))));
    });
  });
}

export interface PgCluster {
  /** postgres://postgres@127.0.0.1:port/postgres */
  url: string;
  /** The postmaster's pid: the root of the process tree whose CPU is the server's (its backends are its children). */
  pid: number;
  stop(): Promise<void>;
}

export interface PgClusterOptions {
  /** postgres -c settings (memory, parallelism), on top of a few for a throwaway cluster. */
  settings?: Record<string, string | number>;
}

export async function startPgCluster(o: PgClusterOptions = {}): Promise<PgCluster> {
  const why = pgUnavailable();
  if (why !== null) throw new Error(why);
  const bin = pgBinDir()!;
  const dir = mkdtempSync(join(tmpdir(), 'strata-pg-'));
  const data = join(dir, 'data');
  // As root, every step runs as postgres: setpriv execs in place, so the child is the server itself.
  const root = process.getuid?.() === 0;
  const asPg = (cmd: string, args: string[]): [string, string[]] =>
    root ? ['setpriv', ['--reuid=postgres', '--regid=postgres', '--init-groups', '--', cmd, ...args]] : [cmd, args];
  if (root) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
  const [initCmd, initArgs] = asPg(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
  execFileSync(initCmd, initArgs, { stdio: 'ignore' });
  const port = await freePort();
  // Durability off: the cluster is rebuilt for every run and nothing in it is worth an fsync.
  const settings: Record<string, string | number> = {
    listen_addresses: '127.0.0.1',
    port,
    unix_socket_directories: dir,
    fsync: 'off',
    synchronous_commit: 'off',
    full_page_writes: 'off',
    max_connections: 64,
    ...o.settings,
  };
  const args = ['-D', data, ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`])];
  const [cmd, cmdArgs] = asPg(join(bin, 'postgres'), args);
  const child: ChildProcess = spawn(cmd, cmdArgs, { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr!.on('data', (d: Buffer) => {
    log = (log + d.toString()).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGINT'); // fast shutdown: backends end, the postmaster exits
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    const c = new pg.Client({ connectionString: url });
    c.on('error', () => {});
    try {
      await c.connect();
      await c.end();
      break;
    } catch (e) {
      await c.end().catch(() => {});
      if (child.exitCode !== null || Date.now() > deadline) {
        await stop();
        throw new Error(`postgres did not start: ${errorMessage(e)}\n${log}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return { url, pid: child.pid!, stop };
}
