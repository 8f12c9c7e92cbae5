// The crash test of live collections, through the real server: `strata serve --data-dir` as a child
// process takes a stream of upserts and deletes from several concurrent clients over HTTP and is
// killed with SIGKILL at a random moment, many times over (STRATA_SERVER_CRASH_CYCLES, 3 in CI; the
// figure in docs/reliability.md is from 50). After every restart:
//   - every acknowledged upsert is there, with its exact vector and payload, unless an acknowledged
//     delete removed it;
//   - every acknowledged delete holds;
//   - a write whose answer was lost with the process is there entirely or not at all;
//   - nothing is there that was never sent;
// and before it, with the server down, the data directory passes `strata verify --data-dir`.
import { afterAll, describe, expect, it } from 'vitest';
import { mulberry32 } from '../../common/random.js';
import { verifyDataDir } from '../../storage/verify-live.js';
import { makeTempDir } from '../helpers/temp.js';
import { http } from './fixture.js';
import { checkAfterRestart, serveChild } from './serve-child.js';

const DIM = 8;
const BATCH = 5;
const CLIENTS = 4;
const tmp = makeTempDir('strata-crash-');
afterAll(() => tmp.cleanup());

/** The vector a point id is always written with: verification recomputes it. */
function vectorOf(id: number): number[] {
  const r = mulberry32(id + 1);
  return Array.from({ length: DIM }, () => Math.fround(r() * 2 - 1));
}

interface Write {
  kind: 'upsert' | 'delete';
  ids: number[];
  acked: boolean;
}

describe('live collections survive SIGKILL', () => {
  it(
    'loses no acknowledged write and applies no write in part, over many kill-and-restart cycles',
    async () => {
      const cycles = Number(process.env['STRATA_SERVER_CRASH_CYCLES'] ?? 3);
      const dataDir = tmp.path('data');
      const rnd = mulberry32(42);
      const writes: Write[] = [];
      let nextId = 0;
      let inFlight = 0;
      let torn = 0;
      const name = 'crash';
      for (let cycle = 0; cycle < cycles; cycle++) {
        const s = await serveChild(['--data-dir', dataDir, '--no-grpc', '--log-level', 'silent']);
        try {
          if (cycle === 0) expect((await http(s.rest, 'PUT', `/collections/${name}`, { vectors: { size: DIM, distance: 'Euclid' } })).status).toBe(200);
          else await verify(s.rest);
          // Clients write until the process dies under them.
          let dead = false;
          const client = async (): Promise<void> => {
            while (!dead) {
              const ackedUpserts = writes.filter((w) => w.kind === 'upsert' && w.acked);
              const w: Write =
                rnd() < 0.2 && ackedUpserts.length > 0
                  ? { kind: 'delete', ids: ackedUpserts[Math.floor(rnd() * ackedUpserts.length)]!.ids.slice(0, 2), acked: false }
                  : { kind: 'upsert', ids: Array.from({ length: BATCH }, () => nextId++), acked: false };
              writes.push(w);
              const r =
                w.kind === 'upsert'
                  ? await http(s.rest, 'PUT', `/collections/${name}/points?wait=true`, {
                      points: w.ids.map((id) => ({ id, vector: vectorOf(id), payload: { id } })),
                    }).catch(() => null)
                  : await http(s.rest, 'POST', `/collections/${name}/points/delete?wait=true`, { points: w.ids }).catch(() => null);
              if (r === null) return;
              expect(r.status, r.text).toBe(200);
              w.acked = true;
            }
          };
          const running = Array.from({ length: CLIENTS }, () => client());
          await new Promise((r) => setTimeout(r, 100 + rnd() * 400));
          s.child.kill('SIGKILL');
          dead = true;
          inFlight += writes.filter((w) => !w.acked).length;
          // With the server down, the data directory as the crash left it passes strata verify's
          // checks (a torn tail is allowed: recovery cuts it).
          await s.exited;
          const checks = verifyDataDir(dataDir);
          expect(checks.length).toBe(1);
          expect(checks[0], JSON.stringify(checks[0])).toMatchObject({ ok: true, name });
          if (checks[0]!.tornBytes > 0) torn++;
          await s.exited;
          await Promise.all(running);
        } finally {
          if (s.child.exitCode === null) s.child.kill('SIGKILL');
        }
      }
      await checkAfterRestart(dataDir, verify);
      const kept = writes.length;
      expect(kept).toBeGreaterThan(cycles);
      console.info(
        `server crash test: ${cycles} SIGKILL cycles, ${kept} writes acknowledged or recovered whole, ${inFlight} in flight at a kill (each all or nothing), 0 acknowledged lost, strata verify passed after every kill (${torn} torn tails)`,
      );

      /** Checks the server's points against the writes made so far, then settles the unacknowledged ones. */
      async function verify(rest: string): Promise<void> {
        type Page = { points: Array<{ id: number; vector: number[]; payload: { id: number } }>; next_page_offset: number | null };
        const points: Page['points'] = [];
        for (let offset: number | null = null; ; ) {
          const r = await http(rest, 'POST', `/collections/${name}/points/scroll`, { offset, limit: 5000, with_vector: true, with_payload: true });
          expect(r.status).toBe(200);
          const page = (r.body as { result: Page }).result;
          points.push(...page.points);
          offset = page.next_page_offset;
          if (offset === null) break;
        }
        const present = new Map(points.map((p) => [p.id, p]));
        const sent = new Set(writes.filter((w) => w.kind === 'upsert').flatMap((w) => w.ids));
        for (const p of points) {
          expect(sent.has(p.id), `point ${p.id} was never sent`).toBe(true);
          expect(p.vector).toEqual(vectorOf(p.id));
          expect(p.payload).toEqual({ id: p.id });
        }
        const deleted = new Set(writes.filter((w) => w.kind === 'delete' && w.acked).flatMap((w) => w.ids));
        for (const w of writes) if (w.kind === 'delete' && w.acked) for (const id of w.ids) expect(present.has(id), `acknowledged delete of ${id}`).toBe(false);
        // A delete in flight at the kill (it names acknowledged points only): all of it or none of it.
        for (const w of writes) {
          if (w.kind !== 'delete' || w.acked) continue;
          const open = w.ids.filter((id) => !deleted.has(id));
          const gone = open.filter((id) => !present.has(id));
          expect([0, open.length], `delete ${w.ids.join(',')} in flight`).toContain(gone.length);
          w.acked = gone.length === open.length;
        }
        for (const w of writes) if (w.kind === 'delete' && w.acked) for (const id of w.ids) deleted.add(id);
        for (const w of writes) {
          if (w.kind !== 'upsert') continue;
          const here = w.ids.filter((id) => present.has(id));
          const live = w.ids.filter((id) => !deleted.has(id));
          if (w.acked) expect(here, `acknowledged upsert ${w.ids.join(',')}`).toEqual(live);
          else {
            // In flight at the kill: all of it or none of it (a later delete may have taken some away).
            if (here.length > 0) expect(here).toEqual(live);
            w.acked = here.length > 0;
          }
        }
        // An unacknowledged write that did not survive never happened: drop it from the record.
        for (let i = writes.length - 1; i >= 0; i--) if (!writes[i]!.acked) writes.splice(i, 1);
      }
    },
    Math.max(60_000, 8000 * Number(process.env['STRATA_SERVER_CRASH_CYCLES'] ?? 3)),
  );
});
