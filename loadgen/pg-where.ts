// Qdrant filters as SQL for the pgvector side of the filtered benchmark: a payload field is a column
// of the table (datasets/' FieldSpec gives its type: keyword text, integer bigint, float double
// precision, bool boolean, an array of any of them), and a parsed filter (index/filter's AST) becomes
// a WHERE expression over those columns with Qdrant's semantics. It translates what the benchmark's
// families use (match value / any / except, range, is_empty, has_id, must / should / must_not /
// min_should, nested clauses) and refuses anything else naming the condition, rather than send SQL
// that means something else. The one home of the column types, so the table loader uses them too.
import { invalidArgument } from '../common/errors.js';
import type { FieldSpec, FieldSpecs } from '../datasets/index.js';
import type { Bounds, Condition, Filter, ValueList } from '../index/filter/ast.js';
import type { KeyPath } from '../index/filter/key-path.js';

const SCALAR_TYPE: Readonly<Record<FieldSpec['type'], string>> = { keyword: 'text', integer: 'bigint', float: 'double precision', bool: 'boolean' };

/** The column's SQL type. */
export const pgColumnType = (f: FieldSpec): string => `${SCALAR_TYPE[f.type]}${f.array ? '[]' : ''}`;

/** An SQL identifier, quoted. */
export const pgIdent = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/** A string literal (standard_conforming_strings, PostgreSQL's default: only ' is doubled). */
export const pgString = (s: string): string => {
  if (s.includes('\0')) throw invalidArgument('filter', 'a string with a NUL character has no SQL literal');
  return `'${s.replace(/'/g, "''")}'`;
};

function scalarLiteral(v: unknown, f: FieldSpec, at: string): string {
  switch (f.type) {
    case 'keyword':
      if (typeof v === 'string') return pgString(v);
      break;
    case 'integer':
      if (typeof v === 'number' && Number.isSafeInteger(v)) return String(v);
      break;
    case 'float':
      if (typeof v === 'number' && Number.isFinite(v)) return String(v);
      break;
    case 'bool':
      if (typeof v === 'boolean') return v ? 'TRUE' : 'FALSE';
      break;
  }
  throw invalidArgument(at, `${JSON.stringify(v)} is not a ${f.type} value`);
}

/** A payload value as a column literal; a missing value (undefined or null) is NULL. */
export function pgLiteral(v: unknown, f: FieldSpec, at: string): string {
  if (v === undefined || v === null) return 'NULL';
  if (!f.array) return scalarLiteral(v, f, at);
  if (!Array.isArray(v)) throw invalidArgument(at, `${JSON.stringify(v)} is not a list of ${f.type} values`);
  return `ARRAY[${v.map((x, i) => scalarLiteral(x, f, `${at}[${i}]`)).join(',')}]::${pgColumnType(f)}`;
}

export interface WhereContext {
  fields: FieldSpecs;
  /** The primary key column (has_id). */
  idColumn: string;
}

function column(key: KeyPath, ctx: WhereContext, at: string): { sql: string; spec: FieldSpec } {
  const step = key.steps[0];
  const spec = key.steps.length === 1 && step?.kind === 'key' ? ctx.fields[step.name] : undefined;
  if (spec === undefined || step?.kind !== 'key')
    throw invalidArgument(`${at}.key`, `"${key.text}" is not a column of the table (columns: ${Object.keys(ctx.fields).join(', ')})`);
  return { sql: pgIdent(step.name), spec };
}

/**
 * Whether a test value can equal a column's values: Qdrant never coerces types, so a string never
 * equals an integer column's value, and (the column holding one type) such a test is decided in SQL
 * as a constant.
 */
const fits = (v: string | number | boolean, spec: FieldSpec): boolean =>
  spec.type === 'keyword' ? typeof v === 'string' : spec.type === 'bool' ? typeof v === 'boolean' : typeof v === 'number' && Number.isInteger(v);
const listFits = (l: ValueList, spec: FieldSpec): boolean =>
  l.type === 'strings' ? spec.type === 'keyword' : spec.type === 'integer' || spec.type === 'float';
/** A value is there: a scalar column's is not NULL, an array column's has an element. */
const present = (col: string, spec: FieldSpec): string => (spec.array ? `coalesce(cardinality(${col}), 0) > 0` : `${col} IS NOT NULL`);

const list = (values: ValueList, spec: FieldSpec, at: string): string =>
  `ARRAY[${values.values.map((v, i) => scalarLiteral(v, { type: spec.type }, `${at}[${i}]`)).join(',')}]::${SCALAR_TYPE[spec.type]}[]`;

