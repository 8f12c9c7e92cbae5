// The two encoders that keep large answers off the event loop must write exactly what the ordinary
// encoders would: chunked REST answers (byte for byte JSON.stringify; MessagePack that decodes to
// the same value) and the hand-written protobuf of the Points answers (decoded by proto-loader to
// what protobufjs's own encoding decodes to).
import type * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../common/random.js';
import type { StrataSearchStats } from '../../server/api/stats-view.js';
import { encodeGetResponse, encodeSearchBatchResponse, encodeSearchResponse, type SearchResponseOut } from '../../server/grpc/answer-encoding.js';
import { LOADER_OPTIONS, STRATA_PROTO } from '../../server/grpc/protos.js';
import { chunkedAnswer, CHUNK_BYTES } from '../../server/rest/chunked-answer.js';
import { packMsgpack, unpackMsgpack } from '../../server/rest/codec.js';

async function collect(stream: NodeJS.ReadableStream): Promise<{ bytes: Buffer; chunks: number }> {
  const parts: Buffer[] = [];
  for await (const c of stream) parts.push(c as Buffer);
  return { bytes: Buffer.concat(parts), chunks: parts.length };
}

const rnd = mulberry32(5);
const vec = (dim: number): Float32Array => Float32Array.from({ length: dim }, () => (rnd() - 0.5) * 1e3);

function stats(i: number): StrataSearchStats {
  return {
    mode: i % 2 ? 'ndp' : 'local',
    hops: i,
    distance_computations: 100 + i,
    accesses: { dram: 3.5, cxl: i * 2 },
    bytes: { dram: 1e6, cxl: 0 },
    dram_share: 0.25,
    modelled_memory_ns: 1234.5,
    modelled_cxl_extra_ns: 0,
    injected_ns: 7,
    link_messages: 0,
    link_bytes: 2 ** 40,
    reranked: i,
    distance_dram_share: 0.97,
    stalled_ns: 0,
    // Every third search a filtered one, its plan alternating residual or not.
    ...(i % 3 === 1
      ? {
          filter: {
            plan: i % 2 ? 'graph' : 'scan',
            estimated: { min: i, exp: 2.5 * i, max: 10 * i },
            matched: 3 * i,
            base: 2 * i,
            fresh: i,
            residual: i % 4 === 1,
            scanned: i % 2 ? 0 : 3 * i,
            from_runs: i,
            scarce_scans: 0,
            scan_fallbacks: 1,
            linked_walks: i % 2,
            filter_link_reads: 17.5,
            filter_link_bytes: 2 ** 33,
            seeded_walks: i % 3,
            fresh_plan: (['graph', 'scan', 'exact', 'none'] as const)[i % 4]!,
          },
        }
      : {}),
  };
}

/** An envelope like the search/batch answer: lists of points with Float32Array vectors. */
function batchAnswer(searches: number, points: number, dim: number): Record<string, unknown> {
  return {
    result: Array.from({ length: searches }, (_, s) =>
      Array.from({ length: points }, (_, i) => ({ id: s * 1e6 + i, version: 0, score: rnd() * 10, payload: i % 2 ? {} : null, vector: vec(dim) })),
    ),
    status: 'ok',
    time: 0.012,
    strata: Array.from({ length: searches }, (_, i) => stats(i)),
  };
}

const asArrays = (_k: string, v: unknown): unknown => (v instanceof Float32Array ? Array.from(v) : v);

