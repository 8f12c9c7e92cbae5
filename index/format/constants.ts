// Strata index format, version 1. A directory holding manifest.json, graph.bin and one data file
// per tier. Every binary file starts with an 8-byte magic and a u32 version; the manifest holds the
// size and SHA-256 of every file, and names the format and its version. See docs/index-format.md.

export const FORMAT_NAME = 'strata-index';
export const FORMAT_VERSION = 1;
export const MANIFEST = 'manifest.json';
export const GRAPH_FILE = 'graph.bin';
export const GRAPH_MAGIC = 'STRGRAPH';
export const TIER_MAGIC = 'STRTIER1';
export const HEADER_BYTES = 64;

export function tierFileName(index: number, kind: string): string {
  return `tier-${index}-${kind}.bin`;
}
