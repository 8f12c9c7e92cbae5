// What a collection reports about itself: its health (green / yellow / red, with reasons) and its
// info (tiers, placement, code, build settings, the live part), read from the collection's state.
import type { ValuesPlacement } from '../index/payload/chunk-memory.js';
import type { Metric } from '../index/kernels/kernels.js';
import type { OpenedIndex } from '../index/open-index.js';
import type { TieredIndex } from '../index/tiered/tiered-index.js';
import type { LiveStore } from '../storage/live-store.js';
import type { SecondaryParams, SparseParams } from '../storage/collection-dir.js';
import type { CollectionHealth, CollectionInfo, TierInfo } from './types.js';

/** What the reports read of a collection (collection.ts). */
export interface ReportedCollection {
  readonly name: string;
  readonly dim: number;
  readonly metric: Metric;
  /** Its one vector's name ('' unnamed). */
  readonly vectorName: string;
  /** Its sparse vectors by name. */
  readonly sparseVectors: Readonly<Record<string, SparseParams>>;
  /** Its secondary dense vectors by name. */
  readonly secondaryVectors: Readonly<Record<string, SecondaryParams>>;
  /** Build settings of a created collection (its config), or null (served from an index directory). */
  readonly shape: { m: number; efConstruction: number; indexingThresholdKb?: number; codes?: 'sq8' | 'none'; payloadM?: number } | null;
  /** Fresh + hidden points past which it compacts itself (0: never). */
  autoCompactAt(): number;
  readonly refusing: boolean;
  readonly live: LiveStore | null;
  readonly compacting: Promise<unknown> | null;
  readonly index: TieredIndex | null;
  readonly base: OpenedIndex | null;
  count(): number;
  payloadSchema(): CollectionInfo['payloadSchema'];
  payloadBytes(): CollectionInfo['payloadBytes'];
  /** Where the payload values are, as last verified (no new check). */
  valuesPlacement(): ValuesPlacement;
  /** The CXL node the engine's memory plan put the payload values on, or null (emulated). */
  readonly valuesNode: number | null;
}

/**
 * What state the collection serves in: red once it takes no searches (the engine is closing),
 * yellow while a tier or the payload values are not where the memory plan put them (a NUMA bind fell
 * back to emulation, or pages found on another node), while the CXL tier was forced onto the DRAM
 * tier's node, or while it is optimizing; green otherwise.
 */
export function collectionHealth(c: ReportedCollection): CollectionHealth {
  if (c.refusing) return { status: 'red', reasons: ['shutting down: new searches are refused'] };
  const reasons: string[] = [];
  const live = c.live;
  // Qdrant shows an optimizing collection yellow: here, the fresh graph being rebuilt.
  if (live?.fresh.rebuilding) reasons.push('optimizing: rebuilding the fresh graph (its deleted points outnumbered the live ones)');
  if (c.compacting) reasons.push('optimizing: compacting the fresh points and deletes into a new tiered index');
  const refusal = live?.writeRefusal;
  if (refusal) reasons.push(`writes refused: ${refusal.message}`);
  const behind = live?.catchingUp;
  if (behind) reasons.push(`catching up with the shared write log: applied ${behind.at} of ${behind.to}`);
  const index = c.index;
  const opened = c.base;
  const [dramNode, cxlNode] = opened?.memory.nodes ?? [null, null];
  // Forced there (--cxl-node naming the DRAM node): it runs, but nothing is tiered, and it says so.
  if (cxlNode !== null && cxlNode === dramNode) reasons.push(`cxl tier: on node ${cxlNode}, the DRAM tier's node: nothing is in slower memory`);
  if (index !== null && opened !== null)
    for (const t of index.tiers) {
      const wanted = opened.memory.nodes[t.index] ?? null;
      const b = t.binding;
      if (wanted !== null && b.mode !== 'numa') reasons.push(`${t.kind} tier: planned on node ${wanted}, running ${b.mode}: ${b.note}`);
      else if ((b.pagesElsewhere ?? 0) > 0) reasons.push(`${t.kind} tier: ${b.pagesElsewhere} of ${b.pages} pages are not on node ${b.node}`);
    }
  const v = c.valuesPlacement();
  if (c.valuesNode !== null && v.mode !== 'numa') reasons.push(`payload values: planned on node ${c.valuesNode}, running emulated`);
  else if ((v.pagesElsewhere ?? 0) > 0) reasons.push(`payload values: ${v.pagesElsewhere} of ${v.pages} pages are not on node ${v.node}`);
  return { status: reasons.length > 0 ? 'yellow' : 'green', reasons };
}

