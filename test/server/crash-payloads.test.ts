// Payload writes and payload indexes survive SIGKILL, through the real server: `strata serve
// --data-dir` takes upserts with payloads, set_payload and deletes from concurrent clients, over a
// collection with an integer index, and is killed at a random moment, several times over
// (STRATA_SERVER_CRASH_CYCLES, 3 in CI), with a compaction asked for on the way. After every
// restart each point's payload is what its acknowledged writes made it (a write in flight at the
// kill applied entirely or not at all), and filtered counts, filtered searches and the index's
// point count agree with the payloads read back.
import { afterAll, describe, expect, it } from 'vitest';
import { mulberry32 } from '../../common/random.js';
import { makeTempDir } from '../helpers/temp.js';
import { http } from './fixture.js';
import { checkAfterRestart, serveChild } from './serve-child.js';

const DIM = 4;
const CLIENTS = 3;
const GROUPS = 4;
const tmp = makeTempDir('strata-crash-payloads-');
afterAll(() => tmp.cleanup());

type Payload = { g: number; c: number };
type Write = { kind: 'upsert'; ids: number[] } | { kind: 'set'; ids: number[]; g: number } | { kind: 'delete'; ids: number[] };

/** One client's points (its own ids, so its writes are ordered), as its acknowledged writes left them. */
interface ClientModel {
  points: Map<number, Payload>;
  /** The write whose answer was lost with the process, if any. */
  inFlight: Write | null;
  next: number;
}

function apply(points: Map<number, Payload>, w: Write, c: number): void {
  if (w.kind === 'upsert') for (const id of w.ids) points.set(id, { g: id % GROUPS, c });
  else if (w.kind === 'delete') for (const id of w.ids) points.delete(id);
  else for (const id of w.ids) if (points.has(id)) points.set(id, { g: w.g, c });
}

const vectorOf = (id: number): number[] => {
  const r = mulberry32(id + 7);
  return Array.from({ length: DIM }, () => Math.fround(r() * 2 - 1));
};

describe('payload writes and payload indexes survive SIGKILL', () => {
  it(
    'every acknowledged payload write holds, none applies in part, and filtered counts agree with the payloads',
    async () => {
      const cycles = Number(process.env['STRATA_SERVER_CRASH_CYCLES'] ?? 3);
      const dataDir = tmp.path('data');
      const rnd = mulberry32(9);
      const name = 'pc';
      const models: ClientModel[] = Array.from({ length: CLIENTS }, () => ({ points: new Map(), inFlight: null, next: 0 }));
      for (let cycle = 0; cycle < cycles; cycle++) {
        const s = await serveChild(['--data-dir', dataDir, '--no-grpc', '--log-level', 'silent']);
        try {
          if (cycle === 0) {
            expect((await http(s.rest, 'PUT', `/collections/${name}`, { vectors: { size: DIM, distance: 'Euclid' } })).status).toBe(200);
            const ix = await http(s.rest, 'PUT', `/collections/${name}/index?wait=true`, { field_name: 'g', field_schema: 'integer' });
            expect(ix.status, ix.text).toBe(200);
          } else await verify(s.rest);
          let dead = false;
          const client = async (c: number): Promise<void> => {
            const m = models[c]!;
            while (!dead) {
              const mine = [...m.points.keys()];
              const roll = rnd();
              const w: Write =
                roll < 0.25 && mine.length > 0
                  ? { kind: 'set', ids: mine.slice(-3), g: Math.floor(rnd() * GROUPS) }
                  : roll < 0.35 && mine.length > 0
                    ? { kind: 'delete', ids: [mine[0]!] }
                    : { kind: 'upsert', ids: Array.from({ length: 4 }, () => c + CLIENTS * m.next++) };
              m.inFlight = w;
              const sent =
                w.kind === 'upsert'
                  ? http(s.rest, 'PUT', `/collections/${name}/points?wait=true`, {
                      points: w.ids.map((id) => ({ id, vector: vectorOf(id), payload: { g: id % GROUPS, c } })),
                    })
                  : w.kind === 'set'
                    ? http(s.rest, 'POST', `/collections/${name}/points/payload?wait=true`, { payload: { g: w.g, c }, points: w.ids })
                    : http(s.rest, 'POST', `/collections/${name}/points/delete?wait=true`, { points: w.ids });
              const r = await sent.catch(() => null);
              if (r === null) return;
              expect(r.status, r.text).toBe(200);
              apply(m.points, w, c);
              m.inFlight = null;
            }
          };
          const running = Array.from({ length: CLIENTS }, (_, c) => client(c));
          await new Promise((r) => setTimeout(r, 150 + rnd() * 300));
          // Now and then a compaction is under way when the kill comes.
          if (cycle % 2 === 1) void http(s.rest, 'POST', `/collections/${name}/compact`, {}).catch(() => null);
          await new Promise((r) => setTimeout(r, rnd() * 200));
          s.child.kill('SIGKILL');
          dead = true;
          await s.exited;
          await Promise.all(running);
        } finally {
          if (s.child.exitCode === null) s.child.kill('SIGKILL');
        }
      }
      await checkAfterRestart(dataDir, verify);

      async function verify(rest: string): Promise<void> {
        type Page = { points: Array<{ id: number; payload: Payload | null }>; next_page_offset: number | null };
        const got = new Map<number, Payload>();
        for (let offset: number | null = null; ; ) {
          const r = await http(rest, 'POST', `/collections/${name}/points/scroll`, { offset, limit: 5000, with_payload: true });
          expect(r.status, r.text).toBe(200);
          const page = (r.body as { result: Page }).result;
          for (const p of page.points) got.set(p.id, p.payload as Payload);
          offset = page.next_page_offset;
          if (offset === null) break;
        }
        models.forEach((m, c) => {
          const mineGot = new Map([...got].filter(([id]) => id % CLIENTS === c));
          const without = new Map(m.points);
          const withIt = new Map(m.points);
          if (m.inFlight) apply(withIt, m.inFlight, c);
          const same = (a: Map<number, Payload>) =>
            JSON.stringify([...a].sort((x, y) => x[0] - y[0])) === JSON.stringify([...mineGot].sort((x, y) => x[0] - y[0]));
          const applied = same(withIt);
          expect(applied || same(without), `client ${c}: its points are neither before nor after its write in flight`).toBe(true);
          m.points = applied ? withIt : without;
          m.inFlight = null;
        });
        for (let g = 0; g < GROUPS; g++) {
          const filter = { must: [{ key: 'g', match: { value: g } }] };
          const want = [...got.values()].filter((p) => p.g === g).length;
          const count = await http(rest, 'POST', `/collections/${name}/points/count`, { filter, exact: true });
          expect((count.body as { result: { count: number } }).result.count, `count of g=${g}`).toBe(want);
          const search = await http(rest, 'POST', `/collections/${name}/points/search`, { vector: vectorOf(g), limit: 10, filter, with_payload: true });
          const hits = (search.body as { result: Array<{ payload: Payload }> }).result;
          expect(hits.length).toBe(Math.min(10, want));
          for (const h of hits) expect(h.payload.g).toBe(g);
        }
        const info = await http(rest, 'GET', `/collections/${name}`);
        const schema = (info.body as { result: { payload_schema: Record<string, { data_type: string; points: number }> } }).result.payload_schema;
        expect(schema['g']).toEqual({ data_type: 'integer', points: got.size });
      }
    },
    Math.max(60_000, 10_000 * Number(process.env['STRATA_SERVER_CRASH_CYCLES'] ?? 3)),
  );
});
