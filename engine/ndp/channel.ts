// A one-message-at-a-time channel between a search thread and a tier worker, in shared memory.
// The query vectors and the ids sit in the tier's own segment slots already (the search thread
// wrote them there: that write is the message's payload crossing the link), so a message is only a
// list of (segment, slot, count) entries. Waking uses Atomics.wait/notify on a per-worker doorbell,
// so one worker serves the channels of every search thread without polling.

export const CH_REQ = 0;
export const CH_DONE = 1;
export const CH_COUNT = 2;
/** Ids in the message (for link accounting on the worker side). */
export const CH_IDS = 3;
/** Injection: ns the worker stalls before answering (the message's modelled time), and what it measured. */
export const CH_STALL_NS = 4;
export const CH_STALLED_NS = 5;
export const CH_HEADER = 8;

export function createChannel(maxEntries: number): SharedArrayBuffer {
  return new SharedArrayBuffer(4 * (CH_HEADER + 3 * maxEntries));
}

export class ChannelClient {
  readonly ctrl: Int32Array;
  readonly maxEntries: number;
  private count = 0;
  private ids = 0;
  private seq = 0;
  private outstanding = false;

  constructor(
    sab: SharedArrayBuffer,
    private readonly bell: Int32Array,
    private readonly bellIndex: number,
  ) {
    this.ctrl = new Int32Array(sab);
    this.maxEntries = (this.ctrl.length - CH_HEADER) / 3;
  }

  get size(): number {
    return this.count;
  }

  /** Ids in the message being assembled. */
  get pendingIds(): number {
    return this.ids;
  }

  /** The stall the worker measured while answering the last message. */
  stalledNs(): number {
    return this.ctrl[CH_STALLED_NS]!;
  }

  add(segment: number, slot: number, n: number): void {
    const at = CH_HEADER + 3 * this.count++;
    this.ctrl[at] = segment;
    this.ctrl[at + 1] = slot;
    this.ctrl[at + 2] = n;
    this.ids += n;
  }

  /** Sends the entries added so far, if any, asking the worker to stall `stallNs` first; returns the ids sent. */
  send(stallNs = 0): number {
    if (this.count === 0) return 0;
    const ids = this.ids;
    this.ctrl[CH_COUNT] = this.count;
    this.ctrl[CH_IDS] = ids;
    this.ctrl[CH_STALL_NS] = Math.min(0x7fffffff, Math.round(stallNs));
    this.ctrl[CH_STALLED_NS] = 0;
    this.seq = (this.seq + 1) | 0;
    Atomics.store(this.ctrl, CH_REQ, this.seq);
    Atomics.add(this.bell, this.bellIndex, 1);
    Atomics.notify(this.bell, this.bellIndex);
    this.outstanding = true;
    this.count = 0;
    this.ids = 0;
    return ids;
  }

  /**
   * Blocks until the worker has answered the last message sent (no-op if none is outstanding).
   * Polls `spin` times first: a futex sleep and wake costs microseconds, often more than the work.
   */
  wait(spin = 0): void {
    if (!this.outstanding) return;
    for (let i = 0; i < spin; i++) {
      if (Atomics.load(this.ctrl, CH_DONE) === this.seq) {
        this.outstanding = false;
        return;
      }
    }
    for (;;) {
      const done = Atomics.load(this.ctrl, CH_DONE);
      if (done === this.seq) break;
      Atomics.wait(this.ctrl, CH_DONE, done, 1000);
    }
    this.outstanding = false;
  }
}
