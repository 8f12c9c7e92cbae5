// A base index's points by id: the node of a label, and the labels in ascending order for scrolls.
// Built lazily, once per base (a base is immutable; a compaction brings a new one).
import type { TieredIndex } from '../index/tiered/tiered-index.js';
import type { LiveStore } from '../storage/live-store.js';
import { lowerBound } from '../common/lower-bound.js';

export class BaseLookup {
  private byLabel: Map<number, number> | null = null;
  private sorted: Int32Array | null = null;

  constructor(readonly index: TieredIndex) {}

  /** The node holding label `id` (hidden or not), or undefined. */
  node(id: number): number | undefined {
    if (this.byLabel === null) {
      const m = new Map<number, number>();
      const labels = this.index.labels;
      for (let i = 0; i < labels.length; i++) m.set(labels[i]!, i);
      this.byLabel = m;
    }
    return this.byLabel.get(id);
  }

  /** The node numbers in ascending label order. */
  order(): Int32Array {
    if (this.sorted === null) {
      const labels = this.index.labels;
      this.sorted = Int32Array.from({ length: labels.length }, (_, i) => i).sort((a, b) => labels[a]! - labels[b]!);
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
