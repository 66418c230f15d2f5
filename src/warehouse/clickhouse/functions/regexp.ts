/**
 * ClickHouse renderings of BigQuery's regular-expression functions. ClickHouse runs RE2 too, but
 * with `.` matching a newline (RE2's default, and BigQuery's, is not to): every pattern is led
 * by `(?-s)`. Its extraction functions skip empty matches and give '' for a group that took no
 * part, where BigQuery does otherwise; those patterns are refused, as are BYTES patterns that
 * could match part of a UTF-8 character (ClickHouse matches UTF-8, BigQuery bytes).
 */

import { arg, argType, optionalArg, type CallParts, type Emitter, type Renderings } from '../../../sql/emitters.ts';
import { literalText, type STRING_FUNCTIONS } from '../../../sql/functions/families/string.ts';
import { patternInfo, patternProblem, type PatternInfo } from '../../../sql/functions/regexp.ts';
import { invalidSql } from '../../../sql/parse.ts';
import { guarded, quoted } from './shared.ts';
import { nullIfAnyNull } from './string.ts';

type RegexpFunction = 'regexp_contains' | 'regexp_extract' | 'regexp_extract_all' | 'regexp_instr' | 'regexp_replace' | 'regexp_substr';

const int = (value: string) => `toInt64(${value})`;
const isBytes = (call: CallParts) => argType(call, 0) === 'BYTES';

interface LiteralPattern {
  text: string;
  info: PatternInfo;
  /** The pattern as ClickHouse must get it. */
  sql: string;
}

