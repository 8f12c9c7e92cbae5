// The columnar payload store. A payload's nested objects are flattened to key paths (`{a: {b: 1}}`
// is the path a.b); each path has one typed column per kind of value seen there (numbers, strings
// through the dictionary, bools, nulls, and JSON text for what fits none: arrays of objects, mixed
// arrays, empty objects and arrays). Paths form a trie, so a payload is rebuilt, or one path read,
// by walking it. Values live in chunked typed arrays, so the V8 heap holds one object per path, never
// one per point. Internal ids are dense u32.
import { invalidArgument } from '../../common/errors.js';
import type { KeyPath } from '../filter/key-path.js';
import { compileReader, type PathReader, type PathStep } from '../filter/key-path.js';
import { ChunkMemory } from './chunk-memory.js';
import { Column, type ColumnKind, classify, type Scalar } from './column.js';
import { PAYLOAD_LIMITS } from './limits.js';
import { StringDictionary } from './strings.js';

/** A payload: a JSON object. */
export type Payload = Record<string, unknown>;

/** One key path of the trie, with the columns of the values that end there. */
export interface PathNode {
  readonly name: string;
  readonly path: readonly string[];
  readonly children: Map<string, PathNode>;
  readonly columns: Column[];
}

const NONE: readonly unknown[] = Object.freeze([]);

