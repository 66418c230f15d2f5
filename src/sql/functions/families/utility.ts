/** BigQuery's utility and debugging functions. */

import { scalar, type Catalog } from '../entry.ts';

export const UTILITY_FUNCTIONS = {
  generate_uuid: scalar('utility', ['() -> STRING']),
} satisfies Catalog;

export const DEBUGGING_FUNCTIONS = {
  // Its result takes whatever type the context wants (BigQuery infers it).
  error: scalar('debugging', ['(STRING) -> ANY']),
} satisfies Catalog;
