/**
 * DuckDB renderings of BigQuery's regular-expression functions. DuckDB's own run RE2 as BigQuery
 * does and are used where they give BigQuery's answer: for patterns that cannot match the empty
 * string (BigQuery steps over empty matches its own way) and capturing groups that always take
 * part in a match (BigQuery's REGEXP_EXTRACT gives NULL for one that did not, DuckDB ''). The
 * other forms, REGEXP_INSTR and BYTES run in the JavaScript functions of string-udfs.ts.
 */

import { arg, argType, optionalArg, type CallParts, type Emitter, type Renderings } from '../../../sql/emitters.ts';
import { literalText, type STRING_FUNCTIONS } from '../../../sql/functions/families/string.ts';
import { patternInfo, patternProblem, type PatternInfo } from '../../../sql/functions/regexp.ts';
import { fail } from './shared.ts';

type RegexpFunction = 'regexp_contains' | 'regexp_extract' | 'regexp_extract_all' | 'regexp_instr' | 'regexp_replace' | 'regexp_substr';

const bigint = (value: string) => `CAST(${value} AS BIGINT)`;

/**
 * The pattern when it is a literal: its structure, or `invalid` (left through by the analyzer
 * under SAFE.: it does not parse, or has more than one capturing group for a function that
 * `extracts` a match).
 */
function literalPattern(call: CallParts, extracts: boolean): PatternInfo | 'invalid' | undefined {
  const pattern = literalText(call.raw[1]);
  if (pattern === undefined) return undefined;
  if (patternProblem(pattern)) return 'invalid';
  const info = patternInfo(pattern);
  return extracts && info.groups > 1 ? 'invalid' : info;
}

/** A STRING call on a literal pattern DuckDB's functions answer as BigQuery: `native`; otherwise `script`. */
const byPattern =
  (extracts: boolean, native: (call: CallParts, info: PatternInfo) => string | undefined, script: Emitter): Emitter =>
  (call) => {
    const info = literalPattern(call, extracts);
    if (info === 'invalid') return 'NULL';
    if (info === undefined || argType(call, 0) === 'BYTES') return script(call);
    return native(call, info) ?? script(call);
  };

const udf = (name: string, call: CallParts, args: string[]) => `sawmill_${argType(call, 0) === 'BYTES' ? 'bytes_' : ''}${name}(${args.join(', ')})`;

/** BigQuery's errors for a position or occurrence that is not positive. */
const positionChecks = (call: CallParts, position: string, occurrence: string, value: string) =>
  `(CASE WHEN ${position} <= 0 THEN ${fail(call, 'Position must be positive')} WHEN ${occurrence} <= 0 THEN ${fail(call, 'Occurrence must be positive')} ELSE ${value} END)`;

const extract: Emitter = byPattern(
  true,
  (call, info) => {
    const [value, pattern] = [arg(call, 0), arg(call, 1)];
    const group = info.groups;
    if (call.args.length === 2) {
      // A group that took no part comes back NULL from regexp_extract_all's elements, '' from regexp_extract.
      if (group > 0 && info.groupOptional) return `regexp_extract_all(${value}, ${pattern}, 1)[1]`;
      return `(CASE WHEN regexp_matches(${value}, ${pattern}) THEN regexp_extract(${value}, ${pattern}, ${group}) END)`;
    }
    if (info.nullable) return undefined;
    const [position, occurrence] = [bigint(arg(call, 2)), bigint(optionalArg(call, 3) ?? '1')];
    // BigQuery matches the text from `position` on; past its end there is nothing (but '' at 1).
    const matches = `regexp_extract_all(substring(${value}, ${position}), ${pattern}, ${group})`;
    const past = `${position} > length(${value}) AND NOT (${value} = '' AND ${position} = 1)`;
    return positionChecks(call, position, occurrence, `(CASE WHEN ${past} THEN NULL ELSE ${matches}[${occurrence}] END)`);
  },
  (call) => udf('regexp_extract', call, [arg(call, 0), arg(call, 1), bigint(optionalArg(call, 2) ?? '1'), bigint(optionalArg(call, 3) ?? '1')]),
);

export const REGEXP: Renderings<Pick<typeof STRING_FUNCTIONS, RegexpFunction>> = {
  regexp_contains: byPattern(
    false,
    (call) => `regexp_matches(${arg(call, 0)}, ${arg(call, 1)})`,
    (call) => (argType(call, 0) === 'BYTES' ? `(${udf('regexp_contains', call, [arg(call, 0), arg(call, 1)])} = 1)` : `regexp_matches(${arg(call, 0)}, ${arg(call, 1)})`),
  ),
  regexp_extract: extract,
  regexp_substr: extract,
  regexp_extract_all: byPattern(
    true,
    (call, info) => {
      if (info.nullable) return undefined;
      const all = `regexp_extract_all(${arg(call, 0)}, ${arg(call, 1)}, ${info.groups})`;
      // BigQuery's list holds '' for a group that took no part.
      return info.groupOptional ? `list_transform(${all}, lambda sawmill_m: coalesce(sawmill_m, ''))` : all;
    },
    (call) => udf('regexp_extract_all', call, [arg(call, 0), arg(call, 1)]),
  ),
  regexp_instr: (call) => {
    if (literalPattern(call, true) === 'invalid') return 'NULL';
    const [position, occurrence, after] = [2, 3, 4].map((index) => bigint(optionalArg(call, index) ?? (index === 4 ? '0' : '1')));
    return udf('regexp_instr', call, [arg(call, 0), arg(call, 1), position!, occurrence!, after!]);
  },
  regexp_replace: byPattern(
    false,
    (call) => `regexp_replace(${arg(call, 0)}, ${arg(call, 1)}, ${arg(call, 2)}, 'g')`,
    (call) => (argType(call, 0) === 'BYTES' ? udf('regexp_replace', call, [arg(call, 0), arg(call, 1), arg(call, 2)]) : `regexp_replace(${arg(call, 0)}, ${arg(call, 1)}, ${arg(call, 2)}, 'g')`),
  ),
};
