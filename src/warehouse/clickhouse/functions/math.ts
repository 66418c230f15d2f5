/** ClickHouse renderings of BigQuery's mathematical and conditional functions. */

import { arg, argType, optionalArg, PORTABLE_EMITTERS, same, type CallParts, type Emitter, type Renderings } from '../../../sql/emitters.ts';
import type { CONDITIONAL_FUNCTIONS } from '../../../sql/functions/families/conditional.ts';
import type { MATHEMATICAL_FUNCTIONS } from '../../../sql/functions/families/mathematical.ts';
import { guarded, raiseWhere } from './shared.ts';

/** BigQuery's GREATEST/LEAST return NULL when any argument is NULL; ClickHouse's skip NULLs. */
const nullPropagating =
  (name: string): Emitter =>
  (call) =>
    `if(${call.args.map((value) => `isNull(${value})`).join(' OR ')}, NULL, ${name}(${call.args.join(', ')}))`;


const double = (value: string) => `toFloat64(${value})`;

/** Half away from zero, as BigQuery rounds (ClickHouse rounds floats half to even). */
function roundHalfAway(value: string, digits: string): string {
  const scale = `pow(10, toInt64(${digits}))`;
  return `(sign(${value}) * floor(abs(${value}) * ${scale} + 0.5) / ${scale})`;
}

/** A function BigQuery refuses outside [-1, 1] (infinity gives NaN, as ClickHouse does). */
const withinUnit = (name: string): Emitter => (call) =>
  guarded(call, `abs(${double(arg(call, 0))}) > 1 AND NOT isInfinite(${double(arg(call, 0))})`, `${name.toUpperCase()} is undefined outside [-1, 1]`, `${name}(${arg(call, 0)})`);

/** 1 / f(x) (secant and the like), an error where BigQuery says the function is undefined. */
const reciprocal =
  (name: string, undefinedAtZero: boolean): Emitter =>
  (call) => {
    const value = `(1 / ${name}(${double(arg(call, 0))}))`;
    return undefinedAtZero ? guarded(call, `${arg(call, 0)} = 0`, `${name.toUpperCase()} reciprocal is undefined at 0`, value) : value;
  };

/** BigQuery's error where a FLOAT64 result overflows from finite arguments (ClickHouse gives infinity). */
const overflowChecked = (call: CallParts, value: string, inputs: string[]) =>
  guarded(call, `isInfinite(${value}) AND ${inputs.map((input) => `NOT isInfinite(${double(input)})`).join(' AND ')}`, 'floating point overflow', value);

/** A logarithm BigQuery refuses at 0 and below (ClickHouse gives -inf or NaN). */
const logarithm = (name: string): Emitter => (call) =>
  guarded(call, `${arg(call, 0)} <= 0 AND NOT isInfinite(${double(arg(call, 0))})`, 'cannot take the logarithm of a number at or below 0', `${name}(${arg(call, 0)})`);

function power(call: CallParts): string {
  const [x, y] = [arg(call, 0), arg(call, 1)];
  const failing = `(${x} = 0 AND ${y} < 0) OR (${x} < 0 AND NOT isInfinite(${double(x)}) AND ${y} <> floor(${y}))`;
  return guarded(call, failing, 'POW of a negative number to a fractional power, or of 0 to a negative power, is undefined', overflowChecked(call, `pow(${x}, ${y})`, [x, y]));
}

const INT64_MAX = '9223372036854775807';
const INT64_MIN = '-9223372036854775808';

/** SAFE_ADD and friends: NULL where INT64 arithmetic overflows (ClickHouse wraps around). */
const safeArithmetic =
  (operator: '+' | '-' | '*'): Emitter =>
  (call) => {
    const [x, y] = [arg(call, 0), arg(call, 1)];
    if (argType(call, 0) !== 'INT64') {
      const value = `(${x} ${operator} ${y})`;
      return argType(call, 0) === 'FLOAT64' ? `if(isInfinite(${value}) AND NOT isInfinite(${double(x)}) AND NOT isInfinite(${double(y)}), NULL, ${value})` : value;
    }
    const [a, b] = [`toInt64(${x})`, `toInt64(${y})`];
    // Exact in 128 bits, then checked against INT64's range.
    const wide = `(toInt128(${a}) ${operator} toInt128(${b}))`;
    return `if(${wide} > ${INT64_MAX} OR ${wide} < ${INT64_MIN}, NULL, toInt64(${wide}))`;
  };

