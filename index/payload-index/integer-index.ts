// The `integer` index (Qdrant's range and match index on integers). It keeps floats a point holds
// too, so a range over a field mixing integers and floats stays exact.
import type { Bitmap } from './bitmap.js';
import type { FacetValue } from './field-index.js';
import { NumericIndex } from './numeric-index.js';

export class IntegerIndex extends NumericIndex {
  readonly schema = 'integer';

  facet(within: Bitmap | null): Array<[FacetValue, number]> {
    return this.integerCounts(within);
  }
}
