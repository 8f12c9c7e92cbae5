// Random JSON payloads for the payload store's property tests: a few shared keys (so points share
// columns and paths reach values), `__proto__`, a dotted and a non-ASCII key, nested objects and
// arrays, nulls, unicode strings, big, tiny and negative numbers, floats and integers.
import fc from 'fast-check';
import { formatSteps, type KeyPath, type PathStep, parseKeyPath } from '../../../index/filter/key-path.js';

export const KEYS = ['a', 'b', 'c', '__proto__', 'k.dot', 'ü'] as const;
const key = fc.constantFrom(...KEYS);

// -0 is left out: JSON text (the fallback column) writes it as 0.
const scalar = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }).filter((x) => !Object.is(x, -0)),
  fc.constantFrom(2 ** 53 + 2, -1e308, 5e-324, -17, 0.1),
  fc.string({ unit: 'grapheme', maxLength: 6 }),
  fc.constantFrom('red', 'green', ''),
);

const { json } = fc.letrec<{ json: unknown }>((tie) => ({
  json: fc.oneof(
    { depthSize: 'small', maxDepth: 3 },
    scalar,
    fc.array(scalar, { maxLength: 3 }),
    fc.array(tie('json'), { maxLength: 3 }),
    fc.dictionary(key, tie('json'), { maxKeys: 3 }),
  ),
}));

export const payload = fc.dictionary(key, json, { maxKeys: 4 }) as fc.Arbitrary<Record<string, unknown>>;

const step: fc.Arbitrary<PathStep> = fc.oneof(
  key.map((name) => ({ kind: 'key', name }) as PathStep),
  fc.constant({ kind: 'each' } as PathStep),
  fc.integer({ min: 0, max: 2 }).map((index) => ({ kind: 'index', index }) as PathStep),
);

/** A key path through the shared keys, as the filter parser reads it. */
export const keyPath: fc.Arbitrary<KeyPath> = fc
  .tuple(key, fc.array(step, { maxLength: 3 }))
  .map(([first, rest]) => parseKeyPath(formatSteps([{ kind: 'key', name: first }, ...rest]), 'key'));
