/** DuckDB renderings of BigQuery's string functions. */

import { arg, argType, optionalArg, PORTABLE_EMITTERS, regexpExtractGroup, same, type CallParts, type Renderings } from '../../../sql/emitters.ts';
import type { STRING_FUNCTIONS } from '../../../sql/functions/families/string.ts';
import { invalidSql } from '../../../sql/parse.ts';
import { padding, repeat, replace } from '../bounded-functions.ts';
import { fail } from './shared.ts';

/** NULL where the pattern does not match (DuckDB's regexp_extract gives ''). */
function regexpExtract(call: CallParts): string {
  const group = regexpExtractGroup(call);
  const [value, regex] = [arg(call, 0), arg(call, 1)];
  return `(CASE WHEN regexp_matches(${value}, ${regex}) THEN regexp_extract(${value}, ${regex}, ${group}) END)`;
}

/**
 * SPLIT_SUBSTR(value, delimiter, start[, count]): `count` parts (all by default) from the
 * 1-based part `start` (0 reads as 1, a negative one counts from the end, clamped to the first),
 * joined again by the delimiter.
 */
function splitSubstr(call: CallParts): string {
  const [value, delimiter, start] = [arg(call, 0), arg(call, 1), `CAST(${arg(call, 2)} AS BIGINT)`];
  const parts = `string_split(${value}, ${delimiter})`;
  const first = `(CASE WHEN ${start} > 0 THEN ${start} WHEN ${start} = 0 THEN 1 ELSE greatest(len(${parts}) + ${start} + 1, 1) END)`;
  const count = call.args[3] === undefined ? `len(${parts})` : `CAST(${call.args[3]} AS BIGINT)`;
  const nulls = [value, delimiter, start, count].map((part) => `${part} IS NULL`).join(' OR ');
  return `(CASE WHEN ${nulls} THEN NULL WHEN ${count} < 0 THEN ${fail(call, 'SPLIT_SUBSTR count cannot be negative')} ELSE array_to_string(${parts}[${first} : ${first} + ${count} - 1], ${delimiter}) END)`;
}

/** BigQuery raises an error for a negative length where DuckDB counts from the end. */
function nonNegative(call: CallParts, index: number, what: string, value: string): string {
  const length = optionalArg(call, index);
  if (length === undefined || call.raw[index]?.kind === 'number') return value;
  return `(CASE WHEN ${length} < 0 THEN ${fail(call, `${what} cannot be negative`)} ELSE ${value} END)`;
}

export const STRING: Renderings<typeof STRING_FUNCTIONS> = {
  ascii: same('ascii'),
  byte_length: (call) => (argType(call, 0) === 'BYTES' ? `octet_length(${arg(call, 0)})` : `strlen(${arg(call, 0)})`),
  char_length: same('length'),
  character_length: same('length'),
  chr: (call) => `chr(CAST(${arg(call, 0)} AS INTEGER))`,
  concat: PORTABLE_EMITTERS.concat,
  ends_with: same('ends_with'),
  format: same('printf'),
  instr: (call) => {
    if (call.args.length > 2) throw invalidSql('INSTR with a position or occurrence is not supported');
    return `CAST(instr(${arg(call, 0)}, ${arg(call, 1)}) AS BIGINT)`;
  },
  left: (call) => nonNegative(call, 1, 'LEFT length', same('left')(call)),
  length: same('length'),
  lower: same('lower'),
  lpad: padding('lpad'),
  ltrim: same('ltrim'),
  regexp_contains: same('regexp_matches'),
  regexp_extract: regexpExtract,
  regexp_extract_all: (call) => `regexp_extract_all(${arg(call, 0)}, ${arg(call, 1)}, ${regexpExtractGroup(call)})`,
  // BigQuery replaces every match; DuckDB only the first unless asked with 'g'.
  regexp_replace: (call) => `regexp_replace(${arg(call, 0)}, ${arg(call, 1)}, ${arg(call, 2)}, 'g')`,
  repeat,
  replace,
  reverse: same('reverse'),
  right: (call) => nonNegative(call, 1, 'RIGHT length', same('right')(call)),
  rpad: padding('rpad'),
  rtrim: same('rtrim'),
  // SPLIT with a NULL separator is NULL (DuckDB's string_split splits into characters).
  split: (call) => {
    const separator = optionalArg(call, 1) ?? "','";
    const split = `string_split(${arg(call, 0)}, ${separator})`;
    return call.raw[1] === undefined || call.raw[1].kind === 'string' ? split : `(CASE WHEN ${separator} IS NOT NULL THEN ${split} END)`;
  },
  split_substr: splitSubstr,
  starts_with: same('starts_with'),
  strpos: same('strpos'),
  substr: (call) => nonNegative(call, 2, 'SUBSTR length', same('substring')(call)),
  substring: (call) => nonNegative(call, 2, 'SUBSTR length', same('substring')(call)),
  translate: same('translate'),
  trim: same('trim'),
  upper: same('upper'),
};
