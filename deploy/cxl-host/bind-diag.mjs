// Diagnostic for the CXL test guest: where are the pages of a fresh tier-sized region (as
// tiers/shared-region.ts allocates it: a shared WebAssembly.Memory) BEFORE anything writes it,
// and which mbind flags bind it to a memory-only node. Run: node bind-diag.mjs <node>
// Uses the project's compiled dist/ (Strata's own addon wrapper), changes nothing.
import { allocateRegion } from '../../dist/tiers/shared-region.js';
import { bindToNode, verifyPlacement } from '../../dist/tiers/numa.js';

const node = Number(process.argv[2] ?? 1);
for (const [label, opts, touchFirst] of [
  ['fresh, strict', { strict: true }, false],
  ['fresh, strict+move', { strict: true, move: true }, false],
  ['written, strict', { strict: true }, true],
  ['written, strict+move', { strict: true, move: true }, true],
]) {
  const region = allocateRegion(256 * 1024);
  const view = new Uint8Array(region.buffer);
  if (touchFirst) view.fill(1);
  const before = verifyPlacement(view);
  let outcome;
  try {
    const r = bindToNode(view, node, opts);
    view.fill(2); // fault in whatever was not there yet, under the new policy
    outcome = `bound ${r.pages} pages`;
  } catch (e) {
    outcome = `FAILED: ${e.message}`;
  }
  const after = verifyPlacement(view);
  console.log(`bind-diag node ${node} [${label}]: before ${JSON.stringify(before)} -> ${outcome}; after ${JSON.stringify(after)}`);
}
