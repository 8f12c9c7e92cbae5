// A live store behind a shared write log (the SharedLog interface; NATS JetStream in production,
// test/server/replication.test.ts), here over an in-memory log whose delivery the test controls:
// a write answers only once its own store applied it, with the log's sequence; stores apply in the
// log's order, not their publishing order; a reopened store resumes after the last record it
// applied; a store behind the log's end when it began following reports itself catching up; and
// UUIDs are numbered alike by every store.
import { afterAll, describe, expect, it } from 'vitest';
import { LiveStore, type SharedLog } from '../../storage/live-store.js';
import { makeTempDir } from '../helpers/temp.js';

const DIM = 4;
const tmp = makeTempDir('strata-shared-log-');
afterAll(() => tmp.cleanup());

interface Entry {
  type: number;
  bytes: Uint8Array;
  seq: number;
  writeId?: string;
}

/** An in-memory shared log: records are delivered only when the test calls deliver(). */
class MemoryLog {
  readonly entries: Entry[] = [];
  private readonly followers: Array<{ next: number; deliver: (type: number, bytes: Uint8Array, seq: number) => void; closed: boolean }> = [];

  view(): SharedLog {
    const self = this;
    let mine: (typeof this.followers)[number] | null = null;
    return {
      async publish(type, bytes, writeId) {
        const dup = writeId === undefined ? undefined : self.entries.find((e) => e.writeId === writeId);
        if (dup) return dup.seq;
        const seq = self.entries.length + 1;
        self.entries.push({ type, bytes: bytes.slice(), seq, ...(writeId !== undefined ? { writeId } : {}) });
        return seq;
      },
      follow(from, deliver) {
        mine = { next: from, deliver, closed: false };
        self.followers.push(mine);
      },
      async last() {
        return self.entries.length;
      },
      async close() {
        if (mine) mine.closed = true;
      },
    };
  }

  /** Delivers every stored record each follower has not had yet, in sequence order. */
  deliver(): void {
    for (const f of this.followers) {
      while (!f.closed && f.next <= this.entries.length) {
        const e = this.entries[f.next - 1]!;
        f.deliver(e.type, e.bytes, e.seq);
        f.next++;
      }
    }
  }
}

const v = (x: number): Float32Array => Float32Array.from({ length: DIM }, (_, i) => x + i);
const point = (id: number, x: number) => ({ id, vector: v(x), payload: null });
const settle = (): Promise<void> => new Promise((r) => setTimeout(r, 20));
/** Waits (up to ~10 s) for the appends behind delivered records: a loaded machine's fsyncs can outlast one settle. */
async function settleUntil(done: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !done(); i++) await settle();
}

async function store(dir: string): Promise<LiveStore> {
  return (await LiveStore.open(tmp.path(dir), DIM, 'l2', null)).store;
}