function rangeBucket(call: CallParts): string {
  const [point, boundaries] = [arg(call, 0), arg(call, 1)];
  const nan = argType(call, 0) === 'FLOAT64' ? ` OR isNaN(${point})` : '';
  return `if(isNull(${point})${nan}, NULL, toInt64(length(arrayFilter(boundary -> boundary <= ${point}, ${boundaries}))))`;
}

/** A vector distance; BigQuery refuses dense vectors of different lengths. Sparse vectors are (dimension, magnitude) pairs. */
const vectorDistance =
  (kind: 'cosine' | 'euclidean'): Emitter =>
  (call) => {
    const [a, b] = [arg(call, 0), arg(call, 1)];
    if (call.types[0]?.kind === 'array' && call.types[0].element.kind === 'struct') return sparseDistance(kind, a, b);
    const name = kind === 'cosine' ? 'cosineDistance' : 'L2Distance';
    return guarded(call, `length(${a}) <> length(${b})`, 'the vectors have different lengths', `${name}(${a}, ${b})`);
  };

function sparseDistance(kind: 'cosine' | 'euclidean', a: string, b: string): string {
  const dimensions = `arrayDistinct(arrayConcat(arrayMap(e -> tupleElement(e, 1), ${a}), arrayMap(e -> tupleElement(e, 1), ${b})))`;
  const magnitude = (vector: string) => `arraySum(arrayMap(e -> tupleElement(e, 2), arrayFilter(e -> tupleElement(e, 1) = d, ${vector})))`;
  if (kind === 'euclidean') return `sqrt(arraySum(arrayMap(d -> pow(${magnitude(a)} - ${magnitude(b)}, 2), ${dimensions})))`;
  const norm = (vector: string) => `sqrt(arraySum(arrayMap(e -> pow(tupleElement(e, 2), 2), ${vector})))`;
  return `(1 - arraySum(arrayMap(d -> ${magnitude(a)} * ${magnitude(b)}, ${dimensions})) / (${norm(a)} * ${norm(b)}))`;
}

