// Effective CPUs: the affinity mask's CPUs, capped by a cgroup (v2 or v1) CPU quota.
import { describe, expect, it } from 'vitest';
import { effectiveCpus, parseCfsQuota, parseCpuMax } from '../../common/effective-cpus.js';

const files =
  (m: Record<string, string>) =>
  (path: string): string | null =>
    m[path] ?? null;

describe('effective CPUs', () => {
  it('reads cgroup v2 cpu.max: "max" is no limit, "quota period" is CPUs of time', () => {
    expect(parseCpuMax('max 100000\n')).toBeNull();
    expect(parseCpuMax('150000 100000\n')).toBe(1.5);
    expect(parseCpuMax('50000 100000')).toBe(0.5);
    expect(parseCpuMax('garbage')).toBeNull();
    expect(parseCfsQuota('-1\n', '100000\n')).toBeNull();
    expect(parseCfsQuota('200000\n', '100000\n')).toBe(2);
  });

  it('takes the smaller of affinity and quota, never below 1, and says where the quota came from', () => {
    expect(effectiveCpus(files({}), 8)).toEqual({ cpus: 8, affinity: 8, quota: null, source: 'no cgroup CPU limit' });
    const v2 = effectiveCpus(files({ '/sys/fs/cgroup/cpu.max': '150000 100000\n' }), 8);
    expect(v2.cpus).toBe(1.5);
    expect(v2.source).toContain('cgroup v2');
    expect(effectiveCpus(files({ '/sys/fs/cgroup/cpu.max': 'max 100000' }), 2).cpus).toBe(2);
    expect(effectiveCpus(files({ '/sys/fs/cgroup/cpu.max': '400000 100000' }), 1).cpus).toBe(1);
    const v1 = effectiveCpus(files({ '/sys/fs/cgroup/cpu/cpu.cfs_quota_us': '50000', '/sys/fs/cgroup/cpu/cpu.cfs_period_us': '100000' }), 4);
    expect(v1).toMatchObject({ cpus: 1, quota: 0.5 });
    expect(v1.source).toContain('cgroup v1');
    expect(effectiveCpus(files({ '/sys/fs/cgroup/cpu/cpu.cfs_quota_us': '-1', '/sys/fs/cgroup/cpu/cpu.cfs_period_us': '100000' }), 4).cpus).toBe(4);
  });
});
