/** BigQuery's approximate aggregate functions. APPROX_QUANTILES is a special form (lower.ts). */

import { aggregate, type Catalog } from '../entry.ts';

export const APPROXIMATE_AGGREGATE_FUNCTIONS = {
  approx_count_distinct: aggregate('approximate_aggregate', ['(ANY) -> INT64'], { clauses: ['over'] }),
  approx_top_count: aggregate('approximate_aggregate', ['(T1, CONST INT64) -> ARRAY<STRUCT<value T1, count INT64>>'], { clauses: ['over'] }),
} satisfies Catalog;