function rangeSql(subject: string, b: Bounds<number>, at: string): string {
  const parts: string[] = [];
  const num = (v: number): string => scalarLiteral(v, { type: 'float' }, at);
  if (b.gt !== undefined) parts.push(`${subject} > ${num(b.gt)}`);
  if (b.gte !== undefined) parts.push(`${subject} >= ${num(b.gte)}`);
  if (b.lt !== undefined) parts.push(`${subject} < ${num(b.lt)}`);
  if (b.lte !== undefined) parts.push(`${subject} <= ${num(b.lte)}`);
  // `range: {}` takes any number: the value must be there.
  return parts.length === 0 ? `${subject} IS NOT NULL` : parts.join(' AND ');
}

/** An array column matches when one element does (Qdrant's flattening). */
const anyElement = (col: string, test: (e: string) => string): string => `EXISTS (SELECT 1 FROM unnest(${col}) AS e WHERE ${test('e')})`;

function conditionSql(c: Condition, ctx: WhereContext, at: string): string {
  switch (c.kind) {
    case 'match_value': {
      const { sql, spec } = column(c.key, ctx, at);
      if (!fits(c.value, spec)) return 'FALSE';
      const lit = scalarLiteral(c.value, { type: spec.type }, `${at}.match.value`);
      return spec.array ? `${sql} @> ARRAY[${lit}]::${pgColumnType(spec)}` : `${sql} = ${lit}`;
    }
    case 'match_any': {
      const { sql, spec } = column(c.key, ctx, at);
      if (!listFits(c.any, spec) || c.any.values.length === 0) return 'FALSE';
      const arr = list(c.any, spec, `${at}.match.any`);
      return spec.array ? `${sql} && ${arr}` : `${sql} = ANY(${arr})`;
    }
    case 'match_except': {
      const { sql, spec } = column(c.key, ctx, at);
      // Any value of another type is not in the list; so is every value when the list is empty.
      if (!listFits(c.except, spec) || c.except.values.length === 0) return present(sql, spec);
      const arr = list(c.except, spec, `${at}.match.except`);
      return spec.array ? anyElement(sql, (e) => `${e} <> ALL(${arr})`) : `${sql} <> ALL(${arr})`;
    }
    case 'range': {
      const { sql, spec } = column(c.key, ctx, at);
      if (spec.type !== 'integer' && spec.type !== 'float') return 'FALSE';
      return spec.array ? anyElement(sql, (e) => rangeSql(e, c.range, `${at}.range`)) : `(${rangeSql(sql, c.range, `${at}.range`)})`;
    }
    case 'is_empty': {
      const { sql, spec } = column(c.key, ctx, at);
      return spec.array ? `coalesce(cardinality(${sql}), 0) = 0` : `${sql} IS NULL`;
    }
    case 'has_id': {
      for (const id of c.ids) if (typeof id !== 'number') throw invalidArgument(`${at}.has_id`, 'the table has integer ids only');
      return c.ids.length === 0 ? 'FALSE' : `${pgIdent(ctx.idColumn)} = ANY(ARRAY[${c.ids.join(',')}]::bigint[])`;
    }
    case 'filter':
      return filterSql(c.filter, ctx, at);
    default:
      throw invalidArgument(at, `the pgvector side cannot translate a ${c.kind} condition`);
  }
}

/**
 * NULL (a missing value) is false for AND and OR as Qdrant's missing field is, but NOT NULL is NULL:
 * a negated or counted condition is made two-valued first.
 */
const definite = (sql: string): string => `coalesce((${sql}), FALSE)`;

/** A parsed filter as a WHERE expression (`at` names it in refusals: `filter`, `filters[3]`). */
export function filterSql(f: Filter, ctx: WhereContext, at = 'filter'): string {
  const parts: string[] = [];
  const each = (cs: readonly Condition[], clause: string): string[] => cs.map((c, i) => conditionSql(c, ctx, `${at}.${clause}[${i}]`));
  if (f.must !== undefined) parts.push(...each(f.must, 'must').map((s) => `(${s})`));
  if (f.should !== undefined) {
    const s = each(f.should, 'should');
    parts.push(s.length === 0 ? 'FALSE' : `(${s.map((x) => `(${x})`).join(' OR ')})`);
  }
  if (f.must_not !== undefined) parts.push(...each(f.must_not, 'must_not').map((s) => `NOT ${definite(s)}`));
  if (f.min_should !== undefined) {
    const s = f.min_should.conditions.map((c, i) => `${definite(conditionSql(c, ctx, `${at}.min_should.conditions[${i}]`))}::int`);
    parts.push(s.length === 0 ? (f.min_should.min_count <= 0 ? 'TRUE' : 'FALSE') : `(${s.join(' + ')}) >= ${f.min_should.min_count}`);
  }
  return parts.length === 0 ? 'TRUE' : parts.join(' AND ');
}