describe('a live store behind a shared write log', () => {
  it('answers a write only once it applied it, with its sequence, and applies writes in the log order, not the publishing order', async () => {
    const log = new MemoryLog();
    const a = await store('order-a');
    const b = await store('order-b');
    await a.follow(log.view());
    await b.follow(log.view());
    let answered = false;
    const w1 = a.upsert([point(1, 10)]).then((seq) => {
      answered = true;
      return seq;
    });
    const w2 = b.upsert([point(1, 20)]);
    await settle();
    // Published, not delivered: neither store has it, and the write is not answered.
    expect(answered).toBe(false);
    expect([a.fresh.has(1), b.fresh.has(1)]).toEqual([false, false]);
    log.deliver();
    expect([await w1, await w2]).toEqual([1n, 2n]);
    // Both applied seq 1 (a's) then seq 2 (b's): the same last write wins on both.
    for (const s of [a, b]) {
      expect(Array.from(s.fresh.vector(1)!)).toEqual(Array.from(v(20)));
      expect(s.sharedSeq).toBe(2);
    }
    // A write published again with its write id is stored once and answers with the first sequence.
    const again = a.upsert([point(1, 10)], 'w-1');
    const first = b.upsert([point(1, 30)], 'w-1');
    log.deliver();
    expect([await first, await again]).toEqual([3n, 3n]);
    expect(log.entries.length).toBe(3);
    await a.close();
    await b.close();
  });

  it('resumes after the last record it applied when reopened, and reports itself catching up until it reaches the log end it found', async () => {
    const log = new MemoryLog();
    const a = await store('resume-a');
    await a.follow(log.view());
    const writes = [a.upsert([point(1, 1)]), a.delete([1]), a.upsert([point(2, 2)])];
    log.deliver();
    await Promise.all(writes);
    await a.close();

    // Two more records while it is down (published by another replica).
    const other = await store('resume-other');
    await other.follow(log.view());
    const more = [other.upsert([point(3, 3)]), other.upsert([point(2, 5)])];
    log.deliver();
    await Promise.all(more);

    const again = await store('resume-a');
    expect(again.sharedSeq).toBe(3);
    expect([again.fresh.has(1), again.fresh.has(2), again.fresh.has(3)]).toEqual([false, true, false]);
    await again.follow(log.view());
    expect(again.catchingUp).toEqual({ at: 3, to: 5 });
    log.deliver();
    await settleUntil(() => again.catchingUp === null);
    expect(again.catchingUp).toBeNull();
    expect(again.sharedSeq).toBe(5);
    expect(Array.from(again.fresh.vector(2)!)).toEqual(Array.from(v(5)));
    expect(again.fresh.has(3)).toBe(true);
    // Its own log holds each record once: nothing before its last applied one was delivered again.
    expect(again.applied.upserted).toBe(2 + 2);
    await again.close();
    await other.close();
  });

  it('numbers new UUIDs when applied, in log order, so stores that published them concurrently agree', async () => {
    const log = new MemoryLog();
    const a = await store('uuid-a');
    const b = await store('uuid-b');
    await a.follow(log.view());
    await b.follow(log.view());
    const u = (i: number): string => `00000000-0000-4000-8000-00000000000${i}`;
    // Each store publishes a UUID it has not seen (id -1), at the same time.
    const wa = a.upsert([{ id: -1, uuid: u(1), vector: v(1), payload: null }]);
    const wb = b.upsert([{ id: -1, uuid: u(2), vector: v(2), payload: null }]);
    log.deliver();
    await Promise.all([wa, wb]);
    for (const s of [a, b]) expect([s.idOfUuid(u(1), false), s.idOfUuid(u(2), false)]).toEqual([2 ** 52, 2 ** 52 + 1]);
    await a.close();
    await b.close();
  });

  it('stops following at a record it cannot apply: writes refused with STRATA_WRITE_LOG, nothing logged or skipped past it', async () => {
    const log = new MemoryLog();
    const a = await store('bad-a');
    const view = log.view();
    await a.follow(view);
    const ok = a.upsert([point(1, 1)]);
    log.deliver();
    await ok;
    // A record no replica wrote (type 99), then a good one after it.
    await view.publish(99, new Uint8Array([1, 2, 3]));
    const after = a.upsert([point(2, 2)]);
    log.deliver();
    await expect(after).rejects.toMatchObject({ code: 'STRATA_WRITE_LOG' });
    expect(a.writeRefusal?.message).toMatch(/record 2 of the shared write log cannot be applied \(unknown record type 99\)/);
    expect([a.fresh.has(1), a.fresh.has(2), a.sharedSeq]).toEqual([true, false, 1]);
    await expect(a.upsert([point(3, 3)])).rejects.toMatchObject({ code: 'STRATA_WRITE_LOG' });
    await a.close();
    // Its own log holds only what it applied: it reopens, at the record before the bad one.
    const again = await store('bad-a');
    expect([again.sharedSeq, again.fresh.has(1), again.fresh.has(2)]).toEqual([1, true, false]);
    await again.close();
  });
});
