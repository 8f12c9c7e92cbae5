// Strata's version, read from package.json so that the CLI, the servers and the OpenAPI document
// cannot drift from the release; and the version of Qdrant's API it speaks, which is the version of
// the official client whose contract it serves and is tested against.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { projectRoot } from './paths.js';

function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(join(projectRoot(), 'package.json'), 'utf8')) as { version?: unknown };
  if (typeof pkg.version !== 'string') throw new Error('package.json has no version');
  return pkg.version;
}

export const VERSION: string = packageVersion();

/** The package's own package.json, found above its entry (its exports map hides the file itself). */
function dependencyVersion(name: string): string {
  let dir = dirname(createRequire(import.meta.url).resolve(name));
  for (;;) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown };
      if (pkg.name === name && typeof pkg.version === 'string') return pkg.version;
    }
    const up = dirname(dir);
    if (up === dir) throw new Error(`no package.json of ${name} above its entry`);
    dir = up;
  }
}

/**
 * The Qdrant API version Strata answers as (`GET /`, gRPC HealthCheck): Qdrant's clients compare it
 * with their own and warn past one minor version. It is the version of `@qdrant/js-client-grpc`,
 * whose service descriptors Strata serves and whose tests run both official JS clients against it.
 */
export const QDRANT_API_VERSION: string = dependencyVersion('@qdrant/js-client-grpc');
