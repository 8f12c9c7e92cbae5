// `strata verify <dir>`
import type { Command } from 'commander';
import { verifyIndex } from '../../index/format/verify-index.js';

export function registerVerify(program: Command): void {
  program
    .command('verify')
    .description('check an index: file sizes, magic numbers, checksums and graph invariants')
    .argument('<dir>', 'index directory')
    .action((dir: string) => {
      const r = verifyIndex(dir);
      process.stdout.write(JSON.stringify(r) + '\n');
      if (!r.ok) process.exitCode = 2;
    });
}
