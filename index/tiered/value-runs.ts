// Value runs: the traversal records (codes) of one filter value's nodes, copied side by side into
// the fused region, so that the fused scan of a filter on that value reads one stream instead of one
// scattered row per match (index/kernels/scan.as.ts scores runs first). A scattered code row costs
// the scan about twice a contiguous one: the row is a cache miss, the arithmetic is not the bound.
//
// The planner gives runs a share of the DRAM budget when the base has indexed values worth a run
// (the manifest's plan.runBytes); the area is reserved in the region when the base opens, and filled
// on the main thread the first time a filter asks for a value, a run at a time, until it is full.
// A run lives as long as its base. Runs are copies taken at that moment: the scan
// checks each run node against the query's bitset and scores the matches no run held afterwards,
// so a payload written since can only cost speed, never an answer.

/** Runs one lane's scan can take (its descriptor room, fused-region.ts). */
export const RUNS_PER_SCAN = 16;
/** Below this many nodes a value's scattered rows cost less than the copy's upkeep is worth. */
export const RUN_MIN_NODES = 1024;
/** Above this share of the base a value's filter is walked, not scanned (engine/filter-plan.ts). */
export const RUN_MAX_SHARE = 0.25;
/**
 * A code the scan reads from a run, in codes read where they lie: what the planner weighs a covered
 * filter's scan by (engine/filter-plan.ts). Measured with the filtered bench's --runs-off and the
 * scan micro-measures of docs/benchmarks-filtered.md.
 */
export const RUN_CODE_COST = 0.5;

/** Most of the DRAM budget the planner gives runs (index/placement/planner.ts), before hot lists. */
export const RUN_BUDGET_SHARE = 0.1;

/** One run in the region: its records, then its nodes (u32, ascending), `rows` of each. */
export interface ValueRun {
  readonly codesAt: number;
  readonly idsAt: number;
  readonly rows: number;
}

/** The values worth a run (their points each), for a base of `count` nodes whose indexed values hold `valueCounts` points each. */
export function runValues(valueCounts: Iterable<number>, count: number): number[] {
  const out: number[] = [];
  for (const c of valueCounts) if (c >= RUN_MIN_NODES && c <= RUN_MAX_SHARE * count) out.push(c);
  return out;
}

/**
 * Bytes to reserve for runs of `values` within `cap`: the largest values' runs first, each whole
 * (a run takes its value's every code or none, so bytes less than the smallest run serve nothing).
 */
export function reservedRunBytes(values: readonly number[], stride: number, cap: number): number {
  let bytes = 0;
  for (const v of [...values].sort((a, b) => b - a)) {
    const b = runBytes(v, stride);
    if (bytes + b <= cap) bytes += b;
  }
  return bytes;
}

/** Bytes a run of `rows` records of `stride` bytes takes in the area (records, then ids, each 64-aligned). */
export function runBytes(rows: number, stride: number): number {
  return align(rows * stride, 64) + align(4 * rows, 64);
}

const align = (x: number, a: number): number => Math.ceil(x / a) * a;

/** The runs of one base, in its fused region's area: placed once per key, kept until the base goes. */
export class ValueRuns {
  private used = 0;
  private readonly runs = new Map<string, ValueRun | null>();

  /**
   * @param region the fused region's bytes
   * @param at the area's byte offset, after every segment (a run is read as rows from its own address)
   * @param capacity the area's bytes
   * @param recordsAt byte offset of node 0's record in the one DRAM segment the scan reads
   * @param stride bytes per record
   */
  constructor(
    private readonly region: Uint8Array,
    private readonly at: number,
    private readonly capacity: number,
    private readonly recordsAt: number,
    private readonly stride: number,
  ) {}

  /** Bytes the runs placed so far take. */
  get bytes(): number {
    return this.used;
  }

  get count(): number {
    let n = 0;
    for (const r of this.runs.values()) if (r !== null) n++;
    return n;
  }

  /**
   * The run of `key`, placing it from `nodes()` (ascending base nodes) the first time; null when the
   * value has too few nodes to gain, or the area has no room left (asked once: the answer stays).
   */
  runOf(key: string, nodes: () => Uint32Array | null): ValueRun | null {
    const known = this.runs.get(key);
    if (known !== undefined) return known;
    const ids = nodes();
    const run = ids !== null && ids.length >= RUN_MIN_NODES ? this.place(ids) : null;
    this.runs.set(key, run);
    return run;
  }

  private place(nodes: Uint32Array): ValueRun | null {
    const n = nodes.length;
    const s = this.stride;
    const codes = align(n * s, 64);
    const need = runBytes(n, s);
    if (this.used + need > this.capacity) return null;
    const codesAt = this.at + this.used;
    const idsAt = codesAt + codes;
    const r = this.region;
    for (let i = 0; i < n; i++) {
      const from = this.recordsAt + nodes[i]! * s;
      r.copyWithin(codesAt + i * s, from, from + s);
    }
    new Uint32Array(r.buffer, idsAt, n).set(nodes);
    this.used += need;
    return { codesAt, idsAt, rows: n };
  }
}
