// Loads a tiered index directory into tier memory. Data is read straight into each segment's shared
// memory (no staging copy) and hashed on the way; a size, magic, version or checksum mismatch is an
// error naming the file. The `prepareTier` hook runs after a tier's memory is allocated and before
// any byte of it is written, so NUMA binding takes effect on first touch.
import { createHash } from 'node:crypto';
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { StrataError } from '../../common/errors.js';
import { TieredIndex, type AllocateOptions, type Tier } from '../tiered/tiered-index.js';
import { FORMAT_VERSION, GRAPH_FILE, GRAPH_MAGIC, HEADER_BYTES, MANIFEST, TIER_MAGIC } from './constants.js';
import { linkErrors } from './graph-check.js';
import { checkManifest, type Manifest } from './manifest.js';
import { intentPath, recoverInterruptedSwap } from './replace-dir.js';
import { METRIC_CODES } from './write-index.js';

export interface LoadOptions extends AllocateOptions {
  prepareTier?: (tier: Tier) => void;
  /** Check the link invariants (graph-check.ts) and refuse a graph that breaks them; default true. */
  checkLinks?: boolean;
}

export interface LoadedIndex {
  index: TieredIndex;
  manifest: Manifest;
  dir: string;
}

const corrupt = (file: string, reason: string): StrataError => new StrataError('STRATA_INDEX_CORRUPT', `${file}: ${reason}`, { file, reason });

/** A build killed in the middle of replacing the index may have left it in a temporary: move it back. */
function recoverSwap(dir: string): void {
  try {
    recoverInterruptedSwap(dir);
  } catch (e) {
    throw new StrataError(
      'STRATA_INDEX_NOT_FOUND',
      `no Strata index at ${dir}: a build replacing it was interrupted and the index could not be moved back (${(e as Error).message}); ${intentPath(dir)} names the copies`,
      { path: dir },
      { cause: e },
    );
  }
}

export function readManifest(dirIn: string): Manifest {
  const dir = resolve(dirIn);
  const file = join(dir, MANIFEST);
  if (!existsSync(file)) recoverSwap(dir);
  if (!existsSync(file)) throw new StrataError('STRATA_INDEX_NOT_FOUND', `no Strata index at ${dir} (${MANIFEST} missing)`, { path: dir });
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw corrupt(file, `not valid JSON (${(e as Error).message})`);
  }
  return checkManifest(raw, file);
}

function checkHeader(file: string, buf: Uint8Array, magic: string): DataView {
  if (buf.byteLength < HEADER_BYTES) throw corrupt(file, `shorter than its ${HEADER_BYTES}-byte header`);
  const got = String.fromCharCode(...buf.subarray(0, 8));
  if (got !== magic) throw corrupt(file, `bad magic ${JSON.stringify(got)}, expected ${JSON.stringify(magic)}`);
  const dv = new DataView(buf.buffer, buf.byteOffset, HEADER_BYTES);
  const version = dv.getUint32(8, true);
  if (version !== FORMAT_VERSION) {
    throw new StrataError('STRATA_INDEX_VERSION', `${file}: format version ${version}, this build reads version ${FORMAT_VERSION}`, { file, version });
  }
  return dv;
}

