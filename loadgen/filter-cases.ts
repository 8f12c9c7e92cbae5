// `--filters <file>`: the filter families a filtered run measures (datasets/' FilterCases, as the
// filtered sets write filters.json): per family a filter for each query (`filters`), or one for all
// (`filter`; null: no filter, the unfiltered baseline beside the filtered families). Every filter is
// parsed by Qdrant's rules here, before any load, so a bad one is refused naming the family and query.
import { readFileSync } from 'node:fs';
import { errorMessage, invalidArgument, type StrataError } from '../common/errors.js';
import { FILTER_CASES_SCHEMA, type FieldSpecs, type FilterJson } from '../datasets/index.js';
import type { Filter } from '../index/filter/ast.js';
import { parseFilter } from '../index/filter/parse.js';

export interface FilterFamilyCase {
  name: string;
  kind: string;
  /** Per query: the filter as sent (REST JSON) and as parsed; null: no filter. */
  json: ReadonlyArray<FilterJson | null>;
  parsed: ReadonlyArray<Filter | null>;
}

export interface LoadedFilterCases {
  file: string;
  fields: FieldSpecs;
  families: FilterFamilyCase[];
}

/** The unfiltered family `--unfiltered` puts first. */
export const UNFILTERED = 'unfiltered';

const bad = (file: string, where: string, message: string): StrataError =>
  invalidArgument('--filters', `${file}: ${where}${where === '' ? '' : ': '}${message}`, { file });

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reads and checks a cases file for `queries` queries (a family's per-query list may be longer: the first ones are used). */
export function readFilterCases(file: string, queries: number, unfiltered = false): LoadedFilterCases {
  let v: unknown;
  try {
    v = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw bad(file, '', `not a readable JSON file (${errorMessage(e)})`);
  }
  if (!isObject(v) || v['schema'] !== FILTER_CASES_SCHEMA) throw bad(file, '', `expected {"schema": "${FILTER_CASES_SCHEMA}", "fields", "families"}`);
  if (!isObject(v['fields'])) throw bad(file, 'fields', 'must be an object of field specs');
  const raw = v['families'];
  if (!Array.isArray(raw) || raw.length === 0) throw bad(file, 'families', 'must be a non-empty list');
  const families: FilterFamilyCase[] = [];
  if (unfiltered) families.push({ name: UNFILTERED, kind: 'none', json: new Array(queries).fill(null), parsed: new Array(queries).fill(null) });
  const names = new Set(families.map((f) => f.name));
  for (const [i, fam] of raw.entries()) {
    const at = `families[${i}]`;
    if (!isObject(fam) || typeof fam['name'] !== 'string' || fam['name'] === '') throw bad(file, at, 'needs a "name"');
    const name = fam['name'];
    if (names.has(name)) throw bad(file, at, `the name "${name}" is used twice`);
    names.add(name);
    let json: Array<FilterJson | null>;
    if ('filters' in fam && 'filter' in fam) throw bad(file, at, 'give "filters" (one per query) or "filter" (one for all), not both');
    if (Array.isArray(fam['filters'])) {
      if (fam['filters'].length < queries) throw bad(file, `${at}.filters`, `${fam['filters'].length} filters for ${queries} queries`);
      json = fam['filters'].slice(0, queries) as Array<FilterJson | null>;
    } else if ('filter' in fam) json = new Array(queries).fill(fam['filter'] as FilterJson | null);
    else throw bad(file, at, 'needs "filters" (one per query) or "filter" (one for all)');
    const parsed = json.map((f, q) => {
      if (f === null) return null;
      try {
        return parseFilter(f, `${at}.filters[${q}]`);
      } catch (e) {
        throw bad(file, `family "${name}"`, errorMessage(e));
      }
    });
    families.push({ name, kind: typeof fam['kind'] === 'string' ? fam['kind'] : 'custom', json, parsed });
  }
  return { file, fields: v['fields'] as FieldSpecs, families };
}
