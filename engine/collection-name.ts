// The one rule for collection names, wherever a name comes in (the API, an index's manifest, a flag).
import { invalidArgument, quoted } from '../common/errors.js';

/** Longest collection name, UTF-8 bytes (Qdrant's limit). */
export const MAX_COLLECTION_NAME_BYTES = 255;

/** Throws STRATA_INVALID_ARGUMENT naming `field` unless `name` is 1..255 bytes of UTF-8. */
export function checkCollectionName(name: string, field = 'collection_name'): void {
  const bytes = Buffer.byteLength(name, 'utf8');
  if (bytes === 0) throw invalidArgument(field, 'must not be empty');
  if (bytes > MAX_COLLECTION_NAME_BYTES)
    throw invalidArgument(field, `at most ${MAX_COLLECTION_NAME_BYTES} bytes, got ${bytes} (${quoted(name, 32)})`, { limit: MAX_COLLECTION_NAME_BYTES });
}
