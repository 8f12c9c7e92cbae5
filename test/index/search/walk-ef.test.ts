import { describe, expect, it } from 'vitest';
import { BEAM_MAX_EF, WALK_BOOST, WALK_SCARCE } from '../../../index/kernels/control-block.js';
import { walkEf, walkEfCap } from '../../../index/search/walk-ef.js';

describe("the filtered walk's ef", () => {
  it('stays the query’s unless the matches at the entry are WALK_SCARCE times scarcer than in the index', () => {
    const seen = 8 * WALK_SCARCE;
    // Half the index matches: widened only below a share of 1 / (2 × WALK_SCARCE) at the entry.
    expect(walkEf(64, 50_000, 100_000, seen / 2, seen)).toBe(64);
    expect(walkEf(64, 50_000, 100_000, 4, seen)).toBe(64);
    expect(walkEf(64, 50_000, 100_000, 3, seen)).toBe((64 * WALK_BOOST) / 2);
    expect(walkEf(64, 50_000, 100_000, 0, seen)).toBe((64 * WALK_BOOST) / 2);
  });

  it('widens WALK_BOOST times scaled by the filter’s share of the index, never narrower than asked', () => {
    // A filter of all but one cluster is widened almost WALK_BOOST times; one of a fifth, barely.
    expect(walkEf(64, 98_000, 100_000, 0, 32)).toBe(Math.floor((64 * WALK_BOOST * 98_000) / 100_000));
    expect(walkEf(64, 20_000, 100_000, 0, 32)).toBe(Math.max(64, Math.floor((64 * WALK_BOOST) / 5)));
    expect(walkEf(64, 5_000, 100_000, 0, 32)).toBe(64);
  });

  it('never passes the fused beam’s limit, nor narrows a beam already beyond it', () => {
    expect(walkEf(600, 98_000, 100_000, 0, 32)).toBe(Math.min(BEAM_MAX_EF, 600 * WALK_BOOST));
    expect(walkEfCap(600)).toBe(Math.min(BEAM_MAX_EF, 600 * WALK_BOOST));
    expect(walkEf(2000, 98_000, 100_000, 0, 32)).toBe(2000);
    expect(walkEfCap(2000)).toBe(2000);
  });
});
