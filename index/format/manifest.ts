// The manifest: what a reader needs before touching any data file, and the checksums it verifies.
import { checkLinksEntry, type FilterLinksEntry } from './links-file.js';
import { StrataError } from '../../common/errors.js';
import type { Metric } from '../kernels/kernels.js';
import { PLACEMENT_POLICIES, type PlacementPolicy } from '../placement/placement.js';
import { CODE_KINDS, type CodeSpec } from '../codes/index.js';
import { STORE_KINDS, type StoreKind, TIER_KINDS } from '../tiered/tiered-index.js';
import { FORMAT_NAME, READ_VERSIONS } from './constants.js';

export interface FileEntry {
  bytes: number;
  sha256: string;
}

export interface StoreEntry {
  kind: StoreKind;
  tier: number;
  /** Node id range [start, start + count) held in this tier. */
  start: number;
  count: number;
  /** Bytes per record. */
  stride: number;
  file: string;
}

export interface TierEntry {
  index: number;
  kind: 'dram' | 'cxl';
  /** Bytes of records in this tier (and in DRAM the upper layers, the code's head, the pool, the value runs). */
  bytes: number;
  /** The same bytes by part, as the memory report names them (memory-parts.ts); absent: derived there. */
  parts?: Record<string, number>;
}

/** The filtered walk's measured cost (index/search/walk-profile.ts): mean distances at each selectivity, at beam width ef. */
export interface FilterWalkEntry {
  ef: number;
  /** Descending, in (0, 1]. */
  selectivities: number[];
  distances: number[];
  /** The same walks at a wider beam (ef above `ef`): how their cost grows with ef. Absent: by √ef. */
  wide?: { ef: number; distances: number[] };
}

export interface PlanEntry {
  dramBudgetBytes: number;
  code: CodeSpec | null;
  adjacencyInDram: number;
  vectorsInDram: number;
  /** Promotion pool slots (list-pool.ts); absent in indexes written before the pool (read as 0). */
  poolLists?: number;
  /** The share of the list budget asked for the pool (compactions keep it); absent before the pool. */
  poolShare?: number;
  /** DRAM for value runs (index/tiered/value-runs.ts); absent: none. */
  runBytes?: number;
  fullPrecisionBytes: number;
  reason: string;
  /** Absent in indexes written before it, and for small ones: the planner then uses its formula. */
  filterWalk?: FilterWalkEntry;
}

export interface Manifest {
  format: typeof FORMAT_NAME;
  version: number;
  name: string;
  createdAt: string;
  dim: number;
  metric: Metric;
  count: number;
  graph: { maxM0: number; maxM: number; entry: number; maxLevel: number; unreachable: number; upperNodes: number };
  build: {
    source: string | null;
    m: number;
    efConstruction: number;
    seed: number;
    seconds: number;
    builder: string;
  };
  placement: {
    policy: PlacementPolicy;
    profileQueries: number;
    /** Share of the profiling queries' level-0 expansions whose neighbour lists are in DRAM. */
    predictedDramShare: number | null;
  };
  plan: PlanEntry;
  tiers: TierEntry[];
  stores: StoreEntry[];
  files: Record<string, FileEntry>;
  /** The base's filter links in links.bin (links-file.ts); absent: built without them. */
  filterLinks?: FilterLinksEntry;
}

/**
 * Validates every field that loading, serving and describing an index read, so a hand-edited or
 * damaged manifest is STRATA_INDEX_CORRUPT naming the field, never a TypeError later on.
 */
