// `strata tiers`
import type { Command } from 'commander';
import { describeTopology } from '../../tiers/describe.js';
import { numaSupport } from '../../tiers/numa.js';
import { planTiers, readTopology } from '../../tiers/topology.js';
import { DEFAULT_COST_MODEL } from '../../tiers/cost-model.js';
import { intOption } from '../options.js';

export function registerTiers(program: Command): void {
  program
    .command('tiers')
    .description('show the memory topology Strata sees and what it would do with it')
    .option('--sysfs <root>', 'sysfs root to read (for inspection of a captured tree)', '/sys')
    .option('--cxl-node <n>', 'show the plan with the CXL tier forced onto this node', intOption('--cxl-node', 0, 1023))
    .option('--dram-node <n>', 'show the plan with the DRAM tier on this node', intOption('--dram-node', 0, 1023))
    .option('--json', 'machine-readable output')
    .action((f: { sysfs: string; json?: boolean; cxlNode?: number; dramNode?: number }) => {
      const topo = readTopology(f.sysfs);
      const plan = planTiers(topo, {
        ...(f.cxlNode !== undefined ? { cxlNode: f.cxlNode } : {}),
        ...(f.dramNode !== undefined ? { dramNode: f.dramNode } : {}),
      });
      const support = numaSupport();
      if (f.json) {
        process.stdout.write(JSON.stringify({ topology: topo, plan, support, emulationModel: DEFAULT_COST_MODEL }) + '\n');
        return;
      }
      const m = DEFAULT_COST_MODEL;
      process.stdout.write(describeTopology(topo, plan, support) + '\n');
      if (plan.mode === 'emulated') {
        process.stdout.write(
          `emulated CXL cost model: DRAM ${m.dram.latencyNs} ns, ${m.dram.bandwidthGBs} GB/s; CXL +${m.cxlExtraLatencyNs} ns, ${m.cxlBandwidthGBs} GB/s per expander x ${m.expanders}; ${m.mlp} misses in flight (docs/cxl-emulation.md)\n`,
        );
      }
    });
}
