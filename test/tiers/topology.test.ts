import { existsSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { describeTopology } from '../../tiers/describe.js';
import type { NumaSupport } from '../../tiers/numa.js';
import { nodeDistance, parseNodeMeminfo, planTiers, readTopology } from '../../tiers/topology.js';
import { removeFakeSysfs, twoNodeCxlHost, writeFakeSysfs, type FakeTree } from './fake-sysfs.js';

const roots: string[] = [];
function fake(files: FakeTree): string {
  const root = writeFakeSysfs(files);
  roots.push(root);
  return root;
}
afterEach(() => {
  while (roots.length > 0) removeFakeSysfs(roots.pop()!);
});

const GiB = 1024 ** 3;
const noAddon: NumaSupport = { available: false, addonPath: '/nowhere/strata_numa.node', reason: 'the NUMA addon is not built' };

describe('readTopology on a 2-node host with a CPU-less node 1 (a CXL expander)', () => {
  it('reads nodes, CPUs, memory, distances and memory tiers from sysfs', () => {
    const root = fake(twoNodeCxlHost());
    const topo = readTopology(root);
    expect(topo.synthetic).toBe(false);
    expect(topo.source).toBe(root);
    expect(topo.online).toEqual([0, 1]);
    expect(topo.possible).toEqual([0, 1, 2, 3]);
    expect(topo.nodes).toEqual([
      { id: 0, cpus: [0, 1, 2, 3], hasCpu: true, hasMemory: true, memTotalBytes: 8 * GiB, memFreeBytes: 4 * GiB, distances: [10, 14], tier: 4 },
      { id: 1, cpus: [], hasCpu: false, hasMemory: true, memTotalBytes: 16 * GiB, memFreeBytes: 16_000_000 * 1024, distances: [14, 10], tier: 22 },
    ]);
    expect(topo.memoryTiers).toEqual([
      { tier: 4, nodes: [0] },
      { tier: 22, nodes: [1] },
    ]);
    expect(topo.warnings).toEqual([]);
  });

  it('lists the CPU-less memory node as the CXL candidate', () => {
    expect(readTopology(fake(twoNodeCxlHost())).cxlCandidates).toEqual([1]);
  });

  it('looks distances up in online order', () => {
    const topo = readTopology(fake(twoNodeCxlHost()));
    expect(nodeDistance(topo, 0, 1)).toBe(14);
    expect(nodeDistance(topo, 1, 1)).toBe(10);
    expect(nodeDistance(topo, 0, 7)).toBeNull();
  });

  it('plans numa mode: DRAM tier on node 0, CXL tier on node 1 at distance 14', () => {
    const plan = planTiers(readTopology(fake(twoNodeCxlHost())));
    expect(plan).toMatchObject({ mode: 'numa', dramNode: 0, cxlNode: 1, distance: 14, otherCxlNodes: [] });
    expect(plan.reason).toContain('node 1 has memory but no CPUs');
  });

  it('describes nodes, distances, tiers, CXL candidates, the addon state and the plan', () => {
    const topo = readTopology(fake(twoNodeCxlHost()));
    const text = describeTopology(topo, planTiers(topo), noAddon);
    expect(text).toContain('node 0: cpus 0-3, memory 8.0 GiB (4.0 GiB free), memory tier 4  [DRAM tier]');
    expect(text).toContain('node 1: no cpus, memory 16.0 GiB');
    expect(text).toContain('[CXL candidate, CXL tier]');
    expect(text).toMatch(/^\s+0\s+10\s+14\s*$/m);
    expect(text).toMatch(/^\s+1\s+14\s+10\s*$/m);
    expect(text).toContain('tier 4: nodes 0; tier 22: nodes 1');
    expect(text).toContain('CXL candidates (memory nodes without CPUs): 1');
    expect(text).toContain('NUMA addon: unavailable: the NUMA addon is not built');
    expect(text).toContain('Plan: numa mode: DRAM (hot) tier on node 0, CXL (cold) tier on node 1, distance 14');
  });

  it('derives has_cpu / has_memory from cpulist / meminfo when those files are missing', () => {
    const files = twoNodeCxlHost();
    delete files['devices/system/node/has_cpu'];
    delete files['devices/system/node/has_memory'];
    const topo = readTopology(fake(files));
    expect(topo.nodes.map((n) => [n.hasCpu, n.hasMemory])).toEqual([
      [true, true],
      [false, true],
    ]);
    expect(topo.cxlCandidates).toEqual([1]);
    expect(topo.warnings.some((w) => w.includes('has_cpu'))).toBe(true);
  });

  it('reports tier null and no memory tiers when memory_tiering is absent', () => {
    const files = Object.fromEntries(Object.entries(twoNodeCxlHost()).filter(([k]) => !k.startsWith('devices/virtual')));
    const topo = readTopology(fake(files));
    expect(topo.memoryTiers).toEqual([]);
    expect(topo.nodes.map((n) => n.tier)).toEqual([null, null]);
    expect(planTiers(topo)).toMatchObject({ mode: 'numa', dramNode: 0, cxlNode: 1 });
  });
});

describe('planTiers', () => {
  it('picks the nearest node with CPUs for the DRAM tier', () => {
    // Node 2 is CPU-less; node 1 is nearer to it (12) than node 0 (20).
    const N = 'devices/system/node';
    const mem = (id: number, kb: number): string => `Node ${id} MemTotal: ${kb} kB\nNode ${id} MemFree: ${kb} kB\n`;
    const topo = readTopology(
      fake({
        [`${N}/online`]: '0-2',
        [`${N}/possible`]: '0-2',
        [`${N}/has_cpu`]: '0-1',
        [`${N}/has_memory`]: '0-2',
        [`${N}/node0/cpulist`]: '0-1',
        [`${N}/node0/distance`]: '10 20 20',
        [`${N}/node0/meminfo`]: mem(0, 1000),
        [`${N}/node1/cpulist`]: '2-3',
        [`${N}/node1/distance`]: '20 10 12',
        [`${N}/node1/meminfo`]: mem(1, 1000),
        [`${N}/node2/cpulist`]: '',
        [`${N}/node2/distance`]: '20 12 10',
        [`${N}/node2/meminfo`]: mem(2, 4000),
      }),
    );
    expect(planTiers(topo)).toMatchObject({ mode: 'numa', dramNode: 1, cxlNode: 2, distance: 12 });
  });

  it('emulates the CXL tier when every memory node has CPUs', () => {
    const N = 'devices/system/node';
    const topo = readTopology(
      fake({
        [`${N}/online`]: '0-1',
        [`${N}/has_cpu`]: '0-1',
        [`${N}/has_memory`]: '0-1',
        [`${N}/node0/cpulist`]: '0',
        [`${N}/node0/distance`]: '10 21',
        [`${N}/node0/meminfo`]: 'Node 0 MemTotal: 100 kB\n',
        [`${N}/node1/cpulist`]: '1',
        [`${N}/node1/distance`]: '21 10',
        [`${N}/node1/meminfo`]: 'Node 1 MemTotal: 100 kB\n',
      }),
    );
    const plan = planTiers(topo);
    expect(plan).toMatchObject({ mode: 'emulated', dramNode: 0, cxlNode: null });
    expect(plan.reason).toContain('every NUMA node with memory also has CPUs');
  });
});

describe('readTopology on a host without NUMA directories', () => {
  it('makes up a single synthetic node 0 with all CPUs and all memory', () => {
    const root = fake({ 'devices/system/cpu/online': '0-1\n' });
    const topo = readTopology(root);
    expect(topo.synthetic).toBe(true);
    expect(topo.source).toContain('synthetic');
    expect(topo.online).toEqual([0]);
    expect(topo.nodes).toHaveLength(1);
    const n = topo.nodes[0]!;
    expect(n).toMatchObject({ id: 0, hasCpu: true, hasMemory: true, memTotalBytes: totalmem(), distances: [10], tier: null });
    expect(n.cpus).toEqual(cpus().map((_, i) => i));
    expect(topo.cxlCandidates).toEqual([]);
    expect(topo.memoryTiers).toEqual([]);
  });

  it('plans emulated mode, saying the host exposes no NUMA topology', () => {
    const topo = readTopology(fake({ 'devices/system/cpu/online': '0\n' }));
    const plan = planTiers(topo);
    expect(plan).toMatchObject({ mode: 'emulated', dramNode: 0, cxlNode: null });
    expect(plan.reason).toContain('no NUMA topology');
    const text = describeTopology(topo, plan, noAddon);
    expect(text).toContain('(synthetic)');
    expect(text).toContain('Plan: emulated mode');
  });

  it('also works for a sysfs root that does not exist at all', () => {
    expect(readTopology('/nonexistent-strata-sysfs').synthetic).toBe(true);
  });
});

describe('readTopology with broken files', () => {
  it('ignores a malformed range file with a warning instead of throwing', () => {
    const files = twoNodeCxlHost();
    files['devices/system/node/has_cpu'] = 'zero\n';
    const topo = readTopology(fake(files));
    expect(topo.cxlCandidates).toEqual([1]);
    expect(topo.warnings.some((w) => w.includes('has_cpu'))).toBe(true);
  });

  it('treats a node without meminfo as having unknown (0) memory', () => {
    const files = twoNodeCxlHost();
    delete files['devices/system/node/node1/meminfo'];
    delete files['devices/system/node/has_memory'];
    const topo = readTopology(fake(files));
    expect(topo.nodes[1]).toMatchObject({ memTotalBytes: 0, hasMemory: false });
    expect(topo.cxlCandidates).toEqual([]);
  });
});

describe('parseNodeMeminfo', () => {
  it('converts kB figures to bytes and reports missing fields as null', () => {
    expect(parseNodeMeminfo('Node 3 MemTotal:  2 kB\nNode 3 MemFree:   1 kB\n')).toEqual({ memTotalBytes: 2048, memFreeBytes: 1024 });
    expect(parseNodeMeminfo('garbage')).toEqual({ memTotalBytes: null, memFreeBytes: null });
  });
});

describe.skipIf(!existsSync('/sys/devices/system/node'))('readTopology on this host', () => {
  it('reads a consistent topology from /sys', () => {
    const topo = readTopology();
    expect(topo.synthetic).toBe(false);
    expect(topo.nodes.length).toBeGreaterThanOrEqual(1);
    for (const n of topo.nodes) {
      expect(n.distances).toHaveLength(topo.online.length);
      expect(n.distances[topo.online.indexOf(n.id)]).toBe(10);
      if (n.hasMemory) expect(n.memTotalBytes).toBeGreaterThan(0);
    }
    expect(() => planTiers(topo)).not.toThrow();
  });
});
