// The bounded admission queue: a request is either taken (queued or running) or rejected at once
// with STRATA_OVERLOADED; memory never grows with offered load. Deadlines and cancellation settle a
// request exactly once, wherever it is (waiting, or already in a worker: its late answer is dropped).
import { StrataError } from '../common/errors.js';

export interface Pending<T, R> {
  readonly item: T;
  readonly enqueuedAt: number;
  settled: boolean;
  resolve(r: R): void;
  reject(e: Error): void;
}

export class AdmissionQueue<T, R> {
  private readonly waiting: Array<Pending<T, R>> = [];
  private inFlight = 0;
  rejected = 0;
  completed = 0;
  failed = 0;

  constructor(
    readonly capacity: number,
    private readonly onReady: () => void,
  ) {}

  /** Waiting + running. */
  get depth(): number {
    return this.waiting.length + this.inFlight;
  }

  get waitingCount(): number {
    return this.waiting.length;
  }

  submit(item: T, opts: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<R> {
    if (this.depth >= this.capacity) {
      this.rejected++;
      return Promise.reject(
        new StrataError('STRATA_OVERLOADED', `queue full (${this.capacity} requests waiting or running): retry later or raise --max-queue`, {
          capacity: this.capacity,
        }),
      );
    }
    if (opts.signal?.aborted) return Promise.reject(new StrataError('STRATA_CANCELLED', 'request cancelled before it started', {}));
    return new Promise<R>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const onAbort = (): void => finish(new StrataError('STRATA_CANCELLED', 'request cancelled', {}));
      const finish = (e: Error | null, r?: R): void => {
        if (p.settled) return;
        p.settled = true;
        if (timer) clearTimeout(timer);
        opts.signal?.removeEventListener('abort', onAbort);
        if (e) {
          this.failed++;
          reject(e);
        } else {
          this.completed++;
          resolve(r as R);
        }
      };
      const p: Pending<T, R> = {
        item,
        enqueuedAt: performance.now(),
        settled: false,
        resolve: (r) => finish(null, r),
        reject: (e) => finish(e),
      };
      if (opts.timeoutMs !== undefined) {
        timer = setTimeout(
          () => finish(new StrataError('STRATA_DEADLINE_EXCEEDED', `no answer within ${opts.timeoutMs} ms`, { timeoutMs: opts.timeoutMs })),
          opts.timeoutMs,
        );
        timer.unref?.();
      }
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(p);
      this.onReady();
    });
  }

  /** Takes up to n live requests for running; settled (expired, cancelled) ones are dropped. */
  take(n: number, accept: (item: T) => boolean = () => true): Array<Pending<T, R>> {
    const out: Array<Pending<T, R>> = [];
    let i = 0;
    while (i < this.waiting.length && out.length < n) {
      const p = this.waiting[i]!;
      if (p.settled) {
        this.waiting.splice(i, 1);
        continue;
      }
      if (!accept(p.item)) {
        i++;
        continue;
      }
      this.waiting.splice(i, 1);
      out.push(p);
    }
    this.inFlight += out.length;
    return out;
  }

  /** Marks taken requests as no longer running (after they were settled). */
  release(n: number): void {
    this.inFlight -= n;
  }

  /** Rejects everything waiting (shutdown). */
  drainWaiting(e: Error): void {
    for (const p of this.waiting.splice(0)) p.reject(e);
  }
}
