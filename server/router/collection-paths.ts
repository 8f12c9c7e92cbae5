// The paths of a collection's endpoints, the same on the router and on its shard servers.

/** The route pattern every collection endpoint starts with (Qdrant's parameter name). */
export const COLLECTION_ROUTE = '/collections/:collection_name';

/** The path of collection `name` (and of `rest` below it). */
export const collectionPath = (name: string, rest = ''): string => `/collections/${encodeURIComponent(name)}${rest}`;
