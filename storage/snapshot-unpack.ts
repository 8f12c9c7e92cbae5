// A snapshot's collection written into a directory of its own: the snapshot checked whole first
// (storage/snapshot.ts: CRC-32 per entry, SHA-256 over the file), then the base's files, the state
// naming them, the log and, last, the config, so that a crash midway leaves a directory that is
// not a collection. The caller moves the directory into place.
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { createDir, writeFileDurably } from '../common/durable-fs.js';
import { invalidArgument } from '../common/errors.js';
import { type CollectionConfig, configSettings, installCollection } from './collection-dir.js';
import { baseDirName, writeCompacted } from './compacted.js';
import { decodeLiveState, emptyLiveState } from './live-store.js';
import { decodeSnapshot } from './snapshot.js';

/**
 * Writes the collection a snapshot (its bytes, read from `source`) holds into `dir` as collection
 * `name`; returns its config. With `checksum`, the file's SHA-256 must be it.
 */
export function unpackSnapshot(bytes: Uint8Array, source: string, dir: string, name: string, checksum?: string): CollectionConfig {
  if (checksum !== undefined && createHash('sha256').update(bytes).digest('hex') !== checksum.toLowerCase())
    throw invalidArgument('checksum', `the SHA-256 of the snapshot (${source.slice(0, 200)}) differs from the one given`);
  const entries = decodeSnapshot(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), source);
  const cfgBytes = entries.get('collection.json');
  const wal = entries.get('wal.log');
  if (!cfgBytes || !wal) throw invalidArgument('location', `${source}: a snapshot needs collection.json and wal.log`);
  const src = JSON.parse(cfgBytes.toString('utf8')) as CollectionConfig;
  const cfg: CollectionConfig = { name, dim: src.dim, metric: src.metric, m: src.m, efConstruction: src.efConstruction, ...configSettings(src) };
  const baseJson = entries.get('base.json');
  if (baseJson) {
    const { cutLsn } = JSON.parse(baseJson.toString('utf8')) as { cutLsn: string };
    if (!/^\d+$/.test(cutLsn)) throw invalidArgument('location', `${source}: base.json has no valid cutLsn`);
    const baseName = baseDirName(BigInt(cutLsn));
    createDir(join(dir, baseName), dir);
    for (const [entry, data] of entries) {
      const m = /^base(\.vector-(?:[0-9a-f]{2})+)?\/(.*)$/.exec(entry);
      if (m === null) continue;
      const file = m[2]!;
      if (!/^[a-z0-9][a-z0-9.-]*$/.test(file)) throw invalidArgument('location', `${source}: base file ${JSON.stringify(file)} is not a plain file name`);
      const into = join(dir, `${baseName}${m[1] ?? ''}`);
      if (m[1] !== undefined) createDir(into, dir);
      writeFileDurably(join(into, file), data);
    }
    const state = entries.get('base-state.msgpack');
    writeCompacted(dir, baseName, BigInt(cutLsn), state ? decodeLiveState(state) : emptyLiveState());
  }
  installCollection(dir, cfg, wal);
  return cfg;
}
