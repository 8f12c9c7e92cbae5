// NUMA topology from sysfs, and the tier plan Strata derives from it.
//
// On Linux a CXL memory expander shows up as a CPU-less NUMA node: listed in
// devices/system/node/has_memory but not in has_cpu. So do HBM, persistent memory and a VM's
// memory-only nodes: a CPU-less node is taken for CXL only when bus/cxl maps a CXL region to it and
// it is slower than the DRAM beside it (cxl-memory.ts). Memory tiers (lower number = faster) are in
// devices/virtual/memory_tiering/memory_tierN/nodelist. Everything here reads plain files under a
// configurable root, so tests run against fake sysfs trees.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { cpus, totalmem, freemem } from 'node:os';
import { join } from 'node:path';
import { invalidArgument } from '../common/errors.js';
import {
  identifyMemoryNodes,
  nearestDramNode,
  readCxlInfo,
  readNodePerformance,
  type CxlInfo,
  type MemoryNodeIdentity,
  type NodePerformance,
} from './cxl-memory.js';

export interface NumaNode {
  id: number;
  cpus: number[];
  hasCpu: boolean;
  hasMemory: boolean;
  memTotalBytes: number;
  memFreeBytes: number;
  /** Distance to each node of `Topology.online`, in that order (as in sysfs nodeN/distance). */
  distances: number[];
  /** The memory tier holding this node, or null when the kernel exposes no tiers. */
  tier: number | null;
  /** HMAT latency and bandwidth of this node's memory, null when the kernel exposes none. */
  performance: NodePerformance | null;
}

export interface MemoryTier {
  tier: number;
  nodes: number[];
}

export interface Topology {
  nodes: NumaNode[];
  /** Online node ids: `nodes[k].distances[j]` is the distance from nodes[k] to online[j]. */
  online: number[];
  possible: number[];
  /** Nodes with memory but no CPUs: CXL expanders look like this, but so do HBM, PMem and VM nodes. */
  memoryOnlyNodes: number[];
  /** CXL regions the kernel knows, and the node each one's memory became. */
  cxl: CxlInfo;
  memoryTiers: MemoryTier[];
  /** Where the data came from: the sysfs root, or a note that it is synthetic. */
  source: string;
  /** True when the host exposes no NUMA information and node 0 was made up from os.cpus()/os.totalmem(). */
  synthetic: boolean;
  /** Files that were missing or unreadable, and what was assumed instead. */
  warnings: string[];
}

/**
 * Parses a kernel list like "0-1,3" or "0-7:2" (as in cpulist / nodelist files) into sorted,
 * de-duplicated ids. Whitespace and an empty list are fine; anything else throws
 * STRATA_INVALID_ARGUMENT.
 */
export function parseRangeList(text: string): number[] {
  const trimmed = text.trim();
  if (trimmed === '') return [];
  const out = new Set<number>();
  for (const rawPart of trimmed.split(',')) {
    const part = rawPart.trim();
    const m = /^(\d+)(?:-(\d+)(?::(\d+))?)?$/.exec(part);
    if (m === null) throw invalidArgument('range list', `cannot parse "${part}" in "${trimmed}"`);
    const lo = Number(m[1]);
    const hi = m[2] === undefined ? lo : Number(m[2]);
    const step = m[3] === undefined ? 1 : Number(m[3]);
    if (hi < lo || step < 1 || !Number.isSafeInteger(hi)) {
      throw invalidArgument('range list', `bad range "${part}" in "${trimmed}"`);
    }
    if (hi - lo > 1_000_000) throw invalidArgument('range list', `range "${part}" is implausibly large`);
    for (let i = lo; i <= hi; i += step) out.add(i);
  }
  return [...out].sort((a, b) => a - b);
}

