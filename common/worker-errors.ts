// Errors that cross a thread boundary. A worker's error reaches the host through a structured
// clone, which keeps an Error's message and stack but drops its class and own properties: a
// StrataError thrown in a search thread would arrive as a plain Error with no code and no details,
// and a caller branching on the code (the server mapping it to a status, a client retrying) would see
// a generic failure. So a worker hands a StrataError back as a plain object, which clones whole, and
// the host rebuilds it.
import { ERROR_CODES, StrataError, type ErrorCode, type ErrorDetails, errorMessage } from './errors.js';

/** A StrataError flattened for a structured clone. */
export interface WireError {
  readonly strataWireError: 1;
  readonly code: ErrorCode;
  readonly message: string;
  readonly details: ErrorDetails;
  readonly stack: string | null;
}

/** What a worker throws instead of `e`: a StrataError as a WireError, anything else unchanged. */
export function toWire(e: unknown): unknown {
  if (!(e instanceof StrataError)) return e;
  const wire: WireError = { strataWireError: 1, code: e.code, message: e.message, details: { ...e.details }, stack: e.stack ?? null };
  return wire;
}

export function isWireError(v: unknown): v is WireError {
  if (typeof v !== 'object' || v === null) return false;
  const w = v as Partial<WireError>;
  return (
    w.strataWireError === 1 &&
    typeof w.code === 'string' &&
    Object.hasOwn(ERROR_CODES, w.code) &&
    typeof w.message === 'string' &&
    typeof w.details === 'object' &&
    w.details !== null
  );
}

/**
 * Wraps a worker's task function so that a StrataError it throws crosses whole (piscina posts a
 * task's exception to the host as it is).
 */
export function throwsAcrossThreads<A, R>(task: (arg: A) => R): (arg: A) => R {
  return (arg) => {
    try {
      return task(arg);
    } catch (e) {
      throw toWire(e);
    }
  };
}

/**
 * The host's view of what a worker threw: the same StrataError (code, message, details) when one
 * crossed, otherwise STRATA_WORKER_FAILED naming `what` failed, with the original as its cause.
 */
export function fromWorker(e: unknown, what: string): StrataError {
  if (e instanceof StrataError) return e;
  if (isWireError(e)) {
    const rebuilt = new StrataError(e.code, e.message, e.details);
    // The worker's stack is where the error arose; the host's would only show the message port.
    if (e.stack !== null) rebuilt.stack = e.stack;
    return rebuilt;
  }
  const message = errorMessage(e);
  return new StrataError('STRATA_WORKER_FAILED', `${what} failed: ${message}`, {}, { cause: e });
}
