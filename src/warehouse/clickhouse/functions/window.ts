/** ClickHouse renderings of BigQuery's navigation and numbering functions. */

import { arg, optionalArg, PORTABLE_EMITTERS, same, type Renderings } from '../../../sql/emitters.ts';
import type { NAVIGATION_FUNCTIONS } from '../../../sql/functions/families/navigation.ts';
import type { NUMBERING_FUNCTIONS } from '../../../sql/functions/families/numbering.ts';
import { int64 } from './shared.ts';

export const NAVIGATION: Renderings<typeof NAVIGATION_FUNCTIONS> = {
  first_value: (call) => `${call.ignoreNulls ? 'first_value' : 'first_value_respect_nulls'}(${arg(call, 0)})${call.over}`,
  last_value: (call) => `${call.ignoreNulls ? 'last_value' : 'last_value_respect_nulls'}(${arg(call, 0)})${call.over}`,
  nth_value: (call) => `nth_value(toNullable(${arg(call, 0)}), ${arg(call, 1)})${call.over}`,
  // Before the first row (or past the last) BigQuery gives NULL, not the type's default.
  lag: (call) => `lagInFrame(toNullable(${arg(call, 0)}), ${optionalArg(call, 1) ?? '1'}${call.args[2] ? `, ${call.args[2]}` : ''})${call.over}`,
  lead: (call) => `leadInFrame(toNullable(${arg(call, 0)}), ${optionalArg(call, 1) ?? '1'}${call.args[2] ? `, ${call.args[2]}` : ''})${call.over}`,
};

export const NUMBERING: Renderings<typeof NUMBERING_FUNCTIONS> = {
  cume_dist: PORTABLE_EMITTERS.cume_dist,
  dense_rank: int64(same('dense_rank')),
  ntile: int64(same('ntile')),
  percent_rank: PORTABLE_EMITTERS.percent_rank,
  rank: int64(same('rank')),
  row_number: int64(same('row_number')),
};
