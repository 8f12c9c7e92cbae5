// How many CPUs this process may really use: the CPUs its affinity mask allows (what libuv reports as
// available parallelism) and, inside a container, the cgroup's CPU quota, whichever is smaller. A
// container limited to one CPU's worth of time on a 64-core host has one effective CPU, and there a
// search thread only takes turns with the event loop on it.
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

export interface EffectiveCpus {
  /** min(affinity, quota), at least 1 (a quota of 1.5 CPUs counts as 1.5). */
  cpus: number;
  affinity: number;
  /** CPUs' worth of time the cgroup allows, or null when it sets no limit. */
  quota: number | null;
  /** Where the quota came from, for logs. */
  source: string;
}

/** cgroup v2 `cpu.max` ("max 100000", or "<quota µs> <period µs>"): CPUs' worth of time, or null. */
export function parseCpuMax(text: string): number | null {
  const [quota, period] = text.trim().split(/\s+/);
  if (quota === undefined || quota === 'max') return null;
  const q = Number(quota);
  const p = Number(period ?? 100_000);
  return Number.isFinite(q) && Number.isFinite(p) && q > 0 && p > 0 ? q / p : null;
}

/** cgroup v1 `cpu.cfs_quota_us` (-1: none) over `cpu.cfs_period_us`: CPUs' worth of time, or null. */
export function parseCfsQuota(quotaText: string, periodText: string): number | null {
  const q = Number(quotaText.trim());
  const p = Number(periodText.trim());
  return Number.isFinite(q) && Number.isFinite(p) && q > 0 && p > 0 ? q / p : null;
}

type ReadText = (path: string) => string | null;

const readText: ReadText = (path) => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
};

/** The effective CPUs of this process; `read` and `affinity` are injectable for tests. */
export function effectiveCpus(read: ReadText = readText, affinity: number = availableParallelism()): EffectiveCpus {
  let quota: number | null = null;
  let source = 'no cgroup CPU limit';
  const v2 = read('/sys/fs/cgroup/cpu.max');
  if (v2 !== null) {
    quota = parseCpuMax(v2);
    if (quota !== null) source = `cgroup v2 cpu.max ${v2.trim()}`;
  } else {
    const q = read('/sys/fs/cgroup/cpu/cpu.cfs_quota_us');
    const p = read('/sys/fs/cgroup/cpu/cpu.cfs_period_us');
    if (q !== null && p !== null) {
      quota = parseCfsQuota(q, p);
      if (quota !== null) source = `cgroup v1 cfs quota ${q.trim()} / ${p.trim()} µs`;
    }
  }
  return { cpus: Math.max(1, Math.min(affinity, quota ?? Number.POSITIVE_INFINITY)), affinity, quota, source };
}
