// A base index's points by id: the node of a label, and the labels in ascending order for scrolls.
// Built lazily, once per base (a base is immutable; a compaction brings a new one).
import type { TieredIndex } from '../index/tiered/tiered-index.js';
import type { LiveStore } from '../storage/live-store.js';
import { IdMap } from '../common/id-map.js';
import { lowerBound } from '../common/lower-bound.js';
import { stepsInOneTurn } from '../common/turns.js';
import { sortPairs } from '../index/payload-index/pair-sort.js';
import { ID_BANDS } from '../storage/point-ids.js';

/** Labels a warm-up (BaseLookup.warmSteps) maps between two yields. */
const WARM_STEP_LABELS = 65_536;

export class BaseLookup {
  /** Label → node in typed arrays (a Map would hold an entry a point on the V8 heap). */
  private byLabel: IdMap | null = null;
  private sorted: Int32Array | null = null;

  constructor(readonly index: TieredIndex) {}

  /** The node holding label `id` (hidden or not), or undefined. */
  node(id: number): number | undefined {
    if (this.byLabel === null) this.byLabel = stepsInOneTurn(this.mapSteps());
    return this.byLabel.get(id);
  }

  /**
   * Makes the label map ready a step at a time, so that a base swapped in or restored while the
   * server serves does not build it in one step at its first lookup (the swap makes one). The label
   * order stays for a scroll's first ask: only scrolls need it.
   */
  *warmSteps(labelsPerStep = WARM_STEP_LABELS): Generator<void, void, void> {
    if (this.byLabel === null) this.byLabel = yield* this.mapSteps(labelsPerStep);
  }

  private *mapSteps(labelsPerStep = WARM_STEP_LABELS): Generator<void, IdMap, void> {
    const m = new IdMap(this.index.labels.length, ID_BANDS);
    const labels = this.index.labels;
    for (let i = 0; i < labels.length; i++) {
      m.set(labels[i]!, i);
      if ((i + 1) % labelsPerStep === 0) yield;
    }
    return m;
  }

  /** The node numbers in ascending label order (a stable radix sort: index/payload-index/pair-sort.ts). */
  order(): Int32Array {
    if (this.sorted === null) {
      const labels = Float64Array.from(this.index.labels);
      const nodes = Uint32Array.from({ length: labels.length }, (_, i) => i);
      sortPairs(labels, nodes);
      this.sorted = new Int32Array(nodes.buffer, nodes.byteOffset, nodes.length);
    }
    return this.sorted;
  }
}

/**
 * Up to `n` live ids in ascending order from `from` on: the base's unhidden ones and the fresh ones
 * (a base id with a fresh copy is hidden, so the two never hold the same live id).
 */
export function liveIdsFrom(base: BaseLookup | null, live: LiveStore | null, from: number, n: number): number[] {
  const fresh = live ? live.fresh.ids() : [];
  const labels = base?.index.labels ?? null;
  const order = base?.order() ?? new Int32Array(0);
  let f = lowerBound(fresh.length, (i) => fresh[i]!, from);
  let b = labels === null ? 0 : lowerBound(order.length, (i) => labels[order[i]!]!, from);
  const ids: number[] = [];
  while (ids.length < n) {
    let bi = Number.POSITIVE_INFINITY;
    while (labels !== null && b < order.length) {
      const id = labels[order[b]!]!;
      if (live === null || live.baseLive(id)) {
        bi = id;
        break;
      }
      b++;
    }
    const fi = f < fresh.length ? fresh[f]! : Number.POSITIVE_INFINITY;
    if (bi === Number.POSITIVE_INFINITY && fi === Number.POSITIVE_INFINITY) break;
    if (bi < fi) {
      ids.push(bi);
      b++;
    } else {
      ids.push(fi);
      f++;
    }
  }
  return ids;
}
