// Which memory-only NUMA nodes are CXL memory, and whether they are slower than the DRAM next to them.
//
// A CPU-less memory node is not necessarily CXL: HBM in flat mode, persistent memory onlined as
// system RAM (dax_kmem) and the memory-only nodes of a VM look the same in devices/system/node. The
// kernel does say where CXL memory went:
// - bus/cxl/devices/regionZ is a CXL region (an interleave set of expander capacity; `mode` ram or
//   pmem, `size`, `targetN` = the endpoint decoders in it). A ram region is handed to the page
//   allocator through a device-dax instance, regionZ/dax_regionZ/daxZ.N, whose `target_node` is
//   the NUMA node the memory becomes (sysfs-bus-cxl, sysfs-bus-dax in the kernel's ABI docs).
//   A pmem region (regionZ/pmem_regionZ, the only kind before Linux 6.3) reaches the page allocator
//   through an nvdimm namespace whose dax device sits under the nvdimm bus, not under regionZ; its
//   node is found from the region's physical range instead (`resource`, `size`): the memory blocks
//   devices/system/memory/memoryX covering it (X = address / block_size_bytes) link to their node.
// - devices/system/node/nodeN/accessC/initiators/{read_latency,read_bandwidth} (HMAT, from ACPI or
//   CXL CDAT): latency in ns and bandwidth in MB/s of node N's memory from its best initiators;
//   access1 counts CPU initiators only, access0 any.
// A node is used as the CXL tier only when a CXL region maps to it and it is proven slower than the
// DRAM node it pairs with (HMAT when both nodes have it, else memory tiers, else SLIT distance).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NumaNode, Topology } from './topology.js';

/** HMAT performance of a node's memory. */
export interface NodePerformance {
  readLatencyNs: number | null;
  readBandwidthMBs: number | null;
  /** access1 (CPU initiators) when the kernel has it, else access0 (any initiator). */
  source: 'access0' | 'access1';
}

export interface CxlRegion {
  name: string;
  /** 'ram' | 'pmem' | ... (regionZ/mode), null when not exposed. */
  mode: string | null;
  sizeBytes: number | null;
  /** Endpoint decoders in the interleave set (regionZ/targetN). */
  targets: string[];
  /** NUMA node the region's memory is onlined as (dax target_node), null when it is not onlined. */
  node: number | null;
}

export interface CxlInfo {
  /** Whether bus/cxl exists (the kernel's CXL driver is loaded). */
  bus: boolean;
  regions: CxlRegion[];
}

function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return null;
  }
}

