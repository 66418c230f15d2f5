/**
 * ClickHouse renderings of BigQuery's date, datetime, time and timestamp functions, branching on
 * the types the analyzer resolved. Types and calendar rules are in calendar.ts, format elements in
 * formats.ts.
 */

import { arg, argType, type CallParts, type Emitter, type Renderings } from '../../../sql/emitters.ts';
import type { DATE_FUNCTIONS } from '../../../sql/functions/families/date.ts';
import type { DATETIME_FUNCTIONS } from '../../../sql/functions/families/datetime.ts';
import type { TIME_FUNCTIONS } from '../../../sql/functions/families/time.ts';
import type { TIMESTAMP_FUNCTIONS } from '../../../sql/functions/families/timestamp.ts';
import type { TimeType } from '../../../sql/format-elements.ts';
import { FIXED_PART_MICROS } from '../../../sql/functions/families/time-parts.ts';
import type * as ir from '../../../sql/ir.ts';
import { invalidSql } from '../../../sql/parse.ts';
import { civilMicros, parseTimestampText } from '../../../sql/time-literals.ts';
import type { Zone } from '../../../sql/time-zones.ts';
import {
  TIMESTAMP_TYPE,
  boundariesBetween,
  dateOf,
  datetimeOf,
  epochDays,
  floorDivide,
  instantOf,
  micros,
  offsetMinutesAt,
  timeOf,
  timestampOf,
  truncateDate,
  truncateDatetime,
  truncateTime,
  truncateTimestamp,
  unitsElapsed,
  wallClock,
  zoneArg,
} from './calendar.ts';
import { formatSql, parseSql } from './formats.ts';
import { raiseWhere } from './shared.ts';

export { TIMESTAMP_TYPE as TIMESTAMP };

/** The date parts an INTERVAL may count, as ClickHouse names them in toInterval<Unit>(). */
const INTERVAL_UNITS: Partial<Record<ir.DatePart, string>> = {
  microsecond: 'Microsecond',
  millisecond: 'Millisecond',
  second: 'Second',
  minute: 'Minute',
  hour: 'Hour',
  day: 'Day',
  week: 'Week',
  month: 'Month',
  quarter: 'Quarter',
  year: 'Year',
};

export function intervalUnit(part: ir.DatePart): string {
  const unit = INTERVAL_UNITS[part];
  if (!unit) throw invalidSql(`INTERVAL unit ${part.toUpperCase()} is not supported`);
  return unit;
}

/** The value moved by an INTERVAL: `INTERVAL n part` as ClickHouse's interval, another INTERVAL by its months, days and microseconds. */
export function moveBy(call: CallParts, value: string, index: number, operator: '+' | '-'): string {
  const raw = call.raw[index];
  if (raw?.kind === 'interval') return `(${value} ${operator} toInterval${intervalUnit(raw.unit)}(toInt64(${call.print(raw.value)})))`;
  const interval = arg(call, index);
  const sign = operator === '-' ? '-' : '';
  return `addMicroseconds(addDays(addMonths(${value}, ${sign}tupleElement(${interval}, 1)), ${sign}tupleElement(${interval}, 2)), ${sign}tupleElement(${interval}, 3))`;
}

const UTC_STARTS: Partial<Record<ir.DatePart, string>> = { millisecond: 'toStartOfMillisecond', second: 'toStartOfSecond', minute: 'toStartOfMinute', hour: 'toStartOfHour', day: 'toStartOfDay' };

function partOf(call: CallParts, index: number): { part: ir.DatePart; weekStart?: string } {
  const raw = call.raw[index];
  if (raw?.kind !== 'date_part') throw invalidSql('expected a date part keyword');
  return { part: raw.part, ...(raw.weekStart ? { weekStart: raw.weekStart } : {}) };
}

const isUtc = (zone: Zone) => zone.kind === 'offset' && zone.minutes === 0;

/** BigQuery's error for the rows where `failing` holds (NULL under SAFE), else `value`. */
const checked = (call: CallParts, failing: string, message: string, value: string) => `if(${failing}, ${call.safe ? 'NULL' : raiseWhere(failing, message)}, ${value})`;

/** DATE_ADD and its kin: the value moved by `INTERVAL n part`, a DATETIME or TIMESTAMP in BigQuery's range. */
const moved =
  (operator: '+' | '-'): Emitter =>
  (call) => {
    const type = argType(call, 0);
    if (type === 'DATETIME' || type === 'TIMESTAMP') return movedInRange(call, arg(call, 0), 1, operator, type);
    const value = moveBy(call, arg(call, 0), 1, operator);
    return type === 'DATE' && call.raw[1]?.kind === 'interval' ? `toDate32(${value})` : value;
  };

