// Writing files so that a crash leaves the old contents or the new ones, never a mix: the bytes go to
// a temporary beside the file and are synced, the temporary is renamed over the file, and the
// directory is synced so that the rename itself survives. Strata's writers take these steps from here
// (the log's cut only the directory sync: it writes through a handle it keeps), so that a fix to one
// step (a short write, a missed directory sync) reaches them all.
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, writeSync } from 'node:fs';
import { open, rename } from 'node:fs/promises';
import { dirname } from 'node:path';
import { StrataError } from './errors.js';

/**
 * Storage failures (disk full, read-only file system, no permission) as one typed error naming the
 * step and the file; the errno is EIO when the error carries none, the original error is the cause.
 */
export function storageError(file: string, op: string, e: unknown): StrataError {
  const code = (e as NodeJS.ErrnoException).code ?? 'EIO';
  return new StrataError('STRATA_STORAGE', `${op} ${file} failed (${code}): the write was not acknowledged`, { file, errno: code }, { cause: e });
}

/** Makes the entries of `dir` durable: a file created, renamed or removed in it survives a crash once this returns. */
export function fsyncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes all of `bytes` to `file` (created, or emptied first) and syncs it before returning. Errors
 * are the file system's own: callers decide what a failure means.
 */
export function writeFileSynced(file: string, bytes: string | Uint8Array): void {
  const data = typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes;
  const fd = openSync(file, 'w', 0o644);
  try {
    // A single write may take fewer bytes than asked (very large buffers, signals): loop to the end.
    for (let done = 0; done < data.byteLength; ) done += writeSync(fd, data, done, data.byteLength - done);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Renames `from` to `to` and syncs the directory of `to`, so the new name is on disk when this returns. */
export function renameDurably(from: string, to: string): void {
  renameSync(from, to);
  fsyncDir(dirname(to));
}

/**
 * Replaces `file` with `bytes` through a synced temporary (`<file>.tmp`) and a durable rename: a crash
 * leaves the old file or the new one. Errors are the file system's own.
 */
export function replaceFileDurably(file: string, bytes: string | Uint8Array): void {
  const tmp = `${file}.tmp`;
  writeFileSynced(tmp, bytes);
  renameDurably(tmp, file);
}

/** replaceFileDurably, its failures as STRATA_STORAGE naming `file` (writeFileDurablyAsync: the same steps off the event loop). */
export function writeFileDurably(file: string, bytes: string | Uint8Array): void {
  try {
    replaceFileDurably(file, bytes);
  } catch (e) {
    throw storageError(file, 'write', e);
  }
}

/**
 * writeFileDurably's steps (a synced temporary, a rename, the directory synced) on libuv's threads, so
 * that a large file's write and sync leave the event loop free; failures as STRATA_STORAGE naming `file`.
 */
export async function writeFileDurablyAsync(file: string, bytes: Uint8Array): Promise<void> {
  const tmp = `${file}.tmp`;
  try {
    const fh = await open(tmp, 'w', 0o644);
    try {
      for (let done = 0; done < bytes.byteLength; ) done += (await fh.write(bytes, done, bytes.byteLength - done)).bytesWritten;
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, file);
    const dir = await open(dirname(file), 'r');
    try {
      await dir.sync();
    } finally {
      await dir.close();
    }
  } catch (e) {
    throw storageError(file, 'write', e);
  }
}

/** Creates `dir` and any missing parents; a failure is STRATA_STORAGE naming `named` (the directory itself unless told). */
export function createDir(dir: string, named = dir): void {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (e) {
    throw storageError(named, 'create', e);
  }
}