function list(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

const intOrNull = (text: string | null): number | null => {
  if (text === null || text === '') return null;
  const n = Number(text); // sysfs sizes are hex ("0x400000000"), node ids decimal; Number reads both
  return Number.isSafeInteger(n) && n >= 0 ? n : null;
};

/** HMAT attributes of a node (nodeN/access{1,0}/initiators/...), null when the kernel exposes none. */
export function readNodePerformance(nodeDir: string): NodePerformance | null {
  for (const source of ['access1', 'access0'] as const) {
    const dir = join(nodeDir, source, 'initiators');
    const readLatencyNs = intOrNull(readText(join(dir, 'read_latency')));
    const readBandwidthMBs = intOrNull(readText(join(dir, 'read_bandwidth')));
    // The kernel reports 0 for a value the firmware left out.
    const lat = readLatencyNs === 0 ? null : readLatencyNs;
    const bw = readBandwidthMBs === 0 ? null : readBandwidthMBs;
    if (lat !== null || bw !== null) return { readLatencyNs: lat, readBandwidthMBs: bw, source };
  }
  return null;
}

/**
 * The NUMA node the online memory blocks in [start, start + size) belong to, or null when none of
 * them is online (sysfs-devices-memory: memoryX/nodeY links, block_size_bytes in hex).
 */
function nodeOfRange(sysfsRoot: string, start: number | null, size: number | null): number | null {
  if (start === null || size === null || size === 0) return null;
  const memory = join(sysfsRoot, 'devices/system/memory');
  const blockText = readText(join(memory, 'block_size_bytes'));
  const block = blockText === null ? null : intOrNull(`0x${blockText.replace(/^0x/i, '')}`);
  if (block === null || block === 0) return null;
  const first = Math.floor(start / block);
  const last = Math.floor((start + size - 1) / block);
  // A devdax namespace keeps its first blocks for its own metadata: look through the whole range.
  for (let i = first; i <= last; i++) {
    const link = list(join(memory, `memory${i}`)).find((n) => /^node\d+$/.test(n));
    if (link !== undefined) return Number(link.slice(4));
  }
  return null;
}

/** CXL regions under bus/cxl/devices and the NUMA node each one's memory became. */
export function readCxlInfo(sysfsRoot: string): CxlInfo {
  const bus = join(sysfsRoot, 'bus/cxl');
  const busExists = list(bus).length > 0;
  const devices = join(bus, 'devices');
  const regions: CxlRegion[] = [];
  for (const name of list(devices).filter((n) => /^region\d+$/.test(n))) {
    const dir = join(devices, name);
    const entries = list(dir);
    let node: number | null = null;
    for (const daxRegion of entries.filter((n) => /^dax_region\d+$/.test(n))) {
      for (const dax of list(join(dir, daxRegion)).filter((n) => /^dax\d+\.\d+$/.test(n))) {
        node ??= intOrNull(readText(join(dir, daxRegion, dax, 'target_node')));
      }
    }
    const targets = entries
      .filter((n) => /^target\d+$/.test(n))
      .sort((a, b) => Number(a.slice(6)) - Number(b.slice(6)))
      .map((t) => readText(join(dir, t)) ?? '')
      .filter((t) => t !== '');
    const sizeBytes = intOrNull(readText(join(dir, 'size')));
    node ??= nodeOfRange(sysfsRoot, intOrNull(readText(join(dir, 'resource'))), sizeBytes);
    const mode = readText(join(dir, 'mode')) ?? (entries.some((n) => /^pmem_region\d+$/.test(n)) ? 'pmem' : null);
    regions.push({ name, mode, sizeBytes, targets, node });
  }
  return { bus: busExists, regions: regions.sort((a, b) => Number(a.name.slice(6)) - Number(b.name.slice(6))) };
}

export interface MemoryNodeIdentity {
  node: number;
  /** A CXL region's memory is onlined as this node. */
  cxl: boolean;
  regions: string[];
  /** The node with CPUs and memory it would pair with as the DRAM tier (nearest), null if none. */
  dramNode: number | null;
  /** Slower than dramNode: true/false when some evidence decides it, null when none does. */
  slower: boolean | null;
  /** Usable as the CXL tier: CXL and proven slower. */
  usable: boolean;
  /** One sentence: what was found, and so what this node is taken for. */
  why: string;
}

const GiB = 1024 ** 3;
const sizeText = (b: number | null): string => (b === null ? 'size unknown' : b >= GiB ? `${(b / GiB).toFixed(1)} GiB` : `${(b / 1048576).toFixed(0)} MiB`);

function distance(topo: Topology, from: number, to: number): number | null {
  const j = topo.online.indexOf(to);
  return j < 0 ? null : (topo.nodes.find((n) => n.id === from)?.distances[j] ?? null);
}

/** Whether `mem` is slower than `dram`, and the evidence. */
function compareSpeed(topo: Topology, mem: NumaNode, dram: NumaNode): { slower: boolean | null; evidence: string } {
  const a = mem.performance;
  const b = dram.performance;
  if (a !== null && b !== null) {
    const parts: string[] = [];
    let slower = false;
    let known = false;
    if (a.readLatencyNs !== null && b.readLatencyNs !== null) {
      known = true;
      slower ||= a.readLatencyNs > b.readLatencyNs;
      parts.push(`read latency ${a.readLatencyNs} ns vs ${b.readLatencyNs} ns`);
    }
    if (a.readBandwidthMBs !== null && b.readBandwidthMBs !== null) {
      known = true;
      slower ||= a.readBandwidthMBs < b.readBandwidthMBs;
      parts.push(`read bandwidth ${a.readBandwidthMBs} vs ${b.readBandwidthMBs} MB/s`);
    }
    if (known) return { slower, evidence: `HMAT (${a.source}): ${parts.join(', ')} on node ${dram.id}` };
  }
  if (mem.tier !== null && dram.tier !== null && mem.tier !== dram.tier) {
    return { slower: mem.tier > dram.tier, evidence: `memory tier ${mem.tier} vs ${dram.tier} for node ${dram.id} (lower = faster)` };
  }
  const far = distance(topo, dram.id, mem.id);
  const local = distance(topo, dram.id, dram.id);
  if (far !== null && local !== null) {
    return { slower: far > local ? true : null, evidence: `distance ${far} from node ${dram.id} (local ${local}); no HMAT data` };
  }
  return { slower: null, evidence: 'no HMAT data, memory tiers or distances to compare' };
}

/** The nearest node with CPUs and memory to `id` but `id` itself (unknown distance sorts last), or null. */
export function nearestDramNode(topo: Topology, id: number): NumaNode | null {
  const d = (n: NumaNode): number => distance(topo, n.id, id) ?? Number.POSITIVE_INFINITY;
  return [...topo.nodes.filter((n) => n.hasCpu && n.hasMemory && n.id !== id)].sort((a, b) => d(a) - d(b) || a.id - b.id)[0] ?? null;
}

/** What each memory-only node of `topo` is, and whether it may hold the CXL tier. */
export function identifyMemoryNodes(topo: Topology): MemoryNodeIdentity[] {
  return topo.memoryOnlyNodes.map((id) => {
    const node = topo.nodes.find((n) => n.id === id)!;
    const regions = topo.cxl.regions.filter((r) => r.node === id);
    const dram = nearestDramNode(topo, id);
    const cxl = regions.length > 0;
    const found = regions
      .map((r) => `${r.name} (${r.mode ?? 'mode unknown'}, ${sizeText(r.sizeBytes)}${r.targets.length > 0 ? `, ${r.targets.join(' + ')}` : ''})`)
      .join(', ');
    if (!cxl) {
      const why = !topo.cxl.bus
        ? `memory-only node, not identified as CXL: the kernel exposes no CXL bus (bus/cxl absent), so this may be HBM, persistent memory or a VM's memory node`
        : `memory-only node, not identified as CXL: no CXL region's memory is onlined as node ${id} (${topo.cxl.regions.length} region(s) under bus/cxl)`;
      return { node: id, cxl, regions: [], dramNode: dram?.id ?? null, slower: null, usable: false, why };
    }
    const names = regions.map((r) => r.name);
    if (dram === null) {
      return {
        node: id,
        cxl,
        regions: names,
        dramNode: null,
        slower: null,
        usable: false,
        why: `CXL memory (${found}), but no node has both CPUs and memory for the DRAM tier`,
      };
    }
    const speed = compareSpeed(topo, node, dram);
    const verdict =
      speed.slower === true
        ? `slower than node ${dram.id}`
        : speed.slower === false
          ? `not slower than node ${dram.id}, so not used as the slow tier`
          : `not proven slower than node ${dram.id}, so not used`;
    return {
      node: id,
      cxl,
      regions: names,
      dramNode: dram.id,
      slower: speed.slower,
      usable: speed.slower === true,
      why: `CXL memory: ${found} onlined as node ${id}; ${verdict} (${speed.evidence})`,
    };
  });
}
