// qdrant.Snapshots for a collection (Create, List, Delete), as REST's snapshot routes: the same
// engine calls, the description in Qdrant's message. Full (storage-wide) snapshots stay
// UNIMPLEMENTED: Strata's snapshots are per collection (rest/routes/not-served.ts says the same).
import type { DescService } from '@bufbuild/protobuf';
import {
  CreateSnapshotRequestSchema,
  CreateSnapshotResponseSchema,
  DeleteSnapshotRequestSchema,
  DeleteSnapshotResponseSchema,
  ListSnapshotsRequestSchema,
  ListSnapshotsResponseSchema,
} from '@qdrant/js-client-grpc';
import type { GrpcContext } from '../calls.js';
import { type QdrantRouter, secondsSince } from './calls.js';

/** REST's snapshot description (storage/snapshot.ts) as Qdrant's SnapshotDescription message. */
function description(d: { name: string; creation_time: string; size: number; checksum: string }) {
  const ms = Date.parse(d.creation_time);
  return {
    name: d.name,
    creationTime: { seconds: BigInt(Math.floor(ms / 1000)), nanos: (ms % 1000) * 1_000_000 },
    size: BigInt(d.size),
    checksum: d.checksum,
  };
}

export function bindSnapshots(r: QdrantRouter, svc: DescService, ctx: GrpcContext): void {
  r.unary(svc, 'Create', CreateSnapshotRequestSchema, CreateSnapshotResponseSchema, async (req) => {
    const t0 = performance.now();
    return { snapshotDescription: description(await ctx.engine.createSnapshot(req.collectionName)), time: secondsSince(t0) };
  });
  r.unary(svc, 'List', ListSnapshotsRequestSchema, ListSnapshotsResponseSchema, (req) => {
    const t0 = performance.now();
    return { snapshotDescriptions: ctx.engine.listSnapshots(req.collectionName).map(description), time: secondsSince(t0) };
  });
  r.unary(svc, 'Delete', DeleteSnapshotRequestSchema, DeleteSnapshotResponseSchema, (req) => {
    const t0 = performance.now();
    ctx.engine.deleteSnapshot(req.collectionName, req.snapshotName);
    return { time: secondsSince(t0) };
  });
}
