// Protobuf encoding of the Points answers, by hand. protobufjs (under grpc-js and proto-loader)
// converts each message from a plain object, then writes a packed float field one number at a time
// through a list of write operations: a 35 MB SearchBatch answer took ~5 s of the event loop, and
// 1M points without vectors ~3 s — long enough to fail a liveness probe. Here an answer is measured,
// then written into one buffer: vectors as blocks of little-endian float32 (which is what packed
// float is on the wire), the rest as varints and fixed-width numbers. Field numbers are those of
// proto/strata.proto; a test decodes these bytes with proto-loader and compares them with
// protobufjs's own encoding.
import { endianness } from 'node:os';
import type { FilterPlanView, StrataSearchStats, TierCounts } from '../api/stats-view.js';

/** Answer points as the handlers build them: vectors stay Float32Array (empty when not asked for). */
export interface PointOut {
  id: number;
  vector: Float32Array;
}

export interface ScoredPointOut extends PointOut {
  score: number;
}

export interface SearchResponseOut {
  result: ScoredPointOut[];
  /** Absent unless the request asked for it (with_stats). */
  strata: StrataSearchStats | null;
  time: number;
}

export interface SearchBatchResponseOut {
  result: SearchResponseOut[];
  time: number;
}

export interface GetResponseOut {
  result: PointOut[];
  time: number;
}

const LITTLE_ENDIAN = endianness() === 'LE';
const VARINT = 0;
const FIXED64 = 1;
const LENGTH = 2;
const FIXED32 = 5;

/** Bytes of n (a non-negative integer below 2^53) as a varint. */
function varintSize(n: number): number {
  let size = 1;
  while (n >= 128) {
    n = Math.floor(n / 128);
    size++;
  }
  return size;
}

/** A length-delimited field of `len` bytes, with its one-byte tag (every field number here is < 16). */
const framed = (len: number): number => 1 + varintSize(len) + len;

class Out {
  readonly buf: Buffer;
  pos = 0;
  constructor(size: number) {
    this.buf = Buffer.allocUnsafe(size);
  }
  varint(n: number): void {
    while (n >= 128) {
      this.buf[this.pos++] = (n % 128) | 128;
      n = Math.floor(n / 128);
    }
    this.buf[this.pos++] = n;
  }
  tag(field: number, wire: number): void {
    this.buf[this.pos++] = (field << 3) | wire;
  }
  double(field: number, x: number): void {
    this.tag(field, FIXED64);
    this.buf.writeDoubleLE(x, this.pos);
    this.pos += 8;
  }
  float(field: number, x: number): void {
    this.tag(field, FIXED32);
    this.buf.writeFloatLE(x, this.pos);
    this.pos += 4;
  }
  header(field: number, len: number): void {
    this.tag(field, LENGTH);
    this.varint(len);
  }
  /** A string field, UTF-8 (framed(Buffer.byteLength(s)) bytes). */
  string(field: number, s: string): void {
    this.header(field, Buffer.byteLength(s));
    this.pos += this.buf.write(s, this.pos);
  }
  floats(field: number, v: Float32Array): void {
    if (v.length === 0) return;
    this.header(field, v.length * 4);
    if (LITTLE_ENDIAN) {
      this.buf.set(new Uint8Array(v.buffer, v.byteOffset, v.byteLength), this.pos);
      this.pos += v.byteLength;
    } else {
      for (const x of v) {
        this.buf.writeFloatLE(x, this.pos);
        this.pos += 4;
      }
    }
  }
}

const floatsSize = (v: Float32Array): number => (v.length === 0 ? 0 : framed(v.length * 4));

// ScoredPoint {id = 1; version = 2 (always 0, the default: left out); score = 3; vector = 4}
function scoredSize(p: ScoredPointOut): number {
  return 1 + varintSize(p.id) + 5 + floatsSize(p.vector);
}

function writeScored(o: Out, p: ScoredPointOut): void {
  o.header(1, scoredSize(p));
  o.tag(1, VARINT);
  o.varint(p.id);
  o.float(3, p.score);
  o.floats(4, p.vector);
}

// Point {id = 1; vector = 2}
function pointSize(p: PointOut): number {
  return 1 + varintSize(p.id) + floatsSize(p.vector);
}

function writePoint(o: Out, p: PointOut): void {
  o.header(1, pointSize(p));
  o.tag(1, VARINT);
  o.varint(p.id);
  o.floats(2, p.vector);
}

// TierCounts {dram = 1; cxl = 2}
const TIER_COUNTS_SIZE = 18;

function writeTierCounts(o: Out, field: number, t: TierCounts): void {
  o.header(field, TIER_COUNTS_SIZE);
  o.double(1, t.dram);
  o.double(2, t.cxl);
}

