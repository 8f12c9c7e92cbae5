// compacted.json names the base and the live state a compaction left: this build writes version 2
// (the state's payloads in parts), reads versions 1 and 2, and refuses another naming the versions.
// Read over turns (a restore while serving), it gives what a read in one step gives.
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { COMPACTED_FILE, LIVE_STATE_FILE, readCompacted, readCompactedInTurns, writeCompacted } from '../../storage/compacted.js';
import { emptyLiveState } from '../../storage/live-store.js';
import { makeTempDir } from '../helpers/temp.js';

const tmp = makeTempDir('strata-compacted-');
afterAll(() => tmp.cleanup());

describe('the compaction state file', () => {
  it('is written as version 2, read as version 1 or 2, and refused as another version', () => {
    const dir = tmp.path('c');
    mkdirSync(join(dir, 'base-7-x'), { recursive: true });
    const payloads: Array<[number, Record<string, unknown>]> = [
      [1, { a: 1 }],
      [4, { b: 'x' }],
    ];
    writeCompacted(dir, 'base-7-x', 7n, { ...emptyLiveState(), payloads });
    const file = join(dir, COMPACTED_FILE);
    const saved = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    expect(saved['version']).toBe(2);
    for (const version of [1, 2]) {
      writeFileSync(file, `${JSON.stringify({ ...saved, version })}\n`);
      const c = readCompacted(dir)!;
      expect(c.cutLsn).toBe(7n);
      expect([...c.state.payloads]).toEqual(payloads);
    }
    writeFileSync(file, `${JSON.stringify({ ...saved, version: 3 })}\n`);
    expect(() => readCompacted(dir)).toThrow(expect.objectContaining({ code: 'STRATA_INDEX_VERSION', message: expect.stringMatching(/reads 1 and 2/) }));
  });

  it('is read over turns as it is read in one, and a damaged state refused either way', async () => {
    const dir = tmp.path('t');
    mkdirSync(join(dir, 'base-9-y'), { recursive: true });
    const payloads: Array<[number, Record<string, unknown>]> = Array.from({ length: 5000 }, (_, i) => [i, { n: i, s: 'x'.repeat(i % 50) }]);
    writeCompacted(dir, 'base-9-y', 9n, { ...emptyLiveState(), payloads });
    const inTurns = (await readCompactedInTurns(dir))!;
    expect(inTurns.cutLsn).toBe(9n);
    expect(inTurns.baseDir).toBe(readCompacted(dir)!.baseDir);
    expect([...inTurns.state.payloads]).toEqual(payloads);
    expect(await readCompactedInTurns(tmp.path('none'))).toBeNull();
    appendFileSync(join(dir, 'base-9-y', LIVE_STATE_FILE), Buffer.of(0));
    const damaged = expect.objectContaining({ code: 'STRATA_INDEX_CORRUPT', message: expect.stringMatching(/checksum mismatch/) });
    expect(() => readCompacted(dir)).toThrow(damaged);
    await expect(readCompactedInTurns(dir)).rejects.toThrow(damaged);
  });
});
