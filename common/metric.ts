// The distance a collection, an index or a dataset is searched by: one type for every layer.

/** Squared Euclidean distance, inner product, or cosine (inner product of normalised rows). */
export type Metric = 'l2' | 'ip' | 'cosine';
