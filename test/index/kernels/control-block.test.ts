// The control block's one layout table (index/kernels/control-block.ts) against the AssemblyScript
// constants the build generated from it: a table edited without a rebuild, or a generator that drops
// or renames a field, leaves the WASM traversal reading other offsets than the JS side writes.
import { describe, expect, it } from 'vitest';
import {
  BEAM_MAX_EF,
  CONTROL,
  CONTROL_BYTES,
  CONTROL_LC_OUTPUTS,
  CONTROL_LINK_OUTPUTS,
  CONTROL_OUTPUTS,
  COUNT_SHIFT,
  DEGREE_MASK,
  WALK_BOOST,
  LINK_LOOKUP_READS,
  RESEED_MIN_SHARE,
  SEED_AFTER,
  SEED_MIN_SHARE,
  WALK_END,
  WALK_SCARCE,
} from '../../../index/kernels/control-block.js';
import { asName, generatedConstants } from '../../helpers/generated-constants.js';

describe('control block layout', () => {
  it('gives the WASM side every field of the table at the same offset, and nothing else', () => {
    const generated = generatedConstants('control-block');
    const expected = new Map<string, number>(Object.entries(CONTROL).map(([field, at]) => [asName('B', field), at]));
    expected.set('CONTROL_OUTPUTS_FROM', CONTROL_OUTPUTS.from);
    expected.set('CONTROL_OUTPUTS_TO', CONTROL_OUTPUTS.to);
    expected.set('CONTROL_LINK_OUTPUTS_FROM', CONTROL_LINK_OUTPUTS.from);
    expected.set('CONTROL_LINK_OUTPUTS_TO', CONTROL_LINK_OUTPUTS.to);
    expected.set('CONTROL_LC_OUTPUTS_FROM', CONTROL_LC_OUTPUTS.from);
    expected.set('CONTROL_LC_OUTPUTS_TO', CONTROL_LC_OUTPUTS.to);
    expected.set('CONTROL_BYTES', CONTROL_BYTES);
    expected.set('DEGREE_MASK', DEGREE_MASK);
    expected.set('COUNT_SHIFT', COUNT_SHIFT);
    expected.set('WALK_BOOST', WALK_BOOST);
    expected.set('WALK_SCARCE', WALK_SCARCE);
    expected.set('BEAM_MAX_EF', BEAM_MAX_EF);
    expected.set('WALK_END_OVERFLOW', WALK_END.overflow);
    expected.set('WALK_END_SCARCE', WALK_END.scarce);
    expected.set('LINK_LOOKUP_READS', LINK_LOOKUP_READS);
    expected.set('SEED_MIN_SHARE', SEED_MIN_SHARE);
    expected.set('SEED_AFTER', SEED_AFTER);
    expected.set('RESEED_MIN_SHARE', RESEED_MIN_SHARE);
    expect(Object.fromEntries(generated)).toEqual(Object.fromEntries(expected));
  });

  it("keeps each read count's bytes in the next word, where the traversal's addReads adds them", () => {
    for (const [count, bytes] of [
      ['linkMiss', 'linkMissBytes'],
      ['linkHidden', 'linkHiddenBytes'],
      ['lcMiss', 'lcMissBytes'],
      ['lcHidden', 'lcHiddenBytes'],
    ] as const)
      expect(CONTROL[bytes], bytes).toBe(CONTROL[count] + 4);
  });

  it('keeps every field word-aligned, inside the block and apart from the others', () => {
    const wide = new Set<string>(['mlp', 'groups']);
    const counted = new Set<string>(['dist', 'groups', 'miss', 'missBytes', 'hidden', 'hiddenBytes', 'wasteBytes']);
    const fields = Object.entries(CONTROL).map(([field, at]) => ({ field, at, bytes: (wide.has(field) ? 8 : 4) * (counted.has(field) ? 2 : 1) }));
    fields.sort((a, b) => a.at - b.at);
    for (const [i, f] of fields.entries()) {
      // Word alignment is enough: the f64 fields are read through a DataView and WASM loads.
      expect(f.at % 4, f.field).toBe(0);
      expect(f.at + f.bytes, f.field).toBeLessThanOrEqual(CONTROL_BYTES);
      const next = fields[i + 1];
      if (next !== undefined) expect(f.at + f.bytes, `${f.field} runs into ${next.field}`).toBeLessThanOrEqual(next.at);
    }
    expect(CONTROL_OUTPUTS.from).toBeLessThan(CONTROL_OUTPUTS.to);
    // The zeroed outputs must not reach an input the caller wrote.
    for (const out of [CONTROL_OUTPUTS, CONTROL_LINK_OUTPUTS]) {
      const inputs = fields.filter((f) => f.at < out.from || f.at >= out.to);
      for (const f of inputs) expect(f.at >= out.to || f.at + f.bytes <= out.from, f.field).toBe(true);
    }
  });
});
