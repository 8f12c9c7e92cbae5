import { existsSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { describeTopology } from '../../tiers/describe.js';
import type { NumaSupport } from '../../tiers/numa.js';
import { nodeDistance, parseNodeMeminfo, planTiers, readTopology } from '../../tiers/topology.js';
import { cxlPmemRegion, cxlRegion, hmat, removeFakeSysfs, twoNodeCxlHost, twoNodeMemoryOnlyHost, writeFakeSysfs, type FakeTree } from './fake-sysfs.js';
import { jsonLine, strata } from '../helpers/cli.js';

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
      {
        id: 0,
        cpus: [0, 1, 2, 3],
        hasCpu: true,
        hasMemory: true,
        memTotalBytes: 8 * GiB,
        memFreeBytes: 4 * GiB,
        distances: [10, 14],
        tier: 4,
        performance: { readLatencyNs: 110, readBandwidthMBs: 100_000, source: 'access1' },
      },
      {
        id: 1,
        cpus: [],
        hasCpu: false,
        hasMemory: true,
        memTotalBytes: 16 * GiB,
        memFreeBytes: 16_000_000 * 1024,
        distances: [14, 10],
        tier: 22,
        performance: { readLatencyNs: 260, readBandwidthMBs: 30_000, source: 'access1' },
      },
    ]);
    expect(topo.memoryTiers).toEqual([
      { tier: 4, nodes: [0] },
      { tier: 22, nodes: [1] },
    ]);
    expect(topo.warnings).toEqual([]);
  });

  it('lists the CPU-less memory node, and the CXL region onlined as it', () => {
    const topo = readTopology(fake(twoNodeCxlHost()));
    expect(topo.memoryOnlyNodes).toEqual([1]);
    expect(topo.cxl).toEqual({ bus: true, regions: [{ name: 'region0', mode: 'ram', sizeBytes: 16 * GiB, targets: ['decoder2.0'], node: 1 }] });
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
    expect(plan.reason).toContain('node 1: CXL memory: region0 (ram, 16.0 GiB, decoder2.0) onlined as node 1; slower than node 0');
  });

  it('describes nodes, distances, tiers, CXL regions and memory-only nodes, the addon state and the plan', () => {
    const topo = readTopology(fake(twoNodeCxlHost()));
    const text = describeTopology(topo, planTiers(topo), noAddon);
    expect(text).toContain('node 0: cpus 0-3, memory 8.0 GiB (4.0 GiB free), memory tier 4  [DRAM tier]');
    expect(text).toContain('node 1: no cpus, memory 16.0 GiB');
    expect(text).toContain('[CXL memory, CXL tier]');
    expect(text).toMatch(/^\s+0\s+10\s+14\s*$/m);
    expect(text).toMatch(/^\s+1\s+14\s+10\s*$/m);
    expect(text).toContain('tier 4: nodes 0; tier 22: nodes 1');
    expect(text).toContain('CXL bus: regions region0 (ram) -> node 1');
    expect(text).toContain(
      '    node 1: CXL memory: region0 (ram, 16.0 GiB, decoder2.0) onlined as node 1; slower than node 0 (HMAT (access1): read latency 260 ns vs 110 ns, read bandwidth 30000 vs 100000 MB/s on node 0)',
    );
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
    expect(topo.memoryOnlyNodes).toEqual([1]);
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
        ...cxlRegion(0, 2),
      }),
    );
    const plan = planTiers(topo);
    expect(plan).toMatchObject({ mode: 'numa', dramNode: 1, cxlNode: 2, distance: 12 });
    // no HMAT, no memory tiers: the distance is the evidence
    expect(plan.reason).toContain('slower than node 1 (distance 12 from node 1 (local 10); no HMAT data)');
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

