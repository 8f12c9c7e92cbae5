#!/usr/bin/env node
// Entry point of the `strata` command; the implementation is compiled to dist/ by `npm run build`.
import { main } from '../dist/cli/strata.js';

main(process.argv).catch((e) => {
  process.stderr.write(`strata: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exitCode = 1;
});
