// Puts a finished index directory at its final path so that a crash at any moment leaves an index
// there: the old one or the new one.
//
// - Nothing at the path: one rename.
// - An index there: renameat2(RENAME_EXCHANGE) swaps the two directories in one step (through the
//   native addon), then the old copy, now in the temporary, is removed.
// - Where the exchange is unavailable (no addon, a kernel or filesystem without it): an intent
//   record `.<name>.strata-swap.json` is written and fsynced beside the index first, then two renames
//   (old aside, new in). A crash between them leaves no directory at the path; the intent record
//   names both copies, and recoverInterruptedSwap (run by every load and build) moves the new one in.
//
// Temporaries are named `.<name>.tmp-<pid>-<ms>` (and `.old`); those of a build whose process is gone
// are removed at the next build into the same directory, once any swap they belong to is recovered.
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fsyncDir, renameDurably, writeFileSynced } from '../../common/durable-fs.js';
import { exchangePaths } from '../../tiers/numa.js';
import { MANIFEST } from './constants.js';
import { crashPoint } from './crash-point.js';

const TEMP_RE = /^\.(.+)\.tmp-(\d+)-(\d+)(\.old)?$/;
const INTENT_RE = /^\.(.+)\.strata-swap\.json$/;
/**
 * What a temporary may hold (version 2's files, and version 1's tier files so that old temporaries
 * go too); anything else means it is not ours and is left alone.
 */
const INDEX_FILE_RE = /^(manifest\.json|graph\.bin|codes\.bin|payloads\.jsonl|(adjacency|vectors|labels)-(dram|cxl)\.bin|tier-\d+-[a-z]+\.bin)$/;

export function temporaryFor(out: string): string {
  return join(dirname(out), `.${basename(out)}.tmp-${process.pid}-${Date.now()}`);
}

export function intentPath(out: string): string {
  return join(dirname(out), `.${basename(out)}.strata-swap.json`);
}

interface Intent {
  next: string;
  old: string;
  pid: number;
  /** When the record was written (ms since the epoch). */
  at: number;
}

/** When process `pid` started (ms since the epoch, ±1 s), from /proc; null where unknown. */
function processStartMs(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 22 (starttime, in USER_HZ = 100 ticks/s since boot) counts from after the ")" of the command name.
    const ticks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    const btime = Number(/^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1]);
    return Number.isFinite(ticks) && Number.isFinite(btime) ? btime * 1000 + ticks * 10 : null;
  } catch {
    return null;
  }
}

/**
 * Whether the process that wrote something at `sinceMs` as `pid` still runs. A process with that id
 * that started later is another one (ids are reused, e.g. pid 1 in every container).
 */
export function ownerAlive(pid: number, sinceMs: number): boolean {
  if (pid !== process.pid) {
    try {
      process.kill(pid, 0);
    } catch (e) {
      // EPERM: the process exists, under another user.
      if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
    }
  }
  const started = processStartMs(pid);
  return started === null || started <= sinceMs + 2000;
}

/** Swaps in `tmp` (a complete, fsynced index directory) at `out`. */
export function installDir(tmp: string, out: string): void {
  const parent = dirname(out);
  if (!existsSync(out)) {
    renameDurably(tmp, out);
    return;
  }
  crashPoint('before-swap');
  if (exchangePaths(tmp, out).exchanged) {
    fsyncDir(parent);
    crashPoint('after-swap');
    rmSync(tmp, { recursive: true, force: true });
    return;
  }
  const old = `${tmp}.old`;
  const intent = intentPath(out);
  const record: Intent = { next: basename(tmp), old: basename(old), pid: process.pid, at: Date.now() };
  writeFileSynced(intent, JSON.stringify(record) + '\n');
  fsyncDir(parent);
  renameSync(out, old);
  crashPoint('between-renames');
  try {
    renameSync(tmp, out);
  } catch (e) {
    renameSync(old, out);
    unlinkSync(intent);
    throw e;
  }
  fsyncDir(parent);
  crashPoint('after-swap');
  unlinkSync(intent);
  rmSync(old, { recursive: true, force: true });
}

function readIntent(file: string, out: string): Intent | null {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
  const r = raw as Partial<Intent>;
  // Only temporaries of this very index, in its own directory: the record must not steer renames elsewhere.
  const ours = (n: unknown): n is string => typeof n === 'string' && TEMP_RE.exec(n)?.[1] === basename(out) && !n.includes('/');
  if (!ours(r.next) || !ours(r.old) || !Number.isSafeInteger(r.pid) || !Number.isSafeInteger(r.at)) return null;
  return { next: r.next, old: r.old, pid: r.pid as number, at: r.at as number };
}

export type Recovery = 'none' | 'in-progress' | 'restored-new' | 'restored-old' | 'cleared';

/**
 * Finishes a swap at `out` that a dead process left half done (see the header). 'restored-new' /
 * 'restored-old': an index was moved back to `out`; 'cleared': `out` was intact, the record removed;
 * 'in-progress': the swapping process still runs, nothing touched.
 */
export function recoverInterruptedSwap(out: string): Recovery {
  const file = intentPath(out);
  if (!existsSync(file)) return 'none';
  const intent = readIntent(file, out);
  if (intent === null) return 'none';
  if (ownerAlive(intent.pid, intent.at)) return 'in-progress';
  const parent = dirname(out);
  const next = join(parent, intent.next);
  const old = join(parent, intent.old);
  let result: Recovery = 'cleared';
  if (!existsSync(out)) {
    // The new copy is complete (its manifest is written last, before the record), so prefer it.
    if (existsSync(join(next, MANIFEST))) {
      renameSync(next, out);
      result = 'restored-new';
    } else if (existsSync(join(old, MANIFEST))) {
      renameSync(old, out);
      result = 'restored-old';
    }
  }
  fsyncDir(parent);
  unlinkSync(file);
  return result;
}

/** Recovers every interrupted swap in `parent`, then removes temporaries of builds that are gone. Returns what was removed. */
export function removeStaleTemporaries(parent: string): string[] {
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return [];
  }
  for (const n of names) {
    const m = INTENT_RE.exec(n);
    if (m) recoverInterruptedSwap(join(parent, m[1]!));
  }
  const removed: string[] = [];
  for (const n of readdirSync(parent)) {
    const m = TEMP_RE.exec(n);
    if (!m) continue;
    if (ownerAlive(Number(m[2]), Number(m[3]))) continue;
    const path = join(parent, n);
    try {
      if (!statSync(path).isDirectory() || !readdirSync(path).every((f) => INDEX_FILE_RE.test(f))) continue;
      rmSync(path, { recursive: true, force: true });
      removed.push(path);
    } catch {
      // vanished meanwhile or unreadable: not ours to force
    }
  }
  return removed;
}
