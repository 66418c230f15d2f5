/** ClickHouse renderings of BigQuery's aggregate, approximate aggregate and statistical functions. */

import { arg, optionalArg, PORTABLE_EMITTERS, same, unsupported, type CallParts, type Emitter, type Renderings } from '../../../sql/emitters.ts';
import type { AGGREGATE_FUNCTIONS } from '../../../sql/functions/families/aggregate.ts';
import type { APPROXIMATE_AGGREGATE_FUNCTIONS } from '../../../sql/functions/families/approximate.ts';
import type { STATISTICAL_FUNCTIONS } from '../../../sql/functions/families/statistical.ts';
import { invalidSql } from '../../../sql/parse.ts';
import { int64 } from './shared.ts';

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

export const APPROXIMATE_AGGREGATE: Renderings<typeof APPROXIMATE_AGGREGATE_FUNCTIONS> = {
  approx_count_distinct: (call) => `toInt64(uniq(${arg(call, 0)})${call.over})`,
  approx_top_count: unsupported('APPROX_TOP_COUNT is not mapped to ClickHouse yet'),
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
