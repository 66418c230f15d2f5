/**
 * BigQuery's JSON functions: a STRING overload reads JSON text without validating it (JSON null
 * is SQL NULL there), a JSON overload reads the JSON type (JSON null stays JSON 'null'). A
 * JSONPath is a literal (or a query parameter), parsed and checked at save (src/sql/json/path.ts).
 */

import { scalar, type Catalog } from '../entry.ts';

const json = (signatures: string[], summary?: string) => scalar('json', signatures, summary ? { summary } : {});

export const JSON_FUNCTIONS = {
  json_extract: json(['(STRING, CONST STRING) -> STRING', '(JSON, CONST STRING) -> JSON']),
  json_extract_scalar: json(['(STRING, [CONST STRING]) -> STRING', '(JSON, [CONST STRING]) -> STRING']),
  json_extract_array: json(['(STRING, [CONST STRING]) -> ARRAY<STRING>', '(JSON, [CONST STRING]) -> ARRAY<JSON>']),
  json_extract_string_array: json(['(STRING, [CONST STRING]) -> ARRAY<STRING>', '(JSON, [CONST STRING]) -> ARRAY<STRING>']),
  json_query: json(['(STRING, CONST STRING) -> STRING', '(JSON, CONST STRING) -> JSON']),
  json_query_array: json(['(STRING, [CONST STRING]) -> ARRAY<STRING>', '(JSON, [CONST STRING]) -> ARRAY<JSON>']),
  json_value: json(['(STRING, [CONST STRING]) -> STRING', '(JSON, [CONST STRING]) -> STRING']),
  json_value_array: json(['(STRING, [CONST STRING]) -> ARRAY<STRING>', '(JSON, [CONST STRING]) -> ARRAY<STRING>']),
  bool: json(['(JSON) -> BOOL']),
  int64: json(['(JSON) -> INT64']),
  float64: json(['(JSON; wide_number_mode => STRING) -> FLOAT64']),
  /** STRING of a date or time (their families) shares the name: those signatures are refused until rendered. */
  string: json(['(JSON) -> STRING', '(TIMESTAMP, [STRING]) -> STRING', '(DATE) -> STRING', '(DATETIME) -> STRING', '(TIME) -> STRING']),
  lax_bool: json(['(JSON) -> BOOL']),
  lax_int64: json(['(JSON) -> INT64']),
  lax_float64: json(['(JSON) -> FLOAT64']),
  lax_string: json(['(JSON) -> STRING']),
  parse_json: json(['(STRING; wide_number_mode => STRING) -> JSON']),
  to_json: json(['(ANY; stringify_wide_numbers => BOOL) -> JSON']),
  to_json_string: json(['(ANY, [BOOL]) -> STRING']),
  json_object: json(['((STRING, ANY)...) -> JSON', '(ARRAY<STRING>, ARRAY<ANY>) -> JSON']),
  json_array: json(['(ANY...) -> JSON']),
  json_set: json(['(JSON, CONST STRING, ANY, (CONST STRING, ANY)...; CONST create_if_missing => BOOL) -> JSON']),
  json_remove: json(['(JSON, CONST STRING, CONST STRING...) -> JSON']),
  json_strip_nulls: json(['(JSON, [CONST STRING]; CONST include_arrays => BOOL, CONST remove_empty => BOOL) -> JSON']),
  json_array_append: json(['(JSON, CONST STRING, ANY, (CONST STRING, ANY)...; CONST append_each_element => BOOL) -> JSON']),
  json_array_insert: json(['(JSON, CONST STRING, ANY, (CONST STRING, ANY)...; CONST insert_each_element => BOOL) -> JSON']),
  json_keys: json(['(JSON, [INT64]; CONST mode => STRING) -> ARRAY<STRING>']),
  json_type: json(['(JSON) -> STRING']),
  json_flatten: json(['(JSON) -> ARRAY<JSON>']),
} satisfies Catalog;
