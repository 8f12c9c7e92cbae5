// A collection's dense vectors as the API spells them: unnamed ({size, distance}, a point's vector a
// list) or named ({name: {size, distance}, …}, the primary first; a point's vector {name: list}).
// Searches here use the primary: the tiered index's.
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

/** The primary vector: the tiered index's. */
export function oneVector(v: VectorsConfig): VectorParams & { name: string } {
  return allVectors(v)[0]!;
}

export function pointVector(v: number[] | Record<string, number[]> | undefined): { name: string; vector: number[] } | null {
  if (Array.isArray(v)) return { name: '', vector: v };
  const first = v ? Object.entries(v)[0] : undefined;
  return first ? { name: first[0], vector: first[1] } : null;
}
