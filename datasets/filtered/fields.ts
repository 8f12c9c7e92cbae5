// The payload fields a filtered set declares: what the server should index and what a SQL table's
// columns are. One list per set, written with its filters, so every consumer reads the same schema.

/** A field's kind: Strata's payload index schema of the same name; `array`: a list of such values. */
export interface FieldSpec {
  type: 'keyword' | 'integer' | 'float' | 'bool';
  array?: boolean;
}

export type FieldSpecs = Readonly<Record<string, FieldSpec>>;

export const WORD_FIELDS: FieldSpecs = {
  rank: { type: 'integer' },
  len: { type: 'integer' },
  first: { type: 'keyword' },
  alpha: { type: 'bool' },
  tags: { type: 'keyword', array: true },
};

export const CLUSTER_FIELDS: FieldSpecs = {
  label: { type: 'keyword' },
  price: { type: 'float' },
  tags: { type: 'keyword', array: true },
};
