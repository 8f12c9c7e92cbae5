// Which generator makes a set: `clustered` (Gaussian clusters, l2; the embedded demo set and most
// tests) or `embedding` (angular, embedding-like; cosine). One spec type so that writers and the CLI
// take either.
import { generateClustered, type ClusteredSpec, type GeneratedSet } from './clustered.js';
import { generateEmbedding, type EmbeddingSpec } from './embedding.js';

export const GENERATOR_KINDS = ['clustered', 'embedding'] as const;

export type GeneratorKind = (typeof GENERATOR_KINDS)[number];

/** A clustered spec needs no kind (the default); an embedding spec says so. */
export type GenerateSpec = (ClusteredSpec & { kind?: 'clustered' }) | (EmbeddingSpec & { kind: 'embedding' });

export function generateSet(spec: GenerateSpec, queryCount: number): GeneratedSet {
  return spec.kind === 'embedding' ? generateEmbedding(spec, queryCount) : generateClustered(spec, queryCount);
}
