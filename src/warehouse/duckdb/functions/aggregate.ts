/** DuckDB renderings of BigQuery's aggregate, approximate aggregate and statistical functions. */

import { arg, argType, optionalArg, PORTABLE_EMITTERS, resultType, same, type CallParts, type Emitter, type Renderings } from '../../../sql/emitters.ts';
import type { AGGREGATE_FUNCTIONS } from '../../../sql/functions/families/aggregate.ts';
import type { APPROXIMATE_AGGREGATE_FUNCTIONS } from '../../../sql/functions/families/approximate.ts';
import type { STATISTICAL_FUNCTIONS } from '../../../sql/functions/families/statistical.ts';
import { fail } from './shared.ts';

/**
 * The list an ARRAY_AGG-like aggregate collects: in its ORDER BY, without NULLs when asked (LIMIT
 * is applied by `limited`, as DuckDB's list() has none).
 */
function collected(call: CallParts, skipNulls: boolean, value = arg(call, 0)): string {
  return `list(${call.distinct}${value}${call.orderBy})${skipNulls ? ` FILTER (WHERE ${value} IS NOT NULL)` : ''}${call.over}`;
}

const limited = (call: CallParts, list: string) => (call.limit === undefined ? list : `(${list})[1:${call.limit}]`);

/**
 * APPROX_TOP_COUNT(x, n), exactly: the n most frequent values (NULL counts as one) with their
 * counts, most frequent first, as [{value, count}]; NULL over no rows. histogram() counts the
 * values but skips NULL, so NULL's count is added from count(*) - count(x). Sorting on the
 * negated count (then the value) puts the most frequent first.
 */
function approxTopCount(call: CallParts): string {
  const [value, n] = [arg(call, 0), arg(call, 1)];
  const rows = `count(*)${call.over}`;
  const nulls = `(${rows} - count(${value})${call.over})`;
  const counted = `list_transform(map_entries(histogram(${value})${call.over}), e -> {'c': -CAST(e.value AS BIGINT), 'v': e.key})`;
  const withNull = `list_concat(${counted}, CASE WHEN ${nulls} > 0 THEN [{'c': -${nulls}, 'v': NULL}] ELSE [] END)`;
  const top = `list_transform(list_sort(${withNull})[1:CAST(${n} AS BIGINT)], e -> {'value': e.v, 'count': -e.c})`;
  return `(CASE WHEN ${rows} = 0 THEN NULL ELSE ${top} END)`;
}

const SUM_TYPES: Partial<Record<string, string>> = { INT64: 'BIGINT', NUMERIC: 'DECIMAL(38, 9)', BIGNUMERIC: 'DECIMAL(38, 9)', FLOAT64: 'DOUBLE' };

/**
 * APPROX_TOP_SUM(x, weight, n), exactly: the n values with the largest sums of their weights,
 * largest first, as [{value, sum}] (NULL a value like the others; a value whose weights are all
 * NULL has a NULL sum, ranked last); NULL over no rows; a negative or NaN weight is an error.
 * The (value, weight) pairs are sorted by value, so each value's weights are one run of the list:
 * runs start where the value changes, and each run is summed once (list functions work in
 * windows too, where a subquery could not read the window's rows).
 */
function approxTopSum(call: CallParts): string {
  const [value, weight, n] = [arg(call, 0), arg(call, 1), arg(call, 2)];
  const sumType = SUM_TYPES[argType(call, 1) ?? 'FLOAT64'] ?? 'DOUBLE';
  const pairs = `list_sort(list({'v': ${value}, 'w': ${weight}})${call.over})`;
  const starts = `list_filter(range(1, len(${pairs}) + 1), __i -> __i = 1 OR ${pairs}[__i].v IS DISTINCT FROM ${pairs}[__i - 1].v)`;
  const run = `${pairs}[${starts}[__k]:coalesce(${starts}[__k + 1] - 1, len(${pairs}))]`;
  const total = `CAST(list_sum(list_transform(${run}, __e -> __e.w)) AS ${sumType})`;
  const ranked = `list_transform(range(1, len(${starts}) + 1), __k -> {'unweighted': ${total} IS NULL, 'negated': -${total}, 'v': ${pairs}[${starts}[__k]].v})`;
  const top = `list_transform(list_sort(${ranked})[1:CAST(${n} AS BIGINT)], __e -> {'value': __e.v, 'sum': -__e.negated})`;
  const invalid = `min(${weight})${call.over} < 0${argType(call, 1) === 'FLOAT64' ? ` OR isnan(max(${weight})${call.over})` : ''}`;
  return `(CASE WHEN ${invalid} THEN ${fail(call, 'APPROX_TOP_SUM does not support negative or NaN weights')} WHEN count(*)${call.over} = 0 THEN NULL ELSE ${top} END)`;
}

