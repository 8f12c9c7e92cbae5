// `strata verify <dir>` and `strata verify --data-dir <dir>`
import type { Command } from 'commander';
import { invalidArgument } from '../../common/errors.js';
import { verifyIndex } from '../../index/format/verify-index.js';
import { verifyDataDir } from '../../storage/verify-live.js';

export function registerVerify(program: Command): void {
  program
    .command('verify')
    .description(
      'check an index (file sizes, magic numbers, checksums, graph invariants), or with --data-dir every live collection (configs, write-ahead logs record by record)',
    )
    .argument('[dir]', 'index directory')
    .option('--data-dir <dir>', "a server's data directory: one JSON line per collection; a torn log tail is reported, not an error")
    .action((dir: string | undefined, f: { dataDir?: string }) => {
      if (f.dataDir !== undefined) {
        const checks = verifyDataDir(f.dataDir);
        for (const c of checks) process.stdout.write(JSON.stringify(c) + '\n');
        if (checks.some((c) => !c.ok)) process.exitCode = 2;
        if (dir === undefined) return;
      }
      if (dir === undefined) throw invalidArgument('dir', 'give an index directory, or --data-dir');
      const r = verifyIndex(dir);
      process.stdout.write(JSON.stringify(r) + '\n');
      if (!r.ok) process.exitCode = 2;
    });
}
