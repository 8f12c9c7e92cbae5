// Writes the OpenAPI document to docs/openapi.json (or the path given): run after changing the API,
// `npx tsc -p tsconfig.json && node dist/server/openapi/write.js`. A test checks the file equals
// what the server serves.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../common/paths.js';
import { openApiDocument } from './document.js';

const out = process.argv[2] ?? join(projectRoot(), 'docs', 'openapi.json');
writeFileSync(out, JSON.stringify(openApiDocument(), null, 2) + '\n');
process.stdout.write(`wrote ${out}\n`);
