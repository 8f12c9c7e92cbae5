// A read-only data directory under a live collection: `strata serve --data-dir` restarted where the
// directory is bind-mounted read-only (a private mount namespace: EROFS, as on a file system
// remounted read-only after an error, or a volume mounted read-only by mistake). The server starts
// and serves every acknowledged point; the collection is yellow saying why; every write is refused
// with 507 STRATA_STORAGE naming the log and EROFS, and stores nothing; once the directory is
// writable again the writes are taken, and nothing acknowledged was lost.
import { afterAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/temp.js';
import { http } from './fixture.js';
import { readOnlyMountWorks, serveChild } from './serve-child.js';

const tmp = makeTempDir('strata-read-only-');
afterAll(() => tmp.cleanup());
const DIM = 8;
const vectorOf = (id: number): number[] => Array.from({ length: DIM }, (_, i) => Math.fround(Math.cos(id * 17 + i)));
const ARGS = ['--no-grpc', '--log-level', 'silent'];

describe.skipIf(!readOnlyMountWorks(tmp.path()))('a read-only data directory under a live collection', () => {
  it('serves what was acknowledged, refuses writes with 507 naming EROFS, and loses nothing', async () => {
    const dataDir = tmp.path('data');
    const ids = Array.from({ length: 60 }, (_, i) => i);
    const first = await serveChild(['--data-dir', dataDir, ...ARGS]);
    try {
      expect((await http(first.rest, 'PUT', '/collections/c', { vectors: { size: DIM, distance: 'Euclid' } })).status).toBe(200);
      const w = await http(first.rest, 'PUT', '/collections/c/points?wait=true', {
        points: ids.map((id) => ({ id, vector: vectorOf(id), payload: { id } })),
      });
      expect(w.status, w.text).toBe(200);
    } finally {
      first.child.kill('SIGKILL');
      await first.exited;
    }

    const ro = await serveChild(['--data-dir', dataDir, ...ARGS], {}, undefined, dataDir);
    try {
      expect((await http(ro.rest, 'POST', '/collections/c/points/count', {})).body).toMatchObject({ result: { count: ids.length } });
      const near = await http(ro.rest, 'POST', '/collections/c/points/search', { vector: vectorOf(7), limit: 1 });
      expect((near.body as { result: Array<{ id: number }> }).result.map((h) => h.id)).toEqual([7]);
      const info = await http(ro.rest, 'GET', '/collections/c');
      expect(info.body).toMatchObject({ result: { status: 'yellow' } });
      expect(JSON.stringify(info.body)).toMatch(/writes refused: open for writing .*wal\.log failed \(EROFS\)/);
      const up = await http(ro.rest, 'PUT', '/collections/c/points?wait=true', { points: [{ id: 1000, vector: vectorOf(1000) }] });
      expect([up.status, up.headers['strata-code']]).toEqual([507, 'STRATA_STORAGE']);
      expect(up.text).toMatch(/wal\.log failed \(EROFS\): the write was not acknowledged/);
      const del = await http(ro.rest, 'POST', '/collections/c/points/delete?wait=true', { points: [1, 2] });
      expect(del.status).toBe(507);
      const made = await http(ro.rest, 'PUT', '/collections/d', { vectors: { size: DIM, distance: 'Dot' } });
      expect([made.status, made.headers['strata-code']]).toEqual([507, 'STRATA_STORAGE']);
      expect((await http(ro.rest, 'POST', '/collections/c/points/count', {})).body).toMatchObject({ result: { count: ids.length } });
    } finally {
      ro.child.kill('SIGKILL');
      await ro.exited;
    }

    const again = await serveChild(['--data-dir', dataDir, ...ARGS]);
    try {
      const got = await http(again.rest, 'POST', '/collections/c/points', { ids: [...ids, 1000], with_vector: true, with_payload: true });
      const points = (got.body as { result: Array<{ id: number; vector: number[]; payload: { id: number } }> }).result;
      expect(points.map((p) => p.id).sort((a, b) => a - b)).toEqual(ids);
      for (const p of points) {
        expect(p.vector).toEqual(vectorOf(p.id));
        expect(p.payload).toEqual({ id: p.id });
      }
      expect((await http(again.rest, 'GET', '/collections/c')).body).toMatchObject({ result: { status: 'green' } });
      expect((await http(again.rest, 'PUT', '/collections/c/points?wait=true', { points: [{ id: 1000, vector: vectorOf(1000) }] })).status).toBe(200);
      expect((await http(again.rest, 'GET', '/collections/d')).status).toBe(404);
    } finally {
      again.child.kill('SIGKILL');
      await again.exited;
    }
  }, 60_000);
});
