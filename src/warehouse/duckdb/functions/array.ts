/** DuckDB renderings of BigQuery's array functions. */

import { arg, argType, optionalArg, type CallParts, type Renderings } from '../../../sql/emitters.ts';
import type { ARRAY_FUNCTIONS } from '../../../sql/functions/families/array.ts';
import { MAX_GENERATED_ARRAY_ELEMENTS, tooManyElements } from '../../../sql/output-limits.ts';
import { generateArray, generateTimestampArray } from '../bounded-functions.ts';
import { fail } from './shared.ts';

/** ARRAY_FIRST / ARRAY_LAST: NULL for a NULL array, BigQuery's error for an empty one. */
const endElement = (which: 'first' | 'last') => (call: CallParts) => {
  const list = arg(call, 0);
  const message = `ARRAY_${which.toUpperCase()} cannot get the ${which} element of an empty array`;
  return `(CASE WHEN len(${list}) = 0 THEN ${fail(call, message)} ELSE ${list}[${which === 'first' ? '1' : '-1'}] END)`;
};

/**
 * ARRAY_SLICE(a, start, end): the elements at 0-based offsets start..end, both included, a
 * negative offset counting from the end. Offsets past either end select nothing there (DuckDB's
 * list_slice would read a negative bound from the end again, so the bounds are clamped).
 */
function arraySlice(call: CallParts): string {
  const [list, start, end] = [arg(call, 0), arg(call, 1), arg(call, 2)];
  const offset = (value: string) => `(CASE WHEN ${value} < 0 THEN ${value} + len(${list}) ELSE ${value} END)`;
  return `(CASE WHEN ${start} IS NULL OR ${end} IS NULL THEN NULL ELSE list_slice(${list}, greatest(${offset(start)}, 0) + 1, greatest(${offset(end)}, -1) + 1) END)`;
}

/**
 * ARRAY_TO_STRING: NULL elements are left out (with their delimiter), or replaced by the third
 * argument; a NULL delimiter or null_text gives NULL. BYTES are joined as hex, so any byte
 * survives, and turned back. DuckDB's array_to_string takes a constant delimiter only: another
 * is put between the elements by list_reduce.
 */
function arrayToString(call: CallParts): string {
  const [list, delimiter, nullText] = [arg(call, 0), arg(call, 1), optionalArg(call, 2)];
  const bytes = argType(call, 1) === 'BYTES';
  const present = nullText === undefined ? list : `list_transform(${list}, e -> coalesce(e, ${nullText}))`;
  const [elements, separator] = bytes ? [`list_transform(${present}, e -> hex(e))`, `hex(${delimiter})`] : [present, delimiter];
  const joined =
    call.raw[1]?.kind === 'string' || call.raw[1]?.kind === 'typed_literal'
      ? `array_to_string(${elements}, ${separator})`
      : `(CASE WHEN len(list_filter(${elements}, e -> e IS NOT NULL)) = 0 THEN '' ELSE list_reduce(list_filter(${elements}, e -> e IS NOT NULL), (x, y) -> x || ${separator} || y) END)`;
  const guard = `${delimiter} IS NULL${nullText === undefined ? '' : ` OR ${nullText} IS NULL`}`;
  return `(CASE WHEN ${guard} THEN NULL ELSE ${bytes ? `unhex(${joined})` : joined} END)`;
}

/** NULL when either argument is, else the test (NULL elements never match). */
const unlessNull = (call: CallParts, test: string) => `(CASE WHEN ${arg(call, 0)} IS NULL OR ${arg(call, 1)} IS NULL THEN NULL ELSE ${test} END)`;

export const ARRAY: Renderings<typeof ARRAY_FUNCTIONS> = {
  array_concat: (call) => `(${call.args.join(' || ')})`,
  array_first: endElement('first'),
  array_includes: (call) => unlessNull(call, `coalesce(list_contains(${arg(call, 0)}, ${arg(call, 1)}), false)`),
  // Every search value must be present: a NULL one never is (list_has_all would skip it).
  array_includes_all: (call) => {
    const values = arg(call, 1);
    return unlessNull(call, `(list_count(${values}) = len(${values}) AND list_has_all(${arg(call, 0)}, ${values}))`);
  },
  array_includes_any: (call) => unlessNull(call, `list_has_any(${arg(call, 0)}, ${arg(call, 1)})`),
  // BigQuery counts a NULL element as one value.
  array_is_distinct: (call) => {
    const list = arg(call, 0);
    return `(len(list_distinct(${list})) + least(len(${list}) - list_count(${list}), 1) = len(${list}))`;
  },
  array_last: endElement('last'),
  array_length: (call) => `len(${arg(call, 0)})`,
  array_reverse: (call) => `list_reverse(${arg(call, 0)})`,
  array_slice: arraySlice,
  array_to_string: arrayToString,
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
