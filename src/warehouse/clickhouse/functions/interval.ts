/**
 * ClickHouse renderings of BigQuery's INTERVAL functions, the operators on dates, times and
 * intervals, and the time series functions. ClickHouse's own intervals have one unit each and
 * cannot be stored or compared across units, so a BigQuery INTERVAL is a Tuple(Int64, Int64,
 * Int64) of months, days and microseconds; its text goes out in BigQuery's form (`intervalText`).
 */

import { arg, argType, type CallParts, type Emitter, type Renderings } from '../../../sql/emitters.ts';
import type { INTERVAL_FUNCTIONS, TEMPORAL_OPERATORS } from '../../../sql/functions/families/interval.ts';
import type { TIME_SERIES_FUNCTIONS } from '../../../sql/functions/families/time_series.ts';
import type * as ir from '../../../sql/ir.ts';
import { dateOf, datetimeOf, epochDays, floorDivide, micros, timeOf, timestampOf } from './calendar.ts';
import { raiseWhere } from './shared.ts';
import { moveBy, movedInRange } from './time.ts';

/** A day's microseconds, as an Int64: a bare constant past Int32 is a UInt64 to ClickHouse, and % of a negative Int64 by it wraps around. */
const MICROS_PER_DAY = 'toInt64(86400000000)';

export const intervalOf = (months: string, days: string, us: string) => `tuple(toInt64(${months}), toInt64(${days}), toInt64(${us}))`;
const fields = (interval: string) => ({ months: `tupleElement(${interval}, 1)`, days: `tupleElement(${interval}, 2)`, micros: `tupleElement(${interval}, 3)` });

/** The months, days and microseconds of `INTERVAL n part`. */
const UNIT_FIELDS: Partial<Record<ir.DatePart, [number, number, number]>> = {
  year: [12, 0, 0],
  quarter: [3, 0, 0],
  month: [1, 0, 0],
  week: [0, 7, 0],
  day: [0, 1, 0],
  hour: [0, 0, 3_600_000_000],
  minute: [0, 0, 60_000_000],
  second: [0, 0, 1_000_000],
  millisecond: [0, 0, 1_000],
  microsecond: [0, 0, 1],
};

/** `INTERVAL n part` as a value. */
export function intervalLiteral(count: string, unit: ir.DatePart): string {
  const [months, days, us] = UNIT_FIELDS[unit] ?? [0, 0, 0];
  const times = (factor: number) => (factor === 0 ? '0' : `toInt64(${count}) * ${factor}`);
  return intervalOf(times(months), times(days), times(us));
}

/** BigQuery's text of an INTERVAL: `Y-M D H:M:S[.fff[fff]]`, the sign before the months and before the time. */
export function intervalText(interval: string): string {
  const { months, days, micros: us } = fields(interval);
  const fraction = `(abs(${us}) % 1000000)`;
  const fractionText = `multiIf(${fraction} = 0, '', ${fraction} % 1000 = 0, concat('.', leftPad(toString(intDiv(${fraction}, 1000)), 3, '0')), concat('.', leftPad(toString(${fraction}), 6, '0')))`;
  return (
    `concat(if(${months} < 0, '-', ''), toString(intDiv(abs(${months}), 12)), '-', toString(abs(${months}) % 12), ' ', toString(${days}), ' ', ` +
    `if(${us} < 0, '-', ''), toString(intDiv(abs(${us}), 3600000000)), ':', toString(intDiv(abs(${us}), 60000000) % 60), ':', toString(intDiv(abs(${us}), 1000000) % 60), ${fractionText})`
  );
}

function justify(hours: boolean, days: boolean): Emitter {
  return (call) => {
    const value = fields(arg(call, 0));
    let [m, d, us] = [value.months, value.days, value.micros];
    if (hours) {
      const total = `(${d} + intDiv(${us}, ${MICROS_PER_DAY}))`;
      const rest = `(${us} % ${MICROS_PER_DAY})`;
      [d, us] = [
        `multiIf(${total} > 0 AND ${rest} < 0, ${total} - 1, ${total} < 0 AND ${rest} > 0, ${total} + 1, ${total})`,
        `multiIf(${total} > 0 AND ${rest} < 0, ${rest} + ${MICROS_PER_DAY}, ${total} < 0 AND ${rest} > 0, ${rest} - ${MICROS_PER_DAY}, ${rest})`,
      ];
    }
    if (days) {
      const total = `(${m} + intDiv(${d}, 30))`;
      const rest = `(${d} % 30)`;
      const borrow = `(${total} > 0 AND (${rest} < 0${hours ? ` OR (${rest} = 0 AND ${us} < 0)` : ''}))`;
      const lend = `(${total} < 0 AND (${rest} > 0${hours ? ` OR (${rest} = 0 AND ${us} > 0)` : ''}))`;
      [m, d] = [`multiIf(${borrow}, ${total} - 1, ${lend}, ${total} + 1, ${total})`, `multiIf(${borrow}, ${rest} + 30, ${lend}, ${rest} - 30, ${rest})`];
      if (hours) {
        const dayCount = d;
        const borrowDay = `(${dayCount} > 0 AND ${us} < 0)`;
        const lendDay = `(${dayCount} < 0 AND ${us} > 0)`;
        [d, us] = [`multiIf(${borrowDay}, ${dayCount} - 1, ${lendDay}, ${dayCount} + 1, ${dayCount})`, `multiIf(${borrowDay}, ${us} + ${MICROS_PER_DAY}, ${lendDay}, ${us} - ${MICROS_PER_DAY}, ${us})`];
      }
    }
    return intervalOf(m, d, us);
  };
}

