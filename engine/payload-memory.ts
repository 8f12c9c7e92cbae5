// The memory a collection's payload values live in, from the engine's memory request: the CXL tier's
// node when the plan binds one (values are cold data: index/payload/chunk-memory.ts), else local
// memory standing for the emulated tier. A bind that fails is an error, or, with allowEmulation, a
// warning and emulated values, as for the index's tiers.
import { ChunkMemory } from '../index/payload/chunk-memory.js';
import { type MemoryRequest, resolveMemoryPlan } from '../index/tiered/memory-binding.js';

/** A maker of each collection's value memory under `req` (its plan resolved once). */
export function payloadMemoryFor(req: MemoryRequest): () => ChunkMemory {
  const plan = resolveMemoryPlan(req);
  const node = plan.mode === 'numa' ? plan.nodes[1] : null;
  return () => {
    if (node === null) return new ChunkMemory();
    try {
      return new ChunkMemory(node);
    } catch (e) {
      if (!req.allowEmulation) throw e;
      req.onWarning?.(`payload values: ${(e as Error).message}; continuing with them emulated`);
      return new ChunkMemory();
    }
  };
}