export const MATHEMATICAL: Renderings<typeof MATHEMATICAL_FUNCTIONS> = {
  abs: PORTABLE_EMITTERS.abs,
  acos: withinUnit('acos'),
  acosh: (call) => guarded(call, `${arg(call, 0)} < 1 AND NOT isInfinite(${double(arg(call, 0))})`, 'ACOSH is undefined below 1', `acosh(${arg(call, 0)})`),
  asin: withinUnit('asin'),
  asinh: same('asinh'),
  atan: same('atan'),
  atan2: same('atan2'),
  atanh: withinUnit('atanh'),
  cbrt: same('cbrt'),
  ceil: PORTABLE_EMITTERS.ceil,
  ceiling: PORTABLE_EMITTERS.ceiling,
  cos: same('cos'),
  cosh: same('cosh'),
  cosine_distance: vectorDistance('cosine'),
  cot: (call) => guarded(call, `${arg(call, 0)} = 0`, 'COT is undefined at 0', `(1 / tan(${double(arg(call, 0))}))`),
  coth: reciprocal('tanh', true),
  csc: reciprocal('sin', true),
  csch: reciprocal('sinh', true),
  div: (call) => guarded(call, `${arg(call, 1)} = 0`, 'division by zero', `intDiv(${arg(call, 0)}, ${arg(call, 1)})`),
  euclidean_distance: vectorDistance('euclidean'),
  exp: (call) => overflowChecked(call, `exp(${arg(call, 0)})`, [arg(call, 0)]),
  floor: PORTABLE_EMITTERS.floor,
  greatest: nullPropagating('greatest'),
  // ClickHouse divides floats as IEEE 754 does.
  ieee_divide: (call) => `(${double(arg(call, 0))} / ${double(arg(call, 1))})`,
  is_inf: (call) => `CAST(isInfinite(${double(arg(call, 0))}) AS Nullable(Bool))`,
  is_nan: (call) => `CAST(isNaN(${double(arg(call, 0))}) AS Nullable(Bool))`,
  least: nullPropagating('least'),
  // ClickHouse log(x) is the natural logarithm, as BigQuery's LOG(x).
  ln: logarithm('log'),
  log: (call) => {
    if (call.args.length === 1) return logarithm('log')(call);
    const [x, base] = [arg(call, 0), arg(call, 1)];
    return guarded(call, `${x} <= 0 OR ${base} <= 0 OR ${base} = 1`, 'LOG is undefined for these arguments', `(log(${x}) / log(${base}))`);
  },
  log10: logarithm('log10'),
  mod: (call) => guarded(call, `${arg(call, 1)} = 0`, 'division by zero', `modulo(${arg(call, 0)}, ${arg(call, 1)})`),
  pow: power,
  power,
  rand: () => 'randCanonical()',
  range_bucket: rangeBucket,
  round: (call) => {
    const digits = optionalArg(call, 1) ?? '0';
    const mode = optionalArg(call, 2);
    if (mode === undefined) return roundHalfAway(arg(call, 0), digits);
    const unknown = `${mode} NOT IN ('ROUND_HALF_EVEN', 'ROUND_HALF_AWAY_FROM_ZERO')`;
    return `multiIf(${mode} = 'ROUND_HALF_EVEN', roundBankers(${arg(call, 0)}, toInt64(${digits})), ${mode} = 'ROUND_HALF_AWAY_FROM_ZERO', round(${arg(call, 0)}, toInt64(${digits})), ${call.safe ? 'NULL' : raiseWhere(unknown, 'ROUND: unknown rounding mode')})`;
  },
  safe_add: safeArithmetic('+'),
  // NULL for a zero divisor, and where a FLOAT64 quotient overflows.
  safe_divide: (call) => `if(${arg(call, 1)} = 0 OR isInfinite(${arg(call, 0)} / ${arg(call, 1)}), NULL, ${arg(call, 0)} / ${arg(call, 1)})`,
  safe_multiply: safeArithmetic('*'),
  safe_negate: (call) =>
    argType(call, 0) === 'INT64' ? `if(toInt64(${arg(call, 0)}) = ${INT64_MIN}, NULL, - toInt64(${arg(call, 0)}))` : `(- ${arg(call, 0)})`,
  safe_subtract: safeArithmetic('-'),
  sec: reciprocal('cos', false),
  sech: reciprocal('cosh', false),
  // SIGN(NaN) is NaN.
  sign: (call) => (argType(call, 0) === 'FLOAT64' ? `if(isNaN(${arg(call, 0)}), ${arg(call, 0)}, sign(${arg(call, 0)}))` : PORTABLE_EMITTERS.sign(call)),
  sin: same('sin'),
  sinh: same('sinh'),
  sqrt: (call) => guarded(call, `${arg(call, 0)} < 0`, 'cannot take the square root of a negative number', `sqrt(${arg(call, 0)})`),
  tan: same('tan'),
  tanh: same('tanh'),
  trunc: (call) => (call.args.length === 1 ? `trunc(${arg(call, 0)})` : `trunc(${arg(call, 0)}, ${arg(call, 1)})`),
};

export const CONDITIONAL: Renderings<typeof CONDITIONAL_FUNCTIONS> = {
  coalesce: PORTABLE_EMITTERS.coalesce,
  ifnull: same('ifNull'),
  nullif: same('nullIf'),
  nullifzero: (call) => `nullIf(${arg(call, 0)}, 0)`,
  zeroifnull: (call) => `ifNull(${arg(call, 0)}, 0)`,
};
