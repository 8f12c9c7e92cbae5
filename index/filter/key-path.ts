// Qdrant's payload key paths (its JsonPath): `a.b.c`, `a[].b` (every element of the array a), `a[0]`
// (one element), and `"key with.dots"` in double quotes for a key that is not only letters, digits,
// `_` and `-`. A quoted key cannot hold `"` or `\`: Qdrant has no escape either.
//
// Reading follows Qdrant exactly: a key step reads an object's member (a key on an array reads
// nothing: arrays are only entered with `[]` or `[i]`), `[]` enters every element, and the value at
// the end is returned as it is, an array included. A condition then matches an array value if one of
// its elements matches (evaluate.ts), which is the flattening Qdrant documents for array fields.
import { invalidArgument, quoted } from '../../common/errors.js';
import { FILTER_LIMITS } from './limits.js';

export type PathStep = { readonly kind: 'key'; readonly name: string } | { readonly kind: 'index'; readonly index: number } | { readonly kind: 'each' };

/** A parsed key path; `text` is its canonical spelling (what to-json.ts writes back). */
export interface KeyPath {
  readonly text: string;
  /** The first step is always a key. */
  readonly steps: readonly PathStep[];
}

const RAW_KEY = /^[\p{Alphabetic}\p{N}_-]+/u;
const QUOTED_KEY = /^"([^"\\]*)"/;
const INDEX = /^\[(\d+)\]/;

/** Parses a key path; a malformed one is STRATA_INVALID_ARGUMENT naming `field`. */
export function parseKeyPath(text: string, field: string): KeyPath {
  if (text.length > FILTER_LIMITS.maxStringLength) throw invalidArgument(field, `a key path is at most ${FILTER_LIMITS.maxStringLength} characters`);
  const steps: PathStep[] = [];
  let rest = text;
  const fail = (why: string): never => {
    throw invalidArgument(field, `${why} in key path ${quoted(text)} at character ${text.length - rest.length + 1}`);
  };
  const readKey = (): string => {
    const raw = RAW_KEY.exec(rest);
    if (raw) {
      rest = rest.slice(raw[0].length);
      return raw[0];
    }
    const q = QUOTED_KEY.exec(rest);
    if (q) {
      rest = rest.slice(q[0].length);
      return q[1]!;
    }
    return fail('expected a key (letters, digits, _ and -, or a "quoted key")');
  };
  steps.push({ kind: 'key', name: readKey() });
  while (rest.length > 0) {
    if (rest.startsWith('.')) {
      rest = rest.slice(1);
      steps.push({ kind: 'key', name: readKey() });
    } else if (rest.startsWith('[]')) {
      rest = rest.slice(2);
      steps.push({ kind: 'each' });
    } else {
      const m = INDEX.exec(rest);
      if (!m) fail('expected ".", "[]" or "[index]"');
      const index = Number(m![1]);
      if (!Number.isSafeInteger(index)) fail('array index too large');
      rest = rest.slice(m![0].length);
      steps.push({ kind: 'index', index });
    }
  }
  return { text: formatSteps(steps), steps };
}

/** The canonical spelling of a path: keys quoted only when they must be. */
export function formatSteps(steps: readonly PathStep[]): string {
  let out = '';
  for (const s of steps) {
    if (s.kind === 'key') {
      const k = RAW_KEY.exec(s.name)?.[0] === s.name ? s.name : `"${s.name}"`;
      out += out === '' ? k : `.${k}`;
    } else out += s.kind === 'each' ? '[]' : `[${s.index}]`;
  }
  return out;
}

/**
 * The path `nested` reads: Qdrant's nested condition is for arrays of objects, so it appends `[]`
 * when the path does not end with one ("diet" and "diet[]" are the same nested key).
 */
export function arrayPath(path: KeyPath): KeyPath {
  if (path.steps[path.steps.length - 1]?.kind === 'each') return path;
  const steps: PathStep[] = [...path.steps, { kind: 'each' }];
  return { text: formatSteps(steps), steps };
}

/** A compiled reader: all values at one path in a payload, in document order (empty when there are none). */
export type PathReader = (payload: unknown) => readonly unknown[];

const NONE: readonly unknown[] = Object.freeze([]);

function isObject(v: unknown): v is Readonly<Record<string, unknown>> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Own members only: a payload key named like an Object.prototype member is data, never a prototype lookup. */
function member(o: Readonly<Record<string, unknown>>, name: string): unknown {
  return Object.hasOwn(o, name) ? o[name] : undefined;
}

/**
 * A reader for a path that reaches at most one value (no `[]` step): the value, or undefined when
 * there is none. Undefined for a path with `[]`, which needs compileReader.
 */
export function compileSingleReader(path: KeyPath): ((payload: unknown) => unknown) | undefined {
  const steps = path.steps;
  if (steps.some((s) => s.kind === 'each')) return undefined;
  if (steps.length === 1) {
    const name = (steps[0] as { name: string }).name;
    return (payload) => (isObject(payload) ? member(payload, name) : undefined);
  }
  return (payload) => {
    let v: unknown = payload;
    for (const s of steps) {
      if (s.kind === 'key') {
        if (!isObject(v)) return undefined;
        v = member(v, s.name);
      } else {
        if (!Array.isArray(v)) return undefined;
        v = v[(s as { index: number }).index];
      }
    }
    return v;
  };
}

/** Compiles a reader for `path`. */
export function compileReader(path: KeyPath): PathReader {
  const single = compileSingleReader(path);
  if (single !== undefined) {
    return (payload) => {
      const v = single(payload);
      return v === undefined ? NONE : [v];
    };
  }
  const steps = path.steps;
  return (payload) => {
    const out: unknown[] = [];
    collect(steps, 0, payload, out);
    return out;
  };
}

function collect(steps: readonly PathStep[], at: number, v: unknown, out: unknown[]): void {
  if (v === undefined) return;
  const step = steps[at];
  if (step === undefined) {
    out.push(v);
    return;
  }
  if (step.kind === 'key') {
    if (isObject(v)) collect(steps, at + 1, member(v, step.name), out);
  } else if (Array.isArray(v)) {
    if (step.kind === 'index') collect(steps, at + 1, v[step.index], out);
    else for (const e of v) collect(steps, at + 1, e, out);
  }
}

/** All values at `path` in `payload` (compiles a reader each call: use compileReader in a loop). */
export function valuesAt(payload: unknown, path: KeyPath): readonly unknown[] {
  return compileReader(path)(payload);
}