/**
 * The DateTime64 `value` (a `type`) moved by the INTERVAL at `index`; where the result would leave
 * BigQuery's range, 0001-01-01 00:00:00 to 9999-12-31 23:59:59.999999, BigQuery's error
 * (ClickHouse's DateTime64 arithmetic saturates or wraps).
 */
export function movedInRange(call: CallParts, value: string, index: number, operator: '+' | '-', type: 'DATETIME' | 'TIMESTAMP'): string {
  return checked(call, leavesRange(call, value, index, operator), `${type} out of range`, moveBy(call, value, index, operator));
}

/** Microseconds in one of each part of a fixed length; months, quarters and years are counted in months. */
const PART_MICROS: Partial<Record<ir.DatePart, number>> = { ...FIXED_PART_MICROS, week: 7 * FIXED_PART_MICROS.day! };
const PART_MONTHS: Partial<Record<ir.DatePart, number>> = { month: 1, quarter: 3, year: 12 };

/**
 * Whether moving `value` by the INTERVAL at `index` leaves BigQuery's range, computed in Int128
 * before moving: in months from year 0 for the month step (one that stays in range keeps the day
 * in range, as it is clamped to the month's last day), then in microseconds from the epoch.
 */
function leavesRange(call: CallParts, value: string, index: number, operator: '+' | '-'): string {
  const sign = operator === '-' ? '-' : '';
  const raw = call.raw[index];
  if (raw?.kind === 'interval') {
    const count = `${sign}toInt128(${call.print(raw.value)})`;
    const months = PART_MONTHS[raw.unit];
    return months !== undefined ? monthsOutside(value, `${count} * ${months}`) : microsOutside(value, `${count} * ${PART_MICROS[raw.unit] ?? 1}`);
  }
  const interval = arg(call, index);
  const months = `${sign}tupleElement(${interval}, 1)`;
  const rest = `${sign}(toInt128(tupleElement(${interval}, 2)) * 86400000000 + tupleElement(${interval}, 3))`;
  return `(${monthsOutside(value, `toInt128(${months})`)} OR ${microsOutside(`addMonths(${value}, ${months})`, rest)})`;
}

const monthsOutside = (value: string, months: string) => `((toYear(${value}) * 12 + toMonth(${value}) - 1) + ${months} NOT BETWEEN 12 AND ${9999 * 12 + 11})`;
/** -62135596800000000 and 253402300799999999: 0001-01-01 00:00:00 and 9999-12-31 23:59:59.999999 in microseconds from the epoch. */
const microsOutside = (value: string, micros: string) => `(toUnixTimestamp64Micro(${value}) + ${micros} NOT BETWEEN -62135596800000000 AND 253402300799999999)`;

const difference: Emitter = (call) => {
  const { part, weekStart } = partOf(call, 2);
  const type = argType(call, 0);
  if (type === 'TIMESTAMP') return unitsElapsed(arg(call, 0), arg(call, 1), part);
  return boundariesBetween(arg(call, 0), arg(call, 1), type === 'DATE' || type === 'TIME' ? type : 'DATETIME', part, weekStart);
};

const truncation: Emitter = (call) => {
  const { part, weekStart } = partOf(call, 1);
  const value = arg(call, 0);
  switch (argType(call, 0)) {
    case 'DATE':
      return `toDate32(${truncateDate(value, part, weekStart)})`;
    case 'TIME':
      return truncateTime(value, part);
    case 'TIMESTAMP': {
      const zone = zoneArg(call, 2);
      const start = UTC_STARTS[part];
      if (start && isUtc(zone)) return `toDateTime64(${start}(${value}), 6, 'UTC')`;
      return truncateTimestamp(value, part, weekStart, zone);
    }
    default:
      return truncateDatetime(value, part, weekStart);
  }
};

function formatted(call: CallParts, name: string): string {
  const raw = call.raw[0];
  if (raw?.kind !== 'string') throw invalidSql(`${name} needs its format as a string literal`);
  const value = arg(call, 1);
  const type = (argType(call, 1) ?? 'TIMESTAMP') as TimeType;
  switch (type) {
    case 'DATE':
      return formatSql(raw.value, type, { wall: value, wallMicros: `${epochDays(value)} * 86400000000`, epochMicros: `${epochDays(value)} * 86400000000` });
    case 'TIME':
    case 'DATETIME':
      return formatSql(raw.value, type, { wall: value, wallMicros: micros(value), epochMicros: micros(value) });
    default: {
      const zone = zoneArg(call, 2);
      const wall = wallClock(value, zone);
      return formatSql(raw.value, 'TIMESTAMP', { wall, wallMicros: micros(wall), epochMicros: micros(value), offsetMinutes: offsetMinutesAt(value, zone) });
    }
  }
}

