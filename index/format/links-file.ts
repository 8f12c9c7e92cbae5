// links.bin: a base's filter links (index/filter-links/filter-links.ts). The header (LINKS_MAGIC)
// holds the block count, the list degree, payload_m and the lengths of the two arrays; then every
// block's members (u32 base nodes, ascending per block), then their lists ((1 + degree) u32 each:
// the degree, then the links). The blocks themselves (what each holds, its entry, where its members
// start) are the manifest's filterLinks, checked here against the file.
import { StrataError } from '../../common/errors.js';
import { STEP_BYTES, stepsInOneTurn } from '../../common/turns.js';
import type { LinkBlock } from '../filter-links/blocks.js';
import { FilterLinks, invertSteps, type LinkBlockEntry } from '../filter-links/filter-links.js';

/** The manifest's description of links.bin. */
export interface FilterLinksEntry {
  payloadM: number;
  degree: number;
  blocks: LinkBlockEntry[];
}

/** The header's fields, after the magic and version. */
export function linksHeaderFields(l: FilterLinks): number[] {
  return [l.blocks.length, l.degree, l.payloadM, l.memberCount, l.lists.length];
}

export function linksEntry(l: FilterLinks): FilterLinksEntry {
  return { payloadM: l.payloadM, degree: l.degree, blocks: l.blocks.map((b) => ({ ...b })) };
}

const corrupt = (file: string, reason: string): StrataError =>
  new StrataError('STRATA_INDEX_CORRUPT', `${file}: invalid filter links: ${reason}`, { file, reason });

/** The links from links.bin's bytes (header checked by the caller) and the manifest's entry; every link and member in range. */
export function readLinks(file: string, header: DataView, body: Uint8Array, e: FilterLinksEntry, count: number): FilterLinks {
  return stepsInOneTurn(readLinkSteps(file, header, body, e, count));
}

/** readLinks, yielding between steps of about STEP_BYTES of lists checked. */
export function* readLinkSteps(file: string, header: DataView, body: Uint8Array, e: FilterLinksEntry, count: number): Generator<void, FilterLinks, void> {
  const [blocks, degree, payloadM, members, listWords] = [0, 1, 2, 3, 4].map((i) => header.getInt32(12 + 4 * i, true)) as [
    number,
    number,
    number,
    number,
    number,
  ];
  if (blocks !== e.blocks.length || degree !== e.degree || payloadM !== e.payloadM) throw corrupt(file, 'the header disagrees with the manifest');
  if (listWords !== members * (1 + degree) || body.byteLength !== 4 * (members + listWords)) throw corrupt(file, `${body.byteLength} bytes after the header`);
  // A view of the file's bytes where they are aligned (the loader reads a file into a buffer of its
  // own): the links are then copied once, into the fused region, instead of twice.
  const words =
    body.byteOffset % 4 === 0
      ? new Uint32Array(body.buffer, body.byteOffset, body.byteLength / 4)
      : new Uint32Array(body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength));
  const m = words.subarray(0, members);
  const lists = words.subarray(members);
  let at = 0;
  for (const b of e.blocks) {
    if (b.from !== at || b.count < 1) throw corrupt(file, `block ${JSON.stringify(b.block)} starts at ${b.from}, expected ${at}`);
    at += b.count;
    if (at > members) throw corrupt(file, 'blocks overrun the members');
    for (let i = b.from; i < at; i++) if (m[i]! >= count || (i > b.from && m[i]! <= m[i - 1]!)) throw corrupt(file, `member ${i} out of order or range`);
    if (!(b.entry < count)) throw corrupt(file, `block entry ${b.entry} out of range`);
  }
  if (at !== members) throw corrupt(file, 'members left over');
  const step = Math.max(1, Math.floor(STEP_BYTES / (4 * (1 + degree))));
  for (let r = 0; r < members; r++) {
    const d = lists[r * (1 + degree)]!;
    if (d > degree) throw corrupt(file, `list ${r} has degree ${d}`);
    for (let j = 1; j <= d; j++) if (lists[r * (1 + degree) + j]! >= count) throw corrupt(file, `list ${r} links out of range`);
    if ((r + 1) % step === 0) yield;
  }
  const lookup = yield* invertSteps(e.blocks, m, 1 + degree);
  return new FilterLinks(degree, payloadM, e.blocks, m, lists, lookup);
}

/** Checks the manifest's filterLinks, as checkManifest does its other fields (fail throws). */
export function checkLinksEntry(raw: unknown, fail: (why: string) => never): FilterLinksEntry {
  const o = raw as Record<string, unknown>;
  if (typeof o !== 'object' || o === null) fail('filterLinks must be an object');
  const int = (v: unknown, what: string): number =>
    Number.isSafeInteger(v) && (v as number) >= 0 ? (v as number) : fail(`filterLinks.${what} must be a non-negative integer`);
  const payloadM = int(o['payloadM'], 'payloadM');
  const degree = int(o['degree'], 'degree');
  if (degree !== 2 * payloadM || payloadM < 2) fail('filterLinks.degree must be twice payloadM, at least 4');
  if (!Array.isArray(o['blocks'])) fail('filterLinks.blocks must be an array');
  const blocks = (o['blocks'] as unknown[]).map((b, i) => {
    const e = b as Record<string, unknown>;
    const k = (e?.['block'] ?? null) as Record<string, unknown> | null;
    if (k === null || typeof k['field'] !== 'string') return fail(`filterLinks.blocks[${i}].block must name a field`);
    let block: LinkBlock;
    if (k['kind'] === 'value' && (typeof k['value'] === 'string' || typeof k['value'] === 'boolean'))
      block = { kind: 'value', field: k['field'], value: k['value'] };
    else if (k['kind'] === 'range' && typeof k['gte'] === 'number' && typeof k['lte'] === 'number' && k['gte'] <= k['lte'])
      block = { kind: 'range', field: k['field'], gte: k['gte'], lte: k['lte'] };
    else return fail(`filterLinks.blocks[${i}].block must be a value or a range`);
    return { block, entry: int(e['entry'], `blocks[${i}].entry`), from: int(e['from'], `blocks[${i}].from`), count: int(e['count'], `blocks[${i}].count`) };
  });
  return { payloadM, degree, blocks };
}
