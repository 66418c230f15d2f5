/** BigQuery's mathematical functions. */

import { scalar, type Catalog } from '../entry.ts';

/** One signature per numeric type, the result of the argument's type. */
const sameNumeric = (params: (type: string) => string) => ['INT64', 'NUMERIC', 'BIGNUMERIC', 'FLOAT64'].map((type) => `(${params(type)}) -> ${type}`);
/** FLOAT64, NUMERIC and BIGNUMERIC in, the same out (INT64 arguments become FLOAT64). */
const decimal = (params: (type: string) => string) => ['FLOAT64', 'NUMERIC', 'BIGNUMERIC'].map((type) => `(${params(type)}) -> ${type}`);
const math = (signatures: string[]) => scalar('mathematical', signatures);

export const MATHEMATICAL_FUNCTIONS = {
  abs: math(sameNumeric((type) => type)),
  sign: math(sameNumeric((type) => type)),
  round: math(decimal((type) => `${type}, [INT64]`)),
  trunc: math(decimal((type) => `${type}, [INT64]`)),
  floor: math(decimal((type) => type)),
  ceil: math(decimal((type) => type)),
  ceiling: math(decimal((type) => type)),
  sqrt: math(decimal((type) => type)),
  pow: math(decimal((type) => `${type}, ${type}`)),
  power: math(decimal((type) => `${type}, ${type}`)),
  exp: math(decimal((type) => type)),
  ln: math(decimal((type) => type)),
  log: math(decimal((type) => `${type}, [${type}]`)),
  log10: math(decimal((type) => type)),
  mod: math(['(INT64, INT64) -> INT64', '(NUMERIC, NUMERIC) -> NUMERIC', '(BIGNUMERIC, BIGNUMERIC) -> BIGNUMERIC']),
  div: math(['(INT64, INT64) -> INT64', '(NUMERIC, NUMERIC) -> NUMERIC', '(BIGNUMERIC, BIGNUMERIC) -> BIGNUMERIC']),
  safe_divide: math(decimal((type) => `${type}, ${type}`)),
  greatest: math(['(T1, T1...) -> T1']),
  least: math(['(T1, T1...) -> T1']),
} satisfies Catalog;
