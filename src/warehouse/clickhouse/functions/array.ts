/**
 * ClickHouse renderings of BigQuery's array functions. ClickHouse has no NULL arrays: a NULL
 * ARRAY is the empty one (as BigQuery's results give it), and where a function is called on the
 * literal NULL the call is NULL, as in BigQuery.
 */

import { arg, optionalArg, same, type CallParts, type Emitter, type Renderings } from '../../../sql/emitters.ts';
import type { ARRAY_FUNCTIONS } from '../../../sql/functions/families/array.ts';
import { MAX_GENERATED_ARRAY_ELEMENTS, tooManyElements } from '../../../sql/output-limits.ts';
import type * as ir from '../../../sql/ir.ts';
import { invalidSql } from '../../../sql/parse.ts';
import { intervalUnit, TIMESTAMP } from './time.ts';
import { guarded, int64 } from './shared.ts';

const isNullLiteral = (expr: ir.Expr | undefined): boolean => expr?.kind === 'null' || (expr?.kind === 'cast' && isNullLiteral(expr.expr));

/**
 * The function on its arguments, or NULL when one of the arrays is written as NULL (ClickHouse's
 * array functions refuse a bare NULL, and print a NULL ARRAY as the empty one).
 */
const onArrays =
  (arrays: number[], inner: Emitter): Emitter =>
  (call) =>
    arrays.some((index) => isNullLiteral(call.raw[index])) ? 'NULL' : inner(call);

/** A BOOL as ClickHouse's Bool (has() and comparisons give UInt8, which an array or struct would keep as a number). */
const bool = (condition: string) => `CAST(${condition} AS Nullable(Bool))`;

/** The unit and count of an `INTERVAL n unit` step. */
function intervalStep(call: CallParts, index: number, fn: string): { unit: string; count: string } {
  const step = call.raw[index];
  if (step?.kind !== 'interval') throw invalidSql(`${fn} needs an INTERVAL step`);
  return { unit: intervalUnit(step.unit), count: `toInt64(${call.print(step.value)})` };
}

/** GENERATE_TIMESTAMP_ARRAY(start, end, INTERVAL n unit): both ends included. */
function timestampSeries(call: CallParts): string {
  const { unit, count } = intervalStep(call, 2, 'GENERATE_TIMESTAMP_ARRAY');
  const start = `CAST(${arg(call, 0)} AS ${TIMESTAMP})`;
  const end = `CAST(${arg(call, 1)} AS ${TIMESTAMP})`;
  const steps = `range(toUInt64(greatest(0, intDiv(age('${unit.toLowerCase()}', ${start}, ${end}), ${count}) + 1)))`;
  return `arrayMap(__step -> ${start} + toInterval${unit}(__step * ${count}), ${steps})`;
}

/**
 * GENERATE_DATE_ARRAY(start, end[, INTERVAL n unit]): each element is the previous one plus the
 * step while not past the end. The candidates are the unit boundaries crossed, divided by the
 * step, plus one; those past the end are dropped.
 */
function dateSeries(call: CallParts): string {
  const { unit, count } = call.raw[2] ? intervalStep(call, 2, 'GENERATE_DATE_ARRAY') : { unit: 'Day', count: 'toInt64(1)' };
  const [start, end] = [`toDate32(${arg(call, 0)})`, `toDate32(${arg(call, 1)})`];
  const candidates = `toInt64(greatest(0, intDiv(dateDiff('${unit.toLowerCase()}', ${start}, ${end}), if(${count} = 0, 1, ${count})) + 2))`;
  const months = { Month: 1, Quarter: 3, Year: 12 }[unit];
  const dates = months === undefined ? `arrayMap(__step -> ${start} + toInterval${unit}(__step * ${count}), range(${candidates}))` : monthSteps(start, `${count} * ${months}`, candidates);
  const series = `arrayFilter(__day -> if(${count} > 0, __day <= ${end}, __day >= ${end}), ${dates})`;
  const zeroStep = guarded(call, `${count} = 0`, 'GENERATE_DATE_ARRAY step cannot be 0', series);
  // The guards' error branch makes the type a Variant, which ARRAY JOIN (UNNEST) refuses: cast back.
  return `CAST(${guarded(call, `${count} <> 0 AND ${candidates} > ${MAX_GENERATED_ARRAY_ELEMENTS + 1}`, tooManyElements('generate_date_array'), zeroStep)} AS Array(Nullable(Date32)))`;
}

/**
 * `count` dates from `start`, each `months` months after the previous one, as BigQuery adds them
 * one at a time: a day past the end of a month falls back to its last day and stays there (Jan 31,
 * Feb 29, Mar 29 …). So the k-th day of the month is the start's day, capped by the shortest month
 * met so far: the first month of at most 28, 29 or 30 days is found once (arrayFirstIndex).
 */
