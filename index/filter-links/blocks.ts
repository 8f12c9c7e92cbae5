// Which points get filter links of their own: the blocks of a payload index that a filter can be
// covered by. A keyword or bool value with enough points is a block; an integer or float index is
// cut, in value order, into RANGE_BLOCKS blocks of about equal size (equal values in one block), so
// that every indexed point is in a block of each numeric field. Each block's points are linked among
// themselves at build (build-links.ts), and a filter whose matches the blocks cover is walked on
// matches alone (link-cover.ts, index/search/traversal.ts).
import type { FacetValue } from '../payload-index/field-index.js';
import type { FieldIndexes } from '../payload-index/field-indexes.js';
import { FloatIndex } from '../payload-index/float-index.js';
import { IntegerIndex } from '../payload-index/integer-index.js';
import { bitsOf, forEachBit } from '../payload-index/dense-bits.js';
import { parseKeyPath } from '../filter/key-path.js';
import { stepsInOneTurn } from '../../common/turns.js';

/** A block's points share a value, or a value range of a numeric field (both bounds inclusive). */
export type LinkBlock =
  | { readonly kind: 'value'; readonly field: string; readonly value: string | boolean }
  | { readonly kind: 'range'; readonly field: string; readonly gte: number; readonly lte: number };

/** Fewest points a block may have: a smaller value is scanned faster than its links would walk. */
export const LINK_MIN_POINTS = 1024;

/** Blocks a numeric field is cut into. */
export const RANGE_BLOCKS = 8;

/** Words of a value's bitset (32 rows each) mapped to build positions between two yields. */
const STEP_WORDS = 8192;

/** A block and its points as build positions (the rows of the vectors being indexed), ascending. */
export interface BlockRows {
  readonly block: LinkBlock;
  readonly rows: Uint32Array;
}

/**
 * The blocks of every keyword, bool, integer and float index in `indexes`, over build positions:
 * `positionOf` maps an index row to its position among the `positions` being built, or -1 (a point
 * not in this build). A block needs LINK_MIN_POINTS points and fewer than all of them.
 */
export function chooseBlocks(indexes: FieldIndexes, positionOf: (row: number) => number, positions: number): BlockRows[] {
  return stepsInOneTurn(chooseBlockSteps(indexes, positionOf, positions));
}

/**
 * chooseBlocks, yielding within and between fields and keyword values (a serving compaction's cut
 * runs it over turns of the event loop: each block is made from the index as it stood at its first
 * step).
 */
export function* chooseBlockSteps(indexes: FieldIndexes, positionOf: (row: number) => number, positions: number): Generator<void, BlockRows[], void> {
  const out: BlockRows[] = [];
  for (const [field, index] of indexes.entries()) {
    if (index instanceof IntegerIndex || index instanceof FloatIndex) {
      // The pairs sorted afresh if writes left them so, a pass a step (cut in the next: a write
      // meanwhile is merged in when they are read again).
      yield* index.orderSteps();
      yield;
      // All or none: a range is covered only by blocks holding every point of the field.
      const blocks = yield* rangeBlockSteps(field, index, positionOf);
      if (blocks.length > 1) out.push(...blocks);
      yield;
      continue;
    }
    if (index.schema !== 'keyword' && index.schema !== 'bool') continue;
    const key = parseKeyPath(field, 'field');
    for (const [value] of index.facet?.(null) ?? []) {
      if (typeof value === 'number') continue;
      const answer = indexes.query({ must: [{ kind: 'match_value', key, value }] });
      if (answer.residual !== undefined) continue;
      const bits = bitsOf(answer.bitmap, 0);
      const rows = new Uint32Array(answer.bitmap.size);
      let n = 0;
      for (let w = 0; w < bits.length; w += STEP_WORDS) {
        forEachBit(bits.subarray(w, w + STEP_WORDS), (bit) => {
          const p = positionOf((w << 5) + bit);
          if (p >= 0) rows[n++] = p;
        });
        yield;
      }
      if (n >= LINK_MIN_POINTS && n < positions) out.push({ block: valueBlock(field, value), rows: rows.slice(0, n).sort() });
      yield;
    }
  }
  return out;
}

const valueBlock = (field: string, value: FacetValue): LinkBlock => ({ kind: 'value', field, value: value as string | boolean });

/**
 * A numeric index's points in value order, cut at about every 1/RANGE_BLOCKS of them (at least
 * LINK_MIN_POINTS), never between equal values; a short last block joins the one before. Each
 * block's positions ascending, each once (a point may hold several values in one block).
 */
function* rangeBlockSteps(field: string, index: IntegerIndex | FloatIndex, positionOf: (row: number) => number): Generator<void, BlockRows[], void> {
  // The pairs of points in the build, each one's value and position, copied in one step: the
  // index's arrays may change under a write between two steps.
  const pairs = index.ordered({});
  const keys = new Float64Array(pairs.to - pairs.from);
  const at = new Uint32Array(keys.length);
  let n = 0;
  for (let i = pairs.from; i < pairs.to; i++) {
    const p = positionOf(pairs.ids[i]!);
    if (p < 0) continue;
    keys[n] = pairs.keys[i]!;
    at[n++] = p;
  }
  yield;
  const blocks: BlockRows[] = [];
  const size = Math.max(LINK_MIN_POINTS, Math.ceil(n / RANGE_BLOCKS));
  let start = 0;
  while (start < n) {
    let end = Math.min(n, start + size);
    while (end < n && keys[end] === keys[end - 1]) end++;
    if (n - end < size / 2) end = n;
    const rows = at.slice(start, end).sort();
    let unique = 0;
    for (let j = 0; j < rows.length; j++) if (j === 0 || rows[j] !== rows[j - 1]) rows[unique++] = rows[j]!;
    blocks.push({ block: { kind: 'range', field, gte: keys[start]!, lte: keys[end - 1]! }, rows: rows.slice(0, unique) });
    start = end;
    yield;
  }
  return blocks;
}
