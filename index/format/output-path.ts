// Whether `strata build` may write its index at --out, decided before any work is done. --force
// replaces only a Strata index directory (a manifest of this format and nothing but index files),
// never a file, a directory of other files, or the input itself: a mistyped --out must not cost the
// user their data. The parent must be writable, which is probed by creating (and removing) an entry.
import { lstatSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { invalidArgument, StrataError } from '../../common/errors.js';
import { FORMAT_NAME, MANIFEST } from './constants.js';

export interface OutputCheck {
  /** Replace an existing index directory. */
  force: boolean;
  /** Files the build reads: --out may be neither one of them nor a directory holding one. */
  inputs?: readonly string[];
}

const refuse = (out: string, why: string): StrataError =>
  new StrataError('STRATA_INDEX_EXISTS', `${out} ${why}; --force replaces only a Strata index directory: choose another --out`, { path: out, reason: why });

/** The real path of `p` (symlinks resolved) if it exists, else its absolute path. */
function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return resolve(p);
  }
}

const within = (child: string, dir: string): boolean => child === dir || child.startsWith(dir.endsWith(sep) ? dir : dir + sep);

/**
 * What in `dir` stops it from being replaced as an index, or null when it is one: a manifest.json
 * of this format, and no entry that is not one of its files (no user files are swept away with it).
 */
export function notAnIndexDir(dir: string): string | null {
  let manifest: unknown;
  try {
    manifest = JSON.parse(readFileSync(join(dir, MANIFEST), 'utf8'));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? `is a directory without a Strata ${MANIFEST}` : `has a ${MANIFEST} that cannot be read as JSON (${(e as Error).message})`;
  }
  const m = manifest as { format?: unknown; files?: unknown };
  if (typeof m !== 'object' || m === null || m.format !== FORMAT_NAME) return `has a ${MANIFEST} that is not a Strata index manifest`;
  const known = new Set([MANIFEST, ...(typeof m.files === 'object' && m.files !== null ? Object.keys(m.files) : [])]);
  const foreign = readdirSync(dir).filter((n) => !known.has(n));
  if (foreign.length > 0)
    return `holds ${foreign.length} entr${foreign.length === 1 ? 'y' : 'ies'} that are not index files (${foreign.slice(0, 3).join(', ')})`;
  return null;
}

/** Proves that entries can be created in the directory that will hold `out` (or its nearest existing ancestor). */
function probeWritable(out: string): void {
  let dir = dirname(out);
  for (;;) {
    let isDir: boolean;
    try {
      isDir = statSync(dir).isDirectory();
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT' && dirname(dir) !== dir) {
        dir = dirname(dir);
        continue;
      }
      throw invalidArgument(
        'out',
        `cannot write the index at ${out}: ${dir} is not accessible (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
        { path: out },
      );
    }
    if (!isDir) throw invalidArgument('out', `cannot write the index at ${out}: ${dir} is not a directory`, { path: out });
    break;
  }
  let probe: string;
  try {
    probe = mkdtempSync(join(dir, '.strata-probe-'));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? 'error';
    throw invalidArgument('out', `cannot write the index at ${out}: ${dir} is not writable (${code})`, { path: out, errno: code });
  }
  rmdirSync(probe);
}

/** Throws STRATA_INDEX_EXISTS (or STRATA_INVALID_ARGUMENT for an unwritable place) unless the index may be written at `outPath`. */
export function checkOutput(outPath: string, o: OutputCheck): void {
  const out = resolve(outPath);
  const realOut = real(out);
  for (const input of o.inputs ?? []) {
    const r = real(input);
    if (within(r, realOut)) {
      throw refuse(out, r === realOut ? 'is the input file itself' : `holds the input ${r} (${relative(realOut, r)})`);
    }
  }
  let stat: ReturnType<typeof lstatSync> | null = null;
  try {
    stat = lstatSync(out);
  } catch {
    // nothing there yet
  }
  if (stat !== null) {
    if (!o.force) {
      throw new StrataError('STRATA_INDEX_EXISTS', `${out} exists already: choose another --out or pass --force to replace it`, { path: out });
    }
    if (stat.isSymbolicLink()) throw refuse(out, 'is a symbolic link');
    if (!stat.isDirectory()) throw refuse(out, 'is a file, not an index directory');
    const why = notAnIndexDir(out);
    if (why !== null) throw refuse(out, why);
  }
  probeWritable(out);
}
