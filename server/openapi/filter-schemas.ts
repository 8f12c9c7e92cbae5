// The OpenAPI schemas of Qdrant's filter language as Strata takes it (index/filter/parse.ts is the
// parser and the authority: it also refuses what a schema cannot say, such as a field condition
// with more than one test), of with_payload selectors and of payload index schemas.
import { FIELD_SCHEMAS } from '../../engine/public.js';
import { TOKENIZERS } from '../api/payload-index.js';
import { MAX_SELECTOR_KEYS } from '../options.js';

type Obj = Record<string, unknown>;

const ref = (name: string): Obj => ({ $ref: `#/components/schemas/${name}` });
const closed = (properties: Obj, required: string[] = []): Obj => ({ type: 'object', additionalProperties: false, required, properties });
const bounds = (value: Obj): Obj => closed({ gt: value, gte: value, lt: value, lte: value });
const keywords = {
  oneOf: [
    { type: 'array', items: { type: 'string' } },
    { type: 'array', items: { type: 'integer' } },
  ],
};

export function filterSchemas(): Obj {
  const point = closed({ lon: { type: 'number', minimum: -180, maximum: 180 }, lat: { type: 'number', minimum: -90, maximum: 90 } }, ['lon', 'lat']);
  const ring = closed({ points: { type: 'array', minItems: 4, items: point } }, ['points']);
  const key = { type: 'string', description: 'A key path: `a.b`, `a[].b`, `a[0]`, `"quoted.key"`.' };
  const field = (name: string, test: Obj): Obj => closed({ key, [name]: test }, ['key', name]);
  const clause = { oneOf: [ref('Condition'), { type: 'array', items: ref('Condition') }] };
  return {
    Filter: {
      ...closed({
        must: clause,
        should: { ...clause, description: 'At least one must match: an empty should matches nothing.' },
        must_not: clause,
        min_should: closed({ conditions: { type: 'array', items: ref('Condition') }, min_count: { type: 'integer', minimum: 0 } }, ['conditions', 'min_count']),
      }),
      description:
        "Qdrant's filter language, all of it (docs/api.md, Filtering). Any unknown member, a condition with more than one test, or a bad value is a 400 naming the full path of the field (filter.must[0].range.gte).",
    },
    Condition: {
      oneOf: [
        field('match', {
          oneOf: [
            closed({ value: { oneOf: [{ type: 'string' }, { type: 'integer' }, { type: 'boolean' }] } }, ['value']),
            closed({ any: keywords }, ['any']),
            closed({ except: keywords }, ['except']),
            closed({ text: { type: 'string' } }, ['text']),
            closed({ text_any: { type: 'string' } }, ['text_any']),
            closed({ phrase: { type: 'string' } }, ['phrase']),
          ],
        }),
        field('range', { oneOf: [bounds({ type: 'number' }), bounds({ type: 'string', format: 'date-time', description: 'RFC 3339; no zone is UTC' })] }),
        field('geo_radius', closed({ center: point, radius: { type: 'number', minimum: 0, description: 'Metres' } }, ['center', 'radius'])),
        field('geo_bounding_box', closed({ top_left: point, bottom_right: point }, ['top_left', 'bottom_right'])),
        field('geo_polygon', closed({ exterior: ring, interiors: { type: 'array', items: ring } }, ['exterior'])),
        field('values_count', bounds({ type: 'integer', minimum: 0 })),
        closed({ is_empty: closed({ key }, ['key']) }, ['is_empty']),
        closed({ is_null: closed({ key }, ['key']) }, ['is_null']),
        closed({ has_id: { type: 'array', items: ref('ExtendedPointId') } }, ['has_id']),
        closed({ has_vector: { type: 'string' } }, ['has_vector']),
        closed({ nested: closed({ key, filter: ref('Filter') }, ['key', 'filter']) }, ['nested']),
        ref('Filter'),
      ],
    },
    WithPayload: {
      description:
        'true (all), false (none), a list of key paths (only those), {include: [...]} or {exclude: [...]}; paths are plain keys (a.b): [] and [i] are a 400.',
      oneOf: [
        { type: 'boolean' },
        { type: 'array', maxItems: MAX_SELECTOR_KEYS, items: { type: 'string' } },
        closed({ include: { type: 'array', maxItems: MAX_SELECTOR_KEYS, items: { type: 'string' } } }, ['include']),
        closed({ exclude: { type: 'array', maxItems: MAX_SELECTOR_KEYS, items: { type: 'string' } } }, ['exclude']),
      ],
    },
    PayloadFieldSchema: {
      description:
        "A schema name, or Qdrant's object form. Parameters Strata does not honour (is_tenant, on_disk, is_principal, stemmer, stopwords, phrase_matching, ...) are a 400 naming them.",
      oneOf: [
        { enum: [...FIELD_SCHEMAS] },
        closed(
          {
            type: { const: 'text' },
            tokenizer: { enum: [...TOKENIZERS] },
            lowercase: { type: 'boolean' },
            min_token_len: { type: 'integer', minimum: 0 },
            max_token_len: { type: 'integer', minimum: 0 },
          },
          ['type'],
        ),
        closed({ type: { const: 'integer' }, lookup: { const: true }, range: { const: true } }, ['type']),
        closed({ type: { enum: FIELD_SCHEMAS.filter((s) => s !== 'text' && s !== 'integer') } }, ['type']),
      ],
    },
  };
}
