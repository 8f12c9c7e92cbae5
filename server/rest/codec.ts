// Content negotiation: requests are JSON (fastify's parser) or MessagePack (Content-Type
// application/msgpack); answers are MessagePack when the Accept header asks for it, JSON otherwise.
// MessagePack carries vectors as Float32Array (msgpackr's typed-array extension, `moreTypes`): 4 bytes
// a number, copied as one block each way, where JSON spends ~10 bytes and a parse per number.
// Answers over STREAM_ABOVE counted bytes are streamed in chunks (chunked-answer.ts) instead of
// encoded in one call.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Packr, Unpackr } from 'msgpackr';
import { invalidArgument } from '../../common/errors.js';
import { chunkedAnswer } from './chunked-answer.js';

export const MSGPACK = 'application/msgpack';
/** Accepted spellings of the MessagePack media type (the last two are common in the wild). */
export const MSGPACK_TYPES = [MSGPACK, 'application/x-msgpack', 'application/vnd.msgpack'];
const WANTS_MSGPACK = /application\/(?:x-|vnd\.)?msgpack/i;

// useRecords: false keeps objects as plain MessagePack maps, readable by any MessagePack library
// (records are a msgpackr-only extension). int64AsType 'number': 64-bit integers arrive as numbers (ids past 2^53 then fail validation).
const packr = new Packr({ moreTypes: true, useRecords: false });
const unpackr = new Unpackr({ moreTypes: true, useRecords: false, mapsAsObjects: true, int64AsType: 'number' });

/**
 * Answers larger than this (counted as in server/api/answer-size.ts) are streamed in chunks: below
 * it, encoding in one call takes a few milliseconds and is faster.
 */
export const STREAM_ABOVE = 512 * 1024;

/**
 * How one answer is encoded: vectors stay Float32Array for MessagePack and become arrays for JSON
 * (when streamed, the chunked encoder converts them point by point).
 */
export interface Codec {
  readonly msgpack: boolean;
  readonly streamed: boolean;
  vector(v: Float32Array): Float32Array | number[];
}

const JSON_CODEC: Codec = { msgpack: false, streamed: false, vector: (v) => Array.from(v) };
const MSGPACK_CODEC: Codec = { msgpack: true, streamed: false, vector: (v) => v };
const STREAMED_JSON: Codec = { msgpack: false, streamed: true, vector: (v) => v };
const STREAMED_MSGPACK: Codec = { msgpack: true, streamed: true, vector: (v) => v };

/** The answer's codec, from the Accept header and the answer's counted size (bytes). */
export function codecFor(req: FastifyRequest, answerBytes = 0): Codec {
  const accept = req.headers.accept;
  const msgpack = accept !== undefined && WANTS_MSGPACK.test(accept);
  if (answerBytes > STREAM_ABOVE) return msgpack ? STREAMED_MSGPACK : STREAMED_JSON;
  return msgpack ? MSGPACK_CODEC : JSON_CODEC;
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

/** Sends `body` in the codec's encoding (JSON goes through fastify's serializer, or is streamed). */
export function send(reply: FastifyReply, codec: Codec, body: unknown): FastifyReply {
  if (codec.streamed) {
    return codec.msgpack
      ? reply.type(MSGPACK).send(chunkedAnswer(body, (x) => packr.pack(x)))
      : reply.type('application/json; charset=utf-8').send(chunkedAnswer(body));
  }
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
