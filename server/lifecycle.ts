// The server's readiness, shared by /readyz, the gRPC health service and the request hooks: ready
// once listening while the engine takes requests; draining from the first moment of close(). It also
// counts admitted requests (REST and gRPC, health probes aside) so that shutdown can wait for exactly
// those, and marks in-flight REST answers `Connection: close` once draining, so that keep-alive
// clients reconnect elsewhere instead of sending on a connection about to close.
import type { ServerResponse } from 'node:http';
import { Slots } from '../common/slots.js';
import type { Engine } from '../engine/public.js';

export class Lifecycle {
  private listening = false;
  private closing = false;
  private readonly listeners = new Set<() => void>();
  /** Slots, not a Set: a Set churned per request promoted every response (common/slots.ts). */
  private readonly answering = new Slots<ServerResponse>();
  private calls = 0;
  private readonly idleWaiters: Array<() => void> = [];

  constructor(private readonly engine: Engine) {}

  /**
   * Every collection is loaded and its tiers bound (Engine.open did that), caught up with its shared
   * write log if it follows one, and nothing is closing.
   */
  get ready(): boolean {
    return this.listening && !this.closing && this.engine.ready && this.engine.catchingUp() === null;
  }

  get draining(): boolean {
    return this.closing || !this.engine.ready;
  }

  /** Why the server is not ready, for /readyz and logs. */
  get reason(): string {
    if (this.closing || !this.engine.ready) return 'shutting down';
    if (!this.listening) return 'not listening yet';
    return this.engine.catchingUp() ?? 'ready';
  }

  /** Admitted requests not yet answered (REST answers and gRPC calls). */
  get inFlight(): number {
    return this.answering.size + this.calls;
  }

  markListening(): void {
    this.listening = true;
    this.notify();
  }

  markClosing(): void {
    if (this.closing) return;
    this.closing = true;
    for (const res of this.answering.values()) if (!res.headersSent) res.setHeader('connection', 'close');
    this.notify();
  }

  /** An admitted REST request: counted until its response closes (answered, or the client gone). */
  trackResponse(res: ServerResponse): void {
    const slot = this.answering.add(res);
    res.once('close', () => {
      this.answering.remove(slot);
      this.checkIdle();
    });
  }

  /** An admitted gRPC call; call the returned function once when it ends. */
  trackCall(): () => void {
    this.calls++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.calls--;
      this.checkIdle();
    };
  }

  /** Resolves once no admitted request is in flight. */
  idle(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Calls fn on every change of readiness; returns the unsubscribe function. */
  onChange(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private checkIdle(): void {
    if (this.inFlight > 0) return;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  private notify(): void {
    for (const fn of [...this.listeners]) fn();
  }
}
