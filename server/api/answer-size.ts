// The answer bound: what one request may ask the server to send back, counted before any search runs.
// A request of a few hundred bytes can otherwise ask for gigabytes (256 searches × limit 10,000 ×
// with_vector), which the server would build in memory and encode in one go. The count is the
// protocol-independent size of the points asked for: points × (POINT_BYTES + 4 bytes per vector
// element when vectors are asked for). JSON spends more per number, MessagePack and protobuf about
// that; the REST server streams large answers in chunks (server/rest/chunked-answer.ts).
import { StrataError } from '../../common/errors.js';
import { formatBytes } from '../options.js';

/** Bytes counted per point besides its vector: id, version, score and payload (about what JSON spends on them). */
export const POINT_BYTES = 64;

/** The counted size of `points` points of a `dim`-d collection, with or without their vectors. */
export function answerBytes(points: number, dim: number, withVector: boolean): number {
  return points * (POINT_BYTES + (withVector ? 4 * dim : 0));
}

/** "1.3 GiB", "123.0 MiB", "900 KiB": an estimate, rounded. */
function about(n: number): string {
  if (n >= 2 ** 30) return `${(n / 2 ** 30).toFixed(1)} GiB`;
  if (n >= 2 ** 20) return `${(n / 2 ** 20).toFixed(1)} MiB`;
  return `${Math.ceil(n / 1024)} KiB`;
}

/** One part of a request's answer: `points` points (at most), with vectors or not. */
export interface AnswerPart {
  points: number;
  withVector: boolean;
}

/**
 * Throws STRATA_PAYLOAD_TOO_LARGE (413 / RESOURCE_EXHAUSTED) when the parts together may exceed
 * `limit`; `what` says what was asked ("256 searches", "scroll limit 10000", "limit 10000").
 */
export function checkAnswerSize(parts: readonly AnswerPart[], dim: number, limit: number, what: string): void {
  let bytes = 0;
  let points = 0;
  let withVector = false;
  for (const p of parts) {
    bytes += answerBytes(p.points, dim, p.withVector);
    points += p.points;
    withVector ||= p.withVector;
  }
  if (bytes <= limit) return;
  const vectors = withVector ? ` with ${dim}-d vectors` : '';
  throw new StrataError(
    'STRATA_PAYLOAD_TOO_LARGE',
    `answer too large: ${what} would answer up to ${points} points${vectors}, about ${about(bytes)}, over the ${formatBytes(limit)} answer limit (--answer-limit; ${POINT_BYTES} bytes a point + 4 a vector element): ask for fewer points (a smaller limit, fewer searches per batch${withVector ? ', or without with_vector' : ''})`,
    { limit, bytes },
  );
}

/** The bound for searches (one, or a batch): each may return `limit` points. */
export function checkSearchAnswers(plans: ReadonlyArray<{ limit: number; withVector: boolean }>, dim: number, limit: number): void {
  const what = plans.length === 1 ? `limit ${plans[0]!.limit}` : `${plans.length} searches`;
  checkAnswerSize(
    plans.map((p) => ({ points: p.limit, withVector: p.withVector })),
    dim,
    limit,
    what,
  );
}
