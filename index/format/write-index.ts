// Writes a tiered index directory crash-safely: every file goes to a temporary sibling directory,
// is fsynced, the manifest is written last, and the directory is swapped into place (replace-dir.ts).
// A crash at any point leaves either the old index or the new one, never a mix, and never nothing.
// Only an index directory is ever replaced (output-path.ts).
import { mkdirSync, rmSync } from 'node:fs';
import { fsyncDir } from '../../common/durable-fs.js';
import { StrataError } from '../../common/errors.js';
import { dirname, join, resolve } from 'node:path';
import { STORE_KINDS, type TieredIndex, TIER_KINDS } from '../tiered/tiered-index.js';
import {
  CODES_FILE,
  CODES_MAGIC,
  FORMAT_NAME,
  FORMAT_VERSION,
  GRAPH_FILE,
  GRAPH_MAGIC,
  LINKS_FILE,
  LINKS_MAGIC,
  HEADER_BYTES,
  MANIFEST,
  PAYLOAD_FILE,
  STORE_MAGIC,
  storeFileName,
} from './constants.js';
import { crashPoint } from './crash-point.js';
import { HashedFile } from './hashed-file.js';
import { CODE_KIND_CODES, METRIC_CODES, STORE_KIND_CODES } from './header-codes.js';
import type { FileEntry, Manifest } from './manifest.js';
import { DEGREE_MASK } from '../kernels/control-block.js';
import { checkOutput } from './output-path.js';
import { linksEntry, linksHeaderFields } from './links-file.js';
import { tierParts } from './memory-parts.js';
import { type BasePayload, writeBasePayloads } from './payload-file.js';
import type { IndexSpec } from '../payload-index/params.js';
import { installDir, recoverInterruptedSwap, removeStaleTemporaries, temporaryFor } from './replace-dir.js';

function header(magic: string, fields: number[]): Uint8Array {
  const h = new Uint8Array(HEADER_BYTES);
  const dv = new DataView(h.buffer);
  for (let i = 0; i < 8; i++) h[i] = magic.charCodeAt(i);
  dv.setUint32(8, FORMAT_VERSION, true);
  fields.forEach((v, i) => dv.setInt32(12 + 4 * i, v, true));
  return h;
}

const bytesOf = (a: ArrayBufferView): Uint8Array => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

export type ManifestInfo = Omit<
  Manifest,
  'format' | 'version' | 'dim' | 'metric' | 'count' | 'tiers' | 'stores' | 'files' | 'createdAt' | 'graph' | 'plan' | 'filterLinks'
> & {
  graph: { unreachable: number };
  plan: Omit<Manifest['plan'], 'code' | 'adjacencyInDram' | 'vectorsInDram' | 'poolLists' | 'runBytes'>;
};

export interface WriteOptions {
  /** Replace an existing index directory (never anything else). */
  force?: boolean;
  /** Files the index was built from: --out may not be, or hold, one of them. */
  inputs?: readonly string[];
  /** The base points' payloads and the payload indexes to build on open: written as payloads.jsonl. */
  payloads?: {
    entries: Iterable<BasePayload>;
    indexes: readonly IndexSpec[];
    onProgress?: (points: number) => void;
  };
}

