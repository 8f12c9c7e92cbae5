// Strata index format, version 4 (docs/index-format.md). A directory holding manifest.json,
// graph.bin (upper layers), codes.bin (the code's parameters and a row per node, when the index has
// a code) and one file per store and tier (neighbour lists, vectors, labels). Every binary file
// starts with an 8-byte magic and a u32 version; the manifest holds the size and SHA-256 of every
// file, and names the format and its version. Older versions are refused with a message saying how
// to rebuild: version 1 stored whole records per tier and no codes; version 2's rq2/rq3 rows laid a
// short last block of dimensions out differently (planes.ts). Version 3 is still read: it differs
// from 4 only in rq codes' rotation (a dense matrix; 4 writes Hadamard signs: codes/rotation.ts),
// which the manifest's plan.code.rotation names from version 4 on, so live collections' compacted
// bases and snapshots written by the previous build keep opening.

export const FORMAT_NAME = 'strata-index';
export const FORMAT_VERSION = 4;
/** Versions this build reads (it writes FORMAT_VERSION). */
export const READ_VERSIONS: readonly number[] = [3, 4];
export const MANIFEST = 'manifest.json';
export const GRAPH_FILE = 'graph.bin';
export const CODES_FILE = 'codes.bin';
/** The base points' payloads and the payload indexes asked for (payload-file.ts); only when the index has either. */
export const PAYLOAD_FILE = 'payloads.jsonl';
export const GRAPH_MAGIC = 'STRGRAPH';
export const CODES_MAGIC = 'STRCODES';
export const STORE_MAGIC = 'STRSTORE';
/** A base's filter links (links-file.ts); only when it has them. */
export const LINKS_FILE = 'links.bin';
export const LINKS_MAGIC = 'STRLINKS';
export const HEADER_BYTES = 64;

export function storeFileName(kind: string, tierKind: string): string {
  return `${kind}-${tierKind}.bin`;
}
