// Everything one step measures, fed one answer at a time by the run loop: latency histograms, error
// counts by status, the first answer to each query (for recall: the engine is deterministic, so
// repeats add nothing) and the sums of Strata's per-query cost. Latency is a request's (a batch is
// answered whole); answers and failures are counted in queries, so that QPS means queries.
import { allRequests, type QueryCost, type SearchAnswer } from './clients/types.js';
import { LatencyRecorder } from './latency.js';

export interface CostMeans {
  queries: number;
  hops: number;
  distanceComputations: number;
  accessesDram: number;
  accessesCxl: number;
  /** Share of all tier accesses served by DRAM (total DRAM accesses / total accesses). */
  dramShare: number;
  bytesDram: number;
  bytesCxl: number;
  modelledMemoryNs: number;
  modelledCxlExtraNs: number;
  injectedNs: number;
}

const COST_KEYS = [
  'hops',
  'distanceComputations',
  'accessesDram',
  'accessesCxl',
  'bytesDram',
  'bytesCxl',
  'modelledMemoryNs',
  'modelledCxlExtraNs',
  'injectedNs',
] as const satisfies ReadonlyArray<keyof QueryCost>;

export class StepRecorder {
  /** Latency as the user sees it: from the intended send time (open loop) or the send (closed). */
  readonly latency = new LatencyRecorder();
  /** From the actual send to the answer; differs from `latency` only in the open loop. */
  readonly service = new LatencyRecorder();
  readonly errors = new Map<string, number>();
  /** Filtered searches' plans as the server reported them (answers with stats only). */
  readonly plans = new Map<string, number>();
  readonly firstIds: Array<Float64Array | undefined>;
  readonly firstScores: Array<Float64Array | undefined>;
  ok = 0;
  failed = 0;
  /** Transport failures since the last answer of any kind: the endpoint-down detector. */
  consecutiveTransportFailures = 0;
  private readonly costSum = new Float64Array(COST_KEYS.length);
  private costCount = 0;
  private readonly messages = new Map<string, string>();
  /** Each request's queries, mapped once per step as the clients map them (not per answer). */
  private readonly requests: number[][];

  constructor(
    queryCount: number,
    /** Queries per request. */
    private readonly batch = 1,
  ) {
    this.firstIds = new Array<Float64Array | undefined>(queryCount);
    this.firstScores = new Array<Float64Array | undefined>(queryCount);
    this.requests = allRequests(queryCount, batch);
  }

  /** The answer to request r (its queries: allRequests' r-th); intended and sent are the clock's milliseconds. */
  record(r: number, a: SearchAnswer, intendedMs: number, sentMs: number): void {
    if (!a.ok) {
      this.failed += this.batch;
      this.errors.set(a.status, (this.errors.get(a.status) ?? 0) + this.batch);
      if (!this.messages.has(a.status)) this.messages.set(a.status, a.message);
      this.consecutiveTransportFailures = a.transport ? this.consecutiveTransportFailures + 1 : 0;
      return;
    }
    this.consecutiveTransportFailures = 0;
    this.ok += a.answers.length;
    this.latency.record(a.at - intendedMs);
    this.service.record(a.at - sentMs);
    const qs = this.requests[r % this.requests.length]!;
    a.answers.forEach((answer, j) => {
      const q = qs[j]!;
      if (this.firstIds[q] === undefined) {
        this.firstIds[q] = answer.ids;
        this.firstScores[q] = answer.scores;
      }
      if (answer.plan !== undefined) this.plans.set(answer.plan, (this.plans.get(answer.plan) ?? 0) + 1);
      const cost = answer.cost;
      if (cost) {
        this.costCount++;
        COST_KEYS.forEach((key, i) => {
          this.costSum[i]! += cost[key];
        });
      }
    });
  }

  /** Requests that were never sent (open loop backlog left at the drain deadline). */
  recordUnsent(n: number): void {
    if (n <= 0) return;
    this.failed += n * this.batch;
    this.errors.set('client-backlog', (this.errors.get('client-backlog') ?? 0) + n * this.batch);
    if (!this.messages.has('client-backlog'))
      this.messages.set('client-backlog', 'due but never sent: the client had too many requests in flight until the step ended');
  }

  errorCounts(): Record<string, number> {
    return Object.fromEntries([...this.errors.entries()].sort((a, b) => b[1] - a[1]));
  }

  /** One example message per status, to tell a 429 from a 400 without the server log. */
  errorMessages(): Record<string, string> {
    return Object.fromEntries(this.messages);
  }

  costMeans(): CostMeans | null {
    if (this.costCount === 0) return null;
    const m = (key: (typeof COST_KEYS)[number]): number => this.costSum[COST_KEYS.indexOf(key)]! / this.costCount;
    const acc = m('accessesDram') + m('accessesCxl');
    return {
      queries: this.costCount,
      hops: m('hops'),
      distanceComputations: m('distanceComputations'),
      accessesDram: m('accessesDram'),
      accessesCxl: m('accessesCxl'),
      dramShare: acc > 0 ? m('accessesDram') / acc : 0,
      bytesDram: m('bytesDram'),
      bytesCxl: m('bytesCxl'),
      modelledMemoryNs: m('modelledMemoryNs'),
      modelledCxlExtraNs: m('modelledCxlExtraNs'),
      injectedNs: m('injectedNs'),
    };
  }

  destroy(): void {
    this.latency.destroy();
    this.service.destroy();
  }
}
