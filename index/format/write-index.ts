// Writes a tiered index directory crash-safely: every file goes to a temporary sibling directory,
// is fsynced, the manifest is written last, and the directory is renamed into place. A crash at any
// point leaves either the old index or the new one, never a mix; stray temporaries are ignored.
import { createHash, type Hash } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { StrataError } from '../../common/errors.js';
import type { TieredIndex } from '../tiered/tiered-index.js';
import { FORMAT_NAME, FORMAT_VERSION, GRAPH_FILE, GRAPH_MAGIC, HEADER_BYTES, MANIFEST, TIER_MAGIC, tierFileName } from './constants.js';
import type { FileEntry, Manifest } from './manifest.js';

export const METRIC_CODES = { l2: 0, ip: 1, cosine: 2 } as const;

class HashedFile {
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
}

function header(magic: string, fields: number[]): Uint8Array {
  const h = new Uint8Array(HEADER_BYTES);
  const dv = new DataView(h.buffer);
  for (let i = 0; i < 8; i++) h[i] = magic.charCodeAt(i);
  dv.setUint32(8, FORMAT_VERSION, true);
  fields.forEach((v, i) => dv.setInt32(12 + 4 * i, v, true));
  return h;
}

const bytesOf = (a: ArrayBufferView): Uint8Array => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

function fsyncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export type ManifestInfo = Omit<Manifest, 'format' | 'version' | 'dim' | 'metric' | 'count' | 'tiers' | 'files' | 'createdAt' | 'graph'> & {
  graph: { unreachable: number };
};

export function writeIndex(index: TieredIndex, outDir: string, info: ManifestInfo, opts: { force?: boolean } = {}): Manifest {
  const out = resolve(outDir);
  if (existsSync(out) && !opts.force) {
    throw new StrataError('STRATA_INDEX_EXISTS', `${out} exists already: choose another --out or pass --force to replace it`, { path: out });
  }
  mkdirSync(dirname(out), { recursive: true });
  const tmp = join(dirname(out), `.${basename(out)}.tmp-${process.pid}-${Date.now()}`);
  mkdirSync(tmp);
  try {
    const m = index.meta;
    const files: Record<string, FileEntry> = {};

    const g = new HashedFile(join(tmp, GRAPH_FILE));
    g.write(header(GRAPH_MAGIC, [m.count, m.dim, m.maxM0, m.maxM, m.entry, m.maxLevel, m.dramCount, index.upperLinks.length, METRIC_CODES[m.metric]]));
    g.write(index.levels);
    g.pad(8);
    g.write(bytesOf(index.upperOffset));
    g.pad(8);
    g.write(bytesOf(index.upperLinks));
    g.pad(8);
    g.write(bytesOf(index.labels));
    files[GRAPH_FILE] = g.finish();

    const tiers = index.tiers.map((t) => {
      const name = tierFileName(t.index, t.kind);
      const f = new HashedFile(join(tmp, name));
      f.write(header(TIER_MAGIC, [t.index, t.start, t.end - t.start, m.dim, index.shape.adjStride]));
      for (const s of t.segments) f.write(s.adjacencyBytes());
      for (const s of t.segments) f.write(s.vectorBytes());
      files[name] = f.finish();
      return { index: t.index, kind: t.kind, start: t.start, end: t.end, bytes: (t.end - t.start) * (index.shape.adjStride + m.dim) * 4, file: name };
    });

    const manifest: Manifest = {
      format: FORMAT_NAME,
      version: FORMAT_VERSION,
      name: info.name,
      createdAt: new Date().toISOString(),
      dim: m.dim,
      metric: m.metric,
      count: m.count,
      graph: { maxM0: m.maxM0, maxM: m.maxM, entry: m.entry, maxLevel: m.maxLevel, unreachable: info.graph.unreachable },
      build: info.build,
      placement: info.placement,
      tiers,
      files,
    };
    const mf = new HashedFile(join(tmp, MANIFEST));
    mf.write(Buffer.from(JSON.stringify(manifest, null, 2) + '\n'));
    mf.finish();
    fsyncDir(tmp);
    if (existsSync(out)) {
      const old = `${tmp}.old`;
      renameSync(out, old);
      try {
        renameSync(tmp, out);
      } catch (e) {
        renameSync(old, out);
        throw e;
      }
      rmSync(old, { recursive: true, force: true });
    } else {
      renameSync(tmp, out);
    }
    fsyncDir(dirname(out));
    return manifest;
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
}
