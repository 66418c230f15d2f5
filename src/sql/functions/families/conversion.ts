/** BigQuery's conversion functions. CAST and SAFE_CAST (with FORMAT) are special forms (lower.ts). */

import { scalar, type Catalog } from '../entry.ts';

export const CONVERSION_FUNCTIONS = {
  parse_bignumeric: scalar('conversion', ['(STRING) -> BIGNUMERIC']),
  parse_numeric: scalar('conversion', ['(STRING) -> NUMERIC']),
} satisfies Catalog;
