/** DuckDB renderings of BigQuery's array functions. */

import { arg, optionalArg, type Renderings } from '../../../sql/emitters.ts';
import type { ARRAY_FUNCTIONS } from '../../../sql/functions/families/array.ts';
import { MAX_GENERATED_ARRAY_ELEMENTS, tooManyElements } from '../../../sql/output-limits.ts';
import { generateArray, generateTimestampArray } from '../bounded-functions.ts';
import { fail } from './shared.ts';

export const ARRAY: Renderings<typeof ARRAY_FUNCTIONS> = {
  array_concat: (call) => `(${call.args.join(' || ')})`,
  // BigQuery counts a NULL element as one value.
  array_is_distinct: (call) => {
    const list = arg(call, 0);
    return `(len(list_distinct(${list})) + least(len(${list}) - list_count(${list}), 1) = len(${list}))`;
  },
  array_length: (call) => `len(${arg(call, 0)})`,
  array_reverse: (call) => `list_reverse(${arg(call, 0)})`,
  array_to_string: (call) => `array_to_string(${arg(call, 0)}, ${arg(call, 1)})`,
  generate_array: generateArray,
  // Bounded like GENERATE_ARRAY (output-limits.ts): the step measured in days from the start.
  generate_date_array: (call) => {
    const [start, end, step] = [`CAST(${arg(call, 0)} AS DATE)`, `CAST(${arg(call, 1)} AS DATE)`, optionalArg(call, 2) ?? 'INTERVAL 1 DAY'];
    const stepDays = `date_diff('day', ${start}, CAST(${start} + ${step} AS DATE))`;
    const tooLong = `${stepDays} <> 0 AND CAST(date_diff('day', ${start}, ${end}) AS DOUBLE) / ${stepDays} >= ${MAX_GENERATED_ARRAY_ELEMENTS}`;
    const series = `CAST(generate_series(${start}, ${end}, ${step}) AS DATE[])`;
    return `(CASE WHEN ${step} = INTERVAL 0 DAY THEN ${fail(call, 'GENERATE_DATE_ARRAY step cannot be 0')} WHEN ${tooLong} THEN ${fail(call, tooManyElements('generate_date_array'))} ELSE ${series} END)`;
  },
  generate_timestamp_array: generateTimestampArray,
};
