// The stable numbers binary headers store for a metric, a code kind and a store kind: what the writer
// puts in a header and the loader compares with the manifest.
import { CODE_KINDS } from '../codes/index.js';
import { STORE_KINDS } from '../tiered/tiered-index.js';

export const METRIC_CODES = { l2: 0, ip: 1, cosine: 2 } as const;

/** Stable numbers for the code kinds in codes.bin's header. */
export const CODE_KIND_CODES: Readonly<Record<string, number>> = Object.fromEntries(CODE_KINDS.map((k, i) => [k, i + 1]));
export const STORE_KIND_CODES: Readonly<Record<string, number>> = Object.fromEntries(STORE_KINDS.map((k, i) => [k, i + 1]));
