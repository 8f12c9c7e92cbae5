// Flags shared by commands that open an index: where tier memory goes and the CXL cost model.
import type { Command } from 'commander';
import { costModel, type CostModelParams } from '../tiers/cost-model.js';
import type { MemoryRequest } from '../index/tiered/memory-binding.js';
import { choiceOption, intOption, numberOption } from './options.js';

export interface MemoryFlags {
  memory: 'auto' | 'numa' | 'emulate';
  dramNode?: number;
  cxlNode?: number;
  allowEmulation?: boolean;
  cxlLatencyNs?: number;
  cxlBandwidthGbs?: number;
  expanders?: number;
  mlp?: number;
}

export function addMemoryFlags(cmd: Command): Command {
  return cmd
    .option(
      '--memory <mode>',
      'auto (real CXL node if present, else emulate) | numa (bind to --dram-node and --cxl-node, both required) | emulate',
      choiceOption('--memory', ['auto', 'numa', 'emulate'] as const),
      'auto',
    )
    .option('--dram-node <n>', 'NUMA node for the DRAM tier', intOption('--dram-node', 0, 1023))
    .option(
      '--cxl-node <n>',
      'NUMA node for the CXL tier (with --memory auto: forces a memory-only node not identified as CXL; `strata tiers` says why)',
      intOption('--cxl-node', 0, 1023),
    )
    .option('--allow-emulation', 'if binding fails, emulate the tier (with a warning) instead of failing')
    .option('--cxl-latency-ns <ns>', 'emulated CXL: latency added over DRAM', numberOption('--cxl-latency-ns', 0))
    .option('--cxl-bandwidth-gbs <gbs>', 'emulated CXL: bandwidth per expander, GB/s', numberOption('--cxl-bandwidth-gbs', 0.001))
    .option('--expanders <n>', 'emulated CXL: expanders the tier is interleaved over', intOption('--expanders', 1, 64))
    .option('--mlp <n>', 'cost model: independent misses in flight per core', intOption('--mlp', 1, 256));
}

export function memoryRequest(f: MemoryFlags): MemoryRequest {
  return {
    mode: f.memory,
    ...(f.dramNode !== undefined ? { dramNode: f.dramNode } : {}),
    ...(f.cxlNode !== undefined ? { cxlNode: f.cxlNode } : {}),
    allowEmulation: f.allowEmulation ?? false,
    onWarning: (m) => process.stderr.write(`warning: ${m}\n`),
  };
}

export function costFromFlags(f: MemoryFlags): CostModelParams {
  return costModel({
    ...(f.cxlLatencyNs !== undefined ? { cxlExtraLatencyNs: f.cxlLatencyNs } : {}),
    ...(f.cxlBandwidthGbs !== undefined ? { cxlBandwidthGBs: f.cxlBandwidthGbs } : {}),
    ...(f.expanders !== undefined ? { expanders: f.expanders } : {}),
    ...(f.mlp !== undefined ? { mlp: f.mlp } : {}),
  });
}
