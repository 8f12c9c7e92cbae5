// The order in which `strata serve` stops on SIGTERM, so that no admitted request is dropped and no
// stuck one holds the process: (1) the server drains: readiness 503, new requests 503 with
// Connection: close (gRPC UNAVAILABLE), admitted ones go on; (2) wait until they are all answered or
// drainMs has passed; (3) close the engine at once: whatever is still running fails with
// STRATA_SHUTTING_DOWN and its threads are terminated; (4) close the ports and connections. The
// engine keeps taking searches until (3), because a request admitted just before the signal may
// reach it after.
import type { Engine } from '../engine/public.js';
import type { StrataServer } from './app.js';

/** After the engine has failed what was left, how long those answers get to go out, ms. */
const ANSWER_GRACE_MS = 1000;

export async function shutdown(server: StrataServer, engine: Engine, drainMs: number): Promise<void> {
  server.drain();
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([server.idle(), new Promise<void>((r) => (timer = setTimeout(r, drainMs)))]);
  clearTimeout(timer);
  await engine.close(0);
  await server.close(ANSWER_GRACE_MS);
}