export function collectionInfo(c: ReportedCollection): CollectionInfo {
  const l = c.live;
  const live = l ? { fresh: l.fresh.size, hidden: l.tombstones.size, appliedLsn: Number(l.appliedLsn), writeLogSeq: l.replicated ? l.sharedSeq : null } : null;
  const index = c.index;
  const opened = c.base;
  const count = c.count();
  if (index === null || opened === null) {
    const shape = c.shape!;
    return {
      name: c.name,
      health: collectionHealth(c),
      segments: 0,
      dim: c.dim,
      metric: c.metric,
      vectorName: c.vectorName,
      sparseVectors: { ...c.sparseVectors },
      secondaryVectors: { ...c.secondaryVectors },
      count,
      indexed: count,
      tiers: [],
      placement: { policy: 'none', dramBudgetBytes: 0, predictedDramShare: null, promotionPool: null },
      code: null,
      build: { m: shape.m, efConstruction: shape.efConstruction, source: null },
      config: configInfo(c, shape, 0),
      memory: { mode: 'emulated', reason: 'no base index yet: every point is in the fresh layer, in DRAM' },
      live,
      ...payloadInfo(c),
    };
  }
  const m = opened.manifest;
  const resident = index.residentBytes();
  return {
    name: c.name,
    health: collectionHealth(c),
    segments: index.tiers.reduce((a, t) => a + t.segments.length, 0),
    dim: m.dim,
    metric: m.metric,
    vectorName: c.vectorName,
    sparseVectors: { ...c.sparseVectors },
    secondaryVectors: { ...c.secondaryVectors },
    count,
    indexed: count - m.graph.unreachable,
    tiers: index.tiers.map((t, i) => ({
      kind: t.kind,
      nodes: i === 0 ? index.plan.adjacencyInDram : m.count - index.plan.adjacencyInDram,
      holds: holdsOf(index, i),
      bytes: m.tiers[i]?.bytes ?? 0,
      residentBytes: resident[i] ?? 0,
      binding: t.binding,
    })),
    placement: {
      policy: m.placement.policy,
      dramBudgetBytes: m.plan.dramBudgetBytes,
      predictedDramShare: m.placement.predictedDramShare,
      promotionPool: index.pool ? { slots: index.pool.layout.slots, tenants: index.pool.tenants().length, moves: index.pool.moves } : null,
    },
    code: m.plan.code ? { kind: m.plan.code.kind, bytesPerVector: m.plan.code.stride } : null,
    build: { m: m.build.m, efConstruction: m.build.efConstruction, source: m.build.source },
    config: configInfo(c, m.build, m.filterLinks?.payloadM ?? 0),
    memory: { mode: opened.memory.mode, reason: opened.memory.reason },
    live,
    ...payloadInfo(c),
  };
}

function payloadInfo(c: ReportedCollection): Pick<CollectionInfo, 'payloadSchema' | 'payloadBytes' | 'sparseBytes' | 'secondaryBytes'> {
  const sparseBytes = Object.fromEntries([...(c.live?.sparse ?? new Map())].map(([name, col]) => [name, col.bytes()]));
  const secondaryBytes = Object.fromEntries([...(c.live?.secondary ?? new Map())].map(([name, col]) => [name, col.bytes]));
  return { payloadSchema: c.payloadSchema(), payloadBytes: c.payloadBytes(), sparseBytes, secondaryBytes };
}

/**
 * What the next compaction builds with (a created collection's config, else the base's build) and
 * the automatic compaction threshold in Qdrant's unit, kilobytes of float32 vectors.
 */
function configInfo(c: ReportedCollection, built: { m: number; efConstruction: number }, builtPayloadM: number): CollectionInfo['config'] {
  // A collection that takes no writes never compacts: Qdrant's 0, indexing off.
  const points = c.live === null ? 0 : c.autoCompactAt();
  return {
    m: c.shape?.m ?? built.m,
    efConstruction: c.shape?.efConstruction ?? built.efConstruction,
    indexingThresholdKb: c.shape?.indexingThresholdKb ?? Math.ceil((points * 4 * c.dim) / 1024),
    codes: c.shape?.codes ?? null,
    payloadM: c.shape?.payloadM ?? builtPayloadM,
  };
}

/** Nodes whose records of each kind live in tier i. */
function holdsOf(index: TieredIndex, i: number): TierInfo['holds'] {
  const n = index.meta.count;
  const inTier = (dramCount: number): number => (i === 0 ? dramCount : n - dramCount);
  return {
    neighbourLists: inTier(index.plan.adjacencyInDram),
    vectors: inTier(index.plan.vectorsInDram),
    codes: index.codes ? inTier(n) : 0,
    labels: inTier(0),
  };
}
