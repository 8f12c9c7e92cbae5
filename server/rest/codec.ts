// Content negotiation: requests are JSON (fastify's parser) or MessagePack (Content-Type
// application/msgpack); answers are MessagePack when the Accept header asks for it, JSON otherwise.
// MessagePack carries vectors as Float32Array (msgpackr's typed-array extension, `moreTypes`): 4 bytes
// a number, copied as one block each way, where JSON spends ~10 bytes and a parse per number.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Packr, Unpackr } from 'msgpackr';
import { invalidArgument } from '../../common/errors.js';

export const MSGPACK = 'application/msgpack';
/** Accepted spellings of the MessagePack media type (the last two are common in the wild). */
export const MSGPACK_TYPES = [MSGPACK, 'application/x-msgpack', 'application/vnd.msgpack'];
const WANTS_MSGPACK = /application\/(?:x-|vnd\.)?msgpack/i;

// useRecords: false keeps objects as plain MessagePack maps, readable by any MessagePack library
// (records are a msgpackr-only extension). int64AsType 'number': 64-bit integers arrive as numbers (ids past 2^53 then fail validation).
const packr = new Packr({ moreTypes: true, useRecords: false });
const unpackr = new Unpackr({ moreTypes: true, useRecords: false, mapsAsObjects: true, int64AsType: 'number' });

/** How one answer is encoded: vectors stay Float32Array for MessagePack and become arrays for JSON. */
export interface Codec {
  readonly msgpack: boolean;
  vector(v: Float32Array): Float32Array | number[];
}

const JSON_CODEC: Codec = { msgpack: false, vector: (v) => Array.from(v) };
const MSGPACK_CODEC: Codec = { msgpack: true, vector: (v) => v };

export function codecFor(req: FastifyRequest): Codec {
  const accept = req.headers.accept;
  return accept !== undefined && WANTS_MSGPACK.test(accept) ? MSGPACK_CODEC : JSON_CODEC;
}

export function registerMsgpackParser(app: FastifyInstance): void {
  app.addContentTypeParser(MSGPACK_TYPES, { parseAs: 'buffer' }, (_req, body: Buffer, done) => {
    if (body.length === 0) {
      done(null, undefined);
      return;
    }
    try {
      done(null, unpackr.unpack(body));
    } catch (e) {
      done(invalidArgument('body', `malformed MessagePack: ${e instanceof Error ? e.message.slice(0, 120) : 'cannot decode'}`), undefined);
    }
  });
}

/** Sends `body` in the codec's encoding (JSON goes through fastify's serializer). */
export function send(reply: FastifyReply, codec: Codec, body: unknown): FastifyReply {
  if (codec.msgpack) return reply.type(MSGPACK).send(packr.pack(body));
  return reply.send(body);
}

/** Decodes a MessagePack answer (for clients in this repository: tests, benchmark). */
export function unpackMsgpack(buf: Uint8Array): unknown {
  return unpackr.unpack(buf);
}

export function packMsgpack(v: unknown): Buffer {
  return packr.pack(v);
}
