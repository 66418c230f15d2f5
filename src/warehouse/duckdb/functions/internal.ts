/**
 * DuckDB's spelling of the internal functions (src/sql/functions/families/internal.ts), which
 * only ClickHouse SQL reaches: each gives ClickHouse's answer.
 */

import { arg, optionalArg, type CallParts, type Renderings } from '../../../sql/emitters.ts';
import type { INTERNAL_FUNCTIONS } from '../../../sql/functions/families/internal.ts';
import { jsonSubscript } from './json.ts';
import { jsonPathOf } from '../../../sql/clickhouse/json-path.ts';

/**
 * ClickHouse's JSONExtract*: NULL for NULL text; for JSON text, the first branch whose condition
 * holds for the value at the call's keys (`type` is json_type's name of it, `text` its text as
 * json_extract_string gives it, `raw` its JSON); otherwise (missing, not JSON) `otherwise`.
 */
function jsonExtract(call: CallParts, branches: (parts: { type: string; text: string; raw: string }) => Array<[string, string]>, otherwise: string): string {
  const json = arg(call, 0);
  const path = `'${jsonPathOf(call.raw.slice(1))}'`;
  const parts = { type: `json_type(${json}, ${path})`, text: `json_extract_string(${json}, ${path})`, raw: `CAST(json_extract(${json}, ${path}) AS VARCHAR)` };
  const whens = branches(parts).map(([condition, value]) => ` WHEN json_valid(${json}) AND ${condition} THEN ${value}`).join('');
  return `(CASE WHEN ${json} IS NULL THEN NULL${whens} ELSE ${otherwise} END)`;
}

const NUMBER_TYPES = "('BIGINT', 'UBIGINT', 'DOUBLE')";
const INTEGER_TEXT = "'^[+-]?[0-9]+$'";
const FLOAT_TEXT = "'^[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?$'";

export const INTERNAL: Renderings<typeof INTERNAL_FUNCTIONS> = {
  json_subscript: jsonSubscript,
  length_of: (call) => (call.types[0]?.kind === 'array' ? `len(${arg(call, 0)})` : `strlen(${arg(call, 0)})`),
  // strpos counts characters; the bytes before the match, plus one, are ClickHouse's offset.
  byte_position: (call) => {
    const found = `strpos(${arg(call, 0)}, ${arg(call, 1)})`;
    return `(CASE WHEN ${found} = 0 THEN 0 ELSE strlen(substring(${arg(call, 0)}, 1, ${found} - 1)) + 1 END)`;
  },
  quantile_interpolated: (call) => `quantile_cont(${arg(call, 0)}, ${arg(call, 1)})${call.over}`,
  arg_max: (call) => `arg_max(${arg(call, 0)}, ${arg(call, 1)})${call.over}`,
  arg_min: (call) => `arg_min(${arg(call, 0)}, ${arg(call, 1)})${call.over}`,
  round_half_even: (call) => `round_even(${arg(call, 0)}, CAST(${optionalArg(call, 1) ?? '0'} AS INTEGER))`,
  // A string's value; a number, boolean, array or object as its JSON text; null or missing ''.
  json_extract_string: (call) =>
    jsonExtract(call, ({ type, text, raw }) => [[`${type} = 'VARCHAR'`, text], [`${type} NOT IN ('NULL')`, raw]], "''"),
  // A number truncated towards zero, a string that spells an integer parsed; else 0.
  json_extract_int: (call) =>
    jsonExtract(
      call,
      ({ type, text }) => [
        [`${type} IN ${NUMBER_TYPES}`, `CAST(trunc(CAST(${text} AS DOUBLE)) AS BIGINT)`],
        [`${type} = 'VARCHAR' AND regexp_matches(${text}, ${INTEGER_TEXT})`, `CAST(${text} AS BIGINT)`],
      ],
      '0',
    ),
  json_extract_float: (call) =>
    jsonExtract(
      call,
      ({ type, text }) => [
        [`${type} IN ${NUMBER_TYPES}`, `CAST(${text} AS DOUBLE)`],
        [`${type} = 'VARCHAR' AND regexp_matches(${text}, ${FLOAT_TEXT})`, `CAST(${text} AS DOUBLE)`],
      ],
      '0',
    ),
  json_extract_bool: (call) =>
    jsonExtract(
      call,
      ({ type, text }) => [
        [`${type} = 'BOOLEAN'`, `CAST(${text} = 'true' AS BIGINT)`],
        [`${type} IN ${NUMBER_TYPES}`, `CAST(CAST(${text} AS DOUBLE) <> 0 AS BIGINT)`],
      ],
      '0',
    ),
  json_extract_raw: (call) => jsonExtract(call, ({ type, raw }) => [[`${type} IS NOT NULL`, raw]], "''"),
  json_has: (call) => {
    const json = arg(call, 0);
    const path = `'${jsonPathOf(call.raw.slice(1))}'`;
    return `(CASE WHEN ${json} IS NULL THEN NULL WHEN json_valid(${json}) AND json_exists(${json}, ${path}) THEN 1 ELSE 0 END)`;
  },
};
