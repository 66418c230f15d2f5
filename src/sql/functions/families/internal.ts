/**
 * Functions of ClickHouse semantics that no BigQuery function has, which only the ClickHouse SQL
 * front end (src/sql/clickhouse/functions.ts) puts in a tree, and the analyzer's own forms of
 * BigQuery syntax; BigQuery SQL cannot name them.
 */

import { aggregate, scalar, type Catalog } from '../entry.ts';

export const INTERNAL_FUNCTIONS = {
  /**
   * BigQuery's `json.key`, `json['key']` and `json[0]` (the analyzer's rewriting of field access
   * and subscripts on JSON): the member or element, NULL where there is none.
   */
  json_subscript: scalar('internal', ['(JSON, STRING) -> JSON', '(JSON, INT64) -> JSON']),
  /** ClickHouse's length(x): bytes of a string, elements of an array. */
  length_of: scalar('internal', ['(STRING) -> INT64', '(ARRAY<T1>) -> INT64']),
  /** 1-based byte offset of the needle, 0 when absent (ClickHouse's `position`). */
  byte_position: scalar('internal', ['(STRING, STRING) -> INT64']),
  /** Interpolated quantile at a constant level (ClickHouse's `quantile(level)(x)`): (value, level). */
  quantile_interpolated: aggregate('internal', ['(FLOAT64, FLOAT64) -> FLOAT64']),
  /** argMax / argMin: (value, key), the value of the row with the greatest / least key. */
  arg_max: aggregate('internal', ['(T1, ANY) -> T1']),
  arg_min: aggregate('internal', ['(T1, ANY) -> T1']),
  /** Rounding half to even (ClickHouse's `round` of a float): (value[, digits]). */
  round_half_even: scalar('internal', ['(FLOAT64, [INT64]) -> FLOAT64']),
  /**
   * ClickHouse's JSONExtract*: (json text, key or 1-based index literals…). A missing value, one
   * of another JSON type or text that is not JSON gives the type's default ('' or 0).
   */
  json_extract_string: scalar('internal', ['(STRING, ANY...) -> STRING']),
  json_extract_int: scalar('internal', ['(STRING, ANY...) -> INT64']),
  json_extract_float: scalar('internal', ['(STRING, ANY...) -> FLOAT64']),
  json_extract_bool: scalar('internal', ['(STRING, ANY...) -> INT64']),
  json_extract_raw: scalar('internal', ['(STRING, ANY...) -> STRING']),
  json_has: scalar('internal', ['(STRING, ANY...) -> INT64']),
} satisfies Catalog;
