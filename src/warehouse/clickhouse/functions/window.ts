/** ClickHouse renderings of BigQuery's navigation and numbering functions. */

import { arg, argType, optionalArg, PORTABLE_EMITTERS, same, type CallParts, type Emitter, type Renderings } from '../../../sql/emitters.ts';
import { literalNumber } from '../../../sql/output-limits.ts';
import type { NAVIGATION_FUNCTIONS } from '../../../sql/functions/families/navigation.ts';
import type { NUMBERING_FUNCTIONS } from '../../../sql/functions/families/numbering.ts';
import { int64 } from './shared.ts';

/** Types quantileExact and quantileExactInclusive take. */
const EXACT_QUANTILE_TYPES: ReadonlySet<string> = new Set(['INT64', 'FLOAT64', 'NUMERIC', 'BIGNUMERIC', 'TIMESTAMP', 'DATETIME']);
const RESULT_TYPES: Partial<Record<string, string>> = { NUMERIC: 'Decimal(38, 9)', BIGNUMERIC: 'Decimal(76, 38)' };

/**
 * PERCENTILE_DISC/CONT(x, p) OVER (PARTITION BY …). DISC is the ceil(n·p)-th value (1-based),
 * quantileExact's floor(n·level)-th (0-based) at a level a hair below p; CONT interpolates at
 * position p·(n-1), as quantileExactInclusive does. Other types, a percentile given as a
 * parameter, and RESPECT NULLS (NULLs sorted first; CONT between a NULL and a value gives the
 * value) pick from the partition's sorted values instead, an array per row.
 */
function percentile(discrete: boolean): Emitter {
  return (call) => {
    const [value, fraction] = [arg(call, 0), arg(call, 1)];
    const type = argType(call, 0);
    const literal = literalNumber(call.raw[1]?.kind === 'cast' ? call.raw[1].expr : call.raw[1]);
    if (!call.respectNulls && literal !== undefined && type && EXACT_QUANTILE_TYPES.has(type)) {
      if (discrete) return `quantileExact(${Math.max(literal - 1e-12, 0)})(${value})${call.over}`;
      const interpolated = `quantileExactInclusive(${literal})(toFloat64(${value}))${call.over}`;
      const result = RESULT_TYPES[type];
      return result ? `CAST(${interpolated} AS Nullable(${result}))` : interpolated;
    }
    const sorted = call.respectNulls
      ? `arraySort(__v -> (isNotNull(__v), __v), arrayMap(__t -> __t.1, groupArray(tuple(${value}))${call.over}))`
      : `arraySort(groupArray(${value})${call.over})`;
    if (discrete) return `arrayElement(${sorted}, toUInt64(greatest(ceil(length(${sorted}) * ${fraction}), 1)))`;
    const position = `(${fraction} * (toInt64(length(${sorted})) - 1))`;
    const [below, above] = [`arrayElement(${sorted}, toUInt64(floor(${position})) + 1)`, `arrayElement(${sorted}, toUInt64(ceil(${position})) + 1)`];
    return `multiIf(isNull(${below}), ${above}, isNull(${above}), ${below}, ${below} + (${position} - floor(${position})) * (${above} - ${below}))`;
  };
}

/**
 * LAG/LEAD and NTH_VALUE: before the first row (or past the last) BigQuery gives NULL, not the type's default,
 * so the value is made Nullable; an ARRAY or STRUCT cannot be (ClickHouse has no Nullable Array or
 * Tuple): there the default is the empty array, which results show for NULL, or a tuple of defaults.
 */
const shifted =
  (name: string): Emitter =>
  (call) =>
    `${name}(${nullable(call)}, ${optionalArg(call, 1) ?? '1'}${call.args[2] ? `, ${call.args[2]}` : ''})${call.over}`;

function nullable(call: CallParts): string {
  const kind = call.types[0]?.kind;
  return kind === 'array' || kind === 'struct' ? arg(call, 0) : `toNullable(${arg(call, 0)})`;
}

export const NAVIGATION: Renderings<typeof NAVIGATION_FUNCTIONS> = {
  first_value: (call) => `${call.ignoreNulls ? 'first_value' : 'first_value_respect_nulls'}(${arg(call, 0)})${call.over}`,
  last_value: (call) => `${call.ignoreNulls ? 'last_value' : 'last_value_respect_nulls'}(${arg(call, 0)})${call.over}`,
  // IGNORE NULLS: ClickHouse's nth_value counts NULLs, so the n-th of the frame's non-NULL values (groupArray skips NULLs).
  nth_value: (call) =>
    call.ignoreNulls ? `arrayElement(arrayMap(__v -> toNullable(__v), groupArray(${arg(call, 0)})${call.over}), ${arg(call, 1)})` : `nth_value(${nullable(call)}, ${arg(call, 1)})${call.over}`,
  // Before the first row (or past the last) BigQuery gives NULL, not the type's default.
  lag: shifted('lagInFrame'),
  lead: shifted('leadInFrame'),
  percentile_cont: percentile(false),
  percentile_disc: percentile(true),
};

export const NUMBERING: Renderings<typeof NUMBERING_FUNCTIONS> = {
  cume_dist: PORTABLE_EMITTERS.cume_dist,
  dense_rank: int64(same('dense_rank')),
  ntile: int64(same('ntile')),
  percent_rank: PORTABLE_EMITTERS.percent_rank,
  rank: int64(same('rank')),
  row_number: int64(same('row_number')),
};