describe('identifying CXL memory among memory-only nodes', () => {
  const without = (files: FakeTree, prefix: string): FakeTree => Object.fromEntries(Object.entries(files).filter(([k]) => !k.startsWith(prefix)));

  it('does not take a memory-only node for CXL when the kernel has no CXL bus (a VM node, HBM, PMem): emulates, and says why', () => {
    const topo = readTopology(fake(twoNodeMemoryOnlyHost()));
    expect(topo.memoryOnlyNodes).toEqual([1]);
    const plan = planTiers(topo);
    expect(plan).toMatchObject({ mode: 'emulated', dramNode: 0, cxlNode: null });
    expect(plan.memoryNodes).toEqual([
      expect.objectContaining({
        node: 1,
        cxl: false,
        usable: false,
        why: expect.stringContaining('memory-only node, not identified as CXL: the kernel exposes no CXL bus'),
      }),
    ]);
    expect(plan.reason).toContain('no memory-only node is CXL memory slower than DRAM');
    const text = describeTopology(topo, plan, noAddon);
    expect(text).toContain('CXL bus: not exposed by the kernel');
    expect(text).toContain('node 1: memory-only node, not identified as CXL');
    expect(text).toContain('(not used for the CXL tier unless forced with --cxl-node 1)');
    expect(text).toContain('[memory-only, not CXL]');
    expect(text).toContain('Plan: emulated mode');
  });

  it('does not take HBM in flat mode for CXL: faster than DRAM by HMAT and no CXL region maps to it', () => {
    // the CXL bus exists (a region onlined elsewhere would show) but nothing maps to node 1
    const files = { ...twoNodeMemoryOnlyHost(), ...cxlRegion(0, null), ...hmat(0, 110, 100_000), ...hmat(1, 100, 400_000) };
    const plan = planTiers(readTopology(fake(files)));
    expect(plan.mode).toBe('emulated');
    expect(plan.memoryNodes[0]!.why).toContain("no CXL region's memory is onlined as node 1 (1 region(s) under bus/cxl)");
  });

  it('does not use a CXL node that HMAT shows no slower than the DRAM node', () => {
    const files = { ...twoNodeCxlHost(), ...hmat(1, 100, 200_000) };
    const plan = planTiers(readTopology(fake(files)));
    expect(plan.mode).toBe('emulated');
    expect(plan.memoryNodes[0]).toMatchObject({ node: 1, cxl: true, slower: false, usable: false });
    expect(plan.memoryNodes[0]!.why).toContain('not slower than node 0, so not used as the slow tier (HMAT (access1): read latency 100 ns vs 110 ns');
  });

  it('without HMAT, judges speed by memory tiers, then by distance; with neither, does not use the node', () => {
    const noHmat = Object.fromEntries(Object.entries(twoNodeCxlHost()).filter(([k]) => !k.includes('/access')));
    const byTier = planTiers(readTopology(fake(noHmat)));
    expect(byTier.mode).toBe('numa');
    expect(byTier.reason).toContain('slower than node 0 (memory tier 22 vs 4 for node 0 (lower = faster))');
    const noTiers = without(noHmat, 'devices/virtual');
    expect(planTiers(readTopology(fake(noTiers))).reason).toContain('(distance 14 from node 0 (local 10); no HMAT data)');
    const nothing = Object.fromEntries(Object.entries(noTiers).filter(([k]) => !k.endsWith('/distance')));
    const plan = planTiers(readTopology(fake(nothing)));
    expect(plan.mode).toBe('emulated');
    expect(plan.memoryNodes[0]).toMatchObject({ cxl: true, slower: null, usable: false });
  });

  it('reads HMAT from access0 when the kernel has no access1', () => {
    const files = { ...twoNodeMemoryOnlyHost(), ...cxlRegion(0, 1), ...hmat(0, 110, 100_000, 'access0'), ...hmat(1, 300, 20_000, 'access0') };
    const topo = readTopology(fake(files));
    expect(topo.nodes[1]!.performance).toEqual({ readLatencyNs: 300, readBandwidthMBs: 20_000, source: 'access0' });
    expect(planTiers(topo)).toMatchObject({ mode: 'numa', cxlNode: 1 });
  });

  it('finds the node of a pmem region onlined through an nvdimm namespace from the memory blocks of its range', () => {
    const files = { ...twoNodeMemoryOnlyHost(), ...cxlPmemRegion(0, 1), ...hmat(0, 110, 100_000), ...hmat(1, 300, 20_000) };
    const topo = readTopology(fake(files));
    expect(topo.cxl.regions).toEqual([{ name: 'region0', mode: 'pmem', sizeBytes: 512 * 1024 ** 2, targets: ['decoder2.0'], node: 1 }]);
    expect(planTiers(topo)).toMatchObject({ mode: 'numa', cxlNode: 1, dramNode: 0 });
  });

  it('does not take a node for a pmem region whose range holds none of its memory blocks', () => {
    // Node 1's memory blocks lie past the region's range: another device's memory, not this region's.
    const files = {
      ...twoNodeMemoryOnlyHost(),
      ...cxlPmemRegion(0, null),
      'devices/system/memory/memory200/node1/uevent': '',
      ...hmat(0, 110, 100_000),
      ...hmat(1, 300, 20_000),
    };
    const topo = readTopology(fake(files));
    expect(topo.cxl.regions[0]!.node).toBeNull();
    expect(planTiers(topo).mode).toBe('emulated');
  });

  it('ignores a CXL region whose memory was never onlined as a node', () => {
    const files = { ...twoNodeMemoryOnlyHost(), ...cxlRegion(0, null) };
    const topo = readTopology(fake(files));
    expect(topo.cxl.regions).toEqual([{ name: 'region0', mode: 'ram', sizeBytes: 16 * GiB, targets: ['decoder2.0'], node: null }]);
    expect(planTiers(topo).mode).toBe('emulated');
  });

  it('uses a memory-only node that is not proven CXL when forced, and says so', () => {
    const topo = readTopology(fake(twoNodeMemoryOnlyHost()));
    const plan = planTiers(topo, { cxlNode: 1 });
    expect(plan).toMatchObject({ mode: 'numa', dramNode: 0, cxlNode: 1, forced: true, distance: 14 });
    expect(plan.reason).toContain('CXL tier on node 1 as forced by --cxl-node (memory-only node, not identified as CXL');
  });

  it('strata tiers --sysfs shows what was found and why, as text and JSON', () => {
    const root = fake(twoNodeMemoryOnlyHost());
    const r = strata(['tiers', '--sysfs', root]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('node 1: memory-only node, not identified as CXL');
    const j = jsonLine<{ plan: { mode: string; memoryNodes: Array<{ node: number; cxl: boolean; why: string }> } }>(
      strata(['tiers', '--sysfs', root, '--json']),
    );
    expect(j.plan.mode).toBe('emulated');
    expect(j.plan.memoryNodes[0]).toMatchObject({ node: 1, cxl: false });
    const forced = strata(['tiers', '--sysfs', root, '--cxl-node', '1']);
    expect(forced.stdout).toContain('Plan: numa mode: DRAM (hot) tier on node 0, CXL (cold) tier on node 1');
    expect(forced.stdout).toContain('as forced by --cxl-node');
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
    expect(topo.memoryOnlyNodes).toEqual([]);
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
    expect(topo.memoryOnlyNodes).toEqual([1]);
    expect(topo.warnings.some((w) => w.includes('has_cpu'))).toBe(true);
  });

  it('treats a node without meminfo as having unknown (0) memory', () => {
    const files = twoNodeCxlHost();
    delete files['devices/system/node/node1/meminfo'];
    delete files['devices/system/node/has_memory'];
    const topo = readTopology(fake(files));
    expect(topo.nodes[1]).toMatchObject({ memTotalBytes: 0, hasMemory: false });
    expect(topo.memoryOnlyNodes).toEqual([]);
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
