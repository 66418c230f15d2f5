/** BigQuery's aggregate functions (the "Aggregate functions" page of its reference). */

import { aggregate, type Catalog } from '../entry.ts';
import { nonNullArgument } from './bounds.ts';

export const AGGREGATE_FUNCTIONS = {
  any_value: aggregate('aggregate', ['(T1) -> T1'], { clauses: ['distinct', 'over', 'having'] }),
  array_agg: aggregate('aggregate', ['(T1) -> ARRAY<T1>'], { clauses: ['distinct', 'order_by', 'limit', 'null_treatment', 'over'] }),
  array_concat_agg: aggregate('aggregate', ['(ARRAY<T1>) -> ARRAY<T1>'], { clauses: ['order_by', 'limit', 'over'] }),
  avg: aggregate('aggregate', ['(INT64) -> FLOAT64', '(NUMERIC) -> NUMERIC', '(BIGNUMERIC) -> BIGNUMERIC', '(FLOAT64) -> FLOAT64']),
  bit_and: aggregate('aggregate', ['(INT64) -> INT64']),
  bit_or: aggregate('aggregate', ['(INT64) -> INT64']),
  bit_xor: aggregate('aggregate', ['(INT64) -> INT64']),
  // COUNT(*) is the signature without arguments.
  count: aggregate('aggregate', ['() -> INT64', '(ANY) -> INT64']),
  countif: aggregate('aggregate', ['(BOOL) -> INT64']),
  logical_and: aggregate('aggregate', ['(BOOL) -> BOOL']),
  logical_or: aggregate('aggregate', ['(BOOL) -> BOOL']),
  max: aggregate('aggregate', ['(T1) -> T1']),
  // ANY_VALUE(x HAVING MAX y), written as a function of two arguments.
  max_by: aggregate('aggregate', ['(T1, T2) -> T1'], { clauses: ['over'] }),
  min: aggregate('aggregate', ['(T1) -> T1']),
  min_by: aggregate('aggregate', ['(T1, T2) -> T1'], { clauses: ['over'] }),
  string_agg: aggregate('aggregate', ['(STRING, [STRING]) -> STRING', '(BYTES, [BYTES]) -> BYTES'], {
    clauses: ['distinct', 'order_by', 'limit', 'over'],
    check: nonNullArgument('STRING_AGG', 1),
  }),
  sum: aggregate('aggregate', ['(INT64) -> INT64', '(NUMERIC) -> NUMERIC', '(BIGNUMERIC) -> BIGNUMERIC', '(FLOAT64) -> FLOAT64']),
} satisfies Catalog;
