// The cost model's near-data pricing (docs/cxl-emulation.md): host workers read the expander at CXL
// cost and gain only batching; a device reads its own DRAM and pays the link once per message; and
// a message's time is charged in full to every query that waited on it.
import { describe, expect, it } from 'vitest';
import { Accountant, messageCost } from '../../../index/search/accounting.js';
import { STAT, STAT_FIELDS } from '../../../index/search/stats.js';
import { batchCostNs, costModel, tierCosts } from '../../../tiers/cost-model.js';

const costs = tierCosts(costModel({ cxlExtraLatencyNs: 190 }));
const vec = 512;

describe('near-data message pricing', () => {
  it('prices host workers as CXL reads batched over the message, with nothing for the hand-off', () => {
    const m = messageCost(costs, 'host', 640, vec, 8 * 640 + 12 * 32);
    expect(m.ns).toBe(batchCostNs(costs, 1, 640, 640 * vec));
    expect(m.dramOnlyNs).toBe(batchCostNs(costs, 0, 640, 640 * vec));
    expect(m.ns).toBeGreaterThan(m.dramOnlyNs);
  });

  it('prices a device at its own DRAM plus one crossing of the link, so batching pays', () => {
    const linkBytes = 8 * 640 + 12 * 32;
    const m = messageCost(costs, 'device', 640, vec, linkBytes);
    expect(m.ns).toBe(batchCostNs(costs, 0, 640, 640 * vec) + costs.latencyNs[1]! + linkBytes * costs.nsPerByte[1]!);
    // 32 queries of 20 reads each: the device's one message costs less than the host reading them one query at a time.
    const oneQueryLocal = batchCostNs(costs, 1, 20, 20 * vec);
    expect(m.ns).toBeLessThan(32 * oneQueryLocal);
    // and it costs less than host workers for the same message
    expect(m.ns).toBeLessThan(messageCost(costs, 'host', 640, vec, linkBytes).ns);
  });

  it('charges every query in a message the whole message time, not a share of it', () => {
    const acct = new Accountant(costs);
    const a = new Float64Array(STAT_FIELDS);
    const b = new Float64Array(STAT_FIELDS);
    const m = messageCost(costs, 'device', 40, vec, 8 * 40 + 24);
    acct.message(a, m.ns, m.dramOnlyNs, 8 * 10 + 12);
    acct.message(b, m.ns, m.dramOnlyNs, 8 * 30 + 12);
    expect(a[STAT.modelledNs]).toBe(m.ns);
    expect(b[STAT.modelledNs]).toBe(m.ns);
    expect(a[STAT.linkMessages]).toBe(1);
    expect(a[STAT.linkBytes]).toBe(92);
    expect(b[STAT.linkBytes]).toBe(252);
  });

  it('counts reads a worker made for a query on their tier without charging the query thread', () => {
    const acct = new Accountant(costs);
    const st = new Float64Array(STAT_FIELDS);
    acct.remoteReads(st, 'vector', 1, 20, vec);
    expect(st[STAT.vecReadsCxl]).toBe(20);
    expect(st[STAT.vecBytesCxl]).toBe(20 * vec);
    expect(st[STAT.distances]).toBe(20);
    expect(st[STAT.modelledNs]).toBe(0);
  });
});
