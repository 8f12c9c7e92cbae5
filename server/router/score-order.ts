// What the router needs to know of a collection's vectors, asked of the shards once per collection
// and remembered: which way each vector's scores sort (Euclid scores are distances, lower is
// better; Dot and Cosine similarities and sparse dot products, higher is better), and the primary's
// dimension (to check a body the router itself reads before any shard gets it, as a batch of
// writes).
import { type QdrantCollectionView, vectorParamsOf } from '../api/collection-view.js';
import { type Fields, isPlainObject } from '../api/fields.js';
import type { DenseSpec, VectorSpace } from '../api/vector-space.js';
import { metricOfDistance } from '../api/scores.js';
import type { Metric } from '../../engine/public.js';
import { resultOf, type ShardCalls } from './shard-calls.js';
import { collectionPath } from './collection-paths.js';

interface VectorParams {
  distance: string;
  size: number;
  /** The vector's name ('' unnamed). */
  name: string;
  /** The names of the collection's sparse vectors. */
  sparse: string[];
  /** Its secondary dense vectors. */
  secondary: Record<string, DenseSpec>;
}

/** The vector a search or query body searches by: a search's `vector.name`, a query's `using` (undefined: the primary). */
export function searchedBy(b: Fields): string | undefined {
  const v = b['vector'];
  if (isPlainObject(v) && typeof v['name'] === 'string') return v['name'];
  return typeof b['using'] === 'string' ? b['using'] : undefined;
}

export class ScoreOrder {
  private readonly paramsOf = new Map<string, VectorParams>();

  constructor(private readonly calls: ShardCalls) {}

  private async params(name: string): Promise<VectorParams> {
    let p = this.paramsOf.get(name);
    if (p === undefined) {
      const { answers } = await this.calls.fanOut('GET', collectionPath(name));
      const params = resultOf<QdrantCollectionView>(answers[0]!).config.params;
      const v = vectorParamsOf(params.vectors);
      const secondary = Object.fromEntries(
        Object.entries(v.secondary).map(([n, s]) => [n, { dim: Number(s.size), metric: metricOfDistance(String(s.distance)) }]),
      );
      p = { distance: String(v.params.distance), size: Number(v.params.size), name: v.name, sparse: Object.keys(params.sparse_vectors ?? {}), secondary };
      this.paramsOf.set(name, p);
    }
    return p;
  }

  /**
   * Whether larger scores are better in collection `name`, searched by its vector `using` (absent:
   * the primary): a sparse vector's dot products always, a dense vector's unless it is Euclid.
   */
  async higherIsBetter(name: string, using?: string): Promise<boolean> {
    const p = await this.params(name);
    if (using === undefined || using === p.name) return p.distance !== 'Euclid';
    if (p.sparse.includes(using)) return true;
    const secondary = p.secondary[using];
    return secondary === undefined || secondary.metric !== 'l2';
  }

  /** The dimension and metric of collection `name`'s dense vector `using` (absent: the primary), or null when it has none of that name. */
  async dense(name: string, using?: string): Promise<DenseSpec | null> {
    const p = await this.params(name);
    if (using === undefined || using === p.name) return { dim: p.size, metric: metricOfDistance(p.distance) };
    return p.secondary[using] ?? null;
  }

  /** Collection `name`'s metric. */
  async metric(name: string): Promise<Metric> {
    return metricOfDistance((await this.params(name)).distance);
  }

  /** The dimension of collection `name`'s vectors. */
  async dimension(name: string): Promise<number> {
    return (await this.params(name)).size;
  }

  /** Collection `name`'s vector as the server's parsers take it. */
  async space(name: string): Promise<VectorSpace> {
    const p = await this.params(name);
    return { dim: p.size, name: p.name, sparse: p.sparse, secondary: p.secondary };
  }

  /** A collection made again under its name may have another distance: forget the remembered one. */
  forget(name: string): void {
    this.paramsOf.delete(name);
  }
}
