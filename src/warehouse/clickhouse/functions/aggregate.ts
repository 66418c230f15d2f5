/** ClickHouse renderings of BigQuery's aggregate, approximate aggregate and statistical functions. */

import { arg, argType, optionalArg, PORTABLE_EMITTERS, same, type CallParts, type Emitter, type Renderings } from '../../../sql/emitters.ts';
import type { AGGREGATE_FUNCTIONS } from '../../../sql/functions/families/aggregate.ts';
import type { APPROXIMATE_AGGREGATE_FUNCTIONS } from '../../../sql/functions/families/approximate.ts';
import type { STATISTICAL_FUNCTIONS } from '../../../sql/functions/families/statistical.ts';
import { invalidSql } from '../../../sql/parse.ts';
import { int64, quoted } from './shared.ts';

/**
 * The aggregate an ARRAY_AGG-like function collects with (groupArray skips NULLs, so IGNORE NULLS
 * needs nothing): LIMIT n is groupArray's own parameter; ORDER BY has no counterpart.
 */
function collected(call: CallParts): string {
  if (call.orderBy) throw invalidSql('ORDER BY inside an aggregate is not supported on ClickHouse');
  if (call.distinct) return call.limit === undefined ? 'groupUniqArray' : `groupUniqArray(${call.limit})`;
  return call.limit === undefined ? 'groupArray' : `groupArray(${call.limit})`;
}

export const AGGREGATE: Renderings<typeof AGGREGATE_FUNCTIONS> = {
  // HAVING MAX y: argMax skips rows where either argument is NULL, so the value goes in a tuple
  // (never NULL itself) to keep rows whose value is NULL.
  any_value: (call) => (call.having ? `${call.having.max ? 'argMax' : 'argMin'}(tuple(${arg(call, 0)}), ${call.having.value}).1` : same('any')(call)),
  array_agg: (call) => `${collected(call)}(${arg(call, 0)})${call.over}`,
  array_concat_agg: (call) => `arrayFlatten(${collected(call)}(${arg(call, 0)})${call.over})`,
  avg: PORTABLE_EMITTERS.avg,
  bit_and: same('groupBitAnd'),
  bit_or: same('groupBitOr'),
  bit_xor: same('groupBitXor'),
  count: (call) => `toInt64(${call.star ? `count()${call.over}` : same('count')(call)})`,
  countif: int64(same('countIf')),
  logical_and: same('min'),
  logical_or: same('max'),
  max: PORTABLE_EMITTERS.max,
  min: PORTABLE_EMITTERS.min,
  string_agg: (call) => `arrayStringConcat(${collected(call)}(${arg(call, 0)})${call.over}, ${optionalArg(call, 1) ?? "','"})`,
  sum: PORTABLE_EMITTERS.sum,
};

/**
 * The first n (value, total) pairs of a sumMap keyed by the value in a tuple (so NULL is a value
 * too), largest total first, as BigQuery's named struct. sumMap drops a key whose sums are all 0:
 * a count of rows, always positive, comes last to keep every value. Exact, as DuckDB's.
 */
function topTotals(call: CallParts, field: 'count' | 'sum', totals: string[], total: string, totalType: string): string {
  const value = arg(call, 0);
  const columns = [...totals, 'toInt64(1)'];
  const sums = `sumMap([tuple(${value})], ${columns.map((column) => `[${column}]`).join(', ')})${call.over}`;
  const names = [...totals.map((_, index) => `__t${index}`), '__rows'];
  const parts = ['__k', ...names].map((_, index) => `tupleElement(${sums}, ${index + 1})`);
  const pairs = `arrayMap((__k, ${names.join(', ')}) -> tuple(__k.1, ${total}), ${parts.join(', ')})`;
  const top = `arraySlice(arraySort(__p -> (isNull(__p.2), -__p.2, __p.1), ${pairs}), 1, ${arg(call, field === 'count' ? 1 : 2)})`;
  return `CAST(${top}, concat('Array(Tuple(value ', toTypeName(${value}), ', ${field} ${totalType}))'))`;
}

/**
 * An array-valued aggregate, or BigQuery's error where `failing` holds. ClickHouse has no
 * Nullable arrays, so the error is raised in the condition (if(cond, NULL, array) would be a Variant).
 */
const raisingArray = (failing: string, message: string, value: string) => `if(throwIf(coalesce(${failing}, false), ${quoted(message)}) = 0, ${value}, [])`;

const WEIGHT_TYPES: Partial<Record<string, { convert: (value: string) => string; name: string }>> = {
  INT64: { convert: (value) => `toInt64(${value})`, name: 'Int64' },
  FLOAT64: { convert: (value) => `toFloat64(${value})`, name: 'Float64' },
  NUMERIC: { convert: (value) => `toDecimal128(${value}, 9)`, name: 'Decimal(38, 9)' },
  BIGNUMERIC: { convert: (value) => `toDecimal256(${value}, 38)`, name: 'Decimal(76, 38)' },
};

/** APPROX_TOP_SUM: NULL weights add nothing (a value with only NULL weights sums to NULL); a negative or NaN weight is an error. */
function approxTopSum(call: CallParts): string {
  const weight = arg(call, 1);
  const type = WEIGHT_TYPES[argType(call, 1) ?? 'FLOAT64'] ?? WEIGHT_TYPES.FLOAT64!;
  const top = topTotals(call, 'sum', [type.convert(`ifNull(${weight}, 0)`), `toInt64(isNotNull(${weight}))`], 'if(__t1 = 0, NULL, __t0)', `Nullable(${type.name})`);
  const invalid = `min(${weight})${call.over} < 0${argType(call, 1) === 'FLOAT64' ? ` OR countIf(isNaN(${weight}))${call.over} > 0` : ''}`;
  return raisingArray(invalid, 'APPROX_TOP_SUM does not support negative or NaN weights', top);
}

export const APPROXIMATE_AGGREGATE: Renderings<typeof APPROXIMATE_AGGREGATE_FUNCTIONS> = {
  approx_count_distinct: (call) => `toInt64(uniq(${arg(call, 0)})${call.over})`,
  approx_top_count: (call) => topTotals(call, 'count', [], '__rows', 'Int64'),
  approx_top_sum: approxTopSum,
};

/**
 * BigQuery's sample statistics are NULL below two values (pairs for CORR and COVAR_SAMP), where
 * ClickHouse's are NaN. Pairs count only where both values are present.
 */
const atLeastTwo =
  (name: string, pairs: boolean): Emitter =>
  (call) => {
    const counted = pairs ? `count(if(isNull(${arg(call, 0)}) OR isNull(${arg(call, 1)}), NULL, 1))${call.over}` : `count(${arg(call, 0)})${call.over}`;
    return `if(${counted} < 2, NULL, ${same(name)(call)})`;
  };

export const STATISTICAL: Renderings<typeof STATISTICAL_FUNCTIONS> = {
  corr: atLeastTwo('corr', true),
  covar_pop: same('covarPop'),
  covar_samp: atLeastTwo('covarSamp', true),
  stddev: atLeastTwo('stddevSamp', false),
  stddev_pop: same('stddevPop'),
  stddev_samp: atLeastTwo('stddevSamp', false),
  var_pop: same('varPop'),
  var_samp: atLeastTwo('varSamp', false),
  variance: atLeastTwo('varSamp', false),
};
