/** DuckDB renderings of BigQuery's navigation and numbering functions. */

import { PORTABLE_EMITTERS, same, type Emitter, type Renderings } from '../../../sql/emitters.ts';
import type { NAVIGATION_FUNCTIONS } from '../../../sql/functions/families/navigation.ts';
import type { NUMBERING_FUNCTIONS } from '../../../sql/functions/families/numbering.ts';

/** FIRST_VALUE(x IGNORE NULLS) and the like. */
const nullTreatment =
  (name: string): Emitter =>
  (call) =>
    `${name}(${call.args.join(', ')}${call.ignoreNulls ? ' IGNORE NULLS' : ''})${call.over}`;

export const NAVIGATION: Renderings<typeof NAVIGATION_FUNCTIONS> = {
  first_value: nullTreatment('first_value'),
  last_value: nullTreatment('last_value'),
  nth_value: nullTreatment('nth_value'),
  lag: same('lag'),
  lead: same('lead'),
};

export const NUMBERING: Renderings<typeof NUMBERING_FUNCTIONS> = {
  cume_dist: PORTABLE_EMITTERS.cume_dist,
  dense_rank: same('dense_rank'),
  ntile: same('ntile'),
  percent_rank: PORTABLE_EMITTERS.percent_rank,
  rank: same('rank'),
  row_number: same('row_number'),
};