describe('chunked REST answers', () => {
  it('write byte for byte what JSON.stringify writes, in chunks of about CHUNK_BYTES', async () => {
    for (const body of [
      batchAnswer(70, 40, 16),
      { result: { points: [], next_page_offset: null }, status: 'ok', time: 0 },
      // scroll's shape: the list sits one object down, and its vectors must still become arrays.
      {
        result: { points: Array.from({ length: 3000 }, (_, i) => ({ id: i, payload: { id: i }, vector: vec(16) })), next_page_offset: 3000 },
        status: 'ok',
        time: 0,
      },
      { result: [[], [{ id: 1, version: 0, score: 0.5, payload: null }]], status: 'ok', time: 1, strata: [] },
    ]) {
      const { bytes, chunks } = await collect(chunkedAnswer(body));
      expect(bytes.toString('utf8')).toBe(JSON.stringify(body, asArrays));
      // Every chunk but the last holds at least CHUNK_BYTES (and at most one point more).
      expect(chunks).toBeLessThanOrEqual(Math.max(1, Math.ceil(bytes.length / CHUNK_BYTES)));
      expect(chunks).toBeGreaterThanOrEqual(Math.floor(bytes.length / (2 * CHUNK_BYTES)));
    }
  });

  it('write MessagePack that decodes to the same value, with lists and maps past the 16 and 65,535 entry headers', async () => {
    const wide: Record<string, unknown> = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, i]));
    wide['list'] = Array.from({ length: 70_000 }, (_, i) => i);
    for (const body of [batchAnswer(20, 100, 8), wide, { result: { points: [{ id: 3, payload: {}, vector: vec(4) }], next_page_offset: 9 } }]) {
      const { bytes } = await collect(chunkedAnswer(body, packMsgpack));
      expect(unpackMsgpack(bytes)).toEqual(unpackMsgpack(packMsgpack(body)));
    }
  });
});

describe('gRPC answer encoding', () => {
  const pkg = protoLoader.loadSync(STRATA_PROTO, LOADER_OPTIONS);
  const method = (name: string): grpc.MethodDefinition<unknown, unknown> =>
    (pkg['strata.v1.Points'] as unknown as Record<string, grpc.MethodDefinition<unknown, unknown>>)[name]!;
  // protobufjs takes arrays for repeated float, and version (always 0) is written by it explicitly.
  const plain = (v: unknown): unknown => JSON.parse(JSON.stringify(v, asArrays));

  function response(points: number, dim: number, i: number): SearchResponseOut {
    return {
      result: Array.from({ length: points }, (_, j) => ({ id: j * 7919 + 2 ** 40 * (j % 3), score: rnd() * 100 - 50, vector: vec(dim) })),
      strata: stats(i),
      time: 0.5 + i,
    };
  }

  it('decodes to what protobufjs encodes for Search, SearchBatch and Get (ids past 2^32, empty vectors, zero values, no stats, filter plans)', () => {
    const search = method('Search');
    for (const r of [response(30, 16, 1), response(0, 0, 2), response(5, 0, 3), { ...response(4, 2, 4), strata: null }, response(3, 2, 4), response(3, 2, 7)]) {
      const want = search.responseDeserialize(search.responseSerialize(plain(r)));
      expect(search.responseDeserialize(encodeSearchResponse(r))).toEqual(want);
    }
    const batch = method('SearchBatch');
    const b = { result: [response(10, 4, 0), response(0, 4, 1), response(300, 3, 2), { ...response(2, 3, 3), strata: null }], time: 0 };
    expect(batch.responseDeserialize(encodeSearchBatchResponse(b))).toEqual(batch.responseDeserialize(batch.responseSerialize(plain(b))));
    const get = method('Get');
    const g = {
      result: [
        { id: 0, vector: vec(5) },
        { id: 2 ** 50, vector: new Float32Array(0) },
      ],
      time: 1e-6,
    };
    expect(get.responseDeserialize(encodeGetResponse(g))).toEqual(get.responseDeserialize(get.responseSerialize(plain(g))));
  });

  it('encodes the largest answer the default limit allows in one pass (measured, not asserted)', () => {
    // 256 searches × 227 points of 128-d vectors: just under 32 MiB counted.
    const b = { result: Array.from({ length: 256 }, (_, i) => response(227, 128, i)), time: 0 };
    const t0 = performance.now();
    const bytes = encodeSearchBatchResponse(b);
    const ms = performance.now() - t0;
    expect(bytes.length).toBeGreaterThan(256 * 227 * 512);
    console.info(`largest allowed gRPC SearchBatch answer: ${(bytes.length / 1e6).toFixed(1)} MB encoded in ${ms.toFixed(0)} ms`);
  });
});
