// A full disk under a live collection: `strata serve --data-dir` runs under a file-size limit
// (`ulimit -f`), so the write that crosses it stores what fits and fails with EFBIG, as on a full
// disk. The answer is 507 STRATA_STORAGE naming the log; later writes fail the same way (the log's
// tail is unknown until a restart); reads go on; and after a restart without the limit every
// acknowledged write is there and the failed one is not.
import { afterAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/temp.js';
import { http } from './fixture.js';
import { serveChild } from './serve-child.js';

const tmp = makeTempDir('strata-full-disk-');
afterAll(() => tmp.cleanup());
const DIM = 32;
const vectorOf = (id: number): number[] => Array.from({ length: DIM }, (_, i) => Math.fround(Math.sin(id * 31 + i)));

describe('a full disk under a live collection', () => {
  it('answers 507 STRATA_STORAGE, keeps serving reads, and loses no acknowledged write', async () => {
    const dataDir = tmp.path('data');
    const s = await serveChild(['--data-dir', dataDir, '--no-grpc', '--log-level', 'silent'], {}, 192);
    const acked: number[] = [];
    let refused: { status: number; text: string } | null = null;
    try {
      expect((await http(s.rest, 'PUT', '/collections/c', { vectors: { size: DIM, distance: 'Euclid' } })).status).toBe(200);
      for (let b = 0; b < 400 && refused === null; b++) {
        const ids = Array.from({ length: 20 }, (_, j) => b * 20 + j);
        const r = await http(s.rest, 'PUT', '/collections/c/points?wait=true', { points: ids.map((id) => ({ id, vector: vectorOf(id) })) });
        if (r.status === 200) acked.push(...ids);
        else refused = { status: r.status, text: r.text };
      }
      expect(refused, 'the file-size limit was never reached').not.toBeNull();
      expect(refused!.status).toBe(507);
      expect(refused!.text).toMatch(/wal\.log failed \(EFBIG\): the write was not acknowledged/);
      // The log's tail is unknown now: later writes fail too, reads go on.
      expect((await http(s.rest, 'PUT', '/collections/c/points', { points: [{ id: 99_999, vector: vectorOf(1) }] })).status).toBe(507);
      expect((await http(s.rest, 'POST', '/collections/c/points/count', {})).body).toMatchObject({ result: { count: acked.length } });
    } finally {
      s.child.kill('SIGKILL');
      await s.exited;
    }
    const again = await serveChild(['--data-dir', dataDir, '--no-grpc', '--log-level', 'silent']);
    try {
      expect((await http(again.rest, 'POST', '/collections/c/points/count', {})).body).toMatchObject({ result: { count: acked.length } });
      const got = await http(again.rest, 'POST', '/collections/c/points', { ids: acked.slice(-50), with_vector: true, with_payload: false });
      const points = (got.body as { result: Array<{ id: number; vector: number[] }> }).result;
      expect(points.map((p) => p.id)).toEqual(acked.slice(-50));
      for (const p of points) expect(p.vector).toEqual(vectorOf(p.id));
      // It takes writes again once there is room.
      expect((await http(again.rest, 'PUT', '/collections/c/points?wait=true', { points: [{ id: 99_999, vector: vectorOf(1) }] })).status).toBe(200);
    } finally {
      again.child.kill('SIGKILL');
      await again.exited;
    }
  }, 60_000);
});