export function checkManifest(raw: unknown, file: string): Manifest {
  const fail = (why: string): never => {
    throw new StrataError('STRATA_INDEX_CORRUPT', `${file}: invalid manifest: ${why}`, { file, reason: why });
  };
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  const object = (v: unknown, what: string): Record<string, unknown> => (isObject(v) ? v : fail(`${what} must be an object`));
  const int = (v: unknown, what: string, min = 0, max = Number.MAX_SAFE_INTEGER): number =>
    Number.isSafeInteger(v) && (v as number) >= min && (v as number) <= max
      ? (v as number)
      : fail(`${what} must be an integer in ${min}..${max}, got ${JSON.stringify(v)}`);
  const num = (v: unknown, what: string): number => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : fail(`${what} must be a non-negative number`));
  const str = (v: unknown, what: string): string => (typeof v === 'string' ? v : fail(`${what} must be a string`));
  const fileName = (v: unknown, what: string): string => {
    const name = str(v, what);
    return /^[a-z0-9][a-z0-9.-]*$/.test(name) ? name : fail(`${what} ${JSON.stringify(name)} is not a plain file name`);
  };

  if (!isObject(raw)) return fail('not a JSON object');
  const m = raw;
  if (m['format'] !== FORMAT_NAME) return fail(`format is ${JSON.stringify(m['format'])}, expected "${FORMAT_NAME}"`);
  if (!READ_VERSIONS.includes(m['version'] as number)) {
    const source = isObject(m['build']) && typeof m['build']['source'] === 'string' ? ` strata build ${m['build']['source']} --out <dir>` : ' strata build';
    const why =
      m['version'] === 1
        ? 'version 1 stores whole records per tier and no compact codes; rebuild it with' + source
        : m['version'] === 2
          ? 'version 2 lays out the last short block of rq2/rq3 codes differently; rebuild it with' + source
          : `this build reads versions ${READ_VERSIONS.join(' and ')}`;
    throw new StrataError('STRATA_INDEX_VERSION', `${file}: format version ${String(m['version'])}: ${why}`, { file, version: String(m['version']) });
  }
  str(m['name'], 'name');
  str(m['createdAt'], 'createdAt');
  int(m['dim'], 'dim', 1);
  const count = int(m['count'], 'count', 0, 0x7fffffff);
  if (m['metric'] !== 'l2' && m['metric'] !== 'ip' && m['metric'] !== 'cosine') fail(`metric ${JSON.stringify(m['metric'])}`);

  const g = object(m['graph'], 'graph');
  int(g['maxM0'], 'graph.maxM0', 1);
  int(g['maxM'], 'graph.maxM', 1);
  int(g['entry'], 'graph.entry', 0, Math.max(0, count - 1));
  int(g['maxLevel'], 'graph.maxLevel', 0, 255);
  int(g['unreachable'], 'graph.unreachable', 0, count);
  int(g['upperNodes'], 'graph.upperNodes', 0, count);

  const b = object(m['build'], 'build');
  if (b['source'] !== null) str(b['source'], 'build.source');
  int(b['m'], 'build.m', 1);
  int(b['efConstruction'], 'build.efConstruction', 1);
  int(b['seed'], 'build.seed');
  num(b['seconds'], 'build.seconds');
  str(b['builder'], 'build.builder');

  const p = object(m['placement'], 'placement');
  if (!(PLACEMENT_POLICIES as readonly unknown[]).includes(p['policy'])) fail(`placement.policy ${JSON.stringify(p['policy'])}`);
  int(p['profileQueries'], 'placement.profileQueries');
  if (p['predictedDramShare'] !== null && !(num(p['predictedDramShare'], 'placement.predictedDramShare') <= 1))
    fail('placement.predictedDramShare must be at most 1');

  const plan = object(m['plan'], 'plan');
  int(plan['dramBudgetBytes'], 'plan.dramBudgetBytes');
  int(plan['adjacencyInDram'], 'plan.adjacencyInDram', 0, count);
  int(plan['vectorsInDram'], 'plan.vectorsInDram', 0, count);
  if (plan['poolLists'] !== undefined) int(plan['poolLists'], 'plan.poolLists', 0, count);
  if (plan['runBytes'] !== undefined) int(plan['runBytes'], 'plan.runBytes', 0, plan['dramBudgetBytes'] as number);
  if (plan['poolShare'] !== undefined && !(num(plan['poolShare'], 'plan.poolShare') >= 0 && (plan['poolShare'] as number) <= 1))
    fail('plan.poolShare must be in 0..1');
  int(plan['fullPrecisionBytes'], 'plan.fullPrecisionBytes');
  str(plan['reason'], 'plan.reason');
  if (plan['filterWalk'] !== undefined) {
    const w = object(plan['filterWalk'], 'plan.filterWalk');
    int(w['ef'], 'plan.filterWalk.ef', 1, 1 << 20);
    const sel = w['selectivities'];
    const dist = w['distances'];
    if (!Array.isArray(sel) || !Array.isArray(dist) || sel.length < 2 || sel.length !== dist.length)
      return fail('plan.filterWalk.selectivities and .distances must be arrays of one length, at least 2');
    for (let i = 0; i < sel.length; i++) {
      const s = num(sel[i], `plan.filterWalk.selectivities[${i}]`);
      if (!(s > 0 && s <= 1) || (i > 0 && !(s < (sel[i - 1] as number)))) fail('plan.filterWalk.selectivities must descend within (0, 1]');
      num(dist[i], `plan.filterWalk.distances[${i}]`);
    }
    if (w['wide'] !== undefined) {
      const wide = object(w['wide'], 'plan.filterWalk.wide');
      int(wide['ef'], 'plan.filterWalk.wide.ef', (w['ef'] as number) + 1, 1 << 20);
      const wd = wide['distances'];
      if (!Array.isArray(wd) || wd.length !== sel.length) return fail('plan.filterWalk.wide.distances must be an array as long as .selectivities');
      wd.forEach((d, i) => num(d, `plan.filterWalk.wide.distances[${i}]`));
    }
  }
  if (plan['code'] !== null) {
    const c = object(plan['code'], 'plan.code');
    if (!(CODE_KINDS as readonly unknown[]).includes(c['kind'])) fail(`plan.code.kind ${JSON.stringify(c['kind'])}`);
    if (c['dim'] !== m['dim']) fail('plan.code.dim must equal dim');
    const dims = int(c['dims'], 'plan.code.dims', 16, 1 << 20);
    if (dims % 16 !== 0 || dims < (m['dim'] as number)) fail('plan.code.dims must be a multiple of 16, at least dim');
    int(c['bits'], 'plan.code.bits', 1, 8);
    if (c['metric'] !== 'l2' && c['metric'] !== 'ip') fail('plan.code.metric must be l2 or ip');
    int(c['centroids'], 'plan.code.centroids', 0, 256);
    int(c['stride'], 'plan.code.stride', 1);
    // Version 3 had dense rotations only and did not name them; from 4 on, rq codes name theirs.
    if (c['kind'] !== 'sq8') {
      if (m['version'] === 3) {
        if (c['rotation'] !== undefined) fail('plan.code.rotation is not part of format version 3');
        // Named from here on, so that writing this index again (compaction, migration) keeps it.
        c['rotation'] = 'dense';
      }
      if (m['version'] !== 3 && c['rotation'] !== 'dense' && c['rotation'] !== 'hadamard')
        fail(`plan.code.rotation must be dense or hadamard, got ${JSON.stringify(c['rotation'])}`);
    }
  }

  if (m['filterLinks'] !== undefined) m['filterLinks'] = checkLinksEntry(m['filterLinks'], fail);
  const files = object(m['files'], 'files');
  for (const [name, f] of Object.entries(files)) {
    fileName(name, 'files key');
    const e = object(f, `files.${name}`);
    int(e['bytes'], `files.${name}.bytes`);
    if (typeof e['sha256'] !== 'string' || !/^[0-9a-f]{64}$/.test(e['sha256'])) fail(`files.${name}.sha256 must be 64 hex digits`);
  }

  if (!Array.isArray(m['tiers']) || m['tiers'].length !== 2) return fail('tiers must list the dram and cxl tiers');
  m['tiers'].forEach((raw, i) => {
    const t = object(raw, `tiers[${i}]`);
    if (t['index'] !== i) fail(`tiers[${i}].index must be ${i}`);
    if (t['kind'] !== TIER_KINDS[i]) fail(`tiers[${i}].kind must be "${TIER_KINDS[i]}"`);
    const bytes = int(t['bytes'], `tiers[${i}].bytes`);
    if (t['parts'] === undefined) return;
    const parts = Object.entries(object(t['parts'], `tiers[${i}].parts`)).map(([k, v]) => int(v, `tiers[${i}].parts.${k}`));
    if (parts.reduce((a, b) => a + b, 0) !== bytes) fail(`tiers[${i}].parts must add up to tiers[${i}].bytes`);
  });
  if (!Array.isArray(m['stores'])) return fail('stores must be a list');
  const covered = new Map<string, number>();
  m['stores'].forEach((raw, i) => {
    const e = object(raw, `stores[${i}]`);
    const kind = e['kind'];
    if (!(STORE_KINDS as readonly unknown[]).includes(kind)) fail(`stores[${i}].kind ${JSON.stringify(kind)}`);
    if (kind === 'codes' && plan['code'] === null) fail(`stores[${i}]: codes without plan.code`);
    int(e['tier'], `stores[${i}].tier`, 0, 1);
    const start = int(e['start'], `stores[${i}].start`, 0, count);
    if ((covered.get(kind as string) ?? 0) !== start)
      fail(`stores[${i}].start must be ${covered.get(kind as string) ?? 0} (a store's tiers tile the node ids)`);
    covered.set(kind as string, start + int(e['count'], `stores[${i}].count`, 0, count - start));
    int(e['stride'], `stores[${i}].stride`, 1);
    const name = fileName(e['file'], `stores[${i}].file`);
    if (!(name in files)) fail(`stores[${i}].file ${JSON.stringify(name)} is not listed in files`);
  });
  for (const kind of STORE_KINDS) {
    if (kind === 'codes' && plan['code'] === null) continue;
    if (covered.get(kind) !== count) fail(`the ${kind} store covers ${covered.get(kind) ?? 0} of ${count} nodes`);
  }
  return m as unknown as Manifest;
}