/** A pattern that matches alike in bytes and in UTF-8: ASCII, nothing that matches "any" character. */
const sameOverBytes = (pattern: string) => /^[\x00-\x7f]*$/.test(pattern) && !/\.|\[\^|\\[WSDPpCX]/.test(pattern);

/**
 * The literal pattern of a call, or 'invalid' (the analyzer let it through under SAFE.: it does
 * not parse, or has more than one capturing group for a function that `extracts` a match); a
 * pattern that is not a literal is refused, since ClickHouse's extraction functions need one.
 */
function literalPattern(call: CallParts, name: string, extracts: boolean): LiteralPattern | 'invalid' {
  const text = literalText(call.raw[1]);
  if (text === undefined) throw invalidSql(`${name} needs a literal regular expression on ClickHouse`);
  if (patternProblem(text)) return 'invalid';
  if (isBytes(call) && !sameOverBytes(text)) throw invalidSql(`${name} of BYTES on ClickHouse takes only ASCII patterns without ., [^…] or \\W-like classes (ClickHouse matches UTF-8 characters, BigQuery bytes)`);
  const info = patternInfo(text);
  if (extracts && info.groups > 1) return 'invalid';
  return { text, info, sql: quoted(`(?-s)${text}`) };
}

/**
 * Whether a STRING pattern that is not a literal may go to ClickHouse as it is (match and
 * replaceRegexpAll take one): not under SAFE., since an invalid one would be ClickHouse's error.
 */
function nonLiteralAllowed(call: CallParts, name: string): boolean {
  if (literalText(call.raw[1]) !== undefined || isBytes(call)) return false;
  if (call.safe) throw invalidSql(`SAFE.${name} needs a literal regular expression on ClickHouse`);
  return true;
}

const refuse = (name: string, why: string) => invalidSql(`${name} ${why} is not supported on ClickHouse`);

/** The value from the 1-based position on, in characters (bytes for BYTES). */
const rest = (call: CallParts, value: string, position: string) => `${isBytes(call) ? 'substring' : 'substringUTF8'}(${value}, ${position})`;
const lengthOf = (call: CallParts, value: string) => `toInt64(${isBytes(call) ? 'length' : 'lengthUTF8'}(${value}))`;

const positionChecks = (call: CallParts, position: string, occurrence: string, value: string) =>
  guarded(call, `${position} <= 0`, 'Position must be positive', guarded(call, `${occurrence} <= 0`, 'Occurrence must be positive', value));

/** Every match (or its group) in `value`, as ClickHouse finds them: the same as BigQuery's for a pattern that cannot match empty. */
const allMatches = (value: string, pattern: LiteralPattern) =>
  pattern.info.groups > 0 ? `extractAllGroupsHorizontal(${value}, ${pattern.sql})[1]` : `extractAll(${value}, ${pattern.sql})`;

const extract: Emitter = (call) => {
  const name = 'REGEXP_EXTRACT';
  const pattern = literalPattern(call, name, true);
  if (pattern === 'invalid') return 'NULL';
  const value = arg(call, 0);
  // ClickHouse gives '' for a group that took no part in the match, BigQuery NULL: told apart when the group cannot match ''.
  const optional = pattern.info.groups > 0 && pattern.info.groupOptional;
  if (optional && pattern.info.groupNullable) throw refuse(name, 'with a capturing group that may take no part in a match or match the empty string (BigQuery gives NULL or \'\', ClickHouse \'\')');
  const taken = (found: string) => (optional ? `nullIf(${found}, '')` : found);
  if (call.args.length === 2) return `if(match(${value}, ${pattern.sql}), ${taken(`regexpExtract(${value}, ${pattern.sql}, ${pattern.info.groups})`)}, NULL)`;
  if (pattern.info.nullable) throw refuse(name, 'with a position or occurrence and a pattern that matches the empty string');
  const [position, occurrence] = [int(arg(call, 2)), int(optionalArg(call, 3) ?? '1')];
  const matches = allMatches(rest(call, value, position), pattern);
  const past = `${position} > ${lengthOf(call, value)} AND NOT (${value} = '' AND ${position} = 1)`;
  return positionChecks(call, position, occurrence, `if(${past} OR length(${matches}) < ${occurrence}, NULL, ${taken(`${matches}[${occurrence}]`)})`);
};

/**
 * REGEXP_INSTR from ClickHouse's pieces: a match starts after the text between the earlier
 * matches and the matches themselves (splitByRegexp and extractAll cut the value alike). With a
 * group, the pattern is regrouped as (before)(group)after to measure where the group starts.
 */
function instr(call: CallParts): string {
  const name = 'REGEXP_INSTR';
  const pattern = literalPattern(call, name, true);
  if (pattern === 'invalid') return 'NULL';
  if (pattern.info.nullable) throw refuse(name, 'with a pattern that matches the empty string');
  const split = pattern.info.topLevelGroup;
  if (pattern.info.groups > 0 && !split) throw refuse(name, 'with a capturing group inside an alternation or repetition');
  const value = arg(call, 0);
  const [position, occurrence, after] = [2, 3, 4].map((index) => int(optionalArg(call, index) ?? (index === 4 ? '0' : '1'))) as [string, string, string];
  const text = rest(call, value, position);
  const length = isBytes(call) ? 'length' : 'lengthUTF8';
  const lengths = (list: string) => `arrayMap(sawmill_s -> toInt64(${length}(sawmill_s)), ${list})`;
  const pieces = lengths(`splitByRegexp(${pattern.sql}, ${text})`);
  const matches = lengths(`extractAll(${text}, ${pattern.sql})`);
  const matchStart = `(1 + arraySum(arraySlice(${pieces}, 1, ${occurrence})) + arraySum(arraySlice(${matches}, 1, ${occurrence} - 1)))`;
  let start = matchStart;
  let size = `${matches}[${occurrence}]`;
  if (split) {
    const regrouped = quoted(`(?-s)${split.flags}(${split.prefix})(${split.group})${split.suffix}`);
    const groups = `extractAllGroupsHorizontal(${text}, ${regrouped})`;
    start = `(${matchStart} + toInt64(${length}(${groups}[1][${occurrence}])))`;
    size = `toInt64(${length}(${groups}[2][${occurrence}]))`;
  }
  const found = `(${start} + if(${after} = 1, ${size}, 0) + ${position} - 1)`;
  const none = `${position} > ${lengthOf(call, value)} OR length(${matches}) < ${occurrence}`;
  const checked = guarded(call, `${after} NOT IN (0, 1)`, 'Invalid occurrence_position: must be 0 or 1', `if(${none}, toInt64(0), ${found})`);
  return pattern.text === '' ? 'toInt64(0)' : nullIfAnyNull([value, position, occurrence, after], positionChecks(call, position, occurrence, checked));
}

export const REGEXP: Renderings<Pick<typeof STRING_FUNCTIONS, RegexpFunction>> = {
  regexp_contains: (call) => {
    const pattern = nonLiteralAllowed(call, 'REGEXP_CONTAINS') ? undefined : literalPattern(call, 'REGEXP_CONTAINS', false);
    if (pattern === 'invalid') return 'NULL';
    return `match(${arg(call, 0)}, ${pattern?.sql ?? `concat('(?-s)', ${arg(call, 1)})`})`;
  },
  regexp_extract: extract,
  regexp_substr: extract,
  regexp_extract_all: (call) => {
    const name = 'REGEXP_EXTRACT_ALL';
    const pattern = literalPattern(call, name, true);
    // SAFE.'s NULL ARRAY: ClickHouse has none, and BigQuery's results give [] for one.
    if (pattern === 'invalid') return 'CAST([] AS Array(String))';
    if (pattern.info.nullable) throw refuse(name, 'with a pattern that matches the empty string (ClickHouse skips empty matches)');
    return allMatches(arg(call, 0), pattern);
  },
  regexp_instr: instr,
  regexp_replace: (call) => {
    const name = 'REGEXP_REPLACE';
    const literal = nonLiteralAllowed(call, name) ? undefined : literalPattern(call, name, false);
    if (literal === 'invalid') return 'NULL';
    // ClickHouse also replaces an empty match right after a match; it makes no difference when the replacement is empty.
    if (literal?.info.nullable && literalText(call.raw[2]) !== '') throw refuse(name, 'with a pattern that matches the empty string and a replacement');
    return `replaceRegexpAll(${arg(call, 0)}, ${literal?.sql ?? `concat('(?-s)', ${arg(call, 1)})`}, ${arg(call, 2)})`;
  },
};