/** The inverse of parseRangeList: [0,1,2,5] -> "0-2,5"; [] -> "". */
export function formatRangeList(ids: readonly number[]): string {
  const sorted = [...new Set(ids)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    parts.push(j === i ? `${sorted[i]}` : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(',');
}

function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/** Reads a range-list file; null when missing or malformed (a warning says which). */
function readList(path: string, warnings: string[]): number[] | null {
  const text = readText(path);
  if (text === null) return null;
  try {
    return parseRangeList(text);
  } catch (e) {
    warnings.push(`${path}: ${(e as Error).message}; ignored`);
    return null;
  }
}

/** MemTotal / MemFree of a sysfs nodeN/meminfo ("Node 0 MemTotal:  4024096 kB"), in bytes. */
export function parseNodeMeminfo(text: string): { memTotalBytes: number | null; memFreeBytes: number | null } {
  const field = (name: string): number | null => {
    const m = new RegExp(`^\\s*(?:Node\\s+\\d+\\s+)?${name}:\\s+(\\d+)\\s*(kB)?\\s*$`, 'm').exec(text);
    if (m === null) return null;
    return Number(m[1]) * (m[2] === 'kB' ? 1024 : 1);
  };
  return { memTotalBytes: field('MemTotal'), memFreeBytes: field('MemFree') };
}

function readMemoryTiers(sysfsRoot: string, warnings: string[]): MemoryTier[] {
  const dir = join(sysfsRoot, 'devices/virtual/memory_tiering');
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  const tiers: MemoryTier[] = [];
  for (const name of entries) {
    const m = /^memory_tier(\d+)$/.exec(name);
    if (m === null) continue;
    const nodes = readList(join(dir, name, 'nodelist'), warnings);
    if (nodes === null) {
      warnings.push(`${join(dir, name, 'nodelist')} missing; tier ${m[1]} ignored`);
      continue;
    }
    tiers.push({ tier: Number(m[1]), nodes });
  }
  return tiers.sort((a, b) => a.tier - b.tier);
}

function syntheticTopology(sysfsRoot: string, reason: string): Topology {
  const cpuIds = cpus().map((_, i) => i);
  const warnings = [reason];
  return {
    nodes: [
      {
        id: 0,
        cpus: cpuIds,
        hasCpu: true,
        hasMemory: true,
        memTotalBytes: totalmem(),
        memFreeBytes: freemem(),
        distances: [10],
        tier: null,
        performance: null,
      },
    ],
    online: [0],
    possible: [0],
    memoryOnlyNodes: [],
    cxl: { bus: false, regions: [] },
    memoryTiers: [],
    source: `synthetic (no NUMA information under ${sysfsRoot}: node 0 from os.cpus() and os.totalmem())`,
    synthetic: true,
    warnings,
  };
}

/**
 * Reads the NUMA topology from `sysfsRoot` (default /sys). Never throws for missing files: a host
 * without devices/system/node gets a single synthetic node 0 holding every CPU and all memory.
 */
export function readTopology(sysfsRoot = '/sys'): Topology {
  const nodeDir = join(sysfsRoot, 'devices/system/node');
  if (!existsSync(nodeDir)) return syntheticTopology(sysfsRoot, `${nodeDir} does not exist`);

  const warnings: string[] = [];
  let dirIds: number[] = [];
  try {
    dirIds = readdirSync(nodeDir)
      .map((n) => /^node(\d+)$/.exec(n))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => Number(m[1]))
      .sort((a, b) => a - b);
  } catch {
    // unreadable directory: handled like an empty one below
  }

  let online = readList(join(nodeDir, 'online'), warnings);
  if (online === null) {
    warnings.push(`${join(nodeDir, 'online')} missing; using the nodeN directories`);
    online = dirIds;
  }
  if (online.length === 0) return syntheticTopology(sysfsRoot, `${nodeDir} lists no nodes`);
  const possible = readList(join(nodeDir, 'possible'), warnings) ?? online;
  const hasCpuList = readList(join(nodeDir, 'has_cpu'), warnings);
  const hasMemoryList = readList(join(nodeDir, 'has_memory'), warnings);
  if (hasCpuList === null) warnings.push(`${join(nodeDir, 'has_cpu')} missing; derived from nodeN/cpulist`);
  if (hasMemoryList === null) warnings.push(`${join(nodeDir, 'has_memory')} missing; derived from nodeN/meminfo`);

  const memoryTiers = readMemoryTiers(sysfsRoot, warnings);
  const tierOf = new Map<number, number>();
  for (const t of memoryTiers) for (const n of t.nodes) if (!tierOf.has(n)) tierOf.set(n, t.tier);

  const nodes: NumaNode[] = online.map((id) => {
    const dir = join(nodeDir, `node${id}`);
    const cpuList = readList(join(dir, 'cpulist'), warnings);
    if (cpuList === null) warnings.push(`${join(dir, 'cpulist')} missing; node ${id} assumed to have no CPUs`);
    const meminfoText = readText(join(dir, 'meminfo'));
    const mem = meminfoText === null ? { memTotalBytes: null, memFreeBytes: null } : parseNodeMeminfo(meminfoText);
    if (mem.memTotalBytes === null) warnings.push(`${join(dir, 'meminfo')} missing or without MemTotal; node ${id} memory unknown (0)`);
    const distanceText = readText(join(dir, 'distance'));
    let distances: number[] = [];
    if (distanceText === null) {
      warnings.push(`${join(dir, 'distance')} missing; distances unknown`);
    } else {
      distances = distanceText
        .trim()
        .split(/\s+/)
        .filter((s) => s !== '')
        .map(Number);
      if (distances.some((d) => !Number.isFinite(d)) || distances.length !== online.length) {
        warnings.push(`${join(dir, 'distance')} has ${distances.length} entries for ${online.length} online nodes`);
        if (distances.some((d) => !Number.isFinite(d))) distances = [];
      }
    }
    const cpusOfNode = cpuList ?? [];
    const memTotalBytes = mem.memTotalBytes ?? 0;
    return {
      id,
      cpus: cpusOfNode,
      hasCpu: hasCpuList !== null ? hasCpuList.includes(id) : cpusOfNode.length > 0,
      hasMemory: hasMemoryList !== null ? hasMemoryList.includes(id) : memTotalBytes > 0,
      memTotalBytes,
      memFreeBytes: mem.memFreeBytes ?? 0,
      distances,
      tier: tierOf.get(id) ?? null,
      performance: readNodePerformance(dir),
    };
  });

  return {
    nodes,
    online,
    possible,
    memoryOnlyNodes: nodes.filter((n) => n.hasMemory && !n.hasCpu).map((n) => n.id),
    cxl: readCxlInfo(sysfsRoot),
    memoryTiers,
    source: sysfsRoot,
    synthetic: false,
    warnings,
  };
}

/** The sysfs distance from node `from` to node `to`, or null when unknown. */
export function nodeDistance(topo: Topology, from: number, to: number): number | null {
  const node = topo.nodes.find((n) => n.id === from);
  const j = topo.online.indexOf(to);
  if (node === undefined || j < 0) return null;
  return node.distances[j] ?? null;
}

export type TierPlan =
  | {
      mode: 'numa';
      /** Node for the hot (DRAM) tier: the node with CPUs and memory nearest to the CXL node. */
      dramNode: number;
      /** Node for the cold (CXL) tier: identified CXL memory, slower than dramNode (or forced). */
      cxlNode: number;
      /** sysfs distance between the two, or null if unknown. */
      distance: number | null;
      /** Other usable CXL nodes that were not chosen. */
      otherCxlNodes: number[];
      /** The user named cxlNode (--cxl-node): used whatever it was identified as. */
      forced: boolean;
      /** What each memory-only node was identified as, and why. */
      memoryNodes: MemoryNodeIdentity[];
      reason: string;
    }
  | {
      mode: 'emulated';
      /** Node for the hot tier (and, emulated, the cold tier too). */
      dramNode: number;
      cxlNode: null;
      memoryNodes: MemoryNodeIdentity[];
      reason: string;
    };

export interface PlanOverrides {
  /** Use this node for the CXL tier whatever it is identified as (--cxl-node). */
  cxlNode?: number;
  /** Use this node for the DRAM tier (--dram-node). */
  dramNode?: number;
}

/**
 * What Strata would do on this topology. With a memory-only node identified as CXL memory and slower
 * than the DRAM beside it: hot tier on the nearest node that has CPUs and memory, cold tier on the
 * CXL node ('numa'). Otherwise the cold tier is emulated in local memory ('emulated'), with the
 * reason; a memory-only node that is not proven CXL is used only when forced with `cxlNode`.
 */
export function planTiers(topo: Topology, force: PlanOverrides = {}): TierPlan {
  const memoryNodes = identifyMemoryNodes(topo);
  const dramCandidates = topo.nodes.filter((n) => n.hasCpu && n.hasMemory);
  const fallbackDram = force.dramNode ?? dramCandidates[0]?.id ?? topo.nodes.find((n) => n.hasMemory)?.id ?? 0;
  const byId = new Map(topo.nodes.map((n) => [n.id, n] as const));

  if (force.cxlNode !== undefined) {
    const cxl = force.cxlNode;
    const dram = force.dramNode ?? nearestDramNode(topo, cxl)?.id ?? fallbackDram;
    const what = memoryNodes.find((m) => m.node === cxl)?.why ?? (byId.has(cxl) ? `node ${cxl} has CPUs or no memory` : `node ${cxl} is not online`);
    return {
      mode: 'numa',
      dramNode: dram,
      cxlNode: cxl,
      distance: nodeDistance(topo, dram, cxl),
      otherCxlNodes: memoryNodes.filter((m) => m.usable && m.node !== cxl).map((m) => m.node),
      forced: true,
      memoryNodes,
      reason: `CXL tier on node ${cxl} as forced by --cxl-node (${what}); DRAM tier on node ${dram}`,
    };
  }

  const usable = memoryNodes.filter((m) => m.usable);
  if (usable.length === 0) {
    const why = topo.synthetic
      ? 'the host exposes no NUMA topology'
      : memoryNodes.length > 0
        ? memoryNodes.map((m) => `node ${m.node}: ${m.why}`).join('; ')
        : topo.nodes.length === 1
          ? `the host has a single NUMA node (${topo.nodes[0]!.id})`
          : 'every NUMA node with memory also has CPUs';
    const lead = memoryNodes.length > 0 ? 'no memory-only node is CXL memory slower than DRAM' : 'no CPU-less memory node (no CXL expander visible)';
    return {
      mode: 'emulated',
      dramNode: fallbackDram,
      cxlNode: null,
      memoryNodes,
      reason: `${lead}: ${why}; the CXL tier is emulated in local memory on node ${fallbackDram}`,
    };
  }

  // Cold tier: the CXL node in the slowest memory tier, then the largest, then the lowest id.
  const cxl = usable
    .map((m) => m.node)
    .sort((a, b) => {
      const na = byId.get(a)!;
      const nb = byId.get(b)!;
      return (nb.tier ?? -1) - (na.tier ?? -1) || nb.memTotalBytes - na.memTotalBytes || a - b;
    })[0]!;
  const chosen = usable.find((m) => m.node === cxl)!;
  const dram = force.dramNode ?? chosen.dramNode!;
  const distance = nodeDistance(topo, dram, cxl);
  return {
    mode: 'numa',
    dramNode: dram,
    cxlNode: cxl,
    distance,
    otherCxlNodes: usable.filter((m) => m.node !== cxl).map((m) => m.node),
    forced: false,
    memoryNodes,
    reason:
      `node ${cxl}: ${chosen.why}` +
      (byId.get(cxl)!.tier !== null ? `; memory tier ${byId.get(cxl)!.tier}` : '') +
      `; DRAM tier on node ${dram}, the nearest node with CPUs` +
      (distance !== null ? ` (distance ${distance})` : ''),
  };
}
