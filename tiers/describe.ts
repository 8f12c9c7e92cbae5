// Human-readable text for `strata tiers`: the NUMA topology, the addon's state and the tier plan.
import type { NumaSupport } from './numa.js';
import { formatRangeList, type TierPlan, type Topology } from './topology.js';

function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = bytes;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return u === 0 ? `${v} B` : `${v.toFixed(1)} ${units[u]}`;
}

function pad(s: string, width: number): string {
  return s.length >= width ? s : s + ' '.repeat(width - s.length);
}

export function describeTopology(topo: Topology, plan: TierPlan, support: NumaSupport): string {
  const lines: string[] = [];
  lines.push(`NUMA topology (source: ${topo.source})`);
  lines.push(
    `  online nodes: ${formatRangeList(topo.online) || 'none'}; possible: ${formatRangeList(topo.possible) || 'none'}` + (topo.synthetic ? ' (synthetic)' : ''),
  );

  const identity = new Map(plan.memoryNodes.map((m) => [m.node, m] as const));
  for (const n of topo.nodes) {
    const cpus = n.hasCpu ? `cpus ${formatRangeList(n.cpus) || '?'}` : 'no cpus';
    const mem = n.hasMemory ? `memory ${formatBytes(n.memTotalBytes)} (${formatBytes(n.memFreeBytes)} free)` : 'no memory';
    const tier = n.tier === null ? '' : `, memory tier ${n.tier}`;
    const tags: string[] = [];
    const id = identity.get(n.id);
    if (id !== undefined) tags.push(id.cxl ? 'CXL memory' : 'memory-only, not CXL');
    if (plan.dramNode === n.id) tags.push('DRAM tier');
    if (plan.mode === 'numa' && plan.cxlNode === n.id) tags.push('CXL tier');
    lines.push(`  node ${n.id}: ${cpus}, ${mem}${tier}${tags.length > 0 ? `  [${tags.join(', ')}]` : ''}`);
  }

  // Distance matrix, columns in online order (the order of the sysfs distance files).
  if (topo.nodes.some((n) => n.distances.length > 0)) {
    const width = Math.max(5, ...topo.online.map((id) => `${id}`.length + 1));
    lines.push('  distances:');
    lines.push(('    ' + pad('from\\to', 8) + topo.online.map((id) => pad(`${id}`, width)).join('')).trimEnd());
    for (const n of topo.nodes) {
      const row = topo.online.map((_, j) => pad(n.distances[j] === undefined ? '?' : `${n.distances[j]}`, width)).join('');
      lines.push(('    ' + pad(`${n.id}`, 8) + row).trimEnd());
    }
  } else {
    lines.push('  distances: unknown');
  }

  if (topo.memoryTiers.length > 0) {
    lines.push('  memory tiers (lower = faster): ' + topo.memoryTiers.map((t) => `tier ${t.tier}: nodes ${formatRangeList(t.nodes) || 'none'}`).join('; '));
  } else {
    lines.push('  memory tiers: not exposed by the kernel');
  }
  if (topo.cxl.bus) {
    const regions = topo.cxl.regions.map((r) => `${r.name} (${r.mode ?? '?'}) -> ${r.node === null ? 'not onlined' : `node ${r.node}`}`);
    lines.push(`  CXL bus: ${regions.length > 0 ? `regions ${regions.join(', ')}` : 'no regions'}`);
  } else {
    lines.push('  CXL bus: not exposed by the kernel (bus/cxl absent)');
  }
  if (plan.memoryNodes.length === 0) lines.push('  memory-only nodes (memory, no CPUs): none');
  else {
    lines.push('  memory-only nodes (memory, no CPUs):');
    for (const m of plan.memoryNodes) {
      const use = m.usable ? '' : ` (not used for the CXL tier unless forced with --cxl-node ${m.node})`;
      lines.push(`    node ${m.node}: ${m.why}${use}`);
    }
  }
  for (const w of topo.warnings) lines.push(`  note: ${w}`);

  lines.push('');
  if (support.available) {
    lines.push(
      `NUMA addon: available (${support.addonPath}); page size ${support.pageSize} B; ` +
        `allowed memory nodes ${formatRangeList(support.allowedNodes) || 'none'} (max node ${support.maxNode})`,
    );
  } else {
    lines.push(`NUMA addon: unavailable: ${support.reason}`);
  }

  lines.push('');
  if (plan.mode === 'numa') {
    lines.push(
      `Plan: numa mode: DRAM (hot) tier on node ${plan.dramNode}, CXL (cold) tier on node ${plan.cxlNode}` +
        (plan.distance !== null ? `, distance ${plan.distance}` : ''),
    );
    if (plan.otherCxlNodes.length > 0) lines.push(`  other CXL nodes not used: ${formatRangeList(plan.otherCxlNodes)}`);
  } else {
    lines.push(`Plan: emulated mode: DRAM (hot) tier on node ${plan.dramNode}, CXL (cold) tier emulated`);
  }
  lines.push(`  why: ${plan.reason}`);
  if (!support.available) {
    lines.push('  placement will not be bound or verified (the NUMA addon is unavailable)');
  } else {
    const nodes = plan.mode === 'numa' ? `nodes ${plan.dramNode} and ${plan.cxlNode}` : `node ${plan.dramNode}`;
    lines.push(`  placement: tier memory is bound to ${nodes} with mbind and verified page by page: policy (get_mempolicy) and location (move_pages)`);
  }
  return lines.join('\n') + '\n';
}
