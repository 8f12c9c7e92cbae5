// The gRPC messages' JSON text fields (`payload_json`, `filter_json`): Qdrant's JSON shapes carried as
// text, read here into the value the REST body would hold, so both protocols share one parser.
import { invalidArgument } from '../../common/errors.js';

/** The value of a JSON text field; null when the field is empty (proto3's "not set"). */
export function jsonText(text: string, field: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw invalidArgument(field, `is not JSON: ${e instanceof Error ? e.message.slice(0, 80) : 'cannot parse'}`);
  }
}

/**
 * A write's `ids` or `filter_json` as the REST body's `points` or `filter`: a filter with no ids
 * selects by the filter; ids and a filter both go on, for the body's parser to refuse.
 */
export function selectorMembers(m: { ids: number[]; filter_json: string }): { points?: number[]; filter?: unknown } {
  const filter = filterMember(m);
  return filter.filter !== undefined && m.ids.length === 0 ? filter : { points: m.ids, ...filter };
}

/** A message's `filter_json` as the REST body's `filter` member (none when empty). */
export function filterMember(m: { filter_json?: string }): { filter?: unknown } {
  const f = jsonText(m.filter_json ?? '', 'filter_json');
  return f === null ? {} : { filter: f };
}
