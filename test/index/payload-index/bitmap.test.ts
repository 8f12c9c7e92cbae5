// roaring's native binding is found by node-pre-gyp, which reads process.argv as its own flags: the
// bitmap module must load whatever a Strata command line holds.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The built module (npm test builds first), run in a process of its own with a fresh argv.
const bitmapModule = fileURLToPath(new URL('../../../dist/index/payload-index/bitmap.js', import.meta.url));

describe('the bitmap module', () => {
  it('loads and works when the process was started with --dir pointing elsewhere (a Strata flag node-pre-gyp also reads)', () => {
    const script = `const b = await import(${JSON.stringify(bitmapModule)}); console.log(b.bitmapOf([3, 1, 3]).size);`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script, '--', 'strata', '--dir', '/nonexistent-strata-dir'], {
      encoding: 'utf8',
    });
    expect(out.trim()).toBe('2');
  });
});
