/** BigQuery's string functions. */

import { scalar, type Catalog } from '../entry.ts';

const string = (signatures: string[]) => scalar('string', signatures);

export const STRING_FUNCTIONS = {
  ascii: string(['(STRING) -> INT64']),
  byte_length: string(['(STRING) -> INT64', '(BYTES) -> INT64']),
  char_length: string(['(STRING) -> INT64']),
  character_length: string(['(STRING) -> INT64']),
  chr: string(['(INT64) -> STRING']),
  // Other values are cast to STRING (CONCAT('Summer', ' ', 1923)).
  concat: string(['(CAST STRING, CAST STRING...) -> STRING']),
  ends_with: string(['(STRING, STRING) -> BOOL']),
  format: string(['(STRING, ANY...) -> STRING']),
  instr: string(['(STRING, STRING, [INT64], [INT64]) -> INT64']),
  left: string(['(STRING, INT64) -> STRING']),
  length: string(['(STRING) -> INT64']),
  lower: string(['(STRING) -> STRING']),
  lpad: string(['(STRING, INT64, [STRING]) -> STRING']),
  ltrim: string(['(STRING, [STRING]) -> STRING']),
  regexp_contains: string(['(STRING, STRING) -> BOOL']),
  regexp_extract: string(['(STRING, STRING) -> STRING']),
  regexp_extract_all: string(['(STRING, STRING) -> ARRAY<STRING>']),
  regexp_replace: string(['(STRING, STRING, STRING) -> STRING']),
  repeat: string(['(STRING, INT64) -> STRING']),
  replace: string(['(STRING, STRING, STRING) -> STRING']),
  reverse: string(['(STRING) -> STRING']),
  right: string(['(STRING, INT64) -> STRING']),
  rpad: string(['(STRING, INT64, [STRING]) -> STRING']),
  rtrim: string(['(STRING, [STRING]) -> STRING']),
  split: string(['(STRING, [STRING]) -> ARRAY<STRING>']),
  split_substr: string(['(STRING, STRING, INT64, [INT64]) -> STRING']),
  starts_with: string(['(STRING, STRING) -> BOOL']),
  strpos: string(['(STRING, STRING) -> INT64']),
  substr: string(['(STRING, INT64, [INT64]) -> STRING']),
  substring: string(['(STRING, INT64, [INT64]) -> STRING']),
  translate: string(['(STRING, STRING, STRING) -> STRING']),
  trim: string(['(STRING, [STRING]) -> STRING']),
  upper: string(['(STRING) -> STRING']),
} satisfies Catalog;
