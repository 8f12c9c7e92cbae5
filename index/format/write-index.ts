// Writes a tiered index directory crash-safely: every file goes to a temporary sibling directory,
// is fsynced, the manifest is written last, and the directory is swapped into place (replace-dir.ts).
// A crash at any point leaves either the old index or the new one, never a mix, and never nothing.
// Only an index directory is ever replaced (output-path.ts).
import { createHash, type Hash } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { TieredIndex } from '../tiered/tiered-index.js';
import { FORMAT_NAME, FORMAT_VERSION, GRAPH_FILE, GRAPH_MAGIC, HEADER_BYTES, MANIFEST, TIER_MAGIC, tierFileName } from './constants.js';
import { crashPoint } from './crash-point.js';
import type { FileEntry, Manifest } from './manifest.js';
import { checkOutput } from './output-path.js';
import { fsyncDir, installDir, recoverInterruptedSwap, removeStaleTemporaries, temporaryFor } from './replace-dir.js';

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

export type ManifestInfo = Omit<Manifest, 'format' | 'version' | 'dim' | 'metric' | 'count' | 'tiers' | 'files' | 'createdAt' | 'graph'> & {
  graph: { unreachable: number };
};

export interface WriteOptions {
  /** Replace an existing index directory (never anything else). */
  force?: boolean;
  /** Files the index was built from: --out may not be, or hold, one of them. */
  inputs?: readonly string[];
}

export function writeIndex(index: TieredIndex, outDir: string, info: ManifestInfo, opts: WriteOptions = {}): Manifest {
  const out = resolve(outDir);
  recoverInterruptedSwap(out);
  checkOutput(out, { force: opts.force ?? false, ...(opts.inputs ? { inputs: opts.inputs } : {}) });
  mkdirSync(dirname(out), { recursive: true });
  removeStaleTemporaries(dirname(out));
  const tmp = temporaryFor(out);
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
    crashPoint('writing');

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
    installDir(tmp, out);
    return manifest;
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
}
