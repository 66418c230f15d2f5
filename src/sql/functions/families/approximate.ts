/** BigQuery's approximate aggregate functions. APPROX_QUANTILES is a special form (lower.ts). */

import { aggregate, type Catalog } from '../entry.ts';
import { argumentBounds } from './bounds.ts';

const WEIGHTS = ['INT64', 'NUMERIC', 'BIGNUMERIC', 'FLOAT64'];

export const APPROXIMATE_AGGREGATE_FUNCTIONS = {
  approx_count_distinct: aggregate('approximate_aggregate', ['(ANY) -> INT64'], { clauses: ['over'] }),
  approx_top_count: aggregate('approximate_aggregate', ['(T1, CONST INT64) -> ARRAY<STRUCT<value T1, count INT64>>'], {
    clauses: ['over'],
    check: argumentBounds('APPROX_TOP_COUNT', 1, 1),
  }),
  // The weights' sums, of the weights' type; NULL weights count as none.
  approx_top_sum: aggregate(
    'approximate_aggregate',
    WEIGHTS.map((weight) => `(T1, ${weight}, CONST INT64) -> ARRAY<STRUCT<value T1, sum ${weight}>>`),
    { clauses: ['over'], check: argumentBounds('APPROX_TOP_SUM', 2, 1) },
  ),
} satisfies Catalog;
