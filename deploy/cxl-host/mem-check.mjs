// Diagnostic for the CXL test guest: does memory bound to a node keep what is written to it?
// Binds a fresh region to <node>, writes a pseudo-random pattern (byte stores via fill/set and
// a Float32Array copy), reads it back and compares; prints mismatching offsets.
// Usage: node mem-check.mjs <node>
import { createHash, randomBytes } from 'node:crypto';
import { allocateRegion } from '../../dist/tiers/shared-region.js';
import { bindToNode, verifyPlacement } from '../../dist/tiers/numa.js';

const node = Number(process.argv[2] ?? 2);
const bytes = 1 << 20;
const region = allocateRegion(bytes);
const view = new Uint8Array(region.buffer, 0, bytes);
bindToNode(view, node, { strict: true, move: true });
const src = randomBytes(bytes);
view.set(src);
const placement = verifyPlacement(view);
let bad = 0;
const first = [];
for (let i = 0; i < bytes; i++)
  if (view[i] !== src[i]) {
    if (bad++ < 8) first.push(`@${i}: ${src[i]} -> ${view[i]}`);
  }
const h = (b) => createHash('sha256').update(b).digest('hex').slice(0, 16);
console.log(
  `mem-check node ${node}: ${JSON.stringify(placement.byNode)}; wrote ${bytes} B, ${bad} bytes differ ${first.join(' ')}; sha256 src ${h(src)} mem ${h(view)}`,
);
process.exit(bad === 0 ? 0 : 1);
