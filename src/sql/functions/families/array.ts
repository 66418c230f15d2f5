/**
 * BigQuery's array functions. ARRAY(subquery) is a special form (lower.ts).
 *
 * BigQuery's reference lists ARRAY_FIRST, ARRAY_LAST and ARRAY_SLICE besides the older ones, but
 * not ARRAY_IS_DISTINCT or ARRAY_INCLUDES, ARRAY_INCLUDES_ANY and ARRAY_INCLUDES_ALL, which
 * ZetaSQL documents and Google's BigQuery DataFrames library calls as BigQuery functions: they are
 * here in their value forms (the lambda form of ARRAY_INCLUDES, and ZetaSQL's ARRAY_FILTER,
 * ARRAY_TRANSFORM, ARRAY_ZIP, ARRAY_SUM/AVG/MIN/MAX and FLATTEN, are in neither and are not).
 */

import { scalar, type Catalog } from '../entry.ts';

const array = (signatures: string[]) => scalar('array', signatures);

export const ARRAY_FUNCTIONS = {
  array_concat: array(['(ARRAY<T1>, ARRAY<T1>...) -> ARRAY<T1>']),
  array_first: array(['(ARRAY<T1>) -> T1']),
  array_includes: array(['(ARRAY<T1>, T1) -> BOOL']),
  array_includes_all: array(['(ARRAY<T1>, ARRAY<T1>) -> BOOL']),
  array_includes_any: array(['(ARRAY<T1>, ARRAY<T1>) -> BOOL']),
  array_is_distinct: array(['(ARRAY<T1>) -> BOOL']),
  array_last: array(['(ARRAY<T1>) -> T1']),
  array_length: array(['(ARRAY<T1>) -> INT64']),
  array_reverse: array(['(ARRAY<T1>) -> ARRAY<T1>']),
  array_slice: array(['(ARRAY<T1>, INT64, INT64) -> ARRAY<T1>']),
  array_to_string: array(['(ARRAY<STRING>, STRING, [STRING]) -> STRING', '(ARRAY<BYTES>, BYTES, [BYTES]) -> BYTES']),
  generate_array: array(['(INT64, INT64, [INT64]) -> ARRAY<INT64>', '(FLOAT64, FLOAT64, [FLOAT64]) -> ARRAY<FLOAT64>']),
  generate_date_array: array(['(DATE, DATE, [INTERVAL]) -> ARRAY<DATE>']),
  generate_timestamp_array: array(['(TIMESTAMP, TIMESTAMP, INTERVAL) -> ARRAY<TIMESTAMP>']),
} satisfies Catalog;