const MAKE_INTERVAL_PARTS = ['year', 'month', 'day', 'hour', 'minute', 'second'] as const;

export const INTERVAL: Renderings<typeof INTERVAL_FUNCTIONS> = {
  justify_days: justify(false, true),
  justify_hours: justify(true, false),
  justify_interval: justify(true, true),
  make_interval: (call) => {
    const [year, month, day, hour, minute, second] = MAKE_INTERVAL_PARTS.map((name, index) => `toInt64(${call.args[index] ?? call.named[name] ?? '0'})`) as [string, string, string, string, string, string];
    return intervalOf(`${year} * 12 + ${month}`, day, `(${hour} * 3600 + ${minute} * 60 + ${second}) * 1000000`);
  },
};

const types = (call: CallParts) => call.args.map((_, index) => argType(call, index));

/** A moved value for `a ± b`, where one operand is an INTERVAL: a DATETIME (a DATE's too) or TIMESTAMP in BigQuery's range. */
function movedBy(call: CallParts, valueIndex: number, operator: '+' | '-'): string {
  const type = argType(call, valueIndex);
  const value = type === 'DATE' ? `toDateTime64(${arg(call, valueIndex)}, 6)` : arg(call, valueIndex);
  if (type === 'DATE' || type === 'DATETIME') return movedInRange(call, value, 1 - valueIndex, operator, 'DATETIME');
  if (type === 'TIMESTAMP') return movedInRange(call, value, 1 - valueIndex, operator, 'TIMESTAMP');
  return moveBy(call, value, 1 - valueIndex, operator);
}

export const OPERATORS: Renderings<typeof TEMPORAL_OPERATORS> = {
  temporal_add: (call) => {
    const [left, right] = types(call);
    const [a, b] = [arg(call, 0), arg(call, 1)];
    if (left === 'DATE' && right === 'INT64') return `addDays(${a}, toInt64(${b}))`;
    if (left === 'INT64' && right === 'DATE') return `addDays(${b}, toInt64(${a}))`;
    if (left === 'INTERVAL' && right === 'INTERVAL') {
      const [x, y] = [fields(a), fields(b)];
      return intervalOf(`${x.months} + ${y.months}`, `${x.days} + ${y.days}`, `${x.micros} + ${y.micros}`);
    }
    if (right === 'INTERVAL') return movedBy(call, 0, '+');
    if (left === 'INTERVAL') return movedBy(call, 1, '+');
    return `(${a} + ${b})`;
  },
  temporal_subtract: (call) => {
    const [left, right] = types(call);
    const [a, b] = [arg(call, 0), arg(call, 1)];
    if (left === 'DATE' && right === 'INT64') return `subtractDays(${a}, toInt64(${b}))`;
    if (left === 'DATE' && right === 'DATE') return intervalOf('0', `${epochDays(a)} - ${epochDays(b)}`, '0');
    if ((left === 'TIMESTAMP' || left === 'TIME') && left === right) return intervalOf('0', '0', `${micros(a)} - ${micros(b)}`);
    if (left === 'DATETIME' && right === 'DATETIME') {
      const us = `(${micros(a)} - ${micros(b)})`;
      return intervalOf('0', `intDiv(${us}, ${MICROS_PER_DAY})`, `${us} % ${MICROS_PER_DAY}`);
    }
    if (left === 'INTERVAL' && right === 'INTERVAL') {
      const [x, y] = [fields(a), fields(b)];
      return intervalOf(`${x.months} - ${y.months}`, `${x.days} - ${y.days}`, `${x.micros} - ${y.micros}`);
    }
    if (right === 'INTERVAL') return movedBy(call, 0, '-');
    return `(${a} - ${b})`;
  },
  interval_multiply: (call) => {
    const intervalAt = argType(call, 0) === 'INTERVAL' ? 0 : 1;
    const value = fields(arg(call, intervalAt));
    const times = `toInt64(${arg(call, 1 - intervalAt)})`;
    return intervalOf(`${value.months} * ${times}`, `${value.days} * ${times}`, `${value.micros} * ${times}`);
  },
  interval_divide: (call) => {
    const { months, days, micros: us } = fields(arg(call, 0));
    const divisor = `toInt64(${arg(call, 1)})`;
    const dayTotal = `(${days} + (${months} % ${divisor}) * 30)`;
    const microTotal = `(${us} + (${dayTotal} % ${divisor}) * ${MICROS_PER_DAY})`;
    const failing = `${divisor} = 0`;
    return `if(${failing}, ${call.safe ? 'NULL' : raiseWhere(failing, 'Interval division by zero')}, ${intervalOf(`intDiv(${months}, ${divisor})`, `intDiv(${dayTotal}, ${divisor})`, `intDiv(${microTotal}, ${divisor})`)})`;
  },
  interval_negate: (call) => {
    const value = fields(arg(call, 0));
    return intervalOf(`-${value.months}`, `-${value.days}`, `-${value.micros}`);
  },
  interval_parts: (call) => intervalOf(arg(call, 0), arg(call, 1), arg(call, 2)),
};

