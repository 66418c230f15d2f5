/** BigQuery's datetime functions (civil time, no zone). */

import { scalar, type Catalog } from '../entry.ts';

const datetime = (signatures: string[]) => scalar('datetime', signatures);

export const DATETIME_FUNCTIONS = {
  current_datetime: datetime(['([STRING]) -> DATETIME']),
  datetime: datetime(['(TIMESTAMP, [STRING]) -> DATETIME', '(DATE) -> DATETIME', '(DATETIME) -> DATETIME']),
  datetime_add: datetime(['(DATETIME, INTERVAL) -> DATETIME']),
  datetime_diff: datetime(['(DATETIME, DATETIME, DATETIME_PART) -> INT64']),
  datetime_sub: datetime(['(DATETIME, INTERVAL) -> DATETIME']),
  datetime_trunc: datetime(['(DATETIME, DATETIME_PART) -> DATETIME']),
  format_datetime: datetime(['(STRING, DATETIME) -> STRING']),
} satisfies Catalog;
