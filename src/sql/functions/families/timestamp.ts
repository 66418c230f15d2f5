/** BigQuery's timestamp functions (instants). */

import { scalar, type Catalog } from '../entry.ts';

const timestamp = (signatures: string[]) => scalar('timestamp', signatures);

export const TIMESTAMP_FUNCTIONS = {
  current_timestamp: timestamp(['() -> TIMESTAMP']),
  format_timestamp: timestamp(['(STRING, TIMESTAMP, [STRING]) -> STRING']),
  parse_timestamp: timestamp(['(STRING, STRING) -> TIMESTAMP']),
  timestamp: timestamp(['(STRING, [STRING]) -> TIMESTAMP', '(DATE, [STRING]) -> TIMESTAMP', '(DATETIME, [STRING]) -> TIMESTAMP', '(TIMESTAMP) -> TIMESTAMP']),
  timestamp_add: timestamp(['(TIMESTAMP, INTERVAL) -> TIMESTAMP']),
  timestamp_diff: timestamp(['(TIMESTAMP, TIMESTAMP, INTERVAL_PART) -> INT64']),
  timestamp_micros: timestamp(['(INT64) -> TIMESTAMP']),
  timestamp_millis: timestamp(['(INT64) -> TIMESTAMP']),
  timestamp_seconds: timestamp(['(INT64) -> TIMESTAMP']),
  timestamp_sub: timestamp(['(TIMESTAMP, INTERVAL) -> TIMESTAMP']),
  timestamp_trunc: timestamp(['(TIMESTAMP, TIMESTAMP_PART, [STRING]) -> TIMESTAMP']),
  unix_micros: timestamp(['(TIMESTAMP) -> INT64']),
  unix_millis: timestamp(['(TIMESTAMP) -> INT64']),
  unix_seconds: timestamp(['(TIMESTAMP) -> INT64']),
} satisfies Catalog;
