// A collection's dense vectors as the API spells them: unnamed ({size, distance}, a point's vector a
// list) or named ({name: {size, distance}, …}, the primary first; a point's vector {name: list}),
// and every vector a search can use: the primary (the tiered index's), the secondary dense ones and
// the sparse ones.
export interface VectorParams {
  size: number;
  distance: string;
}

export type VectorsConfig = VectorParams | Record<string, VectorParams>;

/** Every dense vector, the primary first. */
export function allVectors(v: VectorsConfig): Array<VectorParams & { name: string }> {
  if (typeof v.size === 'number') return [{ name: '', ...(v as VectorParams) }];
  return Object.entries(v as Record<string, VectorParams>).map(([name, p]) => ({ name, ...p }));
}

export function pointVector(v: number[] | Record<string, number[]> | undefined): { name: string; vector: number[] } | null {
  if (Array.isArray(v)) return { name: '', vector: v };
  const first = v ? Object.entries(v)[0] : undefined;
  return first ? { name: first[0], vector: first[1] } : null;
}

/** A vector a search can use, and what searches it: the tiered index, a DRAM graph, or an inverted index. */
export interface SearchableVector {
  name: string;
  kind: 'tiered' | 'secondary' | 'sparse';
}

/** Every vector a search can use, the primary first, then the secondary dense ones, then the sparse ones. */
export function searchableVectors(v: VectorsConfig, sparse: Record<string, unknown> | undefined): SearchableVector[] {
  const dense = allVectors(v).map((p, i): SearchableVector => ({ name: p.name, kind: i === 0 ? 'tiered' : 'secondary' }));
  return [...dense, ...Object.keys(sparse ?? {}).map((name): SearchableVector => ({ name, kind: 'sparse' }))];
}
