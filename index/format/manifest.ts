// The manifest: what a reader needs before touching any data file, and the checksums it verifies.
import { StrataError } from '../../common/errors.js';
import type { Metric } from '../kernels/kernels.js';
import { PLACEMENT_POLICIES, type PlacementPolicy } from '../placement/placement.js';
import { TIER_KINDS } from '../tiered/tiered-index.js';
import { FORMAT_NAME, FORMAT_VERSION } from './constants.js';

export interface FileEntry {
  bytes: number;
  sha256: string;
}

export interface TierEntry {
  index: number;
  kind: 'dram' | 'cxl';
  /** Node id range [start, end). */
  start: number;
  end: number;
  /** Bytes of node records (neighbour lists + vectors). */
  bytes: number;
  file: string;
}

export interface Manifest {
  format: typeof FORMAT_NAME;
  version: number;
  name: string;
  createdAt: string;
  dim: number;
  metric: Metric;
  count: number;
  graph: { maxM0: number; maxM: number; entry: number; maxLevel: number; unreachable: number };
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
    dramBudgetBytes: number;
    dramNodes: number;
    cxlNodes: number;
    upperInCxl: number;
    profileQueries: number;
    /** DRAM share of accesses the profiling queries would see with this placement. */
    predictedDramShare: number | null;
  };
  tiers: TierEntry[];
  files: Record<string, FileEntry>;
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
  if (m['version'] !== FORMAT_VERSION) {
    throw new StrataError('STRATA_INDEX_VERSION', `${file}: format version ${String(m['version'])}, this build reads version ${FORMAT_VERSION}`, {
      file,
      version: String(m['version']),
    });
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

  const b = object(m['build'], 'build');
  if (b['source'] !== null) str(b['source'], 'build.source');
  int(b['m'], 'build.m', 1);
  int(b['efConstruction'], 'build.efConstruction', 1);
  int(b['seed'], 'build.seed');
  num(b['seconds'], 'build.seconds');
  str(b['builder'], 'build.builder');

  const p = object(m['placement'], 'placement');
  if (!(PLACEMENT_POLICIES as readonly unknown[]).includes(p['policy'])) fail(`placement.policy ${JSON.stringify(p['policy'])}`);
  int(p['dramBudgetBytes'], 'placement.dramBudgetBytes');
  int(p['dramNodes'], 'placement.dramNodes', 0, count);
  int(p['cxlNodes'], 'placement.cxlNodes', 0, count);
  int(p['upperInCxl'], 'placement.upperInCxl', 0, count);
  int(p['profileQueries'], 'placement.profileQueries');
  if (p['predictedDramShare'] !== null && !(num(p['predictedDramShare'], 'placement.predictedDramShare') <= 1))
    fail('placement.predictedDramShare must be at most 1');

  const files = object(m['files'], 'files');
  for (const [name, f] of Object.entries(files)) {
    fileName(name, 'files key');
    const e = object(f, `files.${name}`);
    int(e['bytes'], `files.${name}.bytes`);
    if (typeof e['sha256'] !== 'string' || !/^[0-9a-f]{64}$/.test(e['sha256'])) fail(`files.${name}.sha256 must be 64 hex digits`);
  }

  if (!Array.isArray(m['tiers']) || m['tiers'].length !== 2) return fail('tiers must list the dram and cxl tiers');
  let next = 0;
  m['tiers'].forEach((raw, i) => {
    const t = object(raw, `tiers[${i}]`);
    if (t['index'] !== i) fail(`tiers[${i}].index must be ${i}`);
    if (t['kind'] !== TIER_KINDS[i]) fail(`tiers[${i}].kind must be "${TIER_KINDS[i]}"`);
    if (int(t['start'], `tiers[${i}].start`, 0, count) !== next) fail(`tiers[${i}].start must be ${next} (tiers tile the node ids)`);
    next = int(t['end'], `tiers[${i}].end`, next, count);
    int(t['bytes'], `tiers[${i}].bytes`);
    const name = fileName(t['file'], `tiers[${i}].file`);
    if (!(name in files)) fail(`tiers[${i}].file ${JSON.stringify(name)} is not listed in files`);
  });
  if (next !== count) fail(`tiers end at node ${next}, the index has ${count}`);
  return m as unknown as Manifest;
}
