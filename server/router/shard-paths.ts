// The router's paths: the route pattern of a collection's endpoints, and the same path on a shard.

/** The route pattern every collection endpoint starts with (Qdrant's parameter name). */
export const COLLECTION_ROUTE = '/collections/:collection_name';

/** The path of collection `name` (and of `rest` below it) on a shard server. */
export const shardPath = (name: string, rest = ''): string => `/collections/${encodeURIComponent(name)}${rest}`;
