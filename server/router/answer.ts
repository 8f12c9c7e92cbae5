// The router's answers: Qdrant's envelope (server/rest/envelope.ts) in the negotiated encoding, with
// the partial-answer fields when shards were missing.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { codecFor, send } from '../rest/codec.js';
import { ok } from '../rest/envelope.js';

// Shards answer the router in MessagePack, so vectors arrive as Float32Array: MessagePack passes
// them on as they are; JSON writes them as arrays of numbers.
const asArrays = (_k: string, v: unknown): unknown => (ArrayBuffer.isView(v) ? Array.from(v as Float32Array) : v);

export function answer(req: FastifyRequest, reply: FastifyReply, result: unknown, extra: Record<string, unknown> = {}): FastifyReply {
  const codec = codecFor(req);
  if (!codec.msgpack) reply.type('application/json; charset=utf-8').serializer((p) => JSON.stringify(p, asArrays));
  return send(reply, codec, ok(reply, result, extra));
}

/** The envelope's fields saying which shards an answer lacks (none when it lacks none). */
export const partialFields = (missing: number[]): Record<string, unknown> => (missing.length > 0 ? { partial: true, missing_shards: missing } : {});
