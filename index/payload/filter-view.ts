// The filter evaluator over the store without rebuilding payloads: a point's payload is a read-only
// view (a Proxy) that rebuilds a top-level member only when a condition reads it, once per view.
// evaluate.ts reads members through Object.hasOwn and property reads, which the view answers.
import type { PointId } from '../filter/ast.js';
import type { FilterPoint } from '../filter/evaluate.js';
import type { Payload, PayloadStore } from './store.js';

/** A lazy, read-only payload of `id`: members are rebuilt from the columns on first read. */
export function payloadView(store: PayloadStore, id: number): Readonly<Payload> {
  const cache = new Map<string, unknown>();
  const read = (key: string): unknown => {
    if (!cache.has(key)) cache.set(key, store.topValue(id, key));
    return cache.get(key);
  };
  return new Proxy({} as Payload, {
    get: (_t, key) => (typeof key === 'string' ? read(key) : undefined),
    has: (_t, key) => typeof key === 'string' && read(key) !== undefined,
    getOwnPropertyDescriptor: (_t, key) => {
      if (typeof key !== 'string') return undefined;
      const value = read(key);
      return value === undefined ? undefined : { value, enumerable: true, configurable: true, writable: false };
    },
    ownKeys: () => store.topKeys(id),
    set: () => false,
    deleteProperty: () => false,
    defineProperty: () => false,
  });
}

/** What `compile(filter)` takes, for a point whose payload is in the store under internal id `id`. */
export function filterPoint(store: PayloadStore, id: number, pointId: PointId, hasVector?: (name: string) => boolean): FilterPoint {
  return hasVector === undefined ? { id: pointId, payload: payloadView(store, id) } : { id: pointId, payload: payloadView(store, id), hasVector };
}
