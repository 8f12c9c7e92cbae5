// Byte access for the binary readers. Reading straight into the destination typed array (or a
// reused chunk buffer) keeps peak memory near the size of the result instead of file + result, and
// lets `limit` skip the bytes it does not need.
import { open, stat, type FileHandle } from 'node:fs/promises';
import { endianness } from 'node:os';
import { StrataError } from '../common/errors.js';
import { formatError } from './dataset-errors.js';

// fs reads are capped at 2 GiB per call; stay well below.
const MAX_READ = 1 << 30;

export class ByteSource {
  private constructor(
    readonly file: string,
    readonly size: number,
    private readonly handle: FileHandle,
  ) {}

  static async open(file: string): Promise<ByteSource> {
    let handle: FileHandle;
    try {
      handle = await open(file, 'r');
    } catch (e) {
      throw openError(file, e);
    }
    try {
      const st = await handle.stat();
      if (!st.isFile()) throw new StrataError('STRATA_INVALID_ARGUMENT', `${file}: not a regular file`, { file, field: 'file' });
      return new ByteSource(file, st.size, handle);
    } catch (e) {
      await handle.close();
      throw e;
    }
  }

  /** Fills `target` from `position`; the file must still hold those bytes. */
  async readInto(target: Uint8Array, position: number): Promise<void> {
    let done = 0;
    while (done < target.length) {
      const want = Math.min(MAX_READ, target.length - done);
      const { bytesRead } = await this.handle.read(target, done, want, position + done);
      if (bytesRead === 0) {
        // Sizes were validated against stat(), so this means the file shrank while being read.
        throw formatError(
          this.file,
          `file ended at byte ${position + done} while ${position + target.length} bytes were expected (was it modified while being read?)`,
          {
            expected: position + target.length,
            found: position + done,
          },
        );
      }
      done += bytesRead;
    }
  }

  /** Reads `length` bytes at `position` into a fresh (hence 8-byte aligned) buffer. */
  async read(position: number, length: number): Promise<Uint8Array> {
    const out = new Uint8Array(length);
    await this.readInto(out, position);
    return out;
  }

  async close(): Promise<void> {
    await this.handle.close();
  }
}

/** For readers that hand the path to another library (h5wasm) and so cannot use ByteSource. */
export async function assertReadableFile(file: string): Promise<void> {
  let isFile: boolean;
  try {
    isFile = (await stat(file)).isFile();
  } catch (e) {
    throw openError(file, e);
  }
  if (!isFile) throw new StrataError('STRATA_INVALID_ARGUMENT', `${file}: not a regular file`, { file, field: 'file' });
}

export async function withSource<T>(file: string, fn: (src: ByteSource) => Promise<T>): Promise<T> {
  const src = await ByteSource.open(file);
  try {
    return await fn(src);
  } finally {
    await src.close();
  }
}

/** A path that cannot be opened is a bad argument, not a bad dataset: nothing was read yet. */
export function openError(file: string, e: unknown): StrataError {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory, not a dataset file' : `cannot be opened (${code ?? String(e)})`;
  return new StrataError('STRATA_INVALID_ARGUMENT', `${file}: ${why}`, { file, field: 'file' }, { cause: e });
}

const bigEndianHost = endianness() === 'BE';

/**
 * Every format here stores little-endian numbers; typed arrays use host order. On the (rare)
 * big-endian host, swap in place so callers can always view the bytes as a typed array.
 */
export function leToHost(bytes: Uint8Array, width: 2 | 4 | 8): void {
  if (!bigEndianHost) return;
  for (let i = 0; i + width <= bytes.length; i += width) bytes.subarray(i, i + width).reverse();
}
