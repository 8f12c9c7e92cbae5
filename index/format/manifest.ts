// The manifest: what a reader needs before touching any data file, and the checksums it verifies.
import { StrataError } from '../../common/errors.js';
import type { Metric } from '../kernels/kernels.js';
import type { PlacementPolicy } from '../placement/placement.js';
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

export function checkManifest(raw: unknown, file: string): Manifest {
  const fail = (why: string): never => {
    throw new StrataError('STRATA_INDEX_CORRUPT', `${file}: invalid manifest: ${why}`, { file, reason: why });
  };
  if (typeof raw !== 'object' || raw === null) return fail('not a JSON object');
  const m = raw as Partial<Manifest>;
  if (m.format !== FORMAT_NAME) return fail(`format is ${JSON.stringify(m.format)}, expected "${FORMAT_NAME}"`);
  if (m.version !== FORMAT_VERSION) {
    throw new StrataError('STRATA_INDEX_VERSION', `${file}: format version ${String(m.version)}, this build reads version ${FORMAT_VERSION}`, {
      file,
      version: String(m.version),
    });
  }
  const int = (v: unknown, what: string, min = 0): number =>
    Number.isSafeInteger(v) && (v as number) >= min ? (v as number) : fail(`${what} must be an integer >= ${min}`);
  int(m.dim, 'dim', 1);
  int(m.count, 'count');
  if (m.metric !== 'l2' && m.metric !== 'ip' && m.metric !== 'cosine') fail(`metric ${JSON.stringify(m.metric)}`);
  if (!m.graph) return fail('graph section missing');
  int(m.graph.maxM0, 'graph.maxM0', 1);
  int(m.graph.maxM, 'graph.maxM', 1);
  int(m.graph.entry, 'graph.entry');
  int(m.graph.maxLevel, 'graph.maxLevel');
  if (!Array.isArray(m.tiers) || m.tiers.length !== 2) return fail('tiers must list the dram and cxl tiers');
  if (typeof m.files !== 'object' || m.files === null) return fail('files section missing');
  for (const [name, f] of Object.entries(m.files)) {
    if (!/^[a-z0-9.-]+$/.test(name)) fail(`file name ${JSON.stringify(name)}`);
    int(f.bytes, `files.${name}.bytes`);
    if (typeof f.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(f.sha256)) fail(`files.${name}.sha256`);
  }
  return m as Manifest;
}
