// Snapshot routes (Qdrant's paths): create, list, download and delete a collection's snapshots, and
// recover a collection from one, fetched from an http(s) URL (another Strata server's download
// route, say) or a file:// path inside this server's snapshot directory. A download sends the file
// as it is; its SHA-256 is in the listing, and `checksum` on recover is checked against it.
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { request } from 'undici';
import { invalidArgument, isStrataError, StrataError, errorMessage, readOnly } from '../../../common/errors.js';
import { bodyObject, describe, optionalString } from '../../api/fields.js';
import { codecFor, send } from '../codec.js';
import type { CollectionParams, RestContext } from '../context.js';
import { ok } from '../envelope.js';

/** Largest snapshot a recover fetches. */
export const MAX_SNAPSHOT_BYTES = 2 ** 31;

interface SnapshotRoute {
  Params: CollectionParams & { snapshot_name: string };
  Body: unknown;
}

async function fetchSnapshot(location: string, dataDir: string): Promise<Buffer> {
  let url: URL;
  try {
    url = new URL(location);
  } catch {
    throw invalidArgument('location', `must be an http(s) or file URL, got ${describe(location)}`);
  }
  if (url.protocol === 'file:') {
    // Only this server's own snapshots: a recover must not read arbitrary files of the host.
    const root = resolve(dataDir, 'snapshots') + sep;
    let path: string;
    try {
      path = fileURLToPath(url);
    } catch {
      // file://snapshots/x names a host, not a path: only file:///… (or file://localhost/…) is local.
      throw invalidArgument('location', `a file URL must hold an absolute path (file://${root}…), got ${describe(location)}`);
    }
    const file = resolve(path);
    if (!file.startsWith(root)) throw invalidArgument('location', `a file location must be inside ${root}`);
    try {
      return await readFile(file);
    } catch (e) {
      throw invalidArgument('location', `cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`);
    }
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalidArgument('location', `must be an http(s) or file URL, got ${url.protocol}`);
  const r = await request(url, { method: 'GET', maxRedirections: 0 } as Parameters<typeof request>[1]).catch((e: unknown) => {
    throw new StrataError('STRATA_UNREACHABLE', `location ${url.origin}: ${errorMessage(e)}`, { field: 'location' });
  });
  if (r.statusCode !== 200) {
    await r.body.dump();
    throw invalidArgument('location', `${url.href} answered ${r.statusCode}`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of r.body) {
    size += (c as Buffer).length;
    if (size > MAX_SNAPSHOT_BYTES) throw invalidArgument('location', `snapshot larger than ${MAX_SNAPSHOT_BYTES} bytes`);
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks);
}

export function registerSnapshotRoutes(app: FastifyInstance, ctx: RestContext): void {
  const c = '/collections/:collection_name/snapshots';

  /** Recovers the collection from a snapshot's bytes; a damaged snapshot is bad input (naming `field`), not a server fault. */
  const recover = async (name: string, bytes: Buffer, source: string, checksum: string | undefined, field = 'body'): Promise<void> => {
    try {
      // The checksum is checked with the snapshot, off the event loop (a SHA-256 of the whole file).
      await ctx.engine.recoverSnapshot(name, bytes, source, checksum);
    } catch (e) {
      if (isStrataError(e, 'STRATA_INDEX_CORRUPT') || isStrataError(e, 'STRATA_INDEX_VERSION')) throw invalidArgument(field, e.message);
      throw e;
    }
  };

  app.post<SnapshotRoute>(c, async (req, reply) => send(reply, codecFor(req), ok(reply, await ctx.engine.createSnapshot(req.params.collection_name))));

  app.get<SnapshotRoute>(c, async (req, reply) => send(reply, codecFor(req), ok(reply, ctx.engine.listSnapshots(req.params.collection_name))));

  app.get<SnapshotRoute>(`${c}/:snapshot_name`, async (req, reply) => {
    const file = ctx.engine.snapshotFile(req.params.collection_name, req.params.snapshot_name);
    return reply
      .type('application/octet-stream')
      .header('content-disposition', `attachment; filename="${req.params.snapshot_name}"`)
      .send(createReadStream(file));
  });

  app.delete<SnapshotRoute>(`${c}/:snapshot_name`, async (req, reply) => {
    ctx.engine.deleteSnapshot(req.params.collection_name, req.params.snapshot_name);
    return send(reply, codecFor(req), ok(reply, true));
  });

  // A snapshot file sent as its bytes (application/octet-stream): the collection recovered from it,
  // as from a location. Qdrant's own form upload (multipart) is not read: its content type is a 415.
  app.addContentTypeParser('application/octet-stream', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
  app.post<SnapshotRoute & { Querystring: { checksum?: string } }>(`${c}/upload`, async (req, reply) => {
    const bytes = req.body;
    if (!Buffer.isBuffer(bytes) || bytes.length === 0)
      throw invalidArgument('body', "send the snapshot file's bytes as the body, with content-type application/octet-stream");
    if (ctx.engine.dataDir === null) throw readOnly('this server', 'no-data-dir', 'start it with --data-dir', { allow: '' });
    await recover(req.params.collection_name, bytes, 'upload', req.query.checksum);
    return send(reply, codecFor(req), ok(reply, true));
  });

  app.put<SnapshotRoute>(`${c}/recover`, async (req, reply) => {
    const b = bodyObject(req.body);
    const location = optionalString(b['location'], 'location');
    if (location === undefined) throw invalidArgument('location', 'required: the snapshot URL (http(s), or file:// inside the snapshot directory)');
    const checksum = optionalString(b['checksum'], 'checksum');
    const dataDir = ctx.engine.dataDir;
    if (dataDir === null) throw readOnly('this server', 'no-data-dir', 'start it with --data-dir', { allow: '' });
    const bytes = await fetchSnapshot(location, dataDir);
    await recover(req.params.collection_name, bytes, location, checksum, 'location');
    return send(reply, codecFor(req), ok(reply, true));
  });
}
