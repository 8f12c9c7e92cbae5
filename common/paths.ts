// Locating build artifacts (the WASM kernels, the NUMA addon) and the files read at run time (the
// gRPC contract) must work both from the TypeScript sources (tests) and from the compiled tree under
// dist/, whose depths differ: so walk up.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

/** The directory of Strata's package.json. */
export function projectRoot(): string {
  if (cached !== undefined) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg)) {
      try {
        const name = (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name;
        if (name === 'strata') {
          cached = dir;
          return dir;
        }
      } catch {
        // an unreadable package.json is not ours; keep walking
      }
    }
    const up = dirname(dir);
    if (up === dir) throw new Error('cannot locate the strata package root from ' + fileURLToPath(import.meta.url));
    dir = up;
  }
}

/**
 * A file of the gRPC contract (proto/): the server and its clients (the load generator, tests) load
 * the same .proto files at run time, so neither needs the other's code to agree on the messages.
 */
export function protoFile(name: 'strata.proto' | 'health.proto'): string {
  return join(projectRoot(), 'proto', name);
}
