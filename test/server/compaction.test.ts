// Compaction through the server: POST /collections/{name}/compact folds a live collection's fresh
// points and deletes into a new tiered base and says what it freed; the metrics count it; a server
// without a data directory refuses it (405). And a server killed with SIGKILL at random moments of
// a compaction restarts with every acknowledged point, whether the kill came before, during or after
// the swap.
import { afterAll, describe, expect, it } from 'vitest';
import { mulberry32 } from '../../common/random.js';
import { makeTempDir } from '../helpers/temp.js';
import { http, servedSuite } from './fixture.js';
import { serveChild } from './serve-child.js';

const tmp = makeTempDir('strata-server-compaction-');
afterAll(() => tmp.cleanup());
const DIM = 16;
const vectorOf = (id: number): number[] => Array.from({ length: DIM }, (_, i) => Math.fround(Math.sin(id * 0.37 + i * 1.3)));

describe('POST /collections/{name}/compact', () => {
  const t = servedSuite({ engine: { dataDir: tmp.path('data'), compactAt: 0 } });
  const readOnly = servedSuite();

  it('folds fresh points and deletes into a new base, answers what it freed, and the metrics count it', async () => {
    const url = t.srv.url;
    expect((await http(url, 'PUT', '/collections/c', { vectors: { size: DIM, distance: 'Euclid' } })).status).toBe(200);
    const ids = Array.from({ length: 300 }, (_, i) => i);
    expect(
      (await http(url, 'PUT', '/collections/c/points?wait=true', { points: ids.map((id) => ({ id, vector: vectorOf(id), payload: { id } })) })).status,
    ).toBe(200);
    expect((await http(url, 'POST', '/collections/c/points/delete?wait=true', { points: ids.slice(0, 50) })).status).toBe(200);
    const r = await http(url, 'POST', '/collections/c/compact');
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ result: { compacted: true, points: 250, fresh_before: 250, hidden_before: 0, fresh_after: 0, hidden_after: 0 } });
    const near = await http(url, 'POST', '/collections/c/points/search', { vector: vectorOf(77), limit: 3, with_payload: true });
    expect((near.body as { result: Array<{ id: number; payload: unknown }> }).result[0]).toMatchObject({ id: 77, payload: { id: 77 } });
    expect((await http(url, 'POST', '/collections/c/points/count', {})).body).toMatchObject({ result: { count: 250 } });
    const metrics = (await http(url, 'GET', '/metrics')).text;
    expect(metrics).toMatch(/strata_live_compactions\{collection="c",state="done"\} 1/);
    expect(metrics).toMatch(/strata_live_fresh_points\{collection="c"\} 0/);
  });

  it('is refused (405) by a server without a data directory', async () => {
    const r = await http(readOnly.srv.url, 'POST', '/collections/vectors/compact');
    expect([r.status, r.headers['strata-code']]).toEqual([405, 'STRATA_READ_ONLY']);
  });
});

describe('a compaction killed with SIGKILL', () => {
  it('loses nothing acknowledged, whenever the kill comes', async () => {
    const dataDir = tmp.path('crash');
    const rnd = mulberry32(11);
    const live = new Set<number>();
    let next = 0;
    for (let cycle = 0; cycle < 4; cycle++) {
      const s = await serveChild(['--data-dir', dataDir, '--no-grpc', '--log-level', 'silent', '--compact-at', '0']);
      try {
        if (cycle === 0) expect((await http(s.rest, 'PUT', '/collections/k', { vectors: { size: DIM, distance: 'Cosine' } })).status).toBe(200);
        // What the last cycles acknowledged is all there.
        const got = await http(s.rest, 'POST', '/collections/k/points', { ids: [...live], with_vector: false });
        expect((got.body as { result: unknown[] }).result.length).toBe(live.size);
        expect((await http(s.rest, 'POST', '/collections/k/points/count', {})).body).toMatchObject({ result: { count: live.size } });
        const ids = Array.from({ length: 800 }, () => next++);
        expect((await http(s.rest, 'PUT', '/collections/k/points?wait=true', { points: ids.map((id) => ({ id, vector: vectorOf(id) })) })).status).toBe(200);
        for (const id of ids) live.add(id);
        const gone = ids.filter((_, i) => i % 5 === 0);
        expect((await http(s.rest, 'POST', '/collections/k/points/delete?wait=true', { points: gone })).status).toBe(200);
        for (const id of gone) live.delete(id);
        void http(s.rest, 'POST', '/collections/k/compact').catch(() => null);
        await new Promise((r) => setTimeout(r, rnd() * 600));
      } finally {
        s.child.kill('SIGKILL');
        await s.exited;
      }
    }
    const last = await serveChild(['--data-dir', dataDir, '--no-grpc', '--log-level', 'silent', '--compact-at', '0']);
    try {
      expect((await http(last.rest, 'POST', '/collections/k/points/count', {})).body).toMatchObject({ result: { count: live.size } });
      const sample = [...live].filter((_, i) => i % 37 === 0);
      const got = await http(last.rest, 'POST', '/collections/k/points', { ids: sample, with_vector: true });
      for (const p of (got.body as { result: Array<{ id: number; vector: number[] }> }).result) {
        const v = vectorOf(p.id);
        const n = Math.hypot(...v);
        p.vector.forEach((x, i) => expect(x).toBeCloseTo(v[i]! / n, 5));
      }
      expect((await http(last.rest, 'POST', '/collections/k/compact')).body).toMatchObject({ result: { compacted: true, points: live.size } });
    } finally {
      last.child.kill('SIGKILL');
      await last.exited;
    }
  }, 120_000);
});
