/** DuckDB renderings of BigQuery's mathematical and conditional functions. */

import { arg, argType, optionalArg, PORTABLE_EMITTERS, same, type CallParts, type Emitter, type Renderings } from '../../../sql/emitters.ts';
import { fail } from './shared.ts';
import type { CONDITIONAL_FUNCTIONS } from '../../../sql/functions/families/conditional.ts';
import type { MATHEMATICAL_FUNCTIONS } from '../../../sql/functions/families/mathematical.ts';

/** BigQuery's GREATEST/LEAST return NULL when any argument is NULL; DuckDB's skip NULLs. */
const nullPropagating =
  (name: string): Emitter =>
  (call) =>
    `(CASE WHEN ${call.args.map((value) => `${value} IS NULL`).join(' OR ')} THEN NULL ELSE ${name}(${call.args.join(', ')}) END)`;

/** `value`, or BigQuery's error where `failing` holds (DuckDB would answer NaN, infinity or NULL); NULL there under SAFE. */
const guarded = (call: CallParts, failing: string, message: string, value: string) => `(CASE WHEN ${failing} THEN ${fail(call, message)} ELSE ${value} END)`;

const double = (value: string) => `CAST(${value} AS DOUBLE)`;
const NAN = "CAST('NaN' AS DOUBLE)";

/** A function of a DOUBLE that DuckDB refuses for infinity, where BigQuery answers NaN. */
const nanForInfinity = (name: string): Emitter => (call) => `(CASE WHEN isinf(${double(arg(call, 0))}) THEN ${NAN} ELSE ${name}(${arg(call, 0)}) END)`;

/**
 * 1 / f(x) (secant and the like), an error where BigQuery says the function is undefined; NaN for
 * an infinite angle of a trigonometric one (DuckDB refuses it).
 */
const reciprocal =
  (name: string, undefinedAtZero: boolean): Emitter =>
  (call) => {
    const x = double(arg(call, 0));
    const periodic = ['sin', 'cos', 'tan'].includes(name);
    const value = periodic ? `(CASE WHEN isinf(${x}) THEN ${NAN} ELSE 1 / ${name}(${x}) END)` : `(1 / ${name}(${x}))`;
    return undefinedAtZero ? guarded(call, `${arg(call, 0)} = 0`, `${name.toUpperCase()} reciprocal is undefined at 0`, value) : value;
  };

/** A logarithm: NaN for -infinity (BigQuery's answer; DuckDB refuses every negative number). */
const logarithm =
  (inner: (value: string) => string): Emitter =>
  (call) => {
    const value = inner(arg(call, 0));
    return argType(call, 0) === 'FLOAT64' ? `(CASE WHEN ${arg(call, 0)} = CAST('-Infinity' AS DOUBLE) THEN ${NAN} ELSE ${value} END)` : value;
  };

/** BigQuery's error where a FLOAT64 result overflows from finite arguments (DuckDB gives infinity). */
const overflowChecked = (call: CallParts, value: string, inputs: string[]) =>
  guarded(call, `isinf(${value}) AND ${inputs.map((input) => `NOT isinf(${double(input)})`).join(' AND ')}`, 'floating point overflow', value);

/** POW(x, y): an error for 0 to a negative power and a negative number to a fractional one. */
function power(call: CallParts): string {
  const [x, y] = [arg(call, 0), arg(call, 1)];
  const failing = `(${x} = 0 AND ${y} < 0) OR (${x} < 0 AND NOT isinf(${double(x)}) AND ${y} <> floor(${y}))`;
  return guarded(call, failing, 'POW of a negative number to a fractional power, or of 0 to a negative power, is undefined', overflowChecked(call, `pow(${x}, ${y})`, [x, y]));
}

/** IEEE_DIVIDE never fails: x/0 is ±infinity by the signs (0/0 and NaN give NaN). */
function ieeeDivide(call: CallParts): string {
  const [x, y] = [double(arg(call, 0)), double(arg(call, 1))];
  const infinite = `(CASE WHEN (${x} > 0) <> signbit(${y}) THEN CAST('Infinity' AS DOUBLE) ELSE CAST('-Infinity' AS DOUBLE) END)`;
  return `(CASE WHEN ${y} = 0 THEN (CASE WHEN ${x} = 0 OR isnan(${x}) THEN ${NAN} ELSE ${infinite} END) ELSE ${x} / ${y} END)`;
}

