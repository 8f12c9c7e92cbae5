// Creating a payload index over points already stored, side by side in one process: built in one
// step (what a replay does) against built ahead of its record, a chunk of rows per turn of the event
// loop (what a create request does, storage/point-payloads.ts's prepareIndex). For each: the build's
// wall time, and the longest the event loop went without a turn while it ran (a timer chain of
// setImmediate measures the gaps), which is what a health probe or another request waits.
import { Command } from 'commander';
import type { FieldSchema } from '../index/payload-index/field-index.js';
import { PointPayloads } from '../storage/point-payloads.js';

const o = new Command()
  .option('--points <list>', 'point counts, comma-separated', '200000,1000000')
  .option('--schema <type>', 'the index kind', 'keyword')
  .parse(process.argv)
  .opts<{ points: string; schema: FieldSchema }>();

function stored(n: number): PointPayloads {
  const p = new PointPayloads(
    (id) => (typeof id === 'number' ? id : null),
    (id) => id,
  );
  for (let i = 0; i < n; i++) p.upsert(i, { city: `city-${(i * 7919) % 1000}`, rank: i, price: (i % 9973) / 10 });
  return p;
}

/** Runs `build` while a setImmediate chain records the longest gap between turns; ms. */
async function measured(build: () => Promise<void> | void): Promise<{ wall: number; longestGap: number }> {
  let last = performance.now();
  let longest = 0;
  let running = true;
  const tick = (): void => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  const t0 = performance.now();
  await build();
  const wall = performance.now() - t0;
  running = false;
  longest = Math.max(longest, performance.now() - last);
  await new Promise<void>((resolve) => setImmediate(resolve));
  return { wall, longestGap: longest };
}

const field = o.schema === 'keyword' ? 'city' : o.schema === 'integer' ? 'rank' : 'price';
for (const n of o.points.split(',').map(Number)) {
  const spec = { field, params: { type: o.schema } } as const;
  const once = stored(n);
  const oneStep = await measured(() => once.createIndex(spec));
  const chunked = stored(n);
  const ahead = await measured(async () => {
    await chunked.prepareIndex(spec);
    chunked.createIndex(spec);
  });
  const same = once.schema()[field]?.points === chunked.schema()[field]?.points;
  console.log(
    `${o.schema} index over ${n} points: one step ${oneStep.wall.toFixed(0)} ms (longest block ${oneStep.longestGap.toFixed(1)} ms) | ` +
      `chunked ${ahead.wall.toFixed(0)} ms (longest block ${ahead.longestGap.toFixed(1)} ms) | block ratio ${(oneStep.longestGap / ahead.longestGap).toFixed(0)}× | same points indexed: ${same}`,
  );
}
