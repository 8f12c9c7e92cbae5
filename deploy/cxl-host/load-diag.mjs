// Diagnostic for the CXL test guest: load an index as `strata serve` does, but in the
// prepareTier hook report, per tier segment, where its pages are BEFORE binding, then try
// mbind {strict, move} to the given node and report where they are after (moves nothing else).
// Usage: node load-diag.mjs <index-dir> <cxl-node>
import { loadIndex } from '../../dist/index/format/load-index.js';
import { bindToNode, verifyPlacement } from '../../dist/tiers/numa.js';

const [dir, nodeArg] = process.argv.slice(2);
const node = Number(nodeArg);
loadIndex(dir, {
  prepareTier(tier) {
    for (const [i, s] of tier.segments.entries()) {
      const view = s.dataView();
      const target = tier.kind === 'cxl' ? node : 0;
      const before = verifyPlacement(view);
      let outcome;
      try {
        outcome = `bound ${bindToNode(view, target, { strict: true, move: true }).pages} pages`;
      } catch (e) {
        outcome = `FAILED ${e.message}`;
      }
      const after = verifyPlacement(view);
      console.log(
        `load-diag tier ${tier.kind} segment ${i} (${view.byteLength} B, offset ${view.byteOffset}) -> node ${target}: before ${JSON.stringify(before)}; ${outcome}; after ${JSON.stringify(after)}`,
      );
    }
  },
});
console.log('load-diag: loaded');
