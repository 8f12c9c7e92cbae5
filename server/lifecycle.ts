// The server's readiness, shared by /readyz, the gRPC health service and the request hooks: ready
// once listening while the engine takes requests; draining from the first moment of close().
import type { Engine } from '../engine/engine.js';

export class Lifecycle {
  private listening = false;
  private closing = false;
  private readonly listeners = new Set<() => void>();

  constructor(private readonly engine: Engine) {}

  /** Every collection is loaded and its tiers bound (Engine.open did that) and nothing is closing. */
  get ready(): boolean {
    return this.listening && !this.closing && this.engine.ready;
  }

  get draining(): boolean {
    return this.closing || !this.engine.ready;
  }

  /** Why the server is not ready, for /readyz and logs. */
  get reason(): string {
    if (this.closing || !this.engine.ready) return 'shutting down';
    if (!this.listening) return 'not listening yet';
    return 'ready';
  }

  markListening(): void {
    this.listening = true;
    this.notify();
  }

  markClosing(): void {
    this.closing = true;
    this.notify();
  }

  /** Calls fn on every change of readiness; returns the unsubscribe function. */
  onChange(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private notify(): void {
    for (const fn of [...this.listeners]) fn();
  }
}
