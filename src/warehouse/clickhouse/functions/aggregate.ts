/** ClickHouse renderings of BigQuery's aggregate, approximate aggregate and statistical functions. */

import { arg, argType, optionalArg, PORTABLE_EMITTERS, same, type CallParts, type Emitter, type Renderings } from '../../../sql/emitters.ts';
import type { AGGREGATE_FUNCTIONS } from '../../../sql/functions/families/aggregate.ts';
import type { APPROXIMATE_AGGREGATE_FUNCTIONS } from '../../../sql/functions/families/approximate.ts';
import type { STATISTICAL_FUNCTIONS } from '../../../sql/functions/families/statistical.ts';
import { invalidSql } from '../../../sql/parse.ts';
import { int64, quoted, raiseWhere } from './shared.ts';

/** Keys ClickHouse can sort descending by negating them, as the number to negate. */
const NEGATABLE: Partial<Record<string, (key: string) => string>> = {
  INT64: (key) => key,
  FLOAT64: (key) => key,
  NUMERIC: (key) => key,
  BIGNUMERIC: (key) => key,
  BOOL: (key) => `toInt8(${key})`,
  DATE: (key) => `toInt32(${key})`,
  TIMESTAMP: (key) => `toUnixTimestamp64Micro(${key})`,
  DATETIME: (key) => `toUnixTimestamp64Micro(${key})`,
};

type OrderKey = CallParts['orderKeys'][number];

/**
 * Rows (tuples of the value then the ORDER BY keys) sorted as the keys say. arraySort sorts
 * ascending on what its lambda returns: each key comes with a flag that puts its NULLs first or
 * last, and a descending key is negated; one of a type that cannot be (a STRING) is replaced by
 * its rank among the key's distinct values, found by binary search, and the rank negated.
 */
function sortedRows(rows: string, keys: readonly OrderKey[]): string {
  const parts = keys.map((key, index) => {
    const value = `__r.${index + 2}`;
    const nullsPlaced = key.nullsFirst ? `isNotNull(${value})` : `isNull(${value})`;
    if (!key.descending) return `${nullsPlaced}, ${value}`;
    const negatable = key.type.kind === 'scalar' ? NEGATABLE[key.type.name] : undefined;
    if (negatable) return `${nullsPlaced}, -${negatable(value)}`;
    const distinctKeys = `arraySort(arrayDistinct(arrayMap(__k -> __k.${index + 2}, ${rows})))`;
    return `${nullsPlaced}, -indexOfAssumeSorted(${distinctKeys}, ${value})`;
  });
  return `arraySort(__r -> (${parts.join(', ')}), ${rows})`;
}

/**
 * The values an ARRAY_AGG-like aggregate collects, as an array: NULLs kept (groupArray skips them
 * unless each value is in a tuple) or skipped, DISTINCT, in ORDER BY's order, at most LIMIT of them.
 */
function collected(call: CallParts, value: string, skipNulls: boolean): string {
  const gather = call.distinct ? 'groupUniqArray' : 'groupArray';
  if (call.orderKeys.length === 0) {
    const bounded = call.limit === undefined ? gather : `${gather}(${call.limit})`;
    return skipNulls ? `${bounded}(${value})${call.over}` : `arrayMap(__r -> __r.1, ${bounded}(tuple(${value}))${call.over})`;
  }
  const rows = `${gather}(tuple(${value}, ${call.orderKeys.map((key) => key.sql).join(', ')}))${call.over}`;
  const sorted = sortedRows(skipNulls ? `arrayFilter(__r -> isNotNull(__r.1), ${rows})` : rows, call.orderKeys);
  const values = `arrayMap(__r -> __r.1, ${sorted})`;
  return call.limit === undefined ? values : `arraySlice(${values}, 1, ${call.limit})`;
}

/** STRING_AGG: NULL over no rows or only NULLs (arrayStringConcat would give ''). */
function stringAgg(call: CallParts): string {
  const values = collected(call, arg(call, 0), true);
  return `if(empty(${values}), NULL, arrayStringConcat(${values}, ${optionalArg(call, 1) ?? "','"}))`;
}

/**
 * SUM with BigQuery's overflow errors: an INT64 sum is taken in Int128 and refused past INT64
 * (ClickHouse's Int64 sum wraps around); a FLOAT64 sum that is infinite though no value is.
 */
