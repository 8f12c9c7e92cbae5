// A deterministic local embedding for the framework tests: each word hashed (FNV-1a) into one of
// DIM dimensions with a sign, the sum normalised. Texts sharing words lie close, so a search for a
// word finds the texts that hold it, with no model and no network.
export const EMBED_DIM = 64;

function fnv1a(word: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

export function embedText(text: string): number[] {
  const v = new Array<number>(EMBED_DIM).fill(0);
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    const h = fnv1a(word);
    v[h % EMBED_DIM]! += h & 0x80000000 ? -1 : 1;
  }
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
}
