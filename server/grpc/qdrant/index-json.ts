// CreateFieldIndexCollection's field_type and field_index_params as REST's `field_schema` (a type
// name, or the object form with its parameters), which server/api/payload-index.ts then checks.
// Parameters Strata does not honour (on_disk, is_principal, stemmers, stopwords, ...) are refused.
import {
  FieldType,
  IntegerIndexParamsSchema,
  type PayloadIndexParams,
  PayloadIndexParamsSchema,
  TextIndexParamsSchema,
  TokenizerType,
} from '@qdrant/js-client-grpc';
import type { DescMessage, MessageShape } from '@bufbuild/protobuf';
import { invalidArgument } from '../../../common/errors.js';
import { intOf, onlyFields } from './refuse.js';

const TYPE_NAMES: Readonly<Record<FieldType, string>> = {
  [FieldType.FieldTypeKeyword]: 'keyword',
  [FieldType.FieldTypeInteger]: 'integer',
  [FieldType.FieldTypeFloat]: 'float',
  [FieldType.FieldTypeGeo]: 'geo',
  [FieldType.FieldTypeText]: 'text',
  [FieldType.FieldTypeBool]: 'bool',
  [FieldType.FieldTypeDatetime]: 'datetime',
  [FieldType.FieldTypeUuid]: 'uuid',
};

/** The params oneof's case name per type, as REST's type name. */
const PARAMS_TYPES: Readonly<Record<string, string>> = {
  keywordIndexParams: 'keyword',
  integerIndexParams: 'integer',
  floatIndexParams: 'float',
  geoIndexParams: 'geo',
  textIndexParams: 'text',
  boolIndexParams: 'bool',
  datetimeIndexParams: 'datetime',
  uuidIndexParams: 'uuid',
};

const TOKENIZERS: Partial<Record<TokenizerType, string>> = { [TokenizerType.Word]: 'word', [TokenizerType.Whitespace]: 'whitespace' };

export function fieldSchemaJson(type: FieldType | undefined, params: PayloadIndexParams | undefined): unknown {
  const p = params?.indexParams;
  const fromParams = p?.case === undefined ? undefined : PARAMS_TYPES[p.case];
  const name = type === undefined ? fromParams : TYPE_NAMES[type];
  if (name === undefined) throw invalidArgument('field_type', type === undefined ? 'required: the type of the index' : `unknown field type ${type}`);
  if (p === undefined || p.case === undefined) return name;
  if (fromParams !== name) throw invalidArgument('field_index_params', `are ${fromParams} parameters for a ${name} index`);
  const at = `field_index_params.${p.case}.`;
  if (p.case === 'textIndexParams') {
    const t = p.value;
    onlyFields(TextIndexParamsSchema, t, ['tokenizer', 'lowercase', 'min_token_len', 'max_token_len'], at);
    const tokenizer = TOKENIZERS[t.tokenizer];
    if (tokenizer === undefined) throw invalidArgument(`${at}tokenizer`, `must be Word or Whitespace (${TokenizerType[t.tokenizer]} is not supported)`);
    return {
      type: 'text',
      tokenizer,
      lowercase: t.lowercase,
      min_token_len: intOf(t.minTokenLen, `${at}min_token_len`),
      max_token_len: intOf(t.maxTokenLen, `${at}max_token_len`),
    };
  }
  if (p.case === 'integerIndexParams') {
    onlyFields(IntegerIndexParamsSchema, p.value, ['lookup', 'range'], at);
    return { type: 'integer', lookup: p.value.lookup, range: p.value.range };
  }
  // The other types have no parameter Strata honours.
  onlyFields(paramsSchema(p.case), p.value as MessageShape<DescMessage>, [], at);
  return { type: name };
}

/** The message of one case of PayloadIndexParams.index_params, from the descriptor. */
function paramsSchema(localName: string): DescMessage {
  const f = PayloadIndexParamsSchema.fields.find((x) => x.localName === localName);
  if (f?.message === undefined) throw invalidArgument('field_index_params', `unknown parameters ${localName}`);
  return f.message;
}
