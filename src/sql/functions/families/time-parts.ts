/**
 * Which date parts the date and time functions take, by the type of the value they are given
 * (before any coercion: DATE_TRUNC(DATE, HOUR) is refused although a DATE coerces to the DATETIME
 * HOUR truncates). After ZetaSQL's CheckDateDatetimeTimeTimestamp{Trunc,Diff,AddSub}Arguments,
 * CheckTimeAddSubArguments and CheckLastDayArguments, in BigQuery's words.
 */

import type { SqlType } from '../../catalog.ts';
import type * as ir from '../../ir.ts';
import type { ArgumentCheck } from '../entry.ts';

/** Microseconds in one unit of the parts of a fixed length (in UTC: a day is 24 hours). */
export const FIXED_PART_MICROS: Readonly<Partial<Record<ir.DatePart, number>>> = {
  microsecond: 1,
  millisecond: 1_000,
  second: 1_000_000,
  minute: 60_000_000,
  hour: 3_600_000_000,
  day: 86_400_000_000,
};

const CLOCK: ReadonlySet<ir.DatePart> = new Set(['hour', 'minute', 'second', 'millisecond', 'microsecond']);
const CALENDAR: ReadonlySet<ir.DatePart> = new Set(['year', 'isoyear', 'quarter', 'month', 'week', 'isoweek']);

const scalarName = (type: SqlType | undefined) => (type?.kind === 'scalar' ? type.name : undefined);

type Rule = (type: ir.ScalarTypeName | undefined, part: ir.DatePart) => boolean;

/** DATE_TRUNC and its kin: calendar parts and DAY except of a TIME, clock parts except of a DATE. */
const truncates: Rule = (type, part) => (CLOCK.has(part) ? type !== 'DATE' : type !== 'TIME');
/** DATE_DIFF and its kin: as truncation, but a TIMESTAMP counts no calendar part (weeks, months, years). */
const counts: Rule = (type, part) => truncates(type, part) && !(CALENDAR.has(part) && type === 'TIMESTAMP');
/** DATE_ADD and its kin: DAY for all but a TIME, clock parts except for a DATE, calendar parts for a DATE or DATETIME. */
const moves: Rule = (type, part) => (part === 'day' ? type !== 'TIME' : CLOCK.has(part) ? type !== 'DATE' : CALENDAR.has(part) && type !== 'TIMESTAMP' && type !== 'TIME');

const partName = (part: ir.DatePart, weekStart: string | undefined) => (weekStart ? `WEEK(${weekStart.toUpperCase()})` : part.toUpperCase());

/** A check that the date part at `index` suits the type the first argument was given as. */
function partFor(name: string, index: number, rule: Rule, withType = false): ArgumentCheck {
  return (args, _types, _named, given) => {
    const part = args[index];
    if (part?.kind !== 'date_part') return undefined;
    const type = scalarName(given[0]);
    if (rule(type, part.part)) return undefined;
    return { message: `${name} does not support the ${partName(part.part, part.weekStart)} date part${withType && type ? ` when the argument is ${type} type` : ''}` };
  };
}

export const truncationPart = (name: string) => partFor(name, 1, truncates);
export const differencePart = (name: string) => partFor(name, 2, counts, true);

/**
 * DATE_ADD(value, INTERVAL n part) and its kin: the second argument must be written `INTERVAL n
 * part` (BigQuery's grammar for these functions), with a part the value's type can move by.
 */
export function intervalStep(name: string): ArgumentCheck {
  return (args, _types, _named, given) => {
    const interval = args[1];
    if (interval?.kind !== 'interval') return { message: `${name} takes its amount as INTERVAL <int64> <date part>` };
    const type = scalarName(given[0]);
    if (moves(type, interval.unit)) return undefined;
    const when = type && !name.startsWith('TIME_') ? ` when the argument is ${type} type` : '';
    return { message: `${name} does not support the ${interval.unit.toUpperCase()} date part${when}` };
  };
}

/** LAST_DAY's part: a week, month, quarter or year (not DAY). */
export const lastDayPart: ArgumentCheck = (args) => {
  const part = args[1];
  return part?.kind === 'date_part' && part.part === 'day' ? { message: 'LAST_DAY does not support the DAY date part' } : undefined;
};
