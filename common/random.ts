// Seeded PRNG: generated datasets and random placement must be reproducible run to run.

export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Standard normal samples (Box-Muller) from a uniform source. */
export function gaussian(rnd: () => number): () => number {
  let spare: number | null = null;
  return () => {
    if (spare !== null) {
      const s = spare;
      spare = null;
      return s;
    }
    let u = 0;
    while (u === 0) u = rnd();
    const v = rnd();
    const r = Math.sqrt(-2 * Math.log(u));
    spare = r * Math.sin(2 * Math.PI * v);
    return r * Math.cos(2 * Math.PI * v);
  };
}

/**
 * A random n × n orthogonal matrix, row-major (rows orthonormal), by modified Gram-Schmidt over
 * Gaussian rows: a basis in no preferred direction, for rotations that must not favour coordinates.
 * O(n³): meant for the dimensions of vectors, not for their counts.
 */
export function randomOrthogonal(n: number, g: () => number): Float64Array {
  const q = new Float64Array(n * n);
  for (let i = 0; i < q.length; i++) q[i] = g();
  // a (measure-zero) degenerate row is redrawn
  for (let i = 0; i < n; i++) {
    for (;;) {
      for (let j = 0; j < i; j++) {
        let d = 0;
        for (let k = 0; k < n; k++) d += q[i * n + k]! * q[j * n + k]!;
        for (let k = 0; k < n; k++) q[i * n + k] = q[i * n + k]! - d * q[j * n + k]!;
      }
      let s = 0;
      for (let k = 0; k < n; k++) s += q[i * n + k]! ** 2;
      if (s > 1e-12) {
        const inv = 1 / Math.sqrt(s);
        for (let k = 0; k < n; k++) q[i * n + k] = q[i * n + k]! * inv;
        break;
      }
      for (let k = 0; k < n; k++) q[i * n + k] = g();
    }
  }
  return q;
}

/**
 * The first `take` of a seeded shuffle of 0..n-1 (partial Fisher-Yates over mulberry32): a sample
 * without repeats, the same for the same seed on any machine. Profiling queries, LID samples and
 * the base / query split of a real set all draw from it.
 */
export function seededSample(n: number, take: number, seed: number): Int32Array {
  const order = Int32Array.from({ length: n }, (_, i) => i);
  const rnd = mulberry32(seed);
  for (let i = 0; i < take; i++) {
    const j = i + Math.floor(rnd() * (n - i));
    const t = order[i]!;
    order[i] = order[j]!;
    order[j] = t;
  }
  return order.subarray(0, take);
}

/** The rows `rows` of a row-major matrix of width dim, in that order. */
export function pickRows(vectors: Float32Array, dim: number, rows: ArrayLike<number>): Float32Array {
  const out = new Float32Array(rows.length * dim);
  for (let i = 0; i < rows.length; i++) out.set(vectors.subarray(rows[i]! * dim, (rows[i]! + 1) * dim), i * dim);
  return out;
}
