// A base's points by id: each label finds its node, and live ids come in ascending order from any
// starting id, as many as asked; the lookup can be made ready a step at a time.
import { beforeAll, describe, expect, it } from 'vitest';
import { BaseLookup, liveIdsFrom } from '../../engine/base-lookup.js';
import { buildSmallIndex, type SmallIndex } from '../helpers/small-index.js';

let small: SmallIndex;

beforeAll(() => {
  small = buildSmallIndex({ count: 300, queries: 1 });
});

describe('base lookup', () => {
  it('finds the node of every label, and none for an id the base does not hold', () => {
    const lookup = new BaseLookup(small.index);
    const labels = small.index.labels;
    for (let n = 0; n < labels.length; n++) expect(lookup.node(labels[n]!)).toBe(n);
    expect(lookup.node(Math.max(...labels) + 1)).toBeUndefined();
  });

  it('is made ready a step of labels at a time, then finds every node and orders every label', () => {
    const lookup = new BaseLookup(small.index);
    const labels = small.index.labels;
    let steps = 0;
    for (const _ of lookup.warmSteps(64)) steps++;
    expect(steps).toBe(Math.floor(labels.length / 64));
    for (let n = 0; n < labels.length; n++) expect(lookup.node(labels[n]!)).toBe(n);
    const order = Array.from(lookup.order());
    expect(order.map((n) => labels[n]!)).toEqual(Array.from(labels).sort((a, b) => a - b));
  });

  it('lists the ids in ascending order from a starting id, at most as many as asked', () => {
    const lookup = new BaseLookup(small.index);
    const sorted = Array.from(small.index.labels).sort((a, b) => a - b);
    const from = sorted[100]!;
    expect(liveIdsFrom(lookup, null, from, 10)).toEqual(sorted.slice(100, 110));
    expect(liveIdsFrom(lookup, null, Number.NEGATIVE_INFINITY, sorted.length + 5)).toEqual(sorted);
    expect(liveIdsFrom(null, null, Number.NEGATIVE_INFINITY, 10)).toEqual([]);
  });
});
