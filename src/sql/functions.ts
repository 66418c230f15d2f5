/**
 * The allow-list: BigQuery functions the translator knows how to map. Anything else is refused
 * by name, so no engine function (file readers, settings, extensions) can be reached by writing
 * its name in a query. Each engine's generator must implement every entry (the type makes that
 * a compile error otherwise).
 *
 * Special forms handled by the lowering itself, not listed here: CAST/SAFE_CAST, EXTRACT,
 * approx_quantiles (becomes a `quantile(s)` node), IF (becomes CASE), ARRAY(subquery).
 */

export type FunctionKind = 'scalar' | 'aggregate' | 'window';

interface FunctionSpec {
  kind: FunctionKind;
  minArgs: number;
  maxArgs: number;
}

const scalar = (minArgs: number, maxArgs = minArgs): FunctionSpec => ({ kind: 'scalar', minArgs, maxArgs });
const aggregate = (minArgs: number, maxArgs = minArgs): FunctionSpec => ({ kind: 'aggregate', minArgs, maxArgs });
const windowOnly = (minArgs: number, maxArgs = minArgs): FunctionSpec => ({ kind: 'window', minArgs, maxArgs });
const MANY = 255;

export const BIGQUERY_FUNCTIONS = {
  // aggregates (also usable with OVER)
  count: aggregate(0, 1),
  countif: aggregate(1),
  sum: aggregate(1),
  avg: aggregate(1),
  min: aggregate(1),
  max: aggregate(1),
  any_value: aggregate(1),
  array_agg: aggregate(1),
  string_agg: aggregate(1, 2),
  approx_count_distinct: aggregate(1),
  approx_top_count: aggregate(2),
  logical_and: aggregate(1),
  logical_or: aggregate(1),
  stddev: aggregate(1),
  stddev_samp: aggregate(1),
  stddev_pop: aggregate(1),
  variance: aggregate(1),
  var_samp: aggregate(1),
  var_pop: aggregate(1),
  covar_pop: aggregate(2),
  covar_samp: aggregate(2),
  corr: aggregate(2),
  bit_and: aggregate(1),
  bit_or: aggregate(1),
  bit_xor: aggregate(1),
  array_concat_agg: aggregate(1),
  // window-only
  row_number: windowOnly(0),
  rank: windowOnly(0),
  dense_rank: windowOnly(0),
  percent_rank: windowOnly(0),
  cume_dist: windowOnly(0),
  ntile: windowOnly(1),
  lag: windowOnly(1, 3),
  lead: windowOnly(1, 3),
  first_value: windowOnly(1),
  last_value: windowOnly(1),
  nth_value: windowOnly(2),
  // conditionals
  coalesce: scalar(1, MANY),
  ifnull: scalar(2),
  nullif: scalar(2),
  greatest: scalar(1, MANY),
  least: scalar(1, MANY),
  // math
  abs: scalar(1),
  sign: scalar(1),
  round: scalar(1, 2),
  trunc: scalar(1, 2),
  floor: scalar(1),
  ceil: scalar(1),
  ceiling: scalar(1),
  sqrt: scalar(1),
  pow: scalar(2),
  power: scalar(2),
  exp: scalar(1),
  ln: scalar(1),
  log: scalar(1, 2),
  log10: scalar(1),
  mod: scalar(2),
  div: scalar(2),
  safe_divide: scalar(2),
  // strings
  concat: scalar(1, MANY),
  length: scalar(1),
  char_length: scalar(1),
  character_length: scalar(1),
  lower: scalar(1),
  upper: scalar(1),
  substr: scalar(2, 3),
  substring: scalar(2, 3),
  trim: scalar(1, 2),
  ltrim: scalar(1, 2),
  rtrim: scalar(1, 2),
  replace: scalar(3),
  starts_with: scalar(2),
  ends_with: scalar(2),
  strpos: scalar(2),
  split: scalar(1, 2),
  split_substr: scalar(3, 4),
  reverse: scalar(1),
  repeat: scalar(2),
  lpad: scalar(2, 3),
  rpad: scalar(2, 3),
  left: scalar(2),
  right: scalar(2),
  regexp_contains: scalar(2),
  regexp_extract: scalar(2),
  regexp_replace: scalar(3),
  regexp_extract_all: scalar(2),
  format: scalar(1, MANY),
  ascii: scalar(1),
  chr: scalar(1),
  instr: scalar(2, 4),
  translate: scalar(3),
  // arrays
  array_length: scalar(1),
  array_to_string: scalar(2),
  array_concat: scalar(1, MANY),
  array_reverse: scalar(1),
  generate_array: scalar(2, 3),
  generate_timestamp_array: scalar(3),
  generate_date_array: scalar(2, 3),
  array_is_distinct: scalar(1),
  // time
  current_timestamp: scalar(0),
  current_datetime: scalar(0, 1),
  current_date: scalar(0, 1),
  timestamp: scalar(1, 2),
  datetime: scalar(1, 2),
  date: scalar(1, 2),
  time: scalar(1, 3),
  timestamp_trunc: scalar(2, 3),
  datetime_trunc: scalar(2),
  date_trunc: scalar(2),
  timestamp_add: scalar(2),
  timestamp_sub: scalar(2),
  datetime_add: scalar(2),
  datetime_sub: scalar(2),
  date_add: scalar(2),
  date_sub: scalar(2),
  timestamp_diff: scalar(3),
  datetime_diff: scalar(3),
  date_diff: scalar(3),
  format_timestamp: scalar(2, 3),
  format_datetime: scalar(2),
  format_date: scalar(2),
  parse_timestamp: scalar(2),
  unix_seconds: scalar(1),
  unix_millis: scalar(1),
  unix_micros: scalar(1),
  timestamp_seconds: scalar(1),
  timestamp_millis: scalar(1),
  timestamp_micros: scalar(1),
  parse_date: scalar(2),
  unix_date: scalar(1),
  date_from_unix_date: scalar(1),
  // json text
  json_value: scalar(1, 2),
  json_extract_scalar: scalar(1, 2),
  json_extract: scalar(1, 2),
  json_query: scalar(1, 2),
  json_extract_array: scalar(1, 2),
  json_query_array: scalar(1, 2),
} satisfies Record<string, FunctionSpec>;

