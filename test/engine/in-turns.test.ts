// Reads of many points (a scroll's page, a retrieve) run over turns of the event loop
// (Collection.inTurns): a write landing between turns makes the read start again, so that a page
// shows each write whole, and after FILTERED_RETRIES tries the read runs in one turn. The server's
// scroll takes those turns, and answers as the points are.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Collection, FILTERED_RETRIES } from '../../engine/collection.js';
import { Engine } from '../../engine/engine.js';
import { parseFilter } from '../../index/filter/parse.js';
import { READ_TURN_POINTS, scrollPoints } from '../../server/api/points.js';
import { makeTempDir } from '../helpers/temp.js';

const tmp = makeTempDir('strata-in-turns-');
const N = 3 * READ_TURN_POINTS + 7;
let engine: Engine;
let c: Collection;

beforeAll(async () => {
  engine = await Engine.open([], { searchThreads: 0, dataDir: tmp.dir, compactAt: 0, memory: { mode: 'emulate' } });
  c = await engine.createCollection({ name: 'turns', dim: 2, metric: 'l2', m: 4, efConstruction: 8 });
  await c.upsert(Array.from({ length: N }, (_, key) => ({ key, vector: Float32Array.of(key, -key), payload: { v: 0 } })));
});

afterAll(async () => {
  await engine.close();
  tmp.cleanup();
});

describe('reads over turns of the event loop', () => {
  it('start again when a write lands between their turns, and answer with each write whole', async () => {
    const starts = { n: 0 };
    let written = false;
    const write = c.setPayload({ ids: Array.from({ length: N }, (_, i) => i) }, { v: 1 }, false).then(() => {
      written = true;
    });
    // Half the points read, then turns taken until the write has landed, then the rest.
    const values = await c.inTurns(function* () {
      starts.n++;
      const out: number[] = [];
      for (let id = 0; id < N; id++) {
        if (id === N >> 1) while (!written) yield;
        out.push(c.payloads.get(id)!['v'] as number);
      }
      return out;
    });
    await write;
    expect(starts.n).toBe(2);
    expect(new Set(values)).toEqual(new Set([1]));
  });

  it('run in one turn after FILTERED_RETRIES tries overtaken by writes', async () => {
    const starts = { n: 0 };
    let landed = 0;
    let writing = true;
    const storm = async (): Promise<void> => {
      for (let v = 10; writing; v++) {
        await c.setPayload({ ids: [0] }, { v }, false);
        landed++;
      }
    };
    const stormed = storm();
    const values = await c.inTurns(function* () {
      starts.n++;
      // Turns taken until a write lands (a bounded wait: the last try takes no turns).
      const seen = landed;
      for (let t = 0; t < 10_000 && landed === seen; t++) yield;
      return Array.from({ length: N }, (_, id) => c.payloads.get(id)!['v'] as number);
    });
    writing = false;
    await stormed;
    expect(starts.n).toBe(FILTERED_RETRIES);
    expect(values).toHaveLength(N);
  });

  it('serve a scroll page over turns, with the points and payloads of the collection', async () => {
    let done = false;
    let turnTaken = false;
    setImmediate(() => {
      turnTaken = !done;
    });
    const filter = parseFilter({ must: [{ key: 'v', range: { gte: 0 } }] });
    const page = await scrollPoints(c, { offset: null, orderBy: undefined, limit: N - 1, withVector: true, withNamed: [], withPayload: true, filter }).finally(
      () => {
        done = true;
      },
    );
    expect(turnTaken).toBe(true);
    expect(page.points.map((p) => p.id)).toEqual(Array.from({ length: N - 1 }, (_, i) => i));
    expect(page.next).toBe(N - 1);
    for (const p of page.points) {
      expect(Array.from(p.vector!)).toEqual([p.id as number, -(p.id as number)]);
      expect(p.payload).toEqual(c.payloads.get(p.id as number));
    }
  });
});