function checkedSum(call: CallParts): string {
  const value = arg(call, 0);
  if (argType(call, 0) === 'INT64') {
    const total = `sum(${call.distinct}toInt128(${value}))${call.over}`;
    const outside = `${total} NOT BETWEEN -9223372036854775808 AND 9223372036854775807`;
    return `if(${outside}, ${call.safe ? 'NULL' : raiseWhere(outside, 'int64 overflow')}, toInt64(${total}))`;
  }
  const total = PORTABLE_EMITTERS.sum(call);
  if (argType(call, 0) !== 'FLOAT64') return total;
  const overflowed = `isInfinite(${total}) AND max(isInfinite(${value}))${call.over} = 0`;
  return `if(${overflowed}, ${call.safe ? 'NULL' : raiseWhere(overflowed, 'double overflow')}, ${total})`;
}

export const AGGREGATE: Renderings<typeof AGGREGATE_FUNCTIONS> = {
  // HAVING MAX y: argMax skips rows where either argument is NULL, so the value goes in a tuple
  // (never NULL itself) to keep rows whose value is NULL.
  any_value: (call) => (call.having ? `${call.having.max ? 'argMax' : 'argMin'}(tuple(${arg(call, 0)}), ${call.having.value}).1` : same('any')(call)),
  // A condition is a number (UInt8) in ClickHouse: an array of them would hold 0 and 1.
  array_agg: (call) => collected(call, argType(call, 0) === 'BOOL' ? `CAST(${arg(call, 0)} AS Nullable(Bool))` : arg(call, 0), call.ignoreNulls),
  // Arrays are never NULL in ClickHouse: nothing to skip.
  array_concat_agg: (call) => `arrayFlatten(${collected(call, arg(call, 0), true)})`,
  avg: PORTABLE_EMITTERS.avg,
  bit_and: same('groupBitAnd'),
  bit_or: same('groupBitOr'),
  bit_xor: same('groupBitXor'),
  count: (call) => `toInt64(${call.star ? `count()${call.over}` : same('count')(call)})`,
  // COUNTIF(DISTINCT cond) counts the distinct TRUE: 1 or 0.
  countif: (call) => (call.distinct ? `toInt64(countIf(${arg(call, 0)})${call.over} > 0)` : int64(same('countIf'))(call)),
  logical_and: same('min'),
  logical_or: same('max'),
  max: PORTABLE_EMITTERS.max,
  max_by: (call) => `argMax(tuple(${arg(call, 0)}), ${arg(call, 1)})${call.over}.1`,
  min: PORTABLE_EMITTERS.min,
  min_by: (call) => `argMin(tuple(${arg(call, 0)}), ${arg(call, 1)})${call.over}.1`,
  string_agg: stringAgg,
  sum: checkedSum,
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
 * A statistical aggregate as BigQuery defines it: over the values (pairs) without NULL; NULL
 * below `minimum` of them (ClickHouse's sample statistics give NaN); NaN when one is infinite or
 * NaN (ClickHouse gives 0 or NULL), so the aggregate itself reads the finite ones only. The
 * numerically stable forms: a covariance of values near FLOAT64's largest is 0, not NaN.
 */
const statistic =
  (name: string, minimum: number): Emitter =>
  (call) => {
    const values = call.args.map((value) => `toFloat64(${value})`);
    const present = values.map((value) => `isNotNull(${value})`).join(' AND ');
    const finite = values.map((value) => `isFinite(${value})`).join(' AND ');
    const count = `countIf(${present})${call.over}`;
    const nonFinite = `countIf(${present} AND NOT (${finite}))${call.over}`;
    const value = `${name}(${values.map((value) => `if(${finite}, ${value}, NULL)`).join(', ')})${call.over}`;
    return `multiIf(${count} < ${minimum}, NULL, ${nonFinite} > 0, nan, ${value})`;
  };

export const STATISTICAL: Renderings<typeof STATISTICAL_FUNCTIONS> = {
  corr: statistic('corrStable', 2),
  covar_pop: statistic('covarPopStable', 1),
  covar_samp: statistic('covarSampStable', 2),
  stddev: statistic('stddevSampStable', 2),
  stddev_pop: statistic('stddevPopStable', 1),
  stddev_samp: statistic('stddevSampStable', 2),
  var_pop: statistic('varPopStable', 1),
  var_samp: statistic('varSampStable', 2),
  variance: statistic('varSampStable', 2),
};
