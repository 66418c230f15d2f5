/** BigQuery's bit functions (the aggregates BIT_AND/OR/XOR are on the aggregate page). */

import { scalar, type Catalog } from '../entry.ts';

export const BIT_FUNCTIONS = {
  bit_count: scalar('bit', ['(INT64) -> INT64', '(BYTES) -> INT64']),
} satisfies Catalog;
