// The most vector products one request may compute on the event loop (MMR, the search matrix):
// beyond it a request would hold the loop for longer than a health probe allows, so it is a 400
// naming the field that sets its size.
import { invalidArgument } from '../../common/errors.js';

export const WORK_LIMIT = 100_000_000;

/** Refuses `products` (vector pairs × dimensions) past WORK_LIMIT, naming `field` and what it computes. */
export function checkWork(products: number, field: string, what: string): void {
  if (products > WORK_LIMIT)
    throw invalidArgument(field, `${what} is more than one request may compute (${WORK_LIMIT} products of vector elements): ask for fewer`);
}
