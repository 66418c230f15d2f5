/** BigQuery's time functions (time of day); signatures after ZetaSQL's. */

import { scalar, type Catalog } from '../entry.ts';
import { differencePart, intervalStep, truncationPart } from './time-parts.ts';

const time = (signatures: string[], check?: Parameters<typeof scalar>[2]) => scalar('time', signatures, check);

export const TIME_FUNCTIONS = {
  current_time: time(['([STRING]) -> TIME']),
  format_time: time(['(STRING, TIME) -> STRING']),
  parse_time: time(['(STRING, STRING) -> TIME']),
  time: time(['(INT64, INT64, INT64) -> TIME', '(TIMESTAMP, [STRING]) -> TIME', '(DATETIME) -> TIME', '(TIME) -> TIME']),
  time_add: time(['(TIME, INTERVAL) -> TIME'], { check: intervalStep('TIME_ADD') }),
  time_diff: time(['(TIME, TIME, TIME_PART) -> INT64'], { check: differencePart('TIME_DIFF') }),
  time_sub: time(['(TIME, INTERVAL) -> TIME'], { check: intervalStep('TIME_SUB') }),
  time_trunc: time(['(TIME, TIME_PART) -> TIME'], { check: truncationPart('TIME_TRUNC') }),
} satisfies Catalog;