/** The checked arithmetic of SAFE_ADD and friends: NULL where it overflows (INT64 as BIGINT, not a narrower literal type). */
const safeArithmetic =
  (operator: '+' | '-' | '*'): Emitter =>
  (call) => {
    const wide = (index: number) => (argType(call, index) === 'INT64' ? `CAST(${arg(call, index)} AS BIGINT)` : arg(call, index));
    const value = `(${wide(0)} ${operator} ${wide(1)})`;
    if (argType(call, 0) === 'FLOAT64') return `(CASE WHEN isinf(${value}) AND NOT isinf(${wide(0)}) AND NOT isinf(${wide(1)}) THEN NULL ELSE ${value} END)`;
    return `try(${value})`;
  };

/** RANGE_BUCKET: how many of the sorted boundaries are at or below the point; NULL for a NULL or NaN point. */
function rangeBucket(call: CallParts): string {
  const [point, boundaries] = [arg(call, 0), arg(call, 1)];
  const nan = argType(call, 0) === 'FLOAT64' ? ` OR isnan(${point})` : '';
  return `(CASE WHEN ${point} IS NULL${nan} THEN NULL ELSE CAST(len(list_filter(${boundaries}, boundary -> boundary <= ${point})) AS BIGINT) END)`;
}

/** A vector distance; BigQuery refuses dense vectors of different lengths. Sparse vectors are (dimension, magnitude) pairs. */
const vectorDistance =
  (kind: 'cosine' | 'euclidean'): Emitter =>
  (call) => {
    const [a, b] = [arg(call, 0), arg(call, 1)];
    if (call.types[0]?.kind === 'array' && call.types[0].element.kind === 'struct') return sparseDistance(kind, a, b);
    const name = kind === 'cosine' ? 'list_cosine_distance' : 'list_distance';
    return guarded(call, `len(${a}) <> len(${b})`, 'the vectors have different lengths', `${name}(${a}, ${b})`);
  };

/** The vectors are bound once in a subquery: they may be subqueries, which DuckDB's lambdas cannot hold. */
function sparseDistance(kind: 'cosine' | 'euclidean', vectorA: string, vectorB: string): string {
  const [a, b] = ['"__vector_a"', '"__vector_b"'];
  return `(SELECT ${sparseDistanceOf(kind, a, b)} FROM (SELECT ${vectorA} AS ${a}, ${vectorB} AS ${b}))`;
}

function sparseDistanceOf(kind: 'cosine' | 'euclidean', a: string, b: string): string {
  const dimensions = `list_distinct(list_concat(list_transform(${a}, e -> struct_extract_at(e, 1)), list_transform(${b}, e -> struct_extract_at(e, 1))))`;
  const magnitude = (vector: string) => `coalesce(list_sum(list_transform(list_filter(${vector}, e -> struct_extract_at(e, 1) = d), e -> struct_extract_at(e, 2))), 0)`;
  if (kind === 'euclidean') return `sqrt(list_sum(list_transform(${dimensions}, d -> pow(${magnitude(a)} - ${magnitude(b)}, 2))))`;
  const norm = (vector: string) => `sqrt(list_sum(list_transform(${vector}, e -> pow(struct_extract_at(e, 2), 2))))`;
  return `(1 - list_sum(list_transform(${dimensions}, d -> ${magnitude(a)} * ${magnitude(b)})) / (${norm(a)} * ${norm(b)}))`;
}