function parsed(type: TimeType, name: string): Emitter {
  return (call) => {
    const raw = call.raw[0];
    if (raw?.kind !== 'string') throw invalidSql(`${name} needs its format as a string literal`);
    const input = arg(call, 1);
    const { matches, parts, withGroups } = parseSql(raw.value, type, input, name);
    const value = type === 'TIMESTAMP' ? parsedInstant(call, parts) : type === 'DATE' ? dateOf(parts.value) : type === 'TIME' ? timeOf(parts.value) : datetimeOf(parts.value);
    const notInRange = `NOT (${parts.inRange})`;
    const notValid = `NOT (${parts.validDate})`;
    const assembled = withGroups(checked(call, notInRange, 'Failed to parse input string', checked(call, notValid, 'Out-of-range datetime field in parsing function', value)));
    const mismatch = `NOT ${matches}`;
    return `if(isNull(${input}), NULL, ${checked(call, mismatch, 'Failed to parse input string', assembled)})`;
  };
}

function parsedInstant(call: CallParts, parts: ReturnType<typeof parseSql>['parts']): string {
  if (parts.epochSeconds) return timestampOf(`${parts.epochSeconds} * 1000000`);
  if (parts.offsetMinutes) return timestampOf(`${parts.value} - ${parts.offsetMinutes} * 60000000`);
  if (parts.zoneName) throw invalidSql('PARSE_TIMESTAMP with %Z is not supported on ClickHouse: its time zone functions take a constant zone');
  return instantOf(datetimeOf(parts.value), zoneArg(call, 2));
}

function lastDay(call: CallParts): string {
  const date = argType(call, 0) === 'DATE' ? arg(call, 0) : `toDate32(${arg(call, 0)})`;
  const { part, weekStart } = call.raw[1] ? partOf(call, 1) : { part: 'month' as const, weekStart: undefined };
  switch (part) {
    case 'week':
    case 'isoweek':
      return `addDays(${truncateDate(date, part, weekStart)}, 6)`;
    case 'isoyear':
      return `subtractDays(toStartOfISOYear(addDays(toStartOfISOYear(${date}), 371)), 1)`;
    case 'month':
      return `toLastDayOfMonth(${date})`;
    default:
      return `subtractDays(addMonths(${truncateDate(date, part)}, ${part === 'year' ? 12 : 3}), 1)`;
  }
}

/** Whether year, month and day name a day that exists (BigQuery refuses DATE(2021, 2, 30)). */
const validDay = (year: string, month: string, day: string) =>
  `(${month} BETWEEN 1 AND 12 AND ${day} BETWEEN 1 AND toDayOfMonth(toLastDayOfMonth(makeDate32(${year}, ${month}, 1))) AND ${year} BETWEEN 1 AND 9999)`;
const validClock = (hour: string, minute: string, second: string) => `(${hour} BETWEEN 0 AND 23 AND ${minute} BETWEEN 0 AND 59 AND ${second} BETWEEN 0 AND 59)`;

function timestampOfText(call: CallParts): string {
  const raw = call.raw[0];
  const zone = call.raw[1] ? zoneArg(call, 1) : undefined;
  if (raw?.kind === 'string') {
    const text = parseTimestampText(raw.value);
    if (!text) throw invalidSql(`Invalid timestamp: '${raw.value}'`);
    const written = text.zone ?? zone ?? { kind: 'offset', minutes: 0 };
    if (written.kind === 'offset') return timestampOf(String(civilMicros(text.civil, written.minutes)));
    return instantOf(datetimeOf(String(civilMicros(text.civil))), written);
  }
  const value = arg(call, 0);
  if (zone) return instantOf(`parseDateTime64BestEffort(assumeNotNull(${value}), 6)`, zone);
  return `if(isNull(${value}), NULL, parseDateTime64BestEffort(assumeNotNull(${value}), 6, 'UTC'))`;
}

const now = "now64(6, 'UTC')";
const int64 = (value: string) => `toInt64(${value})`;
const DAY = 'toInt64(86400000000)';
const dayMicros = (value: string) => `((${micros(value)} % ${DAY} + ${DAY}) % ${DAY})`;

