import { describe, expect, it } from 'vitest';
import { parseByteSize } from '../../common/byte-size.js';

describe('parseByteSize', () => {
  it('reads bare letters and -iB units as binary, -B units as decimal', () => {
    expect(parseByteSize('1048576')).toBe(1048576);
    expect(parseByteSize('1k')).toBe(1024);
    expect(parseByteSize('1KiB')).toBe(1024);
    expect(parseByteSize('1KB')).toBe(1000);
    expect(parseByteSize('64MiB')).toBe(64 * 1024 * 1024);
    expect(parseByteSize('2GB')).toBe(2e9);
    expect(parseByteSize('1.5k')).toBe(1536);
    expect(parseByteSize(' 32 mib ')).toBe(32 * 1024 * 1024);
    expect(parseByteSize('1t')).toBe(1024 ** 4);
  });

  it('is undefined for text that is not a size', () => {
    for (const bad of ['ten', '-5', '10%', '5 parsecs', '', '1kk']) expect(parseByteSize(bad)).toBeUndefined();
  });
});
