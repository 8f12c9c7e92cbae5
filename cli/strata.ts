// The `strata` command: one subcommand per module in commands/.
import { Command, CommanderError } from 'commander';
import { isStrataError } from '../common/errors.js';
import { registerBuild } from './commands/build.js';
import { registerDemo } from './commands/demo.js';
import { registerFetch } from './commands/fetch.js';
import { registerGenerate } from './commands/generate.js';
import { registerLoadgen } from './commands/loadgen.js';
import { registerPlot } from './commands/plot.js';
import { registerRouter } from './commands/router.js';
import { registerSearch } from './commands/search.js';
import { registerServe } from './commands/serve.js';
import { VERSION } from '../common/version.js';
import { registerTiers } from './commands/tiers.js';
import { registerVerify } from './commands/verify.js';

export function program(): Command {
  const p = new Command('strata').description('Strata: graph ANN search over tiered DRAM / CXL memory').version(VERSION).showHelpAfterError().exitOverride();
  registerBuild(p);
  registerVerify(p);
  registerSearch(p);
  registerTiers(p);
  registerGenerate(p);
  registerFetch(p);
  registerDemo(p);
  registerServe(p);
  registerRouter(p);
  registerLoadgen(p);
  registerPlot(p);
  return p;
}

export async function main(argv: string[]): Promise<void> {
  try {
    await program().parseAsync(argv);
  } catch (e) {
    if (e instanceof CommanderError) {
      process.exitCode = e.exitCode;
      return;
    }
    if (isStrataError(e)) {
      process.stderr.write(`strata: error ${e.code}: ${e.message}\n`);
      process.exitCode = 2;
      return;
    }
    throw e;
  }
}
