/**
 * DuckDB's spelling of the ClickHouse-only functions (CLICKHOUSE_ONLY_FUNCTIONS in
 * src/sql/functions.ts), which only ClickHouse SQL reaches: each gives ClickHouse's answer.
 */

import { arg, optionalArg, type CallParts, type Emitter } from '../../sql/emitters.ts';
import type { ClickHouseOnlyFunction } from '../../sql/functions.ts';
import { jsonPathOf } from '../../sql/clickhouse/json-path.ts';

/** The JSON value at the call's keys, when the text is JSON and the value has one of `types` (json_type's names). */
function jsonValueOfType(call: CallParts, types: string[], value: (json: string, path: string) => string, otherwise: string): string {
  const json = arg(call, 0);
  const path = `'${jsonPathOf(call.raw.slice(1))}'`;
  const typed = types.map((type) => `'${type}'`).join(', ');
  return `(CASE WHEN ${json} IS NULL THEN NULL WHEN json_valid(${json}) AND json_type(${json}, ${path}) IN (${typed}) THEN ${value(json, path)} ELSE ${otherwise} END)`;
}

const NUMBERS = ['BIGINT', 'UBIGINT', 'DOUBLE'];

export const CLICKHOUSE_ONLY_EMITTERS: Record<ClickHouseOnlyFunction, Emitter> = {
  byte_length: (call) => `strlen(${arg(call, 0)})`,
  // strpos counts characters; the bytes before the match, plus one, are ClickHouse's offset.
  byte_position: (call) => {
    const found = `strpos(${arg(call, 0)}, ${arg(call, 1)})`;
    return `(CASE WHEN ${found} = 0 THEN 0 ELSE strlen(substring(${arg(call, 0)}, 1, ${found} - 1)) + 1 END)`;
  },
  quantile_interpolated: (call) => `quantile_cont(${arg(call, 0)}, ${arg(call, 1)})${call.over}`,
  round_half_even: (call) => `round_even(${arg(call, 0)}, CAST(${optionalArg(call, 1) ?? '0'} AS INTEGER))`,
  json_extract_string: (call) => jsonValueOfType(call, ['VARCHAR'], (json, path) => `json_extract_string(${json}, ${path})`, "''"),
  // A number is truncated towards zero, as ClickHouse converts a JSON float to an integer.
  json_extract_int: (call) => jsonValueOfType(call, NUMBERS, (json, path) => `CAST(trunc(CAST(json_extract_string(${json}, ${path}) AS DOUBLE)) AS BIGINT)`, '0'),
  json_extract_float: (call) => jsonValueOfType(call, NUMBERS, (json, path) => `CAST(json_extract_string(${json}, ${path}) AS DOUBLE)`, '0'),
  json_extract_bool: (call) => jsonValueOfType(call, ['BOOLEAN'], (json, path) => `CAST(json_extract_string(${json}, ${path}) = 'true' AS BIGINT)`, '0'),
  json_extract_raw: (call) => {
    const types = ['VARCHAR', 'BIGINT', 'UBIGINT', 'DOUBLE', 'BOOLEAN', 'NULL', 'ARRAY', 'OBJECT'];
    return jsonValueOfType(call, types, (json, path) => `CAST(json_extract(${json}, ${path}) AS VARCHAR)`, "''");
  },
  json_has: (call) => {
    const json = arg(call, 0);
    const path = `'${jsonPathOf(call.raw.slice(1))}'`;
    return `(CASE WHEN ${json} IS NULL THEN NULL WHEN json_valid(${json}) AND json_exists(${json}, ${path}) THEN 1 ELSE 0 END)`;
  },
};
