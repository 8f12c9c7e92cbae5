// Closing the REST port without resetting a request. HTTP/1.1 gives a server no way to tell a client
// to stop sending on an idle keep-alive connection other than closing it, and a close that crosses a
// request on its way is a reset. So closing stops taking connections (new ones are refused: nothing
// was sent on them) but leaves the open ones be: every answer while draining says Connection: close,
// so each ends after its next answer or when its client closes it. Those left at the grace period
// (a client holding an idle connection, a body trickling in) are cut.
import type { Server } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';

export class ConnectionDrain {
  private readonly open = new Set<Socket>();
  private readonly waiters: Array<() => void> = [];

  constructor(private readonly server: Server) {
    server.on('connection', (socket: Socket) => {
      this.open.add(socket);
      socket.once('close', () => {
        this.open.delete(socket);
        if (this.open.size === 0) for (const resolve of this.waiters.splice(0)) resolve();
      });
    });
  }

  /** Connections open now (with a request on them or idle). */
  get size(): number {
    return this.open.size;
  }

  /** Stops taking connections, waits for the open ones to end (at most graceMs), then cuts the rest. */
  async close(graceMs: number): Promise<void> {
    // net's close, not http's: http.Server.close also closes the idle connections at once.
    if (this.server.listening) NetServer.prototype.close.call(this.server);
    if (this.open.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      const ended = new Promise<void>((resolve) => this.waiters.push(resolve));
      await Promise.race([ended, new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)))]);
      clearTimeout(timer);
    }
    this.server.closeAllConnections();
  }
}
