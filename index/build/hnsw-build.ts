// Builds the HNSW graph with hnswlib-node, then reads it back out of hnswlib's saved file: hnswlib
// does the construction (a solved problem), Strata owns the layout from there on.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import hnswlib from 'hnswlib-node';
import { invalidArgument } from '../../common/errors.js';
import { seededSample } from '../../common/random.js';
import type { Metric } from '../kernels/kernels.js';
import type { GraphImage } from '../graph/graph-image.js';
import { parseHnswlibIndex } from './hnswlib-file.js';

export interface GraphBuildOptions {
  metric: Metric;
  m: number;
  efConstruction: number;
  seed: number;
  /** Called every few thousand points; the build blocks the thread in between. */
  onProgress?: (done: number, total: number) => void;
}

export function validateBuildOptions(o: GraphBuildOptions): void {
  if (!Number.isInteger(o.m) || o.m < 2 || o.m > 256) throw invalidArgument('m', `must be an integer in 2..256, got ${o.m}`);
  if (!Number.isInteger(o.efConstruction) || o.efConstruction < 1 || o.efConstruction > 10_000) {
    throw invalidArgument('ef-construction', `must be an integer in 1..10000, got ${o.efConstruction}`);
  }
}

/**
 * vectors must already be normalised for cosine: the graph is then built in inner-product space,
 * which is what hnswlib's own cosine space does after normalising.
 *
 * Rows are inserted in a seeded random order, never as given. Input sorted by category (a user's
 * export, or a compaction reading a base laid out by locality) would otherwise insert cluster after
 * cluster, and each cluster's links would be chosen before its neighbours existed: the graph keeps
 * too few edges between clusters, and a filter that excludes the query's own cluster strands the
 * walk there (test/index/build/hnsw-build.test.ts).
 */
export function buildHnswlib(vectors: Float32Array, dim: number, o: GraphBuildOptions): hnswlib.HierarchicalNSW {
  validateBuildOptions(o);
  const count = vectors.length / dim;
  const index = new hnswlib.HierarchicalNSW(o.metric === 'l2' ? 'l2' : 'ip', dim);
  index.initIndex(Math.max(1, count), o.m, o.efConstruction, o.seed);
  const row: number[] = new Array<number>(dim);
  const every = Math.max(1000, Math.floor(count / 200));
  const order = seededSample(count, count, o.seed);
  for (let i = 0; i < count; i++) {
    const r = order[i]!;
    for (let d = 0; d < dim; d++) row[d] = vectors[r * dim + d]!;
    index.addPoint(row, r);
    if (o.onProgress && (i + 1) % every === 0) o.onProgress(i + 1, count);
  }
  o.onProgress?.(count, count);
  return index;
}

/** Reads the graph out of a built hnswlib index, through its saved file. */
export function extractGraph(index: hnswlib.HierarchicalNSW, dim: number): GraphImage {
  const dir = mkdtempSync(join(tmpdir(), 'strata-hnsw-'));
  try {
    const file = join(dir, 'graph.hnsw');
    index.writeIndexSync(file);
    return parseHnswlibIndex(readFileSync(file), dim, file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function buildGraph(vectors: Float32Array, dim: number, o: GraphBuildOptions): GraphImage {
  return extractGraph(buildHnswlib(vectors, dim, o), dim);
}
