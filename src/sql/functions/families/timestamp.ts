/** BigQuery's timestamp functions (instants); signatures after ZetaSQL's, in its order. */

import { scalar, type Catalog } from '../entry.ts';
import { differencePart, intervalStep, truncationPart } from './time-parts.ts';

const timestamp = (signatures: string[], check?: Parameters<typeof scalar>[2]) => scalar('timestamp', signatures, check);

export const TIMESTAMP_FUNCTIONS = {
  current_timestamp: timestamp(['() -> TIMESTAMP']),
  format_timestamp: timestamp(['(STRING, TIMESTAMP, [STRING]) -> STRING', '(STRING, DATETIME) -> STRING']),
  parse_timestamp: timestamp(['(STRING, STRING, [STRING]) -> TIMESTAMP']),
  timestamp: timestamp(['(STRING, [STRING]) -> TIMESTAMP', '(DATE, [STRING]) -> TIMESTAMP', '(DATETIME, [STRING]) -> TIMESTAMP', '(TIMESTAMP) -> TIMESTAMP']),
  timestamp_add: timestamp(['(TIMESTAMP, INTERVAL) -> TIMESTAMP', '(DATETIME, INTERVAL) -> DATETIME'], { check: intervalStep('TIMESTAMP_ADD') }),
  timestamp_diff: timestamp(['(TIMESTAMP, TIMESTAMP, INTERVAL_PART) -> INT64', '(DATETIME, DATETIME, DATETIME_PART) -> INT64'], { check: differencePart('TIMESTAMP_DIFF') }),
  timestamp_micros: timestamp(['(INT64) -> TIMESTAMP']),
  timestamp_millis: timestamp(['(INT64) -> TIMESTAMP']),
  timestamp_seconds: timestamp(['(INT64) -> TIMESTAMP']),
  timestamp_sub: timestamp(['(TIMESTAMP, INTERVAL) -> TIMESTAMP', '(DATETIME, INTERVAL) -> DATETIME'], { check: intervalStep('TIMESTAMP_SUB') }),
  timestamp_trunc: timestamp(['(TIMESTAMP, TIMESTAMP_PART, [STRING]) -> TIMESTAMP', '(DATETIME, DATETIME_PART) -> DATETIME'], { check: truncationPart('TIMESTAMP_TRUNC') }),
  unix_micros: timestamp(['(TIMESTAMP) -> INT64']),
  unix_millis: timestamp(['(TIMESTAMP) -> INT64']),
  unix_seconds: timestamp(['(TIMESTAMP) -> INT64']),
} satisfies Catalog;
