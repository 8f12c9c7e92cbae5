// Parser for hnswlib's saved index (hnswlib 0.8.0 as bundled by hnswlib-node 3.0.0). The layout is
// in REFERENCE.md §3; the file stores neither dimension nor metric, so the caller supplies dim.
import { StrataError } from '../../common/errors.js';
import type { GraphImage } from '../graph/graph-image.js';

const HEADER_BYTES = 96;

function corrupt(file: string, reason: string): StrataError {
  return new StrataError('STRATA_INDEX_CORRUPT', `${file}: not a valid hnswlib index: ${reason}`, { file, reason });
}

export function parseHnswlibIndex(buf: Uint8Array, dim: number, file = 'hnswlib index'): GraphImage {
  if (buf.byteLength < HEADER_BYTES) throw corrupt(file, `shorter (${buf.byteLength} bytes) than the ${HEADER_BYTES}-byte header`);
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const u64 = (o: number): number => {
    const v = dv.getBigUint64(o, true);
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw corrupt(file, `header field at ${o} out of range`);
    return Number(v);
  };
  const offsetLevel0 = u64(0);
  const count = u64(16);
  const sizePerElement = u64(24);
  const labelOffset = u64(32);
  const offsetData = u64(40);
  const maxLevel = dv.getInt32(48, true);
  const entry = dv.getUint32(52, true);
  const maxM = u64(56);
  const maxM0 = u64(64);
  if (offsetLevel0 !== 0) throw corrupt(file, `offsetLevel0 ${offsetLevel0}, expected 0`);
  if (offsetData !== 4 + 4 * maxM0) throw corrupt(file, `offsetData ${offsetData} does not follow ${maxM0} level-0 links`);
  if (labelOffset !== offsetData + 4 * dim) throw corrupt(file, `label offset ${labelOffset} does not match dimension ${dim}`);
  if (sizePerElement !== labelOffset + 8) throw corrupt(file, `element size ${sizePerElement} inconsistent`);
  if (count > 0 && (entry >= count || maxLevel < 0)) throw corrupt(file, `entry point ${entry} / max level ${maxLevel} invalid for ${count} nodes`);

  const level0 = new Uint32Array(count * (1 + maxM0));
  // Shared, so that the build's parallel passes (encode-rows.ts) read the vectors without a copy.
  const vectors = new Float32Array(new SharedArrayBuffer(4 * count * dim));
  const rows = new Uint32Array(count);
  const blockEnd = HEADER_BYTES + count * sizePerElement;
  if (buf.byteLength < blockEnd) throw corrupt(file, `truncated in level-0 data (${buf.byteLength} < ${blockEnd} bytes)`);
  for (let i = 0; i < count; i++) {
    const base = HEADER_BYTES + i * sizePerElement;
    const header = dv.getUint32(base, true);
    const n = header & 0xffff;
    if (n > maxM0) throw corrupt(file, `node ${i} has ${n} level-0 links, more than maxM0 ${maxM0}`);
    const o = i * (1 + maxM0);
    level0[o] = n;
    for (let j = 0; j < n; j++) level0[o + 1 + j] = dv.getUint32(base + 4 + 4 * j, true);
    for (let d = 0; d < dim; d++) vectors[i * dim + d] = dv.getFloat32(base + offsetData + 4 * d, true);
    const label = dv.getBigUint64(base + labelOffset, true);
    if (label >= BigInt(count)) throw corrupt(file, `node ${i} has label ${label}, expected a row number below ${count}`);
    rows[i] = Number(label);
  }

  const levels = new Uint8Array(count);
  const upperOffset = new Int32Array(count).fill(-1);
  const links: number[] = [];
  let p = blockEnd;
  const blockU32 = 1 + maxM;
  for (let i = 0; i < count; i++) {
    if (p + 4 > buf.byteLength) throw corrupt(file, `truncated in upper-level links at node ${i}`);
    const bytes = dv.getUint32(p, true);
    p += 4;
    if (bytes === 0) continue;
    if (bytes % (4 * blockU32) !== 0) throw corrupt(file, `node ${i} upper links take ${bytes} bytes, not a multiple of ${4 * blockU32}`);
    const level = bytes / (4 * blockU32);
    if (level > 255 || level > maxLevel) throw corrupt(file, `node ${i} has level ${level} above max level ${maxLevel}`);
    if (p + bytes > buf.byteLength) throw corrupt(file, `truncated in upper-level links of node ${i}`);
    levels[i] = level;
    upperOffset[i] = links.length;
    for (let w = 0; w < bytes / 4; w++) links.push(dv.getUint32(p + 4 * w, true) & (w % blockU32 === 0 ? 0xffff : 0xffffffff));
    p += bytes;
  }
  if (p !== buf.byteLength) throw corrupt(file, `${buf.byteLength - p} trailing bytes`);
  return {
    count,
    dim,
    maxM0,
    maxM,
    entry,
    maxLevel: count > 0 ? maxLevel : 0,
    levels,
    level0,
    upperOffset,
    upperLinks: Uint32Array.from(links),
    vectors,
    rows,
  };
}
