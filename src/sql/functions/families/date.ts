/** BigQuery's date functions. EXTRACT is a special form (lower.ts). */

import { scalar, type Catalog } from '../entry.ts';

const date = (signatures: string[]) => scalar('date', signatures);

export const DATE_FUNCTIONS = {
  current_date: date(['([STRING]) -> DATE']),
  date: date(['(TIMESTAMP, [STRING]) -> DATE', '(DATETIME) -> DATE', '(DATE) -> DATE']),
  date_add: date(['(DATE, INTERVAL) -> DATE']),
  date_diff: date(['(DATE, DATE, DATE_PART) -> INT64', '(DATETIME, DATETIME, DATETIME_PART) -> INT64']),
  date_from_unix_date: date(['(INT64) -> DATE']),
  date_sub: date(['(DATE, INTERVAL) -> DATE']),
  date_trunc: date(['(DATE, DATE_PART) -> DATE']),
  format_date: date(['(STRING, DATE) -> STRING']),
  parse_date: date(['(STRING, STRING) -> DATE']),
  unix_date: date(['(DATE) -> INT64']),
} satisfies Catalog;
