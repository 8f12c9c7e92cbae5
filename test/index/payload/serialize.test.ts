// The serialized store gives back the same payloads, writes the same bytes again, and refuses any
// damaged byte with a typed error.
import { crc32 } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isStrataError } from '../../../common/errors.js';
import { deserializePayloads, serializePayloads } from '../../../index/payload/serialize.js';
import { PayloadStore } from '../../../index/payload/store.js';
import { payload } from './arbitraries.js';

function storeOf(payloads: readonly Record<string, unknown>[]): PayloadStore {
  const store = new PayloadStore();
  payloads.forEach((p, id) => store.set(id, p));
  return store;
}

describe('serializePayloads / deserializePayloads', () => {
  it('round-trips random payloads, and the copy serializes to the same bytes', () => {
    fc.assert(
      fc.property(fc.array(payload, { maxLength: 12 }), (payloads) => {
        const bytes = serializePayloads(storeOf(payloads));
        const copy = deserializePayloads(bytes);
        payloads.forEach((p, id) => expect(copy.get(id)).toEqual(p));
        expect(copy.size).toBe(payloads.length);
        expect(serializePayloads(copy)).toEqual(bytes);
      }),
      { numRuns: 200 },
    );
  });

  it('drops what rewrites left behind: strings no point holds any more are not written', () => {
    const store = new PayloadStore();
    for (let i = 0; i < 100; i++) store.set(0, { t: `text ${i}`, v: [i, i + 1] });
    expect(store.strings.size).toBe(100);
    const copy = deserializePayloads(serializePayloads(store));
    expect(copy.strings.size).toBe(1);
    expect(copy.get(0)).toEqual({ t: 'text 99', v: [99, 100] });
  });

  it('refuses any one corrupted byte with STRATA_INDEX_CORRUPT', () => {
    const bytes = serializePayloads(
      storeOf([
        { a: 'x', b: [1, 2.5], c: { d: null } },
        { a: 'y', e: [{}] },
      ]),
    );
    fc.assert(
      fc.property(fc.nat(bytes.length - 1), fc.integer({ min: 1, max: 255 }), (at, flip) => {
        const bad = bytes.slice();
        bad[at]! ^= flip;
        expect(() => deserializePayloads(bad)).toThrow(expect.objectContaining({ code: 'STRATA_INDEX_CORRUPT' }));
      }),
      { numRuns: 200 },
    );
  });

  it('refuses another format version, checksum intact, with STRATA_INDEX_VERSION', () => {
    const bytes = serializePayloads(storeOf([{ a: 1 }])).slice();
    const view = new DataView(bytes.buffer);
    view.setUint32(4, view.getUint32(4, true) + 1, true);
    view.setUint32(bytes.length - 4, crc32(bytes.subarray(0, bytes.length - 4)) >>> 0, true);
    expect(() => deserializePayloads(bytes)).toThrow(expect.objectContaining({ code: 'STRATA_INDEX_VERSION' }));
  });

  it('refuses a truncated buffer with STRATA_INDEX_CORRUPT', () => {
    const bytes = serializePayloads(storeOf([{ a: 1 }]));
    for (const n of [0, 5, bytes.length - 1]) {
      let err: unknown;
      try {
        deserializePayloads(bytes.subarray(0, n));
      } catch (e) {
        err = e;
      }
      expect(isStrataError(err, 'STRATA_INDEX_CORRUPT')).toBe(true);
    }
  });
});
