// What waking another thread costs the thread that wakes it: the price of every hand-off to a search
// thread (engine/ring-executor.ts posts a task, then Atomics.notify; the thread sleeps in
// Atomics.wait when its ring is empty). Measured on the waker, wall time per call, in one run with
// the kinds alternating: notify with the worker asleep in Atomics.wait, notify with nobody waiting,
// postMessage to a worker idle in its event loop (piscina's and the port's path), and the clock
// reads alone (in every row). Between calls the waker sleeps --gap-ms, so that the worker is asleep
// again (and its CPU idle) when woken.
// Run: npm run bench:wake -- [--calls 300] [--reps 3] [--gap-ms 1] [--json docs/bench/wake.json]
import { writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { Command } from 'commander';
import { median } from './median.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const nowNs = (): bigint => process.hrtime.bigint();

/** A worker that sleeps in Atomics.wait on cell 0 and counts its wake-ups in cell 1; stops on -1. */
const SLEEPER = `const { workerData } = require('node:worker_threads');
const c = new Int32Array(workerData);
let seen = 0;
for (;;) { Atomics.wait(c, 0, seen); seen = Atomics.load(c, 0); if (seen < 0) break; Atomics.add(c, 1, 1); }`;

/** A worker idle in its event loop that counts the messages it receives in cell 1. */
const LISTENER = `const { parentPort, workerData } = require('node:worker_threads');
const c = new Int32Array(workerData);
parentPort.on('message', (m) => { if (m === 'stop') process.exit(0); Atomics.add(c, 1, 1); });`;

interface Kind {
  name: string;
  /** One wake (or non-wake) call; returns its wall time on this thread, ns. */
  call(): number;
  /** Wake-ups the worker saw so far. */
  seen(): number;
  stop(): Promise<void>;
}

/** Atomics.notify on cell 0, with a worker asleep in Atomics.wait there (`sleeper`) or nobody waiting. */
function notifyKind(sleeper: boolean): Kind {
  const cells = new Int32Array(new SharedArrayBuffer(16));
  const w = sleeper ? new Worker(SLEEPER, { eval: true, workerData: cells.buffer }) : null;
  return {
    name: sleeper ? 'notify, worker asleep in Atomics.wait' : 'notify, nobody waiting',
    call() {
      const t0 = nowNs();
      Atomics.add(cells, 0, 1);
      Atomics.notify(cells, 0);
      return Number(nowNs() - t0);
    },
    seen: () => Atomics.load(cells, 1),
    async stop() {
      if (w === null) return;
      Atomics.store(cells, 0, -1);
      Atomics.notify(cells, 0);
      await w.terminate();
    },
  };
}

/** The two clock reads alone: what every other row includes besides its call. */
function clockKind(): Kind {
  return {
    name: 'nothing (the clock reads alone)',
    call() {
      const t0 = nowNs();
      return Number(nowNs() - t0);
    },
    seen: () => 0,
    stop: async () => {},
  };
}

function listenerKind(): Kind {
  const cells = new Int32Array(new SharedArrayBuffer(16));
  const w = new Worker(LISTENER, { eval: true, workerData: cells.buffer });
  return {
    name: 'postMessage, worker idle in its event loop',
    call() {
      const t0 = nowNs();
      w.postMessage(1);
      return Number(nowNs() - t0);
    },
    seen: () => Atomics.load(cells, 1),
    async stop() {
      w.postMessage('stop');
      await w.terminate();
    },
  };
}

async function main(): Promise<void> {
  const o = new Command('wake-bench')
    .option('--calls <n>', 'calls per kind per repetition', (v) => Number(v), 300)
    .option('--reps <n>', 'alternating repetitions', (v) => Number(v), 3)
    .option('--gap-ms <ms>', 'sleep between calls, so that the worker is asleep again', (v) => Number(v), 1)
    .option('--json <file>', 'also write the results as JSON')
    .parse()
    .opts<{ calls: number; reps: number; gapMs: number; json?: string }>();

  const kinds = [notifyKind(true), notifyKind(false), listenerKind(), clockKind()];
  await sleep(200);
  const perRep = new Map<string, number[]>(kinds.map((k) => [k.name, []]));
  for (let rep = 0; rep < o.reps; rep++) {
    for (const k of kinds) {
      let ns = 0;
      for (let i = 0; i < o.calls; i++) {
        await sleep(o.gapMs);
        ns += k.call();
      }
      perRep.get(k.name)!.push(ns / o.calls / 1000);
    }
  }
  await sleep(50);
  const rows = kinds.map((k) => ({ kind: k.name, us: median(perRep.get(k.name)!), reps: perRep.get(k.name)!, woken: k.seen() }));
  for (const k of kinds) await k.stop();

  const none = rows[1]!.us;
  const lines = [
    `Wall time on the waking thread per call (median of ${o.reps} alternating repetitions of ${o.calls} calls, ${o.gapMs} ms apart; ${availableParallelism()} CPUs):`,
    '',
    '| call | µs per call | / notify with nobody waiting | repetitions, µs | wake-ups the worker saw |',
    '|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.kind} | ${r.us.toFixed(2)} | ${(r.us / none).toFixed(1)} | ${r.reps.map((x) => x.toFixed(2)).join(', ')} | ${r.woken} |`),
  ];
  console.log(lines.join('\n'));
  if (o.json)
    writeFileSync(o.json, `${JSON.stringify({ node: process.version, date: new Date().toISOString(), cpus: availableParallelism(), ...o, rows }, null, 2)}\n`);
}

await main();