function monthSteps(start: string, months: string, count: string): string {
  const firsts = `arrayMap(__step -> addMonths(toStartOfMonth(${start}), __step * ${months}), range(${count}))`;
  const lengths = `arrayMap(__month -> toDayOfMonth(toLastDayOfMonth(__month)), ${firsts})`;
  const from = (days: number) => `arrayFirstIndex(__days -> __days <= ${days}, ${lengths})`;
  const reached = (days: number) => `(${from(days)} > 0 AND __index >= ${from(days)})`;
  const cap = `least(toDayOfMonth(${start}), multiIf(${reached(28)}, 28, ${reached(29)}, 29, ${reached(30)}, 30, 31))`;
  return `arrayMap((__month, __index) -> __month + toIntervalDay(${cap} - 1), ${firsts}, arrayEnumerate(${firsts}))`;
}

/** ARRAY_FIRST / ARRAY_LAST: BigQuery's error for an empty array. */
const endElement = (which: 'first' | 'last'): Emitter =>
  onArrays([0], (call) => {
    const list = arg(call, 0);
    return guarded(call, `length(${list}) = 0`, `ARRAY_${which.toUpperCase()} cannot get the ${which} element of an empty array`, `${list}[${which === 'first' ? 1 : -1}]`);
  });

/** ARRAY_SLICE(a, start, end): 0-based offsets, both included, negative ones from the end. */
function arraySlice(call: CallParts): string {
  const [list, start, end] = [arg(call, 0), arg(call, 1), arg(call, 2)];
  const offset = (value: string) => `if(${value} < 0, toInt64(${value}) + toInt64(length(${list})), toInt64(${value}))`;
  const first = `greatest(${offset(start)}, 0)`;
  const slice = `arraySlice(${list}, ${first} + 1, greatest(${offset(end)} - ${first} + 1, 0))`;
  // No NULL arrays: a NULL offset gives the empty array, which BigQuery's results show for NULL.
  return `if(isNull(${start}) OR isNull(${end}), [], ${slice})`;
}

/**
 * ARRAY_TO_STRING: NULL elements are left out (with their delimiter), or replaced by the third
 * argument; a NULL delimiter or null_text gives NULL. arrayStringConcat takes a literal
 * separator only: any other is put before each element but the first.
 */
function arrayToString(call: CallParts): string {
  const [list, delimiter, nullText] = [arg(call, 0), arg(call, 1), optionalArg(call, 2)];
  if ([1, 2].some((index) => isNullLiteral(call.raw[index]))) return 'NULL';
  const elements = nullText === undefined ? `arrayFilter(__e -> isNotNull(__e), ${list})` : `arrayMap(__e -> coalesce(__e, ${nullText}), ${list})`;
  if (call.raw[1]?.kind === 'string') return `arrayStringConcat(${elements}, ${delimiter})`;
  const joined = `arrayStringConcat(arrayMap((__e, __i) -> if(__i = 1, __e, concat(${delimiter}, __e)), ${elements}, arrayEnumerate(${elements})))`;
  return `if(isNull(${delimiter})${nullText === undefined ? '' : ` OR isNull(${nullText})`}, NULL, ${joined})`;
}

export const ARRAY: Renderings<typeof ARRAY_FUNCTIONS> = {
  array_concat: same('arrayConcat'),
  array_first: endElement('first'),
  array_includes: onArrays([0], (call) => bool(`if(isNull(${arg(call, 1)}), NULL, has(${arg(call, 0)}, ${arg(call, 1)}))`)),
  // Every search value must be present: a NULL one never is (hasAll would find a NULL element).
  array_includes_all: onArrays([0, 1], (call) => bool(`(NOT has(${arg(call, 1)}, NULL) AND hasAll(${arg(call, 0)}, ${arg(call, 1)}))`)),
  // hasAny matches NULL with NULL; BigQuery never does.
  array_includes_any: onArrays([0, 1], (call) => bool(`hasAny(${arg(call, 0)}, arrayFilter(__v -> isNotNull(__v), ${arg(call, 1)}))`)),
  // BigQuery counts a NULL element as one value; arrayDistinct drops NULLs, so each element goes in a tuple.
  array_is_distinct: onArrays([0], (call) => bool(`(length(arrayDistinct(arrayMap(__e -> tuple(__e), ${arg(call, 0)}))) = length(${arg(call, 0)}))`)),
  array_last: endElement('last'),
  array_length: onArrays([0], int64(same('length'))),
  array_reverse: same('arrayReverse'),
  array_slice: onArrays([0], arraySlice),
  array_to_string: onArrays([0], arrayToString),
  generate_array: (call) => {
    const [start, end, step] = [`toInt64(${arg(call, 0)})`, `toInt64(${arg(call, 1)})`, `toInt64(${optionalArg(call, 2) ?? '1'})`];
    return `arrayMap(__step -> ${start} + toInt64(__step) * ${step}, range(toUInt64(greatest(0, intDiv(${end} - ${start}, ${step}) + 1))))`;
  },
  generate_date_array: dateSeries,
  generate_timestamp_array: timestampSeries,
};
