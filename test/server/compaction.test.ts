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

// Cycles of kills during compactions (and the log cuts that follow them) while writes stream; CI
// runs 4, `STRATA_COMPACTION_CRASH_CYCLES=50` the long run docs/reliability.md reports.
const CYCLES = Number(process.env['STRATA_COMPACTION_CRASH_CYCLES'] ?? 4);

describe('a compaction killed with SIGKILL', () => {
  it(
    'loses nothing acknowledged, whenever the kill comes, with writes streaming through the compaction and the cut of its log',
    async () => {
      const dataDir = tmp.path('crash');
      const rnd = mulberry32(11);
      const live = new Set<number>();
      // Written when a kill came, unacknowledged: each may or may not be there after the restart.
      let inFlight: number[] = [];
      let next = 0;
      let acknowledgedDuring = 0;
      let inFlightFound = 0;
      let inFlightAbsent = 0;
      for (let cycle = 0; cycle < CYCLES; cycle++) {
        const s = await serveChild(['--data-dir', dataDir, '--no-grpc', '--log-level', 'silent', '--compact-at', '0']);
        try {
          if (cycle === 0) expect((await http(s.rest, 'PUT', '/collections/k', { vectors: { size: DIM, distance: 'Cosine' } })).status).toBe(200);
          // An unacknowledged write is there whole or not at all; from now on it counts as written if there.
          if (inFlight.length > 0) {
            const found = await http(s.rest, 'POST', '/collections/k/points', { ids: inFlight, with_vector: false });
            const there = (found.body as { result: Array<{ id: number }> }).result.map((p) => p.id);
            expect([0, inFlight.length]).toContain(there.length);
            if (there.length > 0) inFlightFound++;
            else inFlightAbsent++;
            for (const id of there) live.add(id);
            inFlight = [];
          }
          // What the last cycles acknowledged is all there.
          const all = [...live];
          let present = 0;
          for (let i = 0; i < all.length; i += 5000) {
            const got = await http(s.rest, 'POST', '/collections/k/points', { ids: all.slice(i, i + 5000), with_vector: false });
            expect(got.status, `cycle ${cycle}: ${got.text.slice(0, 300)}`).toBe(200);
            present += (got.body as { result: unknown[] }).result.length;
          }
          expect(present).toBe(live.size);
          expect((await http(s.rest, 'POST', '/collections/k/points/count', {})).body).toMatchObject({ result: { count: live.size } });
          const ids = Array.from({ length: 800 }, () => next++);
          expect((await http(s.rest, 'PUT', '/collections/k/points?wait=true', { points: ids.map((id) => ({ id, vector: vectorOf(id) })) })).status).toBe(200);
          for (const id of ids) live.add(id);
          const gone = ids.filter((_, i) => i % 5 === 0);
          expect((await http(s.rest, 'POST', '/collections/k/points/delete?wait=true', { points: gone })).status).toBe(200);
          for (const id of gone) live.delete(id);
          void http(s.rest, 'POST', '/collections/k/compact').catch(() => null);
          // Writes go on through the build, the swap and the cut, until the kill.
          const deadline = performance.now() + rnd() * 600;
          while (performance.now() < deadline) {
            const batch = Array.from({ length: 20 }, () => next++);
            inFlight = batch;
            const r = await http(s.rest, 'PUT', '/collections/k/points?wait=true', { points: batch.map((id) => ({ id, vector: vectorOf(id) })) });
            expect(r.status, r.text).toBe(200);
            for (const id of batch) live.add(id);
            inFlight = [];
            acknowledgedDuring += batch.length;
          }
          // The kill lands while a last batch is on its way.
          inFlight = Array.from({ length: 20 }, () => next++);
          void http(s.rest, 'PUT', '/collections/k/points?wait=true', { points: inFlight.map((id) => ({ id, vector: vectorOf(id) })) }).catch(() => null);
          await new Promise((r) => setTimeout(r, rnd() * 5));
        } finally {
          s.child.kill('SIGKILL');
          await s.exited;
        }
      }
      const last = await serveChild(['--data-dir', dataDir, '--no-grpc', '--log-level', 'silent', '--compact-at', '0']);
      try {
        const found = await http(last.rest, 'POST', '/collections/k/points', { ids: inFlight, with_vector: false });
        for (const p of (found.body as { result: Array<{ id: number }> }).result) live.add(p.id);
        expect(acknowledgedDuring).toBeGreaterThan(0);
        expect((await http(last.rest, 'POST', '/collections/k/points/count', {})).body).toMatchObject({ result: { count: live.size } });
        const sample = [...live].filter((_, i) => i % 37 === 0);
        const got = await http(last.rest, 'POST', '/collections/k/points', { ids: sample, with_vector: true });
        for (const p of (got.body as { result: Array<{ id: number; vector: number[] }> }).result) {
          const v = vectorOf(p.id);
          const n = Math.hypot(...v);
          p.vector.forEach((x, i) => expect(x).toBeCloseTo(v[i]! / n, 5));
        }
        expect((await http(last.rest, 'POST', '/collections/k/compact')).body).toMatchObject({ result: { compacted: true, points: live.size } });
        if (process.env['STRATA_COMPACTION_CRASH_CYCLES'])
          process.stdout.write(
            `compaction crash cycles: ${CYCLES}, points acknowledged and present ${live.size}, writes acknowledged while compactions ran ${acknowledgedDuring}, batches in flight at a kill found whole ${inFlightFound} / absent ${inFlightAbsent}, lost 0\n`,
          );
      } finally {
        last.child.kill('SIGKILL');
        await last.exited;
      }
    },
    Math.max(120_000, CYCLES * 10_000),
  );
});
