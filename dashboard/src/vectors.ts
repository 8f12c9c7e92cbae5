// A collection's one vector as the API spells it: unnamed ({size, distance}, a point's vector a
// list) or named ({name: {size, distance}}, a point's vector {name: list}).
export interface VectorParams {
  size: number;
  distance: string;
}

export type VectorsConfig = VectorParams | Record<string, VectorParams>;

export function oneVector(v: VectorsConfig): VectorParams & { name: string } {
  if (typeof v.size === 'number') return { name: '', ...(v as VectorParams) };
  const [name, p] = Object.entries(v as Record<string, VectorParams>)[0]!;
  return { name, ...p };
}

export function pointVector(v: number[] | Record<string, number[]> | undefined): { name: string; vector: number[] } | null {
  if (Array.isArray(v)) return { name: '', vector: v };
  const first = v ? Object.entries(v)[0] : undefined;
  return first ? { name: first[0], vector: first[1] } : null;
}
