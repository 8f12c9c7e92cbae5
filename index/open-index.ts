// Opening an index for search: load with tier binding, then verify placement.
import { loadIndex, type LoadedIndex } from './format/load-index.js';
import { resolveMemoryPlan, tierBinder, verifyBindings, type MemoryPlan, type MemoryRequest } from './tiered/memory-binding.js';
import type { AllocateOptions } from './tiered/tiered-index.js';

export interface OpenedIndex extends LoadedIndex {
  memory: MemoryPlan;
}

export function openIndex(dir: string, memory: MemoryRequest = {}, alloc: AllocateOptions = {}): OpenedIndex {
  const plan = resolveMemoryPlan(memory);
  const loaded = loadIndex(dir, { ...alloc, prepareTier: tierBinder(plan, memory) });
  verifyBindings(loaded.index);
  return { ...loaded, memory: plan };
}
