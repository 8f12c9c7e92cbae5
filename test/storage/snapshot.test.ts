// The snapshot container: this build writes version 2 (its base state holds payloads in parts),
// reads versions 1 and 2, and refuses another naming the versions it reads, so an older build
// meeting a newer snapshot fails with a clear error rather than on the state inside it.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decodeSnapshot, encodeSnapshot, SNAPSHOT_VERSION } from '../../storage/snapshot.js';

/** The file with its version word set to v and its SHA-256 trailer made right again. */
function withVersion(file: Buffer, v: number): Buffer {
  const body = Buffer.from(file.subarray(0, file.length - 32));
  body.writeUInt32LE(v, 8);
  return Buffer.concat([body, createHash('sha256').update(body).digest()]);
}

describe('the snapshot container', () => {
  const entries: Array<[string, Uint8Array]> = [
    ['collection.json', Buffer.from('{"name":"c"}')],
    ['wal.log', Uint8Array.of(1, 2, 3)],
  ];

  it('is written as version 2 and read back entry for entry', () => {
    const file = encodeSnapshot(entries);
    expect(SNAPSHOT_VERSION).toBe(2);
    expect(file.readUInt32LE(8)).toBe(2);
    const back = decodeSnapshot(file, 's');
    expect([...back.keys()]).toEqual(['collection.json', 'wal.log']);
    expect([...back.get('wal.log')!]).toEqual([1, 2, 3]);
  });

  it('reads version 1 and refuses version 3 naming the versions it reads', () => {
    const file = encodeSnapshot(entries);
    expect(decodeSnapshot(withVersion(file, 1), 's').get('collection.json')!.toString()).toBe('{"name":"c"}');
    expect(() => decodeSnapshot(withVersion(file, 3), 's')).toThrow(
      expect.objectContaining({ code: 'STRATA_INDEX_VERSION', message: expect.stringMatching(/snapshot version 3, this build reads 1 and 2/) }),
    );
  });
});
