// Strata's version, read from package.json so that the CLI, the servers and the OpenAPI document
// cannot drift from the release.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from './paths.js';

function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(join(projectRoot(), 'package.json'), 'utf8')) as { version?: unknown };
  if (typeof pkg.version !== 'string') throw new Error('package.json has no version');
  return pkg.version;
}

export const VERSION: string = packageVersion();
