// Why the server's per-request bookkeeping lives in Slots (common/slots.ts), not a Map or Set: a
// long-lived (old-space) container that takes and drops short-lived entries, 16 live at a time as
// with 16 requests in flight. Each kind runs in its own `node --expose-gc --trace-gc-nvp` child
// (the containers are aged into old space by full GCs first, as a server's are by the time it serves),
// which reports V8's own count of bytes promoted per scavenge and the scavenge pauses.
//   npm run bench:churn -- [--entries 2000000] [--reps 2]
import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { Slots } from '../common/slots.js';
import { busiestIsolate, type Scavenges } from './gc-trace.js';

const KINDS = ['set', 'map', 'slots'] as const;
type Kind = (typeof KINDS)[number];

/** A request's worth of young objects (~1 KB). */
function entry(n: number): { n: number; parts: Array<{ i: number }> } {
  return { n, parts: Array.from({ length: 50 }, (_, i) => ({ i })) };
}

/** Child: churns `entries` entries through one container; prints its elapsed ms. */
function child(kind: Kind, entries: number): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  const set = new Set<object>();
  const map = new Map<number, object>();
  const slots = new Slots<object>();
  const slotOf: number[] = [];
  const live: Array<ReturnType<typeof entry>> = [];
  for (let i = 0; i < 3; i++) gc?.();
  const t0 = performance.now();
  for (let n = 0; n < entries; n++) {
    const e = entry(n);
    if (kind === 'set') set.add(e);
    else if (kind === 'map') map.set(n, e);
    else slotOf[n % 32] = slots.add(e);
    live.push(e);
    if (live.length > 16) {
      const d = live.shift()!;
      if (kind === 'set') set.delete(d);
      else if (kind === 'map') map.delete(d.n);
      else slots.remove(slotOf[d.n % 32]!);
    }
  }
  process.stdout.write(`elapsed ${(performance.now() - t0).toFixed(1)}\n`);
}

interface Row extends Scavenges {
  kind: Kind;
  ms: number;
}

function run(kind: Kind, entries: number): Row {
  const r = spawnSync(process.execPath, ['--expose-gc', '--trace-gc-nvp', fileURLToPath(import.meta.url), '--child', kind, '--entries', String(entries)], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  if (r.status !== 0) throw new Error(`${kind} child failed: ${r.stderr}`);
  const lines = r.stdout.split('\n');
  const elapsed = lines.find((l) => l.startsWith('elapsed '));
  return { kind, ms: elapsed === undefined ? Number.NaN : Number(elapsed.slice(8)), ...busiestIsolate(lines) };
}

const cmd = new Command()
  .option('--entries <n>', 'entries churned per run', '2000000')
  .option('--reps <n>', 'alternating repetitions', '2')
  .option('--child <kind>', '(internal) run one kind')
  .parse();
const o = cmd.opts<{ entries: string; reps: string; child?: Kind }>();
if (o.child !== undefined) child(o.child, Number(o.entries));
else {
  console.log('kind    ms        scavenges  promoted/scavenge  pause/scavenge   ms / slots');
  for (let rep = 0; rep < Number(o.reps); rep++) {
    const rows = KINDS.map((k) => run(k, Number(o.entries)));
    const base = rows.find((r) => r.kind === 'slots')!.ms;
    for (const r of rows)
      console.log(
        `${r.kind.padEnd(7)} ${r.ms.toFixed(0).padStart(8)}  ${String(r.scavenges).padStart(9)}  ${(r.promoted / Math.max(1, r.scavenges) / 1e6).toFixed(2).padStart(13)} MB  ${(r.pauseMs / Math.max(1, r.scavenges)).toFixed(1).padStart(10)} ms  ${(r.ms / base).toFixed(1).padStart(9)}×`,
      );
  }
}
