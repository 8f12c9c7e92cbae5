// Lines of a text file, read synchronously in chunks: a file of a million JSON lines is parsed one
// line at a time and never held whole. Synchronous because the index writer that consumes them is.
import { closeSync, openSync, readSync } from 'node:fs';

export interface TextLine {
  /** 1-based, as an editor counts. */
  readonly number: number;
  readonly text: string;
}

const CHUNK = 1 << 20;
const NEWLINE = 0x0a;

/**
 * Every line of `path`, without its newline; a last line without one counts, an empty end after the
 * last newline does not. Bytes that are not UTF-8 call `invalid` with the line's number, which
 * throws the caller's error.
 */
export function* readTextLines(path: string, invalid: (line: number) => never): Generator<TextLine> {
  const fd = openSync(path, 'r');
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const decode = (bytes: Uint8Array, number: number): string => {
    try {
      return decoder.decode(bytes);
    } catch {
      return invalid(number);
    }
  };
  try {
    const buf = new Uint8Array(CHUNK);
    let pending: Uint8Array[] = [];
    let number = 0;
    let pos = 0;
    for (let n = readSync(fd, buf, 0, CHUNK, pos); n > 0; n = readSync(fd, buf, 0, CHUNK, pos)) {
      pos += n;
      const chunk = buf.subarray(0, n);
      let start = 0;
      for (let nl = chunk.indexOf(NEWLINE); nl >= 0; nl = chunk.indexOf(NEWLINE, start)) {
        number++;
        const piece = chunk.subarray(start, nl);
        const bytes = pending.length === 0 ? piece : Buffer.concat([...pending, piece]);
        pending = [];
        yield { number, text: decode(bytes, number) };
        start = nl + 1;
      }
      // The buffer is reused by the next read: keep a copy of the unfinished line.
      if (start < n) pending.push(chunk.slice(start));
    }
    if (pending.length > 0) yield { number: number + 1, text: decode(Buffer.concat(pending), number + 1) };
  } finally {
    closeSync(fd);
  }
}
