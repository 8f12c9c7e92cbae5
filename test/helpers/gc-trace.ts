// Reads `node --trace-gc-nvp` output: V8's own count of each scavenge's allocation, promotion and
// pause, for the tests that hold the request path to dying young (test/helpers/young-garbage.ts).

export interface Scavenges {
  scavenges: number;
  allocated: number;
  promoted: number;
  pauseMs: number;
}

/** Totals of the scavenges in `lines` for the isolate that allocated most (the main one). */
export function busiestIsolate(lines: readonly string[]): Scavenges {
  const byIsolate = new Map<string, Scavenges>();
  for (const line of lines) {
    if (!line.includes(' gc=s ')) continue;
    const isolate = line.slice(0, line.indexOf(']'));
    const s = byIsolate.get(isolate) ?? { scavenges: 0, allocated: 0, promoted: 0, pauseMs: 0 };
    s.scavenges++;
    s.allocated += Number(/ allocated=(\d+)/.exec(line)?.[1] ?? 0);
    s.promoted += Number(/ promoted=(\d+)/.exec(line)?.[1] ?? 0);
    s.pauseMs += Number(/ pause=([\d.]+)/.exec(line)?.[1] ?? 0);
    byIsolate.set(isolate, s);
  }
  return [...byIsolate.values()].sort((a, b) => b.allocated - a.allocated)[0] ?? { scavenges: 0, allocated: 0, promoted: 0, pauseMs: 0 };
}
