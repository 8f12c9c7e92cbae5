// Puts each tier's memory where it belongs: bound to a NUMA node (the CXL expander's CPU-less node
// for the cold tier) and verified page by page, or, on hosts without one, left in local memory with
// the CXL tier emulated by the cost model. What is reported is what was verified, not what was asked.
import { StrataError } from '../../common/errors.js';
import { bindToNode, checkBindPolicy, numaSupport, touchPages, verifyPlacement } from '../../tiers/numa.js';
import { planTiers, readTopology } from '../../tiers/topology.js';
import type { Tier, TieredIndex } from './tiered-index.js';

export interface MemoryRequest {
  /**
   * auto: real nodes when the host has a memory-only node identified as CXL memory slower than DRAM
   * (cxlNode forces one that is not), else emulate; numa: bind to the given nodes; emulate: never bind.
   */
  mode?: 'auto' | 'numa' | 'emulate';
  dramNode?: number;
  cxlNode?: number;
  /** With mode numa: a failed bind falls back to emulation with a warning instead of an error. */
  allowEmulation?: boolean;
  onWarning?: (message: string) => void;
}

export interface MemoryPlan {
  mode: 'numa' | 'emulated';
  /** Node per tier (index 0 DRAM, 1 CXL); null = not bound. */
  nodes: [number | null, number | null];
  reason: string;
}

export function resolveMemoryPlan(req: MemoryRequest = {}): MemoryPlan {
  const mode = req.mode ?? 'auto';
  if (mode === 'emulate') return { mode: 'emulated', nodes: [null, null], reason: 'emulation requested' };
  if (mode === 'numa') {
    if (req.dramNode === undefined || req.cxlNode === undefined) {
      throw new StrataError('STRATA_INVALID_ARGUMENT', 'numa mode needs both a DRAM node and a CXL node (--dram-node, --cxl-node)', { field: 'cxl-node' });
    }
    return { mode: 'numa', nodes: [req.dramNode, req.cxlNode], reason: 'nodes given explicitly' };
  }
  const support = numaSupport();
  if (!support.available) return { mode: 'emulated', nodes: [null, null], reason: `NUMA placement unavailable: ${support.reason}` };
  const plan = planTiers(readTopology(), {
    ...(req.cxlNode !== undefined ? { cxlNode: req.cxlNode } : {}),
    ...(req.dramNode !== undefined ? { dramNode: req.dramNode } : {}),
  });
  if (plan.mode === 'emulated') return { mode: 'emulated', nodes: [plan.dramNode, null], reason: plan.reason };
  return { mode: 'numa', nodes: [plan.dramNode, plan.cxlNode], reason: plan.reason };
}

/** The loader's prepareTier hook: bind a tier's segments (moving any page already present) before data is read in. */
export function tierBinder(plan: MemoryPlan, req: MemoryRequest = {}): (tier: Tier) => void {
  return (tier) => {
    const node = plan.nodes[tier.index] ?? null;
    const pages = viewsOf(tier).reduce((a, v) => a + Math.ceil(v.byteLength / 4096), 0);
    if (node === null) {
      tier.binding =
        tier.kind === 'cxl'
          ? { mode: 'emulated', node: null, pages, pagesOnNode: null, pagesElsewhere: null, note: `emulated CXL (cost model): ${plan.reason}` }
          : { mode: 'unbound', node: null, pages, pagesOnNode: null, pagesElsewhere: null, note: 'local memory, default policy' };
      return;
    }
    try {
      const support = numaSupport();
      if (!support.available) throw new StrataError('STRATA_NUMA_UNAVAILABLE', `cannot bind tier ${tier.kind} to node ${node}: ${support.reason}`, { node });
      let bound = 0;
      // Move as well as bind: a segment's pages may already be resident elsewhere (an allocation
      // the heap had touched before), and strict alone then fails with EIO on a real NUMA host.
      for (const v of viewsOf(tier)) bound += bindToNode(v, node, { strict: true, move: true }).pages;
      tier.binding = { mode: 'numa', node, pages: bound, pagesOnNode: null, pagesElsewhere: null, note: `bound to node ${node} (${plan.reason})` };
    } catch (e) {
      if (!req.allowEmulation) throw e;
      const msg = `tier ${tier.kind}: ${(e as Error).message}; continuing with the tier emulated`;
      req.onWarning?.(msg);
      tier.binding = { mode: 'emulated', node: null, pages, pagesOnNode: null, pagesElsewhere: null, note: msg };
    }
  };
}

/** A tier's memory: its segments, and the other ranges of the fused region it holds. */
function viewsOf(tier: Tier): Uint8Array[] {
  return [...tier.segments.map((s) => s.dataView()), ...tier.ranges];
}

/**
 * After loading: prove that every page of each bound tier carries MPOL_BIND to its node (the policy
 * is what a binding is; on a one-node host every page sits on node 0 whatever the policy, so the
 * page count alone proves nothing there), then count, page by page, where the pages actually are.
 */
export function verifyBindings(index: TieredIndex): void {
  for (const tier of index.tiers) {
    const b = tier.binding;
    if (b.mode !== 'numa' || b.node === null) continue;
    let on = 0;
    let elsewhere = 0;
    let checked = 0;
    const named = [
      ...tier.segments.map((s) => ({ view: s.dataView(), what: `segment ${s.start}..` })),
      ...tier.ranges.map((view) => ({ view, what: 'the filter links' })),
    ];
    for (const { view, what } of named) {
      const policy = checkBindPolicy(view, b.node);
      if (policy.mismatched > 0) {
        throw new StrataError(
          'STRATA_NUMA_BIND',
          `tier ${tier.kind}: ${policy.mismatched} of ${policy.pages} pages of ${what} do not carry MPOL_BIND to node ${b.node} (first: page ${policy.firstMismatch})`,
          { node: b.node, tier: tier.kind, pages: policy.pages, mismatched: policy.mismatched },
        );
      }
      checked += policy.pages;
      touchPages(view);
      const p = verifyPlacement(view);
      for (const [node, count] of Object.entries(p.byNode)) {
        if (Number(node) === b.node) on += count;
        else elsewhere += count;
      }
    }
    b.pagesOnNode = on;
    b.pagesElsewhere = elsewhere;
    b.note += `; MPOL_BIND to node ${b.node} verified on all ${checked} pages`;
  }
}
