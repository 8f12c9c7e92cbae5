// strata verify --data-dir: a clean log and a torn tail pass (the tail reported), damage in the
// middle of a log and a config that fails its checksum do not; nothing is changed by checking.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { collectionDir, writeConfig } from '../../storage/collection-dir.js';
import { LiveStore, WAL_FILE } from '../../storage/live-store.js';
import { Engine } from '../../engine/engine.js';
import { verifyDataDir } from '../../storage/verify-live.js';
import { strata } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/temp.js';

const tmp = makeTempDir('strata-verify-live-');
afterAll(() => tmp.cleanup());

async function collection(name: string, writes: number): Promise<string> {
  const dir = collectionDir(tmp.path('data'), name);
  const { store } = await LiveStore.open(dir, 4, 'l2', null);
  writeConfig(dir, { name, dim: 4, metric: 'l2', m: 8, efConstruction: 32 });
  for (let i = 0; i < writes; i++) await store.upsert([{ id: i, vector: Float32Array.of(i, 1, 2, 3), payload: { i } }]);
  await store.delete([0]);
  await store.close();
  return dir;
}

describe('strata verify --data-dir', () => {
  it('passes a clean collection and counts its points; reports a torn tail without failing; fails damage in the middle', async () => {
    const clean = await collection('clean', 20);
    const torn = await collection('torn', 20);
    const damaged = await collection('damaged', 20);
    const tornLog = join(torn, WAL_FILE);
    writeFileSync(tornLog, readFileSync(tornLog).subarray(0, statSync(tornLog).size - 5));
    const badLog = join(damaged, WAL_FILE);
    const bytes = readFileSync(badLog);
    bytes[200] = bytes[200]! ^ 0xff;
    writeFileSync(badLog, bytes);
    const before = statSync(tornLog).size;

    const checks = new Map(verifyDataDir(tmp.path('data')).map((c) => [c.name, c]));
    expect(checks.get('clean')).toMatchObject({ ok: true, records: 21, points: 19, tornBytes: 0 });
    expect(checks.get('torn')).toMatchObject({ ok: true, records: 20, tornReason: expect.stringMatching(/cut short/) });
    expect(checks.get('damaged')).toMatchObject({ ok: false, error: expect.stringMatching(/corrupt in the middle/) });
    // Checking changes nothing: the torn tail is still there for recovery to cut.
    expect(statSync(tornLog).size).toBe(before);
    expect(statSync(join(clean, WAL_FILE)).size).toBeGreaterThan(0);

    const cli = strata(['verify', '--data-dir', tmp.path('data')]);
    expect(cli.status).toBe(2);
    expect(cli.stdout.trim().split('\n')).toHaveLength(3);
  });

  it('checks a compacted collection whose log head was cut: the records after the cut, no point count (the base holds them)', async () => {
    const dataDir = tmp.path('data-compacted');
    const engine = await Engine.open([], { searchThreads: 0, dataDir, compactAt: 0 });
    try {
      const c = await engine.createCollection({ name: 'cut', dim: 4, metric: 'l2', m: 8, efConstruction: 32 });
      await c.upsert(Array.from({ length: 50 }, (_, i) => ({ key: i, vector: Float32Array.of(i, 1, 2, 3), payload: null })));
      await engine.compact('cut');
      await c.upsert([{ key: 99, vector: Float32Array.of(9, 9, 9, 9), payload: null }]);
    } finally {
      await engine.close();
    }
    const [check] = verifyDataDir(dataDir);
    expect(check).toMatchObject({ ok: true, name: 'cut', records: 1, points: null, tornBytes: 0 });
    expect(check!.logCutAt).toBeGreaterThan(0);
  });
});
