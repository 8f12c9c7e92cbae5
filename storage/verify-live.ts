// `strata verify --data-dir`: checks a data directory without changing it. For every collection's
// directory: the config (checksum, version) of a collection created over the API, and its
// write-ahead log, record by record: checksums and sequence (wal.ts, checkLog), then each record's
// content decoded and checked against the collection (ids, vector bytes = ids × dimension × 4).
// A torn tail is reported, not an error (a crash leaves one; recovery cuts it); damage in the
// middle of a log, a record that does not decode, or a config that fails its checksum is.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { unpack } from 'msgpackr';
import { CONFIG_FILE, readConfig } from './collection-dir.js';
import { COMPACTED_FILE } from './compacted.js';
import { REC, WAL_FILE } from './live-store.js';
import { checkLog } from './wal.js';
import { errorMessage } from '../common/errors.js';
import { sparseRecordProblem } from './sparse-records.js';
import { denseRecordProblem } from './dense-records.js';

/** Records that change no point's presence (payloads, indexes, the shared log's origin). */
const PAYLOAD_ONLY: ReadonlySet<number> = new Set([REC.setPayload, REC.origin, REC.deletePayload, REC.clearPayload, REC.payloadIndex, REC.deleteVectors]);

export interface LiveCheck {
  dir: string;
  /** The collection's name (created over the API), or null (the log of a built collection). */
  name: string | null;
  records: number;
  /**
   * Points the log leaves (created collections never compacted; null for a built or compacted one,
   * whose base holds the rest).
   */
  points: number | null;
  /** The lsn the log's head was cut at after a compaction (its earlier records are in the base), or 0. */
  logCutAt: number;
  tornBytes: number;
  tornReason: string | null;
  ok: boolean;
  error: string | null;
}

function isIdList(v: unknown): v is number[] {
  return Array.isArray(v) && v.every((x) => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0);
}

/** A record's vectors are its ids × the collection's dimension (unknown for a built collection's log). */
function checkVectorBytes(lsn: bigint | number, vectors: Uint8Array | undefined, ids: number, dim: number | undefined): void {
  if (dim !== undefined && vectors?.length !== ids * dim * 4) throw new Error(`record ${lsn}: ${vectors?.length} vector bytes for ${ids} × ${dim}-d`);
}

export function verifyCollectionDir(dir: string): LiveCheck {
  const out: LiveCheck = { dir, name: null, records: 0, points: null, logCutAt: 0, tornBytes: 0, tornReason: null, ok: false, error: null };
  try {
    const cfg = existsSync(join(dir, CONFIG_FILE)) ? readConfig(dir) : null;
    out.name = cfg?.name ?? null;
    const { records, report, cutAt } = checkLog(join(dir, WAL_FILE));
    out.records = records.length;
    out.logCutAt = Number(cutAt);
    out.tornBytes = report.truncatedBytes;
    out.tornReason = report.reason;
    const live = new Set<number>();
    for (const r of records) {
      const rec = unpack(r.payload) as {
        ids?: unknown;
        vectors?: Uint8Array;
        payloads?: unknown[];
        payloadsJson?: string;
        denseAt?: unknown[];
        sparse?: unknown;
        secondary?: unknown;
      };
      if (r.type === REC.payloadIndex || r.type === REC.origin) continue;
      if (!isIdList(rec.ids)) throw new Error(`record ${r.lsn}: ids are not a list of unsigned integers`);
      const sparse = sparseRecordProblem(rec.sparse, rec.ids.length);
      if (sparse !== null) throw new Error(`record ${r.lsn}: ${sparse}`);
      const secondary = denseRecordProblem(rec.secondary, rec.ids.length);
      if (secondary !== null) throw new Error(`record ${r.lsn}: ${secondary}`);
      if (r.type === REC.upsert) {
        const payloads = rec.payloadsJson !== undefined ? (JSON.parse(rec.payloadsJson) as unknown) : rec.payloads;
        checkVectorBytes(r.lsn, rec.vectors, rec.ids.length, cfg?.dim);
        if (!Array.isArray(payloads) || payloads.length !== rec.ids.length) throw new Error(`record ${r.lsn}: payloads do not match the ids`);
        for (const id of rec.ids) live.add(id);
      } else if (r.type === REC.updateVectors) checkVectorBytes(r.lsn, rec.vectors, rec.denseAt?.length ?? rec.ids.length, cfg?.dim);
      else if (r.type === REC.delete) for (const id of rec.ids) live.delete(id);
      else if (!PAYLOAD_ONLY.has(r.type)) throw new Error(`record ${r.lsn}: unknown type ${r.type}`);
    }
    out.points = cfg && !existsSync(join(dir, COMPACTED_FILE)) ? live.size : null;
    out.ok = true;
  } catch (e) {
    out.error = errorMessage(e);
  }
  return out;
}

/** Every collection directory of a data directory, checked. */
export function verifyDataDir(dataDir: string): LiveCheck[] {
  if (!existsSync(dataDir)) return [];
  return readdirSync(dataDir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && d.name.startsWith('c-') && existsSync(join(dataDir, d.name, WAL_FILE)))
    .map((d) => verifyCollectionDir(join(dataDir, d.name)));
}
