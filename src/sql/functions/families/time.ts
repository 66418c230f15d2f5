/** BigQuery's time functions (time of day). */

import { scalar, type Catalog } from '../entry.ts';

export const TIME_FUNCTIONS = {
  time: scalar('time', ['(INT64, INT64, INT64) -> TIME', '(TIMESTAMP, [STRING]) -> TIME', '(DATETIME) -> TIME', '(TIME) -> TIME']),
} satisfies Catalog;
