/** BigQuery's mathematical functions. */

import { scalar, type Catalog } from '../entry.ts';

const NUMERIC_TYPES = ['INT64', 'NUMERIC', 'BIGNUMERIC', 'FLOAT64'];
/** One signature per numeric type, the result of the argument's type. */
const sameNumeric = (params: (type: string) => string) => NUMERIC_TYPES.map((type) => `(${params(type)}) -> ${type}`);
/** FLOAT64, NUMERIC and BIGNUMERIC in, the same out (INT64 arguments become FLOAT64). */
const decimal = (params: (type: string) => string) => ['FLOAT64', 'NUMERIC', 'BIGNUMERIC'].map((type) => `(${params(type)}) -> ${type}`);
const math = (signatures: string[]) => scalar('mathematical', signatures);
/** A function of FLOAT64 (the trigonometric ones): INT64 and NUMERIC arguments become FLOAT64. */
const ofFloat = () => math(['(FLOAT64) -> FLOAT64']);
/** Two vectors: dense (magnitudes by position) or sparse ((dimension, magnitude) pairs, dimensions of one type). */
const VECTORS = ['(ARRAY<FLOAT64>, ARRAY<FLOAT64>) -> FLOAT64', '(ARRAY<STRUCT<dimension T1, magnitude FLOAT64>>, ARRAY<STRUCT<dimension T1, magnitude FLOAT64>>) -> FLOAT64'];

export const MATHEMATICAL_FUNCTIONS = {
  abs: math(sameNumeric((type) => type)),
  acos: ofFloat(),
  acosh: ofFloat(),
  asin: ofFloat(),
  asinh: ofFloat(),
  atan: ofFloat(),
  atan2: math(['(FLOAT64, FLOAT64) -> FLOAT64']),
  atanh: ofFloat(),
  cbrt: ofFloat(),
  ceil: math(decimal((type) => type)),
  ceiling: math(decimal((type) => type)),
  cos: ofFloat(),
  cosh: ofFloat(),
  cosine_distance: math(VECTORS),
  cot: ofFloat(),
  coth: ofFloat(),
  csc: ofFloat(),
  csch: ofFloat(),
  div: math(['(INT64, INT64) -> INT64', '(NUMERIC, NUMERIC) -> NUMERIC', '(BIGNUMERIC, BIGNUMERIC) -> BIGNUMERIC']),
  euclidean_distance: math(VECTORS),
  exp: math(decimal((type) => type)),
  floor: math(decimal((type) => type)),
  greatest: math(['(T1, T1...) -> T1']),
  ieee_divide: math(['(FLOAT64, FLOAT64) -> FLOAT64']),
  is_inf: math(['(FLOAT64) -> BOOL']),
  is_nan: math(['(FLOAT64) -> BOOL']),
  least: math(['(T1, T1...) -> T1']),
  ln: math(decimal((type) => type)),
  log: math(decimal((type) => `${type}, [${type}]`)),
  log10: math(decimal((type) => type)),
  mod: math(['(INT64, INT64) -> INT64', '(NUMERIC, NUMERIC) -> NUMERIC', '(BIGNUMERIC, BIGNUMERIC) -> BIGNUMERIC']),
  pow: math(decimal((type) => `${type}, ${type}`)),
  power: math(decimal((type) => `${type}, ${type}`)),
  rand: math(['() -> FLOAT64']),
  range_bucket: math(['(T1, ARRAY<T1>) -> INT64']),
  round: math(['(FLOAT64, [INT64]) -> FLOAT64', '(NUMERIC, [INT64], [STRING]) -> NUMERIC', '(BIGNUMERIC, [INT64], [STRING]) -> BIGNUMERIC']),
  safe_add: math(sameNumeric((type) => `${type}, ${type}`)),
  safe_divide: math(decimal((type) => `${type}, ${type}`)),
  safe_multiply: math(sameNumeric((type) => `${type}, ${type}`)),
  safe_negate: math(sameNumeric((type) => type)),
  safe_subtract: math(sameNumeric((type) => `${type}, ${type}`)),
  sec: ofFloat(),
  sech: ofFloat(),
  sign: math(sameNumeric((type) => type)),
  sin: ofFloat(),
  sinh: ofFloat(),
  sqrt: math(decimal((type) => type)),
  tan: ofFloat(),
  tanh: ofFloat(),
  trunc: math(decimal((type) => `${type}, [INT64]`)),
} satisfies Catalog;
