// The memory a collection's payload values live in, from the engine's memory request: the CXL tier's
// node when the plan binds one (values are cold data: index/payload/chunk-memory.ts), else local
// memory standing for the emulated tier. A bind that fails is an error, or, with allowEmulation, a
// warning and emulated values, as for the index's tiers.
import { ChunkMemory } from '../index/payload/chunk-memory.js';
import { type MemoryRequest, resolveMemoryPlan } from '../index/tiered/memory-binding.js';

/** Under `req` (its plan resolved once): the node the values are planned on, and a maker of each collection's value memory. */
export function payloadMemoryFor(req: MemoryRequest): { node: number | null; make: () => ChunkMemory } {
  const plan = resolveMemoryPlan(req);
  const node = plan.mode === 'numa' ? plan.nodes[1] : null;
  const make = (): ChunkMemory => {
    if (node === null) return new ChunkMemory();
    try {
      return new ChunkMemory(node);
    } catch (e) {
      if (!req.allowEmulation) throw e;
      req.onWarning?.(`payload values: ${(e as Error).message}; continuing with them emulated`);
      return new ChunkMemory();
    }
  };
  return { node, make };
}