function isObject(v: unknown): v is Payload {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Sets an own member, `__proto__` included (a plain assignment would set the prototype). */
export function setMember(o: Payload, name: string, v: unknown): void {
  if (name === '__proto__') Object.defineProperty(o, name, { value: v, enumerable: true, writable: true, configurable: true });
  else o[name] = v;
}

interface Leaf {
  readonly path: readonly string[];
  readonly value: unknown;
}

/** The leaves of a value at `path`: a non-empty object is entered, anything else is a leaf. */
function flatten(path: string[], v: unknown, out: Leaf[]): void {
  if (isObject(v)) {
    const keys = Object.keys(v).filter((k) => v[k] !== undefined);
    if (keys.length > 0) {
      for (const k of keys) {
        path.push(k);
        flatten(path, v[k], out);
        path.pop();
      }
      return;
    }
  }
  out.push({ path: [...path], value: v });
}

/** Internal ids are dense u32; one past the highest must fit too (the store's size). */
function checkId(id: number): void {
  if (!Number.isInteger(id) || id < 0 || id >= 0xffffffff) throw invalidArgument('id', `an internal id is an integer in [0, 2^32 - 1), got ${id}`);
}

export class PayloadStore {
  readonly strings: StringDictionary;
  private readonly roots = new Map<string, PathNode>();
  /** Per point, an object of the top-level members that got no columns (PAYLOAD_LIMITS.maxColumns). */
  private readonly overflow: Column;
  private columnCount = 0;
  /** One past the highest id written. */
  size = 0;

  /** mem: where the values live (chunk-memory.ts); local memory unless the caller binds it. */
  constructor(readonly memory: ChunkMemory = new ChunkMemory()) {
    this.strings = new StringDictionary(memory);
    this.overflow = new Column([], 'json', this.strings, memory);
  }

  /** Replaces the payload of `id`. */
  set(id: number, payload: Readonly<Payload>): void {
    checkId(id);
    this.clear(id);
    if (id >= this.size) this.size = id + 1;
    for (const key of Object.keys(payload)) this.writeKey(id, key, payload[key]);
  }

  /** Qdrant's set_payload: each top-level key of `partial` replaces that key's value. */
  merge(id: number, partial: Readonly<Payload>): void {
    checkId(id);
    if (id >= this.size) this.size = id + 1;
    for (const key of Object.keys(partial)) {
      this.clearKey(id, key);
      this.writeKey(id, key, partial[key]);
    }
  }

  /** Removes every field of `id`. */
  clear(id: number): void {
    for (const node of this.roots.values()) removeSubtree(node, id);
    this.overflow.remove(id);
  }

  /** Removes the top-level keys `keys` (Qdrant's delete_payload over plain keys). */
  deleteKeys(id: number, keys: readonly string[]): void {
    for (const k of keys) this.clearKey(id, k);
  }

  /** Removes the value at a key-only path of nested keys (`a.b`), leaving `a: {}` if it was the last. */
  deletePath(id: number, path: readonly string[]): void {
    if (path.length === 1) {
      this.clearKey(id, path[0]!);
      return;
    }
    const top = this.topValue(id, path[0]!);
    if (!isObject(top)) return;
    let o: unknown = top;
    for (let i = 1; i < path.length - 1; i++) o = isObject(o) && Object.hasOwn(o, path[i]!) ? o[path[i]!] : undefined;
    if (!isObject(o) || !Object.hasOwn(o, path[path.length - 1]!)) return;
    delete o[path[path.length - 1]!];
    this.merge(id, { [path[0]!]: top });
  }

  private clearKey(id: number, key: string): void {
    const node = this.roots.get(key);
    if (node !== undefined) removeSubtree(node, id);
    if (this.overflow.has(id)) {
      const rest = this.overflow.read(id) as Payload;
      if (!Object.hasOwn(rest, key)) return;
      delete rest[key];
      if (Object.keys(rest).length === 0) this.overflow.remove(id);
      else this.overflow.setScalar(id, rest);
    }
  }

  private writeKey(id: number, key: string, value: unknown): void {
    // JSON has no undefined: a member holding it is absent, as JSON.stringify drops it.
    if (value === undefined) return;
    // The common case, a top-level scalar or array with its column made already: no flattening.
    if (!isObject(value)) {
      const shape = classify(value);
      const col = this.roots.get(key)?.columns.find((c) => c.kind === shape.kind);
      if (col !== undefined) {
        if (shape.array) col.setArray(id, value as Scalar[]);
        else col.setScalar(id, value);
        return;
      }
    }
    const leaves: Leaf[] = [];
    flatten([key], value, leaves);
    const placed = leaves.map((l) => ({ leaf: l, shape: classify(l.value) }));
    let missing = 0;
    for (const { leaf, shape } of placed) if (this.column(leaf.path, shape.kind, false) === undefined) missing++;
    if (this.columnCount + missing > PAYLOAD_LIMITS.maxColumns) {
      const rest = this.overflow.has(id) ? (this.overflow.read(id) as Payload) : {};
      setMember(rest, key, value);
      this.overflow.setScalar(id, rest);
      return;
    }
    for (const { leaf, shape } of placed) {
      const col = this.column(leaf.path, shape.kind, true)!;
      if (shape.array) col.setArray(id, leaf.value as Scalar[]);
      else col.setScalar(id, leaf.value);
    }
  }

  /** The column of `path` and `kind`, made when `create`. */
  private column(path: readonly string[], kind: ColumnKind, create: boolean): Column | undefined {
    let level = this.roots;
    let node: PathNode | undefined;
    for (let i = 0; i < path.length; i++) {
      node = level.get(path[i]!);
      if (node === undefined) {
        if (!create) return undefined;
        node = { name: path[i]!, path: path.slice(0, i + 1), children: new Map(), columns: [] };
        level.set(path[i]!, node);
      }
      level = node.children;
    }
    let col = node!.columns.find((c) => c.kind === kind);
    if (col === undefined && create) {
      col = new Column(node!.path, kind, this.strings, this.memory);
      node!.columns.push(col);
      this.columnCount++;
    }
    return col;
  }

  /** The payload of `id`, rebuilt ({} when it has none); `keys` limits it to those top-level keys. */
  get(id: number, keys?: ReadonlySet<string>): Payload {
    const out: Payload = {};
    for (const [name, node] of this.roots) {
      if (keys !== undefined && !keys.has(name)) continue;
      const v = materialise(node, id);
      if (v !== undefined) setMember(out, name, v);
    }
    if (this.overflow.has(id)) {
      const rest = this.overflow.read(id) as Payload;
      for (const k of Object.keys(rest)) if (keys === undefined || keys.has(k)) setMember(out, k, rest[k]);
    }
    return out;
  }

  /** The value of one top-level key of `id`, or undefined. */
  topValue(id: number, key: string): unknown {
    const node = this.roots.get(key);
    const v = node === undefined ? undefined : materialise(node, id);
    if (v !== undefined || !this.overflow.has(id)) return v;
    const rest = this.overflow.read(id) as Payload;
    return Object.hasOwn(rest, key) ? rest[key] : undefined;
  }

  /** The top-level keys `id` has a value for. */
  topKeys(id: number): string[] {
    const out: string[] = [];
    for (const [name, node] of this.roots) if (hasAny(node, id)) out.push(name);
    if (this.overflow.has(id)) out.push(...Object.keys(this.overflow.read(id) as Payload));
    return out;
  }

  /** All values at `path` for `id`, as key-path.ts reads them from the payload object. */
  values(id: number, path: KeyPath): readonly unknown[] {
    return this.compileValues(path)(id);
  }

  /**
   * A reader of the values at `path` per id, compiled once: it walks the trie along the leading keys
   * and rebuilds only the value where the path leaves them (a leaf column, or a nested object).
   */
  compileValues(path: KeyPath): (id: number) => readonly unknown[] {
    const steps = path.steps;
    const whole = compileReader(path);
    // Readers of the steps after each prefix, over a value wrapped as `{v}`.
    const rest: PathReader[] = steps.map((_, i) => compileReader({ text: '', steps: [{ kind: 'key', name: 'v' } as PathStep, ...steps.slice(i + 1)] }));
    const first = (steps[0] as { name: string }).name;
    return (id) => {
      if (this.overflow.has(id)) {
        const o = this.overflow.read(id) as Payload;
        if (Object.hasOwn(o, first)) return whole(o);
      }
      let node = this.roots.get(first);
      let i = 0;
      while (node !== undefined) {
        for (const c of node.columns) {
          if (!c.has(id)) continue;
          const v = c.read(id);
          return i === steps.length - 1 ? [v] : rest[i]!({ v });
        }
        const next = steps[i + 1];
        if (next === undefined) {
          const o = materialise(node, id);
          return o === undefined ? NONE : [o];
        }
        if (next.kind !== 'key') return NONE;
        node = node.children.get(next.name);
        i++;
      }
      return NONE;
    };
  }

  /** The trie's top-level nodes and the overflow column (for serialize). */
  paths(): { roots: ReadonlyMap<string, PathNode>; overflow: Column } {
    return { roots: this.roots, overflow: this.overflow };
  }

  /** Restores one column's value (deserialize), encoded for a typed column: the path's column of that kind, created if new. */
  restore(id: number, path: readonly string[], kind: ColumnKind, value: unknown, array: boolean): void {
    if (id >= this.size) this.size = id + 1;
    const col = path.length === 0 ? this.overflow : this.column(path, kind, true)!;
    if (array) col.setArray(id, value as number[], true);
    else col.setScalar(id, value, kind !== 'json');
  }

  /** Bytes allocated, per column (by key path and kind), for the dictionary and in total. */
  bytes(): { columns: Array<{ path: string; kind: ColumnKind; bytes: number }>; strings: number; total: number } {
    const columns: Array<{ path: string; kind: ColumnKind; bytes: number }> = [];
    const walk = (n: PathNode): void => {
      for (const c of n.columns) columns.push({ path: n.path.join('.'), kind: c.kind, bytes: c.bytes() });
      for (const child of n.children.values()) walk(child);
    };
    for (const n of this.roots.values()) walk(n);
    columns.push({ path: '', kind: 'json', bytes: this.overflow.bytes() });
    const strings = this.strings.bytes();
    return { columns, strings, total: strings + columns.reduce((s, c) => s + c.bytes, 0) };
  }
}

function removeSubtree(node: PathNode, id: number): void {
  for (const c of node.columns) c.remove(id);
  for (const child of node.children.values()) removeSubtree(child, id);
}

function hasAny(node: PathNode, id: number): boolean {
  for (const c of node.columns) if (c.has(id)) return true;
  for (const child of node.children.values()) if (hasAny(child, id)) return true;
  return false;
}

/** The value at a node for `id`: its leaf column's, or the object of its children's; undefined if none. */
function materialise(node: PathNode, id: number): unknown {
  for (const c of node.columns) if (c.has(id)) return c.read(id);
  let out: Payload | undefined;
  for (const [name, child] of node.children) {
    const v = materialise(child, id);
    if (v === undefined) continue;
    out ??= {};
    setMember(out, name, v);
  }
  return out;
}