/**
 * A statistical aggregate as BigQuery defines it: over the values (pairs) without NULL; NULL
 * below `minimum` of them (DuckDB's CORR gives NaN); NaN when one is infinite or NaN (DuckDB raises
 * "out of range" there), so the aggregate itself reads the finite ones only.
 */
const statistic =
  (name: string, minimum: number): Emitter =>
  (call) => {
    const values = call.args.map((value) => `CAST(${value} AS DOUBLE)`);
    const present = values.map((value) => `${value} IS NOT NULL`).join(' AND ');
    const finite = values.map((value) => `isfinite(${value})`).join(' AND ');
    const count = values.length === 2 ? `regr_count(${values[0]}, ${values[1]})${call.over}` : `count(${values[0]})${call.over}`;
    const nonFinite = `bool_or(${present} AND NOT (${finite}))${call.over}`;
    const value = `${name}(${values.map((value) => `CASE WHEN ${finite} THEN ${value} END`).join(', ')})${call.over}`;
    return `(CASE WHEN ${count} < ${minimum} THEN NULL WHEN ${nonFinite} THEN 'NaN'::DOUBLE ELSE ${value} END)`;
  };

export const AGGREGATE: Renderings<typeof AGGREGATE_FUNCTIONS> = {
  // HAVING MAX y: the value of a row where y is largest; the value may be NULL, rows where y is are skipped.
  any_value: (call) => (call.having ? `${call.having.max ? 'arg_max_null' : 'arg_min_null'}(${arg(call, 0)}, ${call.having.value})${call.over}` : same('any_value')(call)),
  array_agg: (call) => limited(call, collected(call, call.ignoreNulls)),
  // NULL arrays are skipped; no rows (or only NULL arrays) give NULL.
  array_concat_agg: (call) => `flatten(${limited(call, collected(call, true))})`,
  avg: PORTABLE_EMITTERS.avg,
  bit_and: same('bit_and'),
  bit_or: same('bit_or'),
  bit_xor: same('bit_xor'),
  count: (call) => (call.star ? `count(*)${call.over}` : same('count')(call)),
  // 0 over no rows, as COUNT (DuckDB's count_if gives NULL there).
  countif: (call) => `coalesce(${same('count_if')(call)}, 0)`,
  logical_and: same('bool_and'),
  logical_or: same('bool_or'),
  max: PORTABLE_EMITTERS.max,
  max_by: (call) => `arg_max_null(${arg(call, 0)}, ${arg(call, 1)})${call.over}`,
  min: PORTABLE_EMITTERS.min,
  min_by: (call) => `arg_min_null(${arg(call, 0)}, ${arg(call, 1)})${call.over}`,
  // BYTES are joined as hex (DuckDB's string_agg takes text only) and turned back.
  string_agg: (call) => {
    const bytes = argType(call, 0) === 'BYTES';
    const [value, separator] = [arg(call, 0), optionalArg(call, 1) ?? (bytes ? "'\\x2C'::BLOB" : "','")].map((part) => (bytes ? `hex(${part})` : part));
    const joined =
      call.limit !== undefined
        ? `array_to_string(${limited(call, collected(call, true, value!))}, ${separator})`
        : `string_agg(${call.distinct}${value}, ${separator}${call.orderBy})${call.over}`;
    return bytes ? `unhex(${joined})` : joined;
  },
  // An INT64 sum past INT64 is BigQuery's error (DuckDB sums into HUGEINT), and so is a FLOAT64
  // sum that is infinite though no value is (DuckDB gives infinity).
  sum: (call) => {
    const total = PORTABLE_EMITTERS.sum(call);
    if (resultType(call) === 'FLOAT64') {
      return `(CASE WHEN isinf(${total}) AND NOT bool_or(isinf(${arg(call, 0)}))${call.over} THEN ${fail(call, 'double overflow')} ELSE ${total} END)`;
    }
    if (resultType(call) !== 'INT64') return total;
    return `(CASE WHEN ${total} NOT BETWEEN -9223372036854775808 AND 9223372036854775807 THEN ${fail(call, 'int64 overflow')} ELSE CAST(${total} AS BIGINT) END)`;
  },
};

export const APPROXIMATE_AGGREGATE: Renderings<typeof APPROXIMATE_AGGREGATE_FUNCTIONS> = {
  approx_count_distinct: same('approx_count_distinct'),
  approx_top_count: approxTopCount,
  approx_top_sum: approxTopSum,
};

export const STATISTICAL: Renderings<typeof STATISTICAL_FUNCTIONS> = {
  corr: statistic('corr', 2),
  covar_pop: statistic('covar_pop', 1),
  covar_samp: statistic('covar_samp', 2),
  stddev: statistic('stddev_samp', 2),
  stddev_pop: statistic('stddev_pop', 1),
  stddev_samp: statistic('stddev_samp', 2),
  var_pop: statistic('var_pop', 1),
  var_samp: statistic('var_samp', 2),
  variance: statistic('var_samp', 2),
};