/** TIMESTAMP_BUCKET and its kin; see DuckDB's interval.ts for the rules. */
function bucket(call: CallParts): string {
  const type = argType(call, 0) ?? 'TIMESTAMP';
  const value = arg(call, 0);
  const width = fields(arg(call, 1));
  const origin = call.args[2] ?? { DATE: "toDate32('1950-01-01')", DATETIME: "toDateTime64('1950-01-01 00:00:00', 6)", TIMESTAMP: "toDateTime64('1950-01-01 00:00:00', 6, 'UTC')" }[type as 'DATE'] ?? "toDateTime64('1950-01-01 00:00:00', 6)";
  const asMicros = (sql: string) => (type === 'DATE' ? `${epochDays(sql)} * ${MICROS_PER_DAY}` : micros(sql));
  // Widths of the other kind are 1 here: ClickHouse may compute every branch of multiIf.
  const fixed = `greatest(${width.days} * ${MICROS_PER_DAY} + ${width.micros}, 1)`;
  const start = `(${asMicros(origin)} + ${floorDivide(`${asMicros(value)} - ${asMicros(origin)}`, fixed)} * ${fixed})`;
  const fromMicros = type === 'DATE' ? dateOf(`intDiv(${start}, ${MICROS_PER_DAY})`) : type === 'TIMESTAMP' ? timestampOf(start) : type === 'TIME' ? timeOf(start) : datetimeOf(start);
  const monthNumber = (sql: string) => `(toInt64(toYear(${sql})) * 12 + toMonth(${sql}))`;
  const monthsApart = `(${monthNumber(value)} - ${monthNumber(origin)})`;
  const monthWidth = `greatest(${width.months}, 1)`;
  const rem = `(((${monthsApart} % ${monthWidth}) + ${monthWidth}) % ${monthWidth})`;
  const withinMonth = (sql: string) => `(${asMicros(sql)} - ${epochDays(`toStartOfMonth(${sql})`)} * ${MICROS_PER_DAY})`;
  const isLastDay = (sql: string) => `(toDate32(${sql}) = toLastDayOfMonth(${sql}))`;
  const early = `(${withinMonth(value)} < ${withinMonth(origin)} AND NOT (${isLastDay(value)} AND ${isLastDay(origin)}))`;
  const months = `(${monthsApart} - ${rem} - if(${rem} = 0 AND ${early}, ${width.months}, 0))`;
  const monthValue = `addMonths(${origin}, ${months})`;
  const invalid = `(${width.months} < 0 OR ${width.days} < 0 OR ${width.micros} < 0 OR (if(${width.months} > 0, 1, 0) + if(${width.days} > 0, 1, 0) + if(${width.micros} > 0, 1, 0)) != 1${type === 'TIMESTAMP' ? ` OR ${width.months} > 0` : type === 'DATE' ? ` OR ${width.micros} > 0` : ''})`;
  const message = 'Bucket width INTERVAL must have exactly one non-zero part of a unit the value has';
  return `multiIf(${invalid}, ${call.safe ? 'NULL' : raiseWhere(invalid, message)}, ${width.months} > 0, ${monthValue}, ${fromMicros})`;
}

export const TIME_SERIES: Renderings<typeof TIME_SERIES_FUNCTIONS> = {
  date_bucket: bucket,
  datetime_bucket: bucket,
  timestamp_bucket: bucket,
};