export type BigQueryFunction = keyof typeof BIGQUERY_FUNCTIONS;

/**
 * Functions of ClickHouse semantics that no BigQuery function has, which only the ClickHouse SQL
 * front end (clickhouse/functions.ts) puts in the tree; BigQuery SQL cannot name them. Each
 * engine spells them in its clickhouse-functions.ts.
 */
export const CLICKHOUSE_ONLY_FUNCTIONS = {
  /** Length of a string in bytes (ClickHouse's `length` of a String). */
  byte_length: scalar(1),
  /** 1-based byte offset of the needle, 0 when absent (ClickHouse's `position`). */
  byte_position: scalar(2),
  /** Interpolated quantile at a constant level (ClickHouse's `quantile(level)(x)`): (value, level). */
  quantile_interpolated: aggregate(2),
  /** argMax / argMin: (value, key), the value of the row with the greatest / least key. */
  arg_max: aggregate(2),
  arg_min: aggregate(2),
  /** Rounding half to even (ClickHouse's `round` of a float): (value[, digits]). */
  round_half_even: scalar(1, 2),
  /**
   * ClickHouse's JSONExtract*: (json text, key or 1-based index literals…). A missing value, one
   * of another JSON type or text that is not JSON gives the type's default ('' or 0).
   */
  json_extract_string: scalar(1, MANY),
  json_extract_int: scalar(1, MANY),
  json_extract_float: scalar(1, MANY),
  json_extract_bool: scalar(1, MANY),
  json_extract_raw: scalar(1, MANY),
  json_has: scalar(1, MANY),
} satisfies Record<string, FunctionSpec>;

export type ClickHouseOnlyFunction = keyof typeof CLICKHOUSE_ONLY_FUNCTIONS;

/** Every function a tree may call: BigQuery's, and the ClickHouse-only ones. */
export type SqlFunction = BigQueryFunction | ClickHouseOnlyFunction;

export function functionSpec(fn: SqlFunction): FunctionSpec {
  return Object.hasOwn(BIGQUERY_FUNCTIONS, fn) ? BIGQUERY_FUNCTIONS[fn as BigQueryFunction] : CLICKHOUSE_ONLY_FUNCTIONS[fn as ClickHouseOnlyFunction];
}

export function lookupFunction(name: string): { name: BigQueryFunction; spec: FunctionSpec } | undefined {
  const lower = name.toLowerCase();
  if (!Object.hasOwn(BIGQUERY_FUNCTIONS, lower)) return undefined;
  const known = lower as BigQueryFunction;
  return { name: known, spec: BIGQUERY_FUNCTIONS[known] };
}
