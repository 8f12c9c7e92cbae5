// Internal point ids: a numeric id is its own; a collection's UUID points are numbered from
// UUID_ID_BASE in the order they first appear, above every numeric id Qdrant allows (< 2^52 here).

/** Internal ids from here on number a collection's UUID points, in the order they first appear. */
export const UUID_ID_BASE = 2 ** 52;

/** Where each dense run of internal ids starts (IdMap's bands): numeric ids from 0, UUID points' from UUID_ID_BASE. */
export const ID_BANDS: readonly number[] = [0, UUID_ID_BASE];
