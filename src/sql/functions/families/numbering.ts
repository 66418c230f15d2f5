/** BigQuery's numbering functions (window functions that number the rows of a window). */

import { windowOnly, type Catalog, type WindowSupport } from '../entry.ts';
import { argumentBounds } from './bounds.ts';

/** After ZetaSQL: every numbering function but ROW_NUMBER needs ORDER BY; none takes a frame. */
const ORDERED: WindowSupport = { order: 'required', frame: false };

export const NUMBERING_FUNCTIONS = {
  cume_dist: windowOnly('numbering', ['() -> FLOAT64'], { window: ORDERED }),
  dense_rank: windowOnly('numbering', ['() -> INT64'], { window: ORDERED }),
  ntile: windowOnly('numbering', ['(INT64) -> INT64'], { window: ORDERED, check: argumentBounds('NTILE', 0, 1) }),
  percent_rank: windowOnly('numbering', ['() -> FLOAT64'], { window: ORDERED }),
  rank: windowOnly('numbering', ['() -> INT64'], { window: ORDERED }),
  row_number: windowOnly('numbering', ['() -> INT64'], { window: { order: 'allowed', frame: false } }),
} satisfies Catalog;