export function writeIndex(index: TieredIndex, outDir: string, info: ManifestInfo, opts: WriteOptions = {}): Manifest {
  // Refused rather than written without them: a reader would serve the base slower than measured.
  if (index.listCodes !== null)
    throw new StrataError('STRATA_NOT_IMPLEMENTED', 'an index with list codes cannot be written yet (index format has no list codes)', { field: 'listCodes' });
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

    const u = index.upper;
    const g = new HashedFile(join(tmp, GRAPH_FILE));
    g.write(header(GRAPH_MAGIC, [m.count, m.dim, m.maxM0, m.maxM, m.entry, m.maxLevel, u.ids.length, u.links.length, METRIC_CODES[m.metric]]));
    g.write(bytesOf(u.ids));
    g.pad(8);
    g.write(u.levels);
    g.pad(8);
    g.write(bytesOf(u.offsets));
    g.pad(8);
    g.write(bytesOf(u.links));
    files[GRAPH_FILE] = g.finish();
    crashPoint('writing');

    const code = index.plan.code;
    if (code && index.codes && index.codeParams) {
      const c = new HashedFile(join(tmp, CODES_FILE));
      c.write(
        header(CODES_MAGIC, [m.count, CODE_KIND_CODES[code.kind]!, code.dim, code.dims, code.bits, code.centroids, code.stride, index.codeParams.length]),
      );
      c.write(bytesOf(index.codeParams));
      c.pad(64);
      for (const s of index.codes.segments) c.write(s.recordBytes());
      files[CODES_FILE] = c.finish();
    }

    const stores: Manifest['stores'] = [];

    for (const kind of STORE_KINDS) {
      const store = kind === 'adjacency' ? index.adjacency : kind === 'vectors' ? index.vectors : kind === 'codes' ? index.codes : index.labelStore;
      if (!store) continue;
      for (const tier of [0, 1]) {
        const segs = store.segments.filter((s) => s.tier === tier);
        const start = tier === 0 ? 0 : store.split;
        const count = tier === 0 ? store.split : m.count - store.split;
        if (kind === 'codes') {
          if (count > 0) stores.push({ kind, tier, start, count, stride: store.shape.stride, file: CODES_FILE });
          continue;
        }
        const name = storeFileName(kind, TIER_KINDS[tier]!);
        const f = new HashedFile(join(tmp, name));
        f.write(header(STORE_MAGIC, [STORE_KIND_CODES[kind]!, tier, start, count, store.shape.stride]));
        for (const s of segs) f.write(kind === 'adjacency' ? withoutCounts(s.recordBytes(), store.shape.stride) : s.recordBytes());
        files[name] = f.finish();
        stores.push({ kind, tier, start, count, stride: store.shape.stride, file: name });
      }
    }
    const links = index.links;
    if (links !== null) {
      const l = new HashedFile(join(tmp, LINKS_FILE));
      l.write(header(LINKS_MAGIC, linksHeaderFields(links)));
      l.write(bytesOf(links.members));
      l.write(bytesOf(links.lists));
      files[LINKS_FILE] = l.finish();
    }
    if (opts.payloads) {
      const p = opts.payloads;
      const written = writeBasePayloads(tmp, p.entries, p.indexes, p.onProgress);
      files[PAYLOAD_FILE] = { bytes: written.bytes, sha256: written.sha256 };
    }
    // Every store's records per tier, and in DRAM the upper layers, the code's head (rq's centroids),
    // the promotion pool (filled at load from the lists written here) and the value runs' room; the
    // filter links where a reader places them. Each tier by part, too, for the memory report.
    const { dram, cxl, byKind } = index.tierBytes();
    const parts = tierParts(byKind, stores);
    const tiers = TIER_KINDS.map((kind, i) => ({ index: i, kind, bytes: i === 0 ? dram : cxl, parts: parts[i]! }));

    const manifest: Manifest = {
      format: FORMAT_NAME,
      version: FORMAT_VERSION,
      name: info.name,
      createdAt: new Date().toISOString(),
      dim: m.dim,
      metric: m.metric,
      count: m.count,
      graph: { maxM0: m.maxM0, maxM: m.maxM, entry: m.entry, maxLevel: m.maxLevel, unreachable: info.graph.unreachable, upperNodes: u.ids.length },
      build: info.build,
      placement: info.placement,
      plan: {
        ...info.plan,
        code: index.plan.code,
        adjacencyInDram: index.plan.adjacencyInDram,
        vectorsInDram: index.plan.vectorsInDram,
        poolLists: index.plan.poolLists,
        ...(index.plan.runBytes ? { runBytes: index.plan.runBytes } : {}),
      },
      tiers,
      stores,
      files,
      ...(links !== null ? { filterLinks: linksEntry(links) } : {}),
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

/**
 * A copy of neighbour-list records with the access counters that searches keep in their count
 * words' high half (list-pool.ts) cleared: a file holds the degree only, whatever was searched.
 */
function withoutCounts(records: Uint8Array, stride: number): Uint8Array {
  const out = records.slice();
  const u32 = new Uint32Array(out.buffer, out.byteOffset, out.byteLength >>> 2);
  for (let at = 0; at < u32.length; at += stride >>> 2) u32[at] = u32[at]! & DEGREE_MASK;
  return out;
}
