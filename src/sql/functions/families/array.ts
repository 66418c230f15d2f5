/** BigQuery's array functions. ARRAY(subquery) is a special form (lower.ts). */

import { scalar, type Catalog } from '../entry.ts';

const array = (signatures: string[]) => scalar('array', signatures);

export const ARRAY_FUNCTIONS = {
  array_concat: array(['(ARRAY<T1>, ARRAY<T1>...) -> ARRAY<T1>']),
  array_is_distinct: array(['(ARRAY<T1>) -> BOOL']),
  array_length: array(['(ARRAY<T1>) -> INT64']),
  array_reverse: array(['(ARRAY<T1>) -> ARRAY<T1>']),
  array_to_string: array(['(ARRAY<STRING>, STRING) -> STRING']),
  generate_array: array(['(INT64, INT64, [INT64]) -> ARRAY<INT64>', '(FLOAT64, FLOAT64, [FLOAT64]) -> ARRAY<FLOAT64>']),
  generate_date_array: array(['(DATE, DATE, [INTERVAL]) -> ARRAY<DATE>']),
  generate_timestamp_array: array(['(TIMESTAMP, TIMESTAMP, INTERVAL) -> ARRAY<TIMESTAMP>']),
} satisfies Catalog;
