/** BigQuery's string functions (the encodings between BYTES and text are in encoding.ts). */

import { scalar, type ArgumentCheck, type Catalog } from '../entry.ts';
import { checkFormat } from '../format-string.ts';
import { checkJsonScope } from './search.ts';
import { patternInfo, patternProblem } from '../regexp.ts';
import type * as ir from '../../ir.ts';

const string = (signatures: string[], check?: ArgumentCheck) => scalar('string', signatures, check ? { check } : {});

/** The same signature for STRING and for BYTES (`(S, S) -> S` written once). */
const both = (signature: string) => [signature.replaceAll('S', 'STRING'), signature.replaceAll('S', 'BYTES')];

/** A literal STRING or BYTES argument's text (BYTES literals carry their bytes in hex), if it is one. */
export function literalText(expr: ir.Expr | undefined): string | undefined {
  if (expr?.kind === 'string') return expr.value;
  if (expr?.kind === 'typed_literal' && expr.type === 'BYTES') return Buffer.from(expr.value, 'hex').toString('latin1');
  return undefined;
}

/** INITCAP's default delimiters besides whitespace. */
export const INITCAP_DELIMITERS = '[](){}/|\\<>!?@"#$&~_,.:;*%+-^';

/**
 * A literal regular expression must parse (BigQuery raises the error when the call runs, so SAFE.
 * gives NULL) and, for the functions that return a match, have at most one capturing group.
 */
const regexpCheck =
  (extracts: boolean): ArgumentCheck =>
  (args) => {
    const pattern = literalText(args[1]);
    if (pattern === undefined) return undefined;
    const problem = patternProblem(pattern);
    if (problem) return { message: problem, evaluation: true };
    if (extracts && patternInfo(pattern).groups > 1) {
      return { message: 'Regular expressions passed into extraction functions must not have more than 1 capturing group', evaluation: true };
    }
    return undefined;
  };

/** REGEXP_REPLACE's replacement may name groups \0 to \9 the pattern has, and escape a backslash. */
const regexpReplaceCheck: ArgumentCheck = (args) => {
  const pattern = literalText(args[1]);
  const problem = regexpCheck(false)(args, [], {}, []);
  if (problem || pattern === undefined) return problem;
  const rewrite = literalText(args[2]);
  if (rewrite === undefined) return undefined;
  const groups = patternInfo(pattern).groups;
  for (let index = 0; index < rewrite.length; index++) {
    if (rewrite[index] !== '\\') continue;
    const next = rewrite[++index];
    if (next === '\\') continue;
    if (next === undefined || !/[0-9]/.test(next)) return { message: 'Invalid REGEXP_REPLACE pattern: invalid rewrite pattern', evaluation: true };
    if (Number(next) > groups) {
      return { message: `Invalid REGEXP_REPLACE pattern: Rewrite schema requests ${next} matches, but the regexp only has ${groups} parenthesized subexpressions`, evaluation: true };
    }
  }
  return undefined;
};

export const STRING_FUNCTIONS = {
  ascii: string(both('(S) -> INT64')),
  byte_length: string(['(STRING) -> INT64', '(BYTES) -> INT64']),
  char_length: string(['(STRING) -> INT64']),
  character_length: string(['(STRING) -> INT64']),
  chr: string(['(INT64) -> STRING']),
  code_points_to_bytes: string(['(ARRAY<INT64>) -> BYTES']),
  code_points_to_string: string(['(ARRAY<INT64>) -> STRING']),
  // Other values are cast to STRING (CONCAT('Summer', ' ', 1923)).
  concat: string(['(CAST STRING, CAST STRING...) -> STRING', '(BYTES, BYTES...) -> BYTES']),
  contains_substr: string(['(ANY, CONST STRING; json_scope => STRING) -> BOOL'], checkJsonScope),
  edit_distance: string(both('(S, S; max_distance => INT64) -> INT64')),
  ends_with: string(both('(S, S) -> BOOL')),
  format: string(['(STRING, ANY...) -> STRING'], checkFormat),
  initcap: string(['(STRING, [STRING]) -> STRING']),
  instr: string(both('(S, S, [INT64], [INT64]) -> INT64')),
  left: string(both('(S, INT64) -> S')),
  length: string(['(STRING) -> INT64', '(BYTES) -> INT64']),
  lower: string(both('(S) -> S')),
  lpad: string(both('(S, INT64, [S]) -> S')),
  ltrim: string(['(STRING, [STRING]) -> STRING', '(BYTES, BYTES) -> BYTES']),
  normalize: string(['(STRING, [NORMALIZE_MODE]) -> STRING']),
  normalize_and_casefold: string(['(STRING, [NORMALIZE_MODE]) -> STRING']),
  octet_length: string(['(STRING) -> INT64', '(BYTES) -> INT64']),
  regexp_contains: string(both('(S, S) -> BOOL'), regexpCheck(false)),
  regexp_extract: string(both('(S, S, [INT64], [INT64]) -> S'), regexpCheck(true)),
  regexp_extract_all: string(both('(S, S) -> ARRAY<S>'), regexpCheck(true)),
  regexp_instr: string(both('(S, S, [INT64], [INT64], [INT64]) -> INT64'), regexpCheck(true)),
  regexp_replace: string(both('(S, S, S) -> S'), regexpReplaceCheck),
  regexp_substr: string(both('(S, S, [INT64], [INT64]) -> S'), regexpCheck(true)),
  repeat: string(both('(S, INT64) -> S')),
  replace: string(both('(S, S, S) -> S')),
  reverse: string(both('(S) -> S')),
  right: string(both('(S, INT64) -> S')),
  rpad: string(both('(S, INT64, [S]) -> S')),
  rtrim: string(['(STRING, [STRING]) -> STRING', '(BYTES, BYTES) -> BYTES']),
  soundex: string(['(STRING) -> STRING']),
  split: string(['(STRING, [STRING]) -> ARRAY<STRING>', '(BYTES, BYTES) -> ARRAY<BYTES>']),
  split_substr: string(['(STRING, STRING, INT64, [INT64]) -> STRING']),
  starts_with: string(both('(S, S) -> BOOL')),
  strpos: string(both('(S, S) -> INT64')),
  substr: string(both('(S, INT64, [INT64]) -> S')),
  substring: string(both('(S, INT64, [INT64]) -> S')),
  to_code_points: string(['(STRING) -> ARRAY<INT64>', '(BYTES) -> ARRAY<INT64>']),
  translate: string(both('(S, S, S) -> S')),
  trim: string(['(STRING, [STRING]) -> STRING', '(BYTES, BYTES) -> BYTES']),
  unicode: string(['(STRING) -> INT64']),
  upper: string(both('(S) -> S')),
} satisfies Catalog;
