// Which filter-link blocks (blocks.ts) hold every point a filter matches: a value's block for a
// match on it (every value of a `match.any`), the blocks of a numeric field's range that a range or
// value falls in, or clauses built of those (cover.ts does the same for value runs). The cover may
// hold more than the filter; the walk admits only matches to the answer.
import type { Bounds, Condition, Filter } from '../filter/ast.js';
import type { LinkBlockEntry } from './filter-links.js';

/** Block indexes and their points, or null where some match may lie outside every block. */
export interface LinkCover {
  readonly blocks: readonly number[];
  readonly points: number;
}

/** The cover with the fewest points, or null. */
export function linkCover(filter: Filter, blocks: readonly LinkBlockEntry[]): LinkCover | null {
  let best: LinkCover | null = null;
  for (const c of filter.must ?? []) {
    const cover = coverOfCondition(c, blocks);
    if (cover !== null && (best === null || cover.points < best.points)) best = cover;
  }
  if (best !== null) return best;
  const some = filter.min_should;
  const all = (filter.should?.length ?? 0) > 0 ? filter.should! : some !== undefined && some.min_count >= 1 ? some.conditions : [];
  if (all.length === 0) return null;
  const union = new Set<number>();
  for (const c of all) {
    const cover = coverOfCondition(c, blocks);
    if (cover === null) return null;
    for (const b of cover.blocks) union.add(b);
  }
  return coverOf([...union], blocks);
}

function coverOf(ids: number[], blocks: readonly LinkBlockEntry[]): LinkCover {
  ids.sort((a, b) => a - b);
  return { blocks: ids, points: ids.reduce((a, b) => a + blocks[b]!.count, 0) };
}

function coverOfCondition(c: Condition, blocks: readonly LinkBlockEntry[]): LinkCover | null {
  switch (c.kind) {
    case 'match_value':
      return typeof c.value === 'number' ? rangeCover(c.key.text, { gte: c.value, lte: c.value }, blocks) : valuesCover(c.key.text, [c.value], blocks);
    case 'match_any':
      return c.any.type === 'strings' ? valuesCover(c.key.text, c.any.values, blocks) : null;
    case 'range':
      return rangeCover(c.key.text, c.range, blocks);
    case 'filter':
      return linkCover(c.filter, blocks);
    default:
      return null;
  }
}

function valuesCover(field: string, values: readonly (string | boolean)[], blocks: readonly LinkBlockEntry[]): LinkCover | null {
  const ids: number[] = [];
  for (const v of values) {
    const at = blocks.findIndex((e) => e.block.kind === 'value' && e.block.field === field && e.block.value === v);
    if (at < 0) return null;
    if (!ids.includes(at)) ids.push(at);
  }
  return coverOf(ids, blocks);
}

/**
 * The field's range blocks the bounds meet: every indexed point of a numeric field is in one of
 * them (blocks.ts), so those meeting the bounds hold every match. None: the field has no blocks.
 */
function rangeCover(field: string, b: Bounds<number>, blocks: readonly LinkBlockEntry[]): LinkCover | null {
  const ids: number[] = [];
  let any = false;
  blocks.forEach((e, i) => {
    const k = e.block;
    if (k.kind !== 'range' || k.field !== field) return;
    any = true;
    const above = (b.gt !== undefined && k.lte <= b.gt) || (b.gte !== undefined && k.lte < b.gte);
    const below = (b.lt !== undefined && k.gte >= b.lt) || (b.lte !== undefined && k.gte > b.lte);
    if (!above && !below) ids.push(i);
  });
  return any ? coverOf(ids, blocks) : null;
}
