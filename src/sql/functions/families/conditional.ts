/** BigQuery's conditional functions. IF and CASE are special forms (lower.ts turns IF into CASE). */

import { scalar, type Catalog } from '../entry.ts';

const NUMBERS = ['INT64', 'NUMERIC', 'BIGNUMERIC', 'FLOAT64'];

export const CONDITIONAL_FUNCTIONS = {
  coalesce: scalar('conditional', ['(T1, T1...) -> T1']),
  ifnull: scalar('conditional', ['(T1, T1) -> T1']),
  nullif: scalar('conditional', ['(T1, T1) -> T1']),
  nullifzero: scalar('conditional', NUMBERS.map((type) => `(${type}) -> ${type}`)),
  zeroifnull: scalar('conditional', NUMBERS.map((type) => `(${type}) -> ${type}`)),
} satisfies Catalog;