// FilterPlan {plan = 1; estimated = 2 (FilterEstimate {min = 1; exp = 2; max = 3}); matched = 3;
// base = 4; fresh = 5; residual = 6 (false, the default, left out); scanned = 7; from_runs = 8;
// scarce_scans = 9; scan_fallbacks = 10; linked_walks = 11; filter_link_reads = 12; filter_link_bytes = 13;
// seeded_walks = 14; fresh_plan = 15}
const ESTIMATE_SIZE = 27;

/** FilterPlan's counters of what the plan did, with their field numbers. */
const FILTER_COUNTERS = [
  ['scanned', 7],
  ['from_runs', 8],
  ['scarce_scans', 9],
  ['scan_fallbacks', 10],
  ['linked_walks', 11],
  ['filter_link_reads', 12],
  ['filter_link_bytes', 13],
  ['seeded_walks', 14],
] as const;

function filterPlanSize(f: FilterPlanView): number {
  return (
    framed(Buffer.byteLength(f.plan)) +
    framed(ESTIMATE_SIZE) +
    (3 + FILTER_COUNTERS.length) * 9 +
    (f.residual ? 2 : 0) +
    framed(Buffer.byteLength(f.fresh_plan))
  );
}

function writeFilterPlan(o: Out, field: number, f: FilterPlanView): void {
  o.header(field, filterPlanSize(f));
  o.string(1, f.plan);
  o.header(2, ESTIMATE_SIZE);
  o.double(1, f.estimated.min);
  o.double(2, f.estimated.exp);
  o.double(3, f.estimated.max);
  o.double(3, f.matched);
  o.double(4, f.base);
  o.double(5, f.fresh);
  if (f.residual) {
    o.tag(6, VARINT);
    o.varint(1);
  }
  for (const [key, field] of FILTER_COUNTERS) o.double(field, f[key]);
  o.string(15, f.fresh_plan);
}

// SearchStats {mode = 1; hops = 2; distance_computations = 3; accesses = 4; bytes = 5; dram_share = 6;
// modelled_memory_ns = 7; modelled_cxl_extra_ns = 8; injected_ns = 9; link_messages = 10; link_bytes = 11;
// reranked = 12; distance_dram_share = 13; stalled_ns = 14; filter = 15 (only a filtered search's)}
function statsSize(s: StrataSearchStats): number {
  return framed(Buffer.byteLength(s.mode)) + 8 * 9 + 3 * 9 + 2 * framed(TIER_COUNTS_SIZE) + (s.filter ? framed(filterPlanSize(s.filter)) : 0);
}

function writeStats(o: Out, s: StrataSearchStats): void {
  o.string(1, s.mode);
  o.double(2, s.hops);
  o.double(3, s.distance_computations);
  writeTierCounts(o, 4, s.accesses);
  writeTierCounts(o, 5, s.bytes);
  o.double(6, s.dram_share);
  o.double(7, s.modelled_memory_ns);
  o.double(8, s.modelled_cxl_extra_ns);
  o.double(9, s.injected_ns);
  o.double(10, s.link_messages);
  o.double(11, s.link_bytes);
  o.double(12, s.reranked);
  o.double(13, s.distance_dram_share);
  o.double(14, s.stalled_ns);
  if (s.filter) writeFilterPlan(o, 15, s.filter);
}

// SearchResponse {result = 1; strata = 2; time = 3}
function responseSize(r: SearchResponseOut): number {
  let size = (r.strata !== null ? framed(statsSize(r.strata)) : 0) + 9;
  for (const p of r.result) size += framed(scoredSize(p));
  return size;
}

function writeResponse(o: Out, r: SearchResponseOut): void {
  for (const p of r.result) writeScored(o, p);
  if (r.strata !== null) {
    o.header(2, statsSize(r.strata));
    writeStats(o, r.strata);
  }
  o.double(3, r.time);
}

function finish(o: Out): Buffer {
  if (o.pos !== o.buf.length) throw new Error(`answer encoding wrote ${o.pos} of ${o.buf.length} bytes`);
  return o.buf;
}

export function encodeSearchResponse(r: SearchResponseOut): Buffer {
  const o = new Out(responseSize(r));
  writeResponse(o, r);
  return finish(o);
}

// SearchBatchResponse {result = 1; time = 2}
export function encodeSearchBatchResponse(r: SearchBatchResponseOut): Buffer {
  const sizes = r.result.map(responseSize);
  const o = new Out(sizes.reduce((a, s) => a + framed(s), 0) + 9);
  r.result.forEach((res, i) => {
    o.header(1, sizes[i]!);
    writeResponse(o, res);
  });
  o.double(2, r.time);
  return finish(o);
}

// GetResponse {result = 1 (Point); time = 2}
export function encodeGetResponse(r: GetResponseOut): Buffer {
  const o = new Out(r.result.reduce((a, p) => a + framed(pointSize(p)), 0) + 9);
  for (const p of r.result) writePoint(o, p);
  o.double(2, r.time);
  return finish(o);
}
