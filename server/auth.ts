// API-key authentication, shared by REST and gRPC. A key is accepted from the `api-key` header (or
// metadata) or from `Authorization: Bearer <key>`, as Qdrant does. Keys are compared by their
// SHA-256 digests with timingSafeEqual, so neither content nor length leaks through timing.
import { createHash, timingSafeEqual } from 'node:crypto';

export type KeyCheck = (presented: string | undefined) => boolean;

const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

/** null when the server runs without a key (every request is allowed). */
export function keyCheck(expected: string | null): KeyCheck | null {
  if (expected === null) return null;
  const want = digest(expected);
  return (presented) => presented !== undefined && timingSafeEqual(digest(presented), want);
}

/** The key a request presents, from its `api-key` and `authorization` headers (first value of each). */
export function presentedKey(apiKey: string | readonly string[] | undefined, authorization: string | readonly string[] | undefined): string | undefined {
  const first = (v: string | readonly string[] | undefined): string | undefined => (typeof v === 'string' ? v : v?.[0]);
  const k = first(apiKey);
  if (k !== undefined && k !== '') return k;
  const m = /^Bearer\s+(.+)$/i.exec(first(authorization) ?? '');
  return m ? m[1]!.trim() : undefined;
}

export const UNAUTHENTICATED_MESSAGE = 'missing or wrong API key: send it in the api-key header (gRPC: metadata) or as Authorization: Bearer <key>';
