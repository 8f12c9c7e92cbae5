// A record's vectors of other names (sparse, secondary) gathered by name: which positions of the
// record's points give one, and the vectors, in position order. Both record forms start from it.

/** Each name's positions (into `list`) and vectors; empty when no point gives any. */
export function columnsByName<V>(list: ReadonlyArray<Readonly<Record<string, V>> | undefined>): Map<string, { at: number[]; vectors: V[] }> {
  const byName = new Map<string, { at: number[]; vectors: V[] }>();
  list.forEach((named, i) => {
    for (const [name, v] of Object.entries(named ?? {})) {
      const c = byName.get(name) ?? { at: [], vectors: [] };
      byName.set(name, c);
      c.at.push(i);
      c.vectors.push(v);
    }
  });
  return byName;
}
