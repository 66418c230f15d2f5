/** ClickHouse renderings of BigQuery's string functions. */

import { arg, optionalArg, PORTABLE_EMITTERS, regexpExtractGroup, same, unsupported, type CallParts, type Emitter, type Renderings } from '../../../sql/emitters.ts';
import type { STRING_FUNCTIONS } from '../../../sql/functions/families/string.ts';
import { invalidSql } from '../../../sql/parse.ts';
import { int64 } from './shared.ts';

const padding =
  (name: string): Emitter =>
  (call) =>
    `${name}(${arg(call, 0)}, toUInt64(${arg(call, 1)}), ${optionalArg(call, 2) ?? "' '"})`;

/** NULL where the pattern does not match (ClickHouse's regexpExtract gives ''). */
function regexpExtract(call: CallParts): string {
  const group = regexpExtractGroup(call);
  const [value, regex] = [arg(call, 0), arg(call, 1)];
  return `if(match(${value}, ${regex}), regexpExtract(${value}, ${regex}, ${group}), NULL)`;
}

export const STRING: Renderings<typeof STRING_FUNCTIONS> = {
  ascii: int64(same('ascii')),
  byte_length: (call) => `toInt64(length(${arg(call, 0)}))`,
  char_length: int64(same('lengthUTF8')),
  character_length: int64(same('lengthUTF8')),
  chr: (call) => `char(${arg(call, 0)})`,
  concat: PORTABLE_EMITTERS.concat,
  ends_with: same('endsWith'),
  format: same('printf'),
  instr: (call) => {
    if (call.args.length > 2) throw invalidSql('INSTR with a position or occurrence is not supported on ClickHouse');
    return int64(same('positionUTF8'))(call);
  },
  left: (call) => `leftUTF8(${arg(call, 0)}, toInt64(${arg(call, 1)}))`,
  length: int64(same('lengthUTF8')),
  lower: same('lowerUTF8'),
  lpad: padding('leftPadUTF8'),
  ltrim: (call) => (call.args.length === 1 ? `trimLeft(${arg(call, 0)})` : `trim(LEADING ${arg(call, 1)} FROM ${arg(call, 0)})`),
  regexp_contains: same('match'),
  regexp_extract: regexpExtract,
  regexp_extract_all: (call) => {
    if (regexpExtractGroup(call) !== 0) throw invalidSql('REGEXP_EXTRACT_ALL with a capturing group is not supported on ClickHouse');
    return same('extractAll')(call);
  },
  regexp_replace: same('replaceRegexpAll'),
  repeat: (call) => `repeat(${arg(call, 0)}, toUInt64(${arg(call, 1)}))`,
  replace: same('replaceAll'),
  reverse: same('reverseUTF8'),
  right: (call) => `rightUTF8(${arg(call, 0)}, toInt64(${arg(call, 1)}))`,
  rpad: padding('rightPadUTF8'),
  rtrim: (call) => (call.args.length === 1 ? `trimRight(${arg(call, 0)})` : `trim(TRAILING ${arg(call, 1)} FROM ${arg(call, 0)})`),
  split: (call) => `splitByString(${optionalArg(call, 1) ?? "','"}, ${arg(call, 0)})`,
  split_substr: unsupported('SPLIT_SUBSTR is not mapped to ClickHouse yet'),
  starts_with: same('startsWith'),
  strpos: int64(same('positionUTF8')),
  substr: same('substringUTF8'),
  substring: same('substringUTF8'),
  translate: same('translateUTF8'),
  trim: (call) => (call.args.length === 1 ? `trimBoth(${arg(call, 0)})` : `trim(BOTH ${arg(call, 1)} FROM ${arg(call, 0)})`),
  upper: same('upperUTF8'),
};
