// The `float` index (Qdrant's range index on numbers); it also answers matching integral values.
import { NumericIndex } from './numeric-index.js';

export class FloatIndex extends NumericIndex {
  readonly schema = 'float';
}
