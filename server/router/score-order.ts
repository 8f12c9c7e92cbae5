// Which way a collection's scores sort, asked of the shards once per collection and remembered:
// Euclid scores are distances (lower is better), Dot and Cosine similarities (higher is better).
import type { QdrantCollectionView } from '../api/collection-view.js';
import { resultOf, type ShardCalls } from './shard-calls.js';
import { collectionPath } from './collection-paths.js';

export class ScoreOrder {
  private readonly distanceOf = new Map<string, string>();

  constructor(private readonly calls: ShardCalls) {}

  /** Whether larger scores are better in collection `name`. */
  async higherIsBetter(name: string): Promise<boolean> {
    let d = this.distanceOf.get(name);
    if (d === undefined) {
      const { answers } = await this.calls.fanOut('GET', collectionPath(name));
      d = String(resultOf<QdrantCollectionView>(answers[0]!).config.params.vectors.distance);
      this.distanceOf.set(name, d);
    }
    return d !== 'Euclid';
  }

  /** A collection made again under its name may have another distance: forget the remembered one. */
  forget(name: string): void {
    this.distanceOf.delete(name);
  }
}
