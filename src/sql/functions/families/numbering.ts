/** BigQuery's numbering functions (window functions that number the rows of a window). */

import { windowOnly, type Catalog } from '../entry.ts';

export const NUMBERING_FUNCTIONS = {
  cume_dist: windowOnly('numbering', ['() -> FLOAT64']),
  dense_rank: windowOnly('numbering', ['() -> INT64']),
  ntile: windowOnly('numbering', ['(INT64) -> INT64']),
  percent_rank: windowOnly('numbering', ['() -> FLOAT64']),
  rank: windowOnly('numbering', ['() -> INT64']),
  row_number: windowOnly('numbering', ['() -> INT64']),
} satisfies Catalog;
