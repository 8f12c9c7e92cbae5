// A real `strata serve --data-dir` with Qdrant's gRPC API on, and Qdrant's official REST and gRPC
// clients pointed at it: what the tests of Qdrant's API through both clients start from.
import { QdrantClient as GrpcClient } from '@qdrant/js-client-grpc';
import { QdrantClient } from '@qdrant/js-client-rest';
import { makeTempDir, type TempDir } from '../helpers/temp.js';
import { checkAfterRestart, type ServeChild, serveChild } from './serve-child.js';

export interface QdrantServed {
  tmp: TempDir;
  s: ServeChild;
  rest: QdrantClient;
  grpc: GrpcClient;
  /** Kills the server and removes its data directory. */
  close(): Promise<void>;
}

export async function serveForQdrantClients(prefix: string): Promise<QdrantServed> {
  const tmp = makeTempDir(prefix);
  const s = await serveChild(['--data-dir', tmp.path('data'), '--no-grpc', '--log-level', 'silent']);
  const [host, port] = s.qdrantGrpc!.split(':');
  return {
    tmp,
    s,
    rest: new QdrantClient({ url: s.rest }),
    grpc: new GrpcClient({ host: host!, port: Number(port) }),
    close: async () => {
      s.child.kill('SIGKILL');
      await s.exited;
      tmp.cleanup();
    },
  };
}

/**
 * Snapshots collection `name`, recovers the snapshot as `copy`, kills the server with SIGKILL and
 * starts it again on the same data directory, then runs `check` with a client of the new server.
 */
export async function snapshotKillRestart(served: QdrantServed, name: string, check: (client: QdrantClient) => Promise<void>): Promise<void> {
  const { rest: client, s, tmp } = served;
  const snap = await client.createSnapshot(name);
  const location = `${s.rest}/collections/${name}/snapshots/${snap!.name}`;
  if (!(await client.recoverSnapshot('copy', { location, checksum: snap!.checksum! }))) throw new Error('the snapshot was not recovered');
  s.child.kill('SIGKILL');
  await s.exited;
  await checkAfterRestart(tmp.path('data'), (rest) => check(new QdrantClient({ url: rest })));
}

/** The status and error of a REST client call that must be refused (it fails the test if it succeeds). */
export async function refusal(p: Promise<unknown>): Promise<{ status: number; error: string }> {
  try {
    await p;
  } catch (e) {
    const x = e as { status: number; data?: { status?: { error?: string } } };
    return { status: x.status, error: x.data?.status?.error ?? '' };
  }
  throw new Error('the call succeeded');
}