export function loadIndex(dirIn: string, opts: LoadOptions = {}): LoadedIndex {
  const dir = resolve(dirIn);
  const manifest = readManifest(dir);
  for (const [name, f] of Object.entries(manifest.files)) {
    const path = join(dir, name);
    if (!existsSync(path)) throw corrupt(path, 'missing');
    const size = statSync(path).size;
    if (size !== f.bytes) throw corrupt(path, `${size} bytes, the manifest says ${f.bytes} (truncated or overwritten)`);
  }
  const graphPath = join(dir, GRAPH_FILE);
  const graphEntry = manifest.files[GRAPH_FILE];
  if (!graphEntry) throw corrupt(join(dir, MANIFEST), `does not list ${GRAPH_FILE}`);
  const gbuf = readFileSync(graphPath);
  if (createHash('sha256').update(gbuf).digest('hex') !== graphEntry.sha256) throw corrupt(graphPath, 'SHA-256 mismatch (the file is damaged)');
  const dv = checkHeader(graphPath, gbuf, GRAPH_MAGIC);
  const f = (i: number): number => dv.getInt32(12 + 4 * i, true);
  const [count, dim, maxM0, maxM, entry, maxLevel, dramCount, upperLen, metricCode] = [0, 1, 2, 3, 4, 5, 6, 7, 8].map(f) as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const g = manifest.graph;
  if (
    count !== manifest.count ||
    dim !== manifest.dim ||
    METRIC_CODES[manifest.metric] !== metricCode ||
    entry !== g.entry ||
    maxM0 !== g.maxM0 ||
    maxM !== g.maxM ||
    maxLevel !== g.maxLevel
  ) {
    throw corrupt(graphPath, 'header disagrees with the manifest (count, dim, metric, entry, maxM0, maxM or max level)');
  }
  if (dramCount < 0 || dramCount > count || upperLen < 0 || (count > 0 && (entry < 0 || entry >= count)))
    throw corrupt(graphPath, 'header fields out of range');
  const align8 = (x: number): number => Math.ceil(x / 8) * 8;
  let p = HEADER_BYTES;
  const take = (bytes: number): ArrayBuffer => {
    if (p + bytes > gbuf.byteLength) throw corrupt(graphPath, 'sections run past the end of the file');
    const ab = new ArrayBuffer(bytes);
    new Uint8Array(ab).set(gbuf.subarray(p, p + bytes));
    p = align8(p + bytes);
    return ab;
  };
  const levels = new Uint8Array(take(count));
  const upperOffset = new Int32Array(take(4 * count));
  const upperLinks = new Uint32Array(take(4 * upperLen));
  const labels = new Float64Array(take(8 * count));

  const index = TieredIndex.allocate(
    { meta: { dim, metric: manifest.metric, count, maxM0, maxM, entry, maxLevel, dramCount }, levels, upperOffset, upperLinks, labels },
    opts,
  );
  for (const tier of index.tiers) {
    const entryT = manifest.tiers[tier.index];
    if (!entryT || entryT.start !== tier.start || entryT.end !== tier.end)
      throw corrupt(join(dir, MANIFEST), `tier ${tier.index} range disagrees with ${GRAPH_FILE}`);
    opts.prepareTier?.(tier);
    readTier(dir, entryT.file, manifest, index, tier);
  }
  if (opts.checkLinks !== false) {
    const errors = linkErrors(index, { maxErrors: 3 });
    if (errors.length > 0) {
      throw new StrataError('STRATA_INDEX_CORRUPT', `${dir}: the graph breaks its invariants: ${errors.join('; ')} (\`strata verify\` lists every problem)`, {
        file: dir,
        reason: errors[0],
      });
    }
  }
  return { index, manifest, dir };
}

function readTier(dir: string, name: string, manifest: Manifest, index: TieredIndex, tier: Tier): void {
  const path = join(dir, name);
  const entry = manifest.files[name];
  if (!entry) throw corrupt(join(dir, MANIFEST), `does not list ${name}`);
  const hash = createHash('sha256');
  const fd = openSync(path, 'r');
  try {
    let pos = 0;
    const read = (into: Uint8Array): void => {
      const CHUNK = 64 << 20;
      for (let off = 0; off < into.byteLength; off += CHUNK) {
        const part = into.subarray(off, Math.min(into.byteLength, off + CHUNK));
        let got = 0;
        while (got < part.byteLength) {
          const r = readSync(fd, part, got, part.byteLength - got, pos + got);
          if (r === 0) throw corrupt(path, `ends early at byte ${pos + got}`);
          got += r;
        }
        hash.update(part);
        pos += part.byteLength;
      }
    };
    const h = new Uint8Array(HEADER_BYTES);
    read(h);
    // Sizes come from graph.bin and the manifest, so the body can be read before the header is
    // trusted; the checksum is judged first, so damage anywhere reports as damage.
    for (const s of tier.segments) read(s.adjacencyBytes());
    for (const s of tier.segments) read(s.vectorBytes());
    if (pos !== entry.bytes) throw corrupt(path, `${entry.bytes - pos} unexpected trailing bytes`);
    if (hash.digest('hex') !== entry.sha256) throw corrupt(path, 'SHA-256 mismatch (the file is damaged)');
    const dv = checkHeader(path, h, TIER_MAGIC);
    const f = (i: number): number => dv.getInt32(12 + 4 * i, true);
    if (f(0) !== tier.index || f(1) !== tier.start || f(2) !== tier.end - tier.start || f(3) !== index.meta.dim || f(4) !== index.shape.adjStride) {
      throw corrupt(path, 'header disagrees with the manifest (tier, node range, dim or link width)');
    }
  } finally {
    closeSync(fd);
  }
}
