/**
 * BigQuery's date functions. EXTRACT is a special form (lower.ts). Signatures after ZetaSQL's
 * builtin_function_internal_2.cc, in its order: where a string literal fits several (it coerces
 * to DATE, DATETIME and TIMESTAMP alike) the first one wins, as ZetaSQL's later signatures refuse
 * literals.
 */

import { scalar, type Catalog } from '../entry.ts';
import { differencePart, intervalStep, lastDayPart, truncationPart } from './time-parts.ts';

const date = (signatures: string[], check?: Parameters<typeof scalar>[2]) => scalar('date', signatures, check);

export const DATE_FUNCTIONS = {
  current_date: date(['([STRING]) -> DATE']),
  date: date(['(TIMESTAMP, [STRING]) -> DATE', '(DATETIME) -> DATE', '(INT64, INT64, INT64) -> DATE', '(DATE) -> DATE']),
  date_add: date(['(DATE, INTERVAL) -> DATE', '(DATETIME, INTERVAL) -> DATETIME', '(TIMESTAMP, INTERVAL) -> TIMESTAMP'], { check: intervalStep('DATE_ADD') }),
  date_diff: date(['(DATE, DATE, DATE_PART) -> INT64', '(DATETIME, DATETIME, DATETIME_PART) -> INT64', '(TIMESTAMP, TIMESTAMP, INTERVAL_PART) -> INT64'], { check: differencePart('DATE_DIFF') }),
  date_from_unix_date: date(['(INT64) -> DATE']),
  date_sub: date(['(DATE, INTERVAL) -> DATE', '(DATETIME, INTERVAL) -> DATETIME', '(TIMESTAMP, INTERVAL) -> TIMESTAMP'], { check: intervalStep('DATE_SUB') }),
  date_trunc: date(['(DATE, DATE_PART) -> DATE', '(DATETIME, DATETIME_PART) -> DATETIME', '(TIMESTAMP, TIMESTAMP_PART, [STRING]) -> TIMESTAMP'], { check: truncationPart('DATE_TRUNC') }),
  format_date: date(['(STRING, DATE) -> STRING', '(STRING, DATETIME) -> STRING', '(STRING, TIMESTAMP, [STRING]) -> STRING']),
  last_day: date(['(DATE, [DATE_PART]) -> DATE', '(DATETIME, [DATE_PART]) -> DATE'], { check: lastDayPart }),
  parse_date: date(['(STRING, STRING) -> DATE']),
  unix_date: date(['(DATE) -> INT64']),
} satisfies Catalog;
