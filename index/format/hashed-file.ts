// Writing an index file while hashing it, and hashing one back, for the size and SHA-256 the
// manifest lists for every file.
import { createHash, type Hash } from 'node:crypto';
import { closeSync, fsyncSync, openSync, readSync, writeSync } from 'node:fs';
import type { FileEntry } from './manifest.js';

/** A new file (never an existing one), hashed as written and fsynced by finish(). */
export class HashedFile {
  private readonly fd: number;
  private readonly hash: Hash = createHash('sha256');
  bytes = 0;
  constructor(readonly path: string) {
    this.fd = openSync(path, 'wx');
  }
  write(data: Uint8Array): void {
    let off = 0;
    while (off < data.byteLength) off += writeSync(this.fd, data, off, data.byteLength - off);
    this.hash.update(data);
    this.bytes += data.byteLength;
  }
  pad(to: number): void {
    const extra = (to - (this.bytes % to)) % to;
    if (extra > 0) this.write(new Uint8Array(extra));
  }
  finish(): FileEntry {
    fsyncSync(this.fd);
    closeSync(this.fd);
    return { bytes: this.bytes, sha256: this.hash.digest('hex') };
  }
  /** Closes without syncing (the caller is giving the file up). */
  abandon(): void {
    closeSync(this.fd);
  }
}

const HASH_CHUNK = 1 << 20;

/** A file's size and SHA-256, read in chunks. */
export function hashFile(path: string): FileEntry {
  const fd = openSync(path, 'r');
  try {
    const hash = createHash('sha256');
    const buf = new Uint8Array(HASH_CHUNK);
    let bytes = 0;
    for (let n = readSync(fd, buf, 0, HASH_CHUNK, bytes); n > 0; n = readSync(fd, buf, 0, HASH_CHUNK, bytes)) {
      hash.update(buf.subarray(0, n));
      bytes += n;
    }
    return { bytes, sha256: hash.digest('hex') };
  } finally {
    closeSync(fd);
  }
}