export const DATE: Renderings<typeof DATE_FUNCTIONS> = {
  current_date: (call) => `toDate32(${wallClock(now, zoneArg(call, 0))})`,
  date: (call) => {
    if (call.args.length === 3) {
      const [year, month, day] = call.args.map(int64) as [string, string, string];
      return checked(call, `NOT ${validDay(year, month, day)}`, 'Invalid date', `makeDate32(${year}, ${month}, ${day})`);
    }
    if (argType(call, 0) === 'TIMESTAMP') return `toDate32(${wallClock(arg(call, 0), zoneArg(call, 1))})`;
    return `toDate32(${arg(call, 0)})`;
  },
  date_add: moved('+'),
  date_diff: difference,
  date_from_unix_date: (call) => dateOf(int64(arg(call, 0))),
  date_sub: moved('-'),
  date_trunc: truncation,
  format_date: (call) => formatted(call, 'FORMAT_DATE'),
  last_day: lastDay,
  parse_date: parsed('DATE', 'PARSE_DATE'),
  unix_date: (call) => epochDays(arg(call, 0)),
};

export const DATETIME: Renderings<typeof DATETIME_FUNCTIONS> = {
  current_datetime: (call) => wallClock(now, zoneArg(call, 0)),
  datetime: (call) => {
    if (call.args.length === 6) {
      const [year, month, day, hour, minute, second] = call.args.map(int64) as [string, string, string, string, string, string];
      const value = `makeDateTime64(${year}, ${month}, ${day}, ${hour}, ${minute}, ${second}, 0, 6)`;
      return checked(call, `NOT (${validDay(year, month, day)} AND ${validClock(hour, minute, second)})`, 'Invalid datetime', value);
    }
    if (call.args.length === 2 && argType(call, 1) === 'TIME') return datetimeOf(`${epochDays(arg(call, 0))} * ${DAY} + ${micros(arg(call, 1))}`);
    if (argType(call, 0) === 'TIMESTAMP') return wallClock(arg(call, 0), zoneArg(call, 1));
    if (argType(call, 0) === 'DATE') return `toDateTime64(${arg(call, 0)}, 6)`;
    return arg(call, 0);
  },
  datetime_add: moved('+'),
  datetime_diff: difference,
  datetime_sub: moved('-'),
  datetime_trunc: truncation,
  format_datetime: (call) => formatted(call, 'FORMAT_DATETIME'),
  parse_datetime: parsed('DATETIME', 'PARSE_DATETIME'),
};

export const TIME: Renderings<typeof TIME_FUNCTIONS> = {
  current_time: (call) => timeOf(dayMicros(wallClock(now, zoneArg(call, 0)))),
  format_time: (call) => formatted(call, 'FORMAT_TIME'),
  parse_time: parsed('TIME', 'PARSE_TIME'),
  time: (call) => {
    if (call.args.length === 3) {
      const [hour, minute, second] = call.args.map(int64) as [string, string, string];
      return checked(call, `NOT ${validClock(hour, minute, second)}`, 'Invalid time', timeOf(`((${hour} * 60 + ${minute}) * 60 + ${second}) * 1000000`));
    }
    if (argType(call, 0) === 'TIME') return arg(call, 0);
    const wall = argType(call, 0) === 'TIMESTAMP' ? wallClock(arg(call, 0), zoneArg(call, 1)) : arg(call, 0);
    return timeOf(dayMicros(wall));
  },
  time_add: (call) => timeOf(dayMicros(moveBy(call, arg(call, 0), 1, '+'))),
  time_diff: difference,
  time_sub: (call) => timeOf(dayMicros(moveBy(call, arg(call, 0), 1, '-'))),
  time_trunc: truncation,
};

export const TIMESTAMP_RENDERINGS: Renderings<typeof TIMESTAMP_FUNCTIONS> = {
  current_timestamp: () => now,
  format_timestamp: (call) => formatted(call, 'FORMAT_TIMESTAMP'),
  parse_timestamp: parsed('TIMESTAMP', 'PARSE_TIMESTAMP'),
  timestamp: (call) => {
    switch (argType(call, 0)) {
      case 'TIMESTAMP':
        return arg(call, 0);
      case 'DATE':
        return instantOf(`toDateTime64(${arg(call, 0)}, 6)`, zoneArg(call, 1));
      case 'DATETIME':
        return instantOf(arg(call, 0), zoneArg(call, 1));
      default:
        return timestampOfText(call);
    }
  },
  timestamp_add: moved('+'),
  timestamp_diff: difference,
  timestamp_micros: (call) => timestampOf(int64(arg(call, 0))),
  timestamp_millis: (call) => timestampOf(`${int64(arg(call, 0))} * 1000`),
  timestamp_seconds: (call) => timestampOf(`${int64(arg(call, 0))} * 1000000`),
  timestamp_sub: moved('-'),
  timestamp_trunc: truncation,
  unix_micros: (call) => micros(arg(call, 0)),
  unix_millis: (call) => floorDivide(micros(arg(call, 0)), 1000),
  unix_seconds: (call) => floorDivide(micros(arg(call, 0)), 1000000),
};

