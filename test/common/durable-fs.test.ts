// Durable file writes: the file holds every byte once a write returns, a replaced file is the old one
// or the new one, and a failure is a STRATA_STORAGE error naming the path and the errno.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDir, fsyncDir, renameDurably, replaceFileDurably, storageError, writeFileDurably, writeFileSynced } from '../../common/durable-fs.js';
import { isStrataError, type StrataError } from '../../common/errors.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'strata-durable-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function caught(f: () => void): StrataError {
  try {
    f();
  } catch (e) {
    if (isStrataError(e)) return e;
    throw e;
  }
  throw new Error('expected a StrataError');
}

describe('durable file writes', () => {
  it('leaves the whole file, byte for byte, and no temporary beside it', () => {
    const bytes = new Uint8Array(3 << 20);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 2654435761) >>> 24;
    const file = join(dir, 'data.bin');
    writeFileDurably(file, bytes);
    const back = readFileSync(file);
    expect(back.length).toBe(bytes.length);
    expect(back.equals(bytes)).toBe(true);
    expect(readdirSync(dir)).toEqual(['data.bin']);
  });

  it('writes strings as UTF-8 and replaces what was there', () => {
    const file = join(dir, 'config.json');
    writeFileDurably(file, 'old contents, longer than the new');
    writeFileDurably(file, '{"name":"ünïcode"}\n');
    expect(readFileSync(file, 'utf8')).toBe('{"name":"ünïcode"}\n');
    replaceFileDurably(file, 'again');
    expect(readFileSync(file, 'utf8')).toBe('again');
  });

  it('keeps the old file when the new one cannot be written, and names the path in a STRATA_STORAGE error', () => {
    const file = join(dir, 'config.json');
    writeFileDurably(file, 'old');
    // A directory where the temporary goes: opening it for writing fails (even as root).
    mkdirSync(`${file}.tmp`);
    const e = caught(() => writeFileDurably(file, 'new'));
    expect(e.code).toBe('STRATA_STORAGE');
    expect(e.message).toContain(file);
    expect(e.message).toMatch(/^write /);
    expect(e.details).toMatchObject({ file, errno: 'EISDIR' });
    expect(readFileSync(file, 'utf8')).toBe('old');
  });

  it('fails with the file system error itself where the caller wants it raw', () => {
    const missing = join(dir, 'no-such-dir', 'f');
    expect(() => replaceFileDurably(missing, 'x')).toThrow(expect.objectContaining({ code: 'ENOENT' }));
    expect(() => writeFileSynced(missing, 'x')).toThrow(expect.objectContaining({ code: 'ENOENT' }));
    expect(() => fsyncDir(join(dir, 'no-such-dir'))).toThrow(expect.objectContaining({ code: 'ENOENT' }));
  });

  it('renames durably: the file is at its new name only', () => {
    const from = join(dir, 'a');
    writeFileSynced(from, 'x');
    renameDurably(from, join(dir, 'b'));
    expect(existsSync(from)).toBe(false);
    expect(readFileSync(join(dir, 'b'), 'utf8')).toBe('x');
  });
});

describe('directories and storage errors', () => {
  it('creates nested directories, and reports a failure as STRATA_STORAGE naming the directory asked for', () => {
    createDir(join(dir, 'a', 'b', 'c'));
    expect(existsSync(join(dir, 'a', 'b', 'c'))).toBe(true);
    const blocker = join(dir, 'file');
    writeFileSync(blocker, '');
    const e = caught(() => createDir(join(blocker, 'sub')));
    expect(e.code).toBe('STRATA_STORAGE');
    expect(e.message).toMatch(/^create .*file\/sub failed \(ENOTDIR\)/);
    const named = caught(() => createDir(join(blocker, 'sub'), dir));
    expect(named.details.file).toBe(dir);
  });

  it('names the step, the path and the errno, EIO when the error carries none, and keeps the cause', () => {
    const cause = Object.assign(new Error('disk full'), { code: 'ENOSPC' });
    const e = storageError('/data/wal.log', 'append to', cause);
    expect(e.message).toBe('append to /data/wal.log failed (ENOSPC): the write was not acknowledged');
    expect(e.details).toEqual({ file: '/data/wal.log', errno: 'ENOSPC' });
    expect(e.cause).toBe(cause);
    expect(storageError('/x', 'read', new Error('odd')).details.errno).toBe('EIO');
  });
});
