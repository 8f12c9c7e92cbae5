// The `uuid` index: a keyword index over the strings spelled as UUIDs (8-4-4-4-12 hex digits). A
// string that is no UUID counts as a value of another type, and a query naming one is left to the
// check, since the index never saw such strings. Values are compared as spelled, as the evaluator does.
import { KeywordIndex } from './keyword-index.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export class UuidIndex extends KeywordIndex {
  override readonly schema = 'uuid';

  protected override accepts(s: string): boolean {
    return UUID.test(s);
  }
}
