// Opening an index for search: load with tier binding, then verify placement. In one turn (a CLI, a
// server starting) or over turns of the event loop (a base a serving process opens: a compaction's).
import { stepsInOneTurn, stepsInTurns } from '../common/turns.js';
import { type LoadedIndex, loadIndexSteps } from './format/load-index.js';
import { resolveMemoryPlan, tierBinder, verifyBindings, type MemoryPlan, type MemoryRequest } from './tiered/memory-binding.js';
import type { AllocateOptions } from './tiered/tiered-index.js';

export interface OpenedIndex extends LoadedIndex {
  memory: MemoryPlan;
}

export function openIndex(dir: string, memory: MemoryRequest = {}, alloc: AllocateOptions = {}): OpenedIndex {
  return stepsInOneTurn(openSteps(dir, memory, alloc));
}

/** openIndex, giving the event loop a turn between the load's steps. */
export async function openIndexInTurns(dir: string, memory: MemoryRequest = {}, alloc: AllocateOptions = {}): Promise<OpenedIndex> {
  // Nothing it reads changes meanwhile: a base directory is written once, before it is opened.
  return (await stepsInTurns(openSteps(dir, memory, alloc), () => false))!;
}

function* openSteps(dir: string, memory: MemoryRequest, alloc: AllocateOptions): Generator<void, OpenedIndex, void> {
  const plan = resolveMemoryPlan(memory);
  const loaded = yield* loadIndexSteps(dir, { ...alloc, prepareTier: tierBinder(plan, memory) });
  verifyBindings(loaded.index);
  return { ...loaded, memory: plan };
}
