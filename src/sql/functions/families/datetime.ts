/** BigQuery's datetime functions (civil time, no zone); signatures after ZetaSQL's, in its order. */

import { scalar, type Catalog } from '../entry.ts';
import { differencePart, intervalStep, truncationPart } from './time-parts.ts';

const datetime = (signatures: string[], check?: Parameters<typeof scalar>[2]) => scalar('datetime', signatures, check);

export const DATETIME_FUNCTIONS = {
  current_datetime: datetime(['([STRING]) -> DATETIME']),
  datetime: datetime([
    '(INT64, INT64, INT64, INT64, INT64, INT64) -> DATETIME',
    '(DATE, TIME) -> DATETIME',
    '(TIMESTAMP, [STRING]) -> DATETIME',
    '(DATE) -> DATETIME',
    '(DATETIME) -> DATETIME',
  ]),
  datetime_add: datetime(['(DATETIME, INTERVAL) -> DATETIME', '(TIMESTAMP, INTERVAL) -> TIMESTAMP'], { check: intervalStep('DATETIME_ADD') }),
  datetime_diff: datetime(['(DATETIME, DATETIME, DATETIME_PART) -> INT64', '(TIMESTAMP, TIMESTAMP, INTERVAL_PART) -> INT64'], { check: differencePart('DATETIME_DIFF') }),
  datetime_sub: datetime(['(DATETIME, INTERVAL) -> DATETIME', '(TIMESTAMP, INTERVAL) -> TIMESTAMP'], { check: intervalStep('DATETIME_SUB') }),
  datetime_trunc: datetime(['(DATETIME, DATETIME_PART) -> DATETIME', '(TIMESTAMP, TIMESTAMP_PART, [STRING]) -> TIMESTAMP'], { check: truncationPart('DATETIME_TRUNC') }),
  format_datetime: datetime(['(STRING, DATETIME) -> STRING', '(STRING, TIMESTAMP, [STRING]) -> STRING']),
  parse_datetime: datetime(['(STRING, STRING) -> DATETIME']),
} satisfies Catalog;
