// with_payload selectors: `true` (all), `false` (none), a list of key paths or `{include}` (only
// those), `{exclude}` (all but those). A path is one of plain keys (`a.b`); one with `[]` or `[i]`
// is refused, as this store does not select inside arrays yet.
import { invalidArgument } from '../../common/errors.js';
import { parseKeyPath } from '../filter/key-path.js';
import { type Payload, type PayloadStore, setMember } from './store.js';

export type PayloadSelector = boolean | readonly string[] | { readonly include: readonly string[] } | { readonly exclude: readonly string[] };

/** Key paths as lists of keys; STRATA_INVALID_ARGUMENT naming `field` for an array step. */
export function selectorPaths(paths: readonly string[], field: string): string[][] {
  return paths.map((text, i) => {
    const p = parseKeyPath(text, `${field}[${i}]`);
    return p.steps.map((s) => {
      if (s.kind !== 'key') throw invalidArgument(`${field}[${i}]`, 'a payload selector takes plain keys only ([] and [i] are not supported)');
      return s.name;
    });
  });
}

function own(o: unknown, k: string): unknown {
  return typeof o === 'object' && o !== null && !Array.isArray(o) && Object.hasOwn(o, k) ? (o as Payload)[k] : undefined;
}

/** The payload of `id` as the selector asks (null for `false`). */
export function selectPayload(store: PayloadStore, id: number, selector: PayloadSelector = true): Payload | null {
  if (selector === true) return store.get(id);
  if (selector === false) return null;
  if (Array.isArray(selector) || 'include' in selector) {
    const list = Array.isArray(selector) ? (selector as readonly string[]) : (selector as { include: readonly string[] }).include;
    const paths = selectorPaths(list, 'with_payload.include');
    const full = store.get(id, new Set(paths.map((p) => p[0]!)));
    const out: Payload = {};
    for (const p of paths) {
      let v: unknown = full;
      for (const k of p) v = own(v, k);
      if (v === undefined) continue;
      let o = out;
      for (const k of p.slice(0, -1)) {
        let next = own(o, k);
        if (next === undefined) {
          next = {};
          setMember(o, k, next);
        }
        o = next as Payload;
      }
      setMember(o, p[p.length - 1]!, v);
    }
    return out;
  }
  const paths = selectorPaths((selector as { exclude: readonly string[] }).exclude, 'with_payload.exclude');
  const out = store.get(id);
  for (const p of paths) {
    let o: unknown = out;
    for (const k of p.slice(0, -1)) o = own(o, k);
    const last = p[p.length - 1]!;
    if (own(o, last) !== undefined) delete (o as Payload)[last];
  }
  return out;
}
