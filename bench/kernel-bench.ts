// The distance kernels alone: ns per row scattered over an index's stores (ids at random, 16 per
// call, as one hop's unvisited neighbours are) for float32 and every code kind, and each code's
// per-query preparation; WASM SIMD and the JS twins side by side.
import { Command } from 'commander';
import { generateClustered } from '../datasets/index.js';
import { buildGraph } from '../index/build/hnsw-build.js';
import { graphFullPrecisionBytes, placeAndLayout } from '../index/build/place-and-layout.js';
import { CODE_KINDS, type CodeKind } from '../index/codes/index.js';
import type { KernelChoice } from '../index/kernels/kernels.js';
import type { TieredIndex } from '../index/tiered/tiered-index.js';

const ROWS_PER_CALL = 16;

function nsPerRow(index: TieredIndex, which: 'vectors' | 'codes', query: Float32Array, ms: number): number {
  const store = which === 'vectors' ? index.vectors : index.codes!;
  const seg = store.segments[0]!;
  const slot = index.acquireSlot();
  try {
    const qAt = seg.slotQuery(slot);
    const idsAt = seg.slotIds(slot) >>> 2;
    const outAt = seg.slotOut(slot);
    if (which === 'vectors') seg.f32.set(query, qAt >>> 2);
    else {
      const prep = new Uint8Array(index.codec!.queryBytes);
      index.codec!.prepare(query, prep);
      seg.u8.set(prep, qAt);
    }
    const k = seg.kernels!;
    const n = seg.count;
    let x = 12345;
    let calls = 0;
    const t0 = performance.now();
    while (performance.now() - t0 < ms) {
      for (let r = 0; r < 200; r++) {
        for (let j = 0; j < ROWS_PER_CALL; j++) {
          x = (Math.imul(x, 1103515245) + 12345) >>> 0;
          seg.u32[idsAt + j] = x % n;
        }
        if (which === 'vectors') k.l2Batch(qAt, seg.layout.recordOffset, seg.shape.stride, idsAt << 2, ROWS_PER_CALL, index.meta.dim, outAt);
        else k.codeBatch(qAt, seg.layout.recordOffset, seg.shape.stride, idsAt << 2, ROWS_PER_CALL, outAt);
        calls++;
      }
    }
    return ((performance.now() - t0) * 1e6) / (calls * ROWS_PER_CALL);
  } finally {
    index.releaseSlot(slot);
  }
}

function prepareUs(index: TieredIndex, queries: Float32Array, dim: number, ms: number): number {
  const prep = new Uint8Array(index.codec!.queryBytes);
  const nq = queries.length / dim;
  let done = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < ms) {
    for (let i = 0; i < 100; i++, done++) index.codec!.prepare(queries.subarray((done % nq) * dim, ((done % nq) + 1) * dim), prep);
  }
  return ((performance.now() - t0) * 1000) / done;
}

async function main(): Promise<void> {
  const o = new Command('kernel-bench')
    .option('--count <n>', 'generated clustered rows (128-d)', (v) => Number(v), 100_000)
    .option('--ms <n>', 'milliseconds per measurement', (v) => Number(v), 1000)
    .parse(process.argv)
    .opts<{ count: number; ms: number }>();
  const dim = 128;
  const set = generateClustered({ count: o.count, dim, clusters: 100, seed: 42 }, 200);
  // A small graph suffices: only the stores' rows are read here.
  const graph = buildGraph(set.base, dim, { metric: 'l2', m: 8, efConstruction: 40, seed: 100 });
  const room = 3 * graphFullPrecisionBytes(graph);
  const q = set.queries.subarray(0, dim);
  const lines = ['| rows | stride B | WASM ns/row | JS ns/row | WASM / JS | prepare µs/query |', '|---|---|---|---|---|---|'];
  for (const codes of ['none', ...CODE_KINDS] as Array<CodeKind | 'none'>) {
    const make = (kernels: KernelChoice) => placeAndLayout(graph, 'l2', null, { budgetBytes: room, policy: 'hops', codes, seed: 1, kernels }).index;
    const wasm = make('wasm');
    const js = make('js');
    const which = codes === 'none' ? 'vectors' : 'codes';
    const w = nsPerRow(wasm, which, q, o.ms);
    const j = nsPerRow(js, which, q, o.ms);
    const stride = (which === 'vectors' ? wasm.vectors : wasm.codes!).shape.stride;
    const prep = codes === 'none' ? '–' : prepareUs(wasm, set.queries, dim, o.ms).toFixed(1);
    lines.push(`| ${codes === 'none' ? 'float32' : codes} | ${stride} | ${w.toFixed(1)} | ${j.toFixed(1)} | ${(w / j).toFixed(2)} | ${prep} |`);
  }
  process.stdout.write(`${o.count} × ${dim} clustered rows, ${ROWS_PER_CALL} random rows per call\n\n${lines.join('\n')}\n`);
}

await main();
