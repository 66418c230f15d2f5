/** DuckDB renderings of BigQuery's navigation and numbering functions. */

import { arg, PORTABLE_EMITTERS, same, type Emitter, type Renderings } from '../../../sql/emitters.ts';
import type { NAVIGATION_FUNCTIONS } from '../../../sql/functions/families/navigation.ts';
import type { NUMBERING_FUNCTIONS } from '../../../sql/functions/families/numbering.ts';

/** FIRST_VALUE(x IGNORE NULLS) and the like. */
const nullTreatment =
  (name: string): Emitter =>
  (call) =>
    `${name}(${call.args.join(', ')}${call.ignoreNulls ? ' IGNORE NULLS' : ''})${call.over}`;

/**
 * PERCENTILE_CONT/DISC(x, p [RESPECT NULLS]) OVER (PARTITION BY …): DuckDB's quantile_cont and
 * quantile_disc skip NULLs. Under RESPECT NULLS the value is picked from the window's values
 * sorted NULLs first: DISC takes the ceil(n·p)-th; CONT interpolates between the two around
 * position p·(n-1), a NULL on one side giving the other side's value.
 */
function percentile(discrete: boolean): Emitter {
  return (call) => {
    const [value, fraction] = [arg(call, 0), arg(call, 1)];
    if (!call.respectNulls) return `${discrete ? 'quantile_disc' : 'quantile_cont'}(${value}, ${fraction})${call.over}`;
    const sorted = `list_sort(list(${value})${call.over}, 'ASC', 'NULLS FIRST')`;
    if (discrete) return `${sorted}[CAST(greatest(ceil(len(${sorted}) * ${fraction}), 1) AS BIGINT)]`;
    const position = `(${fraction} * (len(${sorted}) - 1))`;
    const [below, above] = [`${sorted}[CAST(floor(${position}) AS BIGINT) + 1]`, `${sorted}[CAST(ceil(${position}) AS BIGINT) + 1]`];
    return `(CASE WHEN ${below} IS NULL THEN ${above} WHEN ${above} IS NULL THEN ${below} ELSE ${below} + (${position} - floor(${position})) * (${above} - ${below}) END)`;
  };
}

export const NAVIGATION: Renderings<typeof NAVIGATION_FUNCTIONS> = {
  first_value: nullTreatment('first_value'),
  last_value: nullTreatment('last_value'),
  nth_value: nullTreatment('nth_value'),
  lag: same('lag'),
  lead: same('lead'),
  percentile_cont: percentile(false),
  percentile_disc: percentile(true),
};

export const NUMBERING: Renderings<typeof NUMBERING_FUNCTIONS> = {
  cume_dist: PORTABLE_EMITTERS.cume_dist,
  dense_rank: same('dense_rank'),
  ntile: same('ntile'),
  percent_rank: PORTABLE_EMITTERS.percent_rank,
  rank: same('rank'),
  row_number: same('row_number'),
};