export const MATHEMATICAL: Renderings<typeof MATHEMATICAL_FUNCTIONS> = {
  abs: PORTABLE_EMITTERS.abs,
  acos: nanForInfinity('acos'),
  acosh: (call) => guarded(call, `${arg(call, 0)} < 1 AND NOT isinf(${double(arg(call, 0))})`, 'ACOSH is undefined below 1', `acosh(${arg(call, 0)})`),
  asin: nanForInfinity('asin'),
  asinh: same('asinh'),
  atan: same('atan'),
  atan2: same('atan2'),
  atanh: nanForInfinity('atanh'),
  cbrt: same('cbrt'),
  ceil: PORTABLE_EMITTERS.ceil,
  ceiling: PORTABLE_EMITTERS.ceiling,
  cos: nanForInfinity('cos'),
  cosh: same('cosh'),
  cosine_distance: vectorDistance('cosine'),
  cot: reciprocal('tan', true),
  coth: reciprocal('tanh', true),
  csc: reciprocal('sin', true),
  csch: reciprocal('sinh', true),
  div: (call) => guarded(call, `${arg(call, 1)} = 0`, 'division by zero', `(${arg(call, 0)} // ${arg(call, 1)})`),
  euclidean_distance: vectorDistance('euclidean'),
  exp: (call) => overflowChecked(call, `exp(${arg(call, 0)})`, [arg(call, 0)]),
  floor: PORTABLE_EMITTERS.floor,
  greatest: nullPropagating('greatest'),
  ieee_divide: ieeeDivide,
  is_inf: (call) => `isinf(${double(arg(call, 0))})`,
  is_nan: (call) => `isnan(${double(arg(call, 0))})`,
  least: nullPropagating('least'),
  ln: logarithm((value) => `ln(${value})`),
  // BigQuery LOG(x) is the natural logarithm; DuckDB's log(x) is base 10.
  log: (call) => {
    if (call.args.length === 1) return logarithm((value) => `ln(${value})`)(call);
    return guarded(call, `${arg(call, 1)} = 1`, 'LOG base 1 is undefined', `(ln(${arg(call, 0)}) / ln(${arg(call, 1)}))`);
  },
  log10: logarithm((value) => `log10(${value})`),
  mod: (call) => guarded(call, `${arg(call, 1)} = 0`, 'division by zero', PORTABLE_EMITTERS.mod(call)),
  pow: power,
  power,
  rand: () => 'random()',
  range_bucket: rangeBucket,
  round: (call) => {
    const digits = optionalArg(call, 1);
    const mode = optionalArg(call, 2);
    const half = mode === undefined ? 'round' : `(CASE ${mode} WHEN 'ROUND_HALF_EVEN' THEN 'even' WHEN 'ROUND_HALF_AWAY_FROM_ZERO' THEN 'away' END)`;
    const places = digits === undefined ? '' : `, CAST(${digits} AS INTEGER)`;
    if (mode === undefined) return `round(${arg(call, 0)}${places})`;
    return `(CASE ${half} WHEN 'even' THEN round_even(${arg(call, 0)}${places || ', 0'}) WHEN 'away' THEN round(${arg(call, 0)}${places}) ELSE ${fail(call, 'ROUND: unknown rounding mode')} END)`;
  },
  safe_add: safeArithmetic('+'),
  // NULL for a zero divisor, and where a FLOAT64 quotient overflows.
  safe_divide: (call) => {
    const quotient = `${arg(call, 0)} / ${arg(call, 1)}`;
    const overflow = argType(call, 0) === 'FLOAT64' || argType(call, 1) === 'FLOAT64' ? ` OR isinf(${quotient})` : '';
    return `(CASE WHEN ${arg(call, 1)} = 0${overflow} THEN NULL ELSE ${quotient} END)`;
  },
  safe_multiply: safeArithmetic('*'),
  safe_negate: (call) => `try(- ${argType(call, 0) === 'INT64' ? `CAST(${arg(call, 0)} AS BIGINT)` : arg(call, 0)})`,
  safe_subtract: safeArithmetic('-'),
  sec: reciprocal('cos', false),
  sech: reciprocal('cosh', false),
  // SIGN(NaN) is NaN (DuckDB's is 0).
  sign: (call) => (argType(call, 0) === 'FLOAT64' ? `(CASE WHEN isnan(${arg(call, 0)}) THEN ${arg(call, 0)} ELSE sign(${arg(call, 0)}) END)` : PORTABLE_EMITTERS.sign(call)),
  sin: nanForInfinity('sin'),
  sinh: same('sinh'),
  sqrt: PORTABLE_EMITTERS.sqrt,
  tan: nanForInfinity('tan'),
  tanh: same('tanh'),
  trunc: (call) => (call.args.length === 1 ? `trunc(${arg(call, 0)})` : `trunc(${arg(call, 0)}, CAST(${arg(call, 1)} AS INTEGER))`),
};

export const CONDITIONAL: Renderings<typeof CONDITIONAL_FUNCTIONS> = {
  coalesce: PORTABLE_EMITTERS.coalesce,
  ifnull: same('coalesce'),
  nullif: same('nullif'),
  nullifzero: (call) => `nullif(${arg(call, 0)}, 0)`,
  zeroifnull: (call) => `coalesce(${arg(call, 0)}, 0)`,
};
