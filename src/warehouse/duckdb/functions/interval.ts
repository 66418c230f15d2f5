/**
 * DuckDB renderings of BigQuery's INTERVAL functions, the operators on dates, times and
 * intervals, and the time series functions. DuckDB's INTERVAL is BigQuery's (months, days and
 * microseconds, kept apart); its text goes out in BigQuery's canonical form (`intervalText`).
 */

import { arg, argType, resultType, type CallParts, type Emitter, type Renderings } from '../../../sql/emitters.ts';
import type { INTERVAL_FUNCTIONS, TEMPORAL_OPERATORS } from '../../../sql/functions/families/interval.ts';
import type { TIME_SERIES_FUNCTIONS } from '../../../sql/functions/families/time_series.ts';
import { fail } from './shared.ts';
import { inTypeRange } from './time.ts';

const MICROS_PER_DAY = 86_400_000_000;

/** An INTERVAL's three fields, as BigQuery keeps them. */
function fields(interval: string): { months: string; days: string; micros: string } {
  return {
    months: `(datepart('year', ${interval}) * 12 + datepart('month', ${interval}))`,
    days: `datepart('day', ${interval})`,
    micros: `(datepart('hour', ${interval}) * 3600000000 + datepart('minute', ${interval}) * 60000000 + datepart('microseconds', ${interval}))`,
  };
}

/** An INTERVAL of months, days and microseconds (each an INT64 in SQL). */
export const intervalOf = (months: string, days: string, micros: string) =>
  `(to_months(CAST(${months} AS INTEGER)) + to_days(CAST(${days} AS INTEGER)) + to_microseconds(CAST(${micros} AS BIGINT)))`;

/** BigQuery's text of an INTERVAL: `Y-M D H:M:S[.fff[fff]]`, the sign before the months and before the time. */
export function intervalText(interval: string): string {
  const { months, days, micros } = fields(interval);
  const text = (value: string) => `CAST(${value} AS VARCHAR)`;
  const absMonths = `abs(${months})`;
  const absMicros = `abs(${micros})`;
  const fraction = `(${absMicros} % 1000000)`;
  const fractionText = `CASE WHEN ${fraction} = 0 THEN '' WHEN ${fraction} % 1000 = 0 THEN '.' || lpad(${text(`${fraction} // 1000`)}, 3, '0') ELSE '.' || lpad(${text(fraction)}, 6, '0') END`;
  return (
    `CASE WHEN ${interval} IS NULL THEN NULL ELSE ` +
    `CASE WHEN ${months} < 0 THEN '-' ELSE '' END || ${text(`${absMonths} // 12`)} || '-' || ${text(`${absMonths} % 12`)} || ' ' || ${text(days)} || ' ' || ` +
    `CASE WHEN ${micros} < 0 THEN '-' ELSE '' END || ${text(`${absMicros} // 3600000000`)} || ':' || ${text(`${absMicros} // 60000000 % 60`)} || ':' || ${text(`${absMicros} // 1000000 % 60`)} || ${fractionText} END`
  );
}

/** JUSTIFY_HOURS / JUSTIFY_DAYS / JUSTIFY_INTERVAL, after ZetaSQL's (days of 24 hours, months of 30 days). */
function justify(hours: boolean, days: boolean): Emitter {
  return (call) => {
    const value = fields(arg(call, 0));
    let [m, d, us] = [value.months, value.days, value.micros];
    if (hours) {
      const total = `(${d} + ${us} // ${MICROS_PER_DAY})`;
      const rest = `(${us} % ${MICROS_PER_DAY})`;
      [d, us] = [
        `(CASE WHEN ${total} > 0 AND ${rest} < 0 THEN ${total} - 1 WHEN ${total} < 0 AND ${rest} > 0 THEN ${total} + 1 ELSE ${total} END)`,
        `(CASE WHEN ${total} > 0 AND ${rest} < 0 THEN ${rest} + ${MICROS_PER_DAY} WHEN ${total} < 0 AND ${rest} > 0 THEN ${rest} - ${MICROS_PER_DAY} ELSE ${rest} END)`,
      ];
    }
    if (days) {
      const total = `(${m} + ${d} // 30)`;
      const rest = `(${d} % 30)`;
      // JUSTIFY_INTERVAL also makes the months' sign win over a zero day count with time of the other sign.
      const timeSign = hours ? ` OR (${rest} = 0 AND ${us} < 0)` : '';
      const timeSignNegative = hours ? ` OR (${rest} = 0 AND ${us} > 0)` : '';
      const borrow = `(${total} > 0 AND (${rest} < 0${timeSign}))`;
      const lend = `(${total} < 0 AND (${rest} > 0${timeSignNegative}))`;
      [m, d] = [`(CASE WHEN ${borrow} THEN ${total} - 1 WHEN ${lend} THEN ${total} + 1 ELSE ${total} END)`, `(CASE WHEN ${borrow} THEN ${rest} + 30 WHEN ${lend} THEN ${rest} - 30 ELSE ${rest} END)`];
      if (hours) {
        const finalDays = d;
        const borrowDay = `(${finalDays} > 0 AND ${us} < 0)`;
        const lendDay = `(${finalDays} < 0 AND ${us} > 0)`;
        [d, us] = [`(CASE WHEN ${borrowDay} THEN ${finalDays} - 1 WHEN ${lendDay} THEN ${finalDays} + 1 ELSE ${finalDays} END)`, `(CASE WHEN ${borrowDay} THEN ${us} + ${MICROS_PER_DAY} WHEN ${lendDay} THEN ${us} - ${MICROS_PER_DAY} ELSE ${us} END)`];
      }
    }
    return intervalOf(m, d, us);
  };
}

const MAKE_INTERVAL_PARTS = ['year', 'month', 'day', 'hour', 'minute', 'second'] as const;

/** MAKE_INTERVAL's arguments by name, positional ones first: 0 where not given. */
export function makeIntervalParts(call: CallParts): Record<(typeof MAKE_INTERVAL_PARTS)[number], string> {
  return Object.fromEntries(MAKE_INTERVAL_PARTS.map((name, index) => [name, call.args[index] ?? call.named[name] ?? '0'])) as Record<(typeof MAKE_INTERVAL_PARTS)[number], string>;
}

export const INTERVAL: Renderings<typeof INTERVAL_FUNCTIONS> = {
  justify_days: justify(false, true),
  justify_hours: justify(true, false),
  justify_interval: justify(true, true),
  make_interval: (call) => {
    const part = makeIntervalParts(call);
    const int = (value: string) => `CAST(${value} AS BIGINT)`;
    return intervalOf(`${int(part.year)} * 12 + ${int(part.month)}`, int(part.day), `(${int(part.hour)} * 3600 + ${int(part.minute)} * 60 + ${int(part.second)}) * 1000000`);
  },
};

/** Which operand is of which type, for the operators (the analyzer resolved them). */
const types = (call: CallParts) => call.args.map((_, index) => argType(call, index));

/** A DATE, DATETIME or TIMESTAMP result in its type's range, or BigQuery's error (DuckDB's own range is far wider). */
const inRange =
  (operator: Emitter): Emitter =>
  (call) =>
    inTypeRange(call, resultType(call), operator(call));

export const OPERATORS: Renderings<typeof TEMPORAL_OPERATORS> = {
  temporal_add: inRange((call) => {
    const [left, right] = types(call);
    const [a, b] = [arg(call, 0), arg(call, 1)];
    if (left === 'DATE' && right === 'INT64') return `CAST(${a} + CAST(${b} AS INTEGER) AS DATE)`;
    if (left === 'INT64' && right === 'DATE') return `CAST(${b} + CAST(${a} AS INTEGER) AS DATE)`;
    if (left === 'DATE') return `(CAST(${a} AS TIMESTAMP) + ${b})`;
    if (right === 'DATE') return `(CAST(${b} AS TIMESTAMP) + ${a})`;
    return left === 'INTERVAL' && right !== 'INTERVAL' ? `(${b} + ${a})` : `(${a} + ${b})`;
  }),
  temporal_subtract: inRange((call) => {
    const [left, right] = types(call);
    const [a, b] = [arg(call, 0), arg(call, 1)];
    if (left === 'DATE' && right === 'INT64') return `CAST(${a} - CAST(${b} AS INTEGER) AS DATE)`;
    if (left === 'DATE' && right === 'DATE') return `to_days(CAST(date_diff('day', ${b}, ${a}) AS INTEGER))`;
    if ((left === 'TIMESTAMP' || left === 'TIME') && left === right) return `to_microseconds(epoch_us(${a}) - epoch_us(${b}))`;
    if (left === 'DATETIME' && right === 'DATETIME') {
      const micros = `(epoch_us(${a}) - epoch_us(${b}))`;
      return `(to_days(CAST(${micros} // ${MICROS_PER_DAY} AS INTEGER)) + to_microseconds(${micros} % ${MICROS_PER_DAY}))`;
    }
    if (left === 'DATE') return `(CAST(${a} AS TIMESTAMP) - ${b})`;
    return `(${a} - ${b})`;
  }),
  interval_multiply: (call) => (argType(call, 0) === 'INTERVAL' ? `(${arg(call, 0)} * CAST(${arg(call, 1)} AS BIGINT))` : `(${arg(call, 1)} * CAST(${arg(call, 0)} AS BIGINT))`),
  interval_divide: (call) => {
    // ZetaSQL's division: the months' remainder carries into days (30 a month), the days' into microseconds.
    const { months, days, micros } = fields(arg(call, 0));
    const divisor = `CAST(${arg(call, 1)} AS BIGINT)`;
    const dayTotal = `(${days} + (${months} % ${divisor}) * 30)`;
    const microTotal = `(${micros} + (${dayTotal} % ${divisor}) * ${MICROS_PER_DAY})`;
    return `(CASE WHEN ${divisor} = 0 THEN ${fail(call, 'Interval division by zero')} ELSE ${intervalOf(`${months} // ${divisor}`, `${dayTotal} // ${divisor}`, `${microTotal} // ${divisor}`)} END)`;
  },
  interval_negate: (call) => `(- ${arg(call, 0)})`,
  interval_parts: (call) => intervalOf(arg(call, 0), arg(call, 1), arg(call, 2)),
};

/**
 * The first instant of the bucket of `width` (an INTERVAL of one part) that holds `value`, buckets
 * counted from `origin` both ways (1950-01-01 by default): fixed widths as arithmetic on epoch
 * microseconds, months on the months since the origin (its day, clamped to the month's length).
 */
function bucket(call: CallParts): string {
  const type = argType(call, 0) ?? 'TIMESTAMP';
  const value = arg(call, 0);
  const width = fields(arg(call, 1));
  const origin = call.args[2] ?? { DATE: "DATE '1950-01-01'", DATETIME: "TIMESTAMP '1950-01-01'", TIMESTAMP: "TIMESTAMPTZ '1950-01-01 00:00:00+00'" }[type as 'DATE'] ?? "TIMESTAMP '1950-01-01'";
  const asMicros = (sql: string) => (type === 'DATE' ? `epoch_us(CAST(${sql} AS TIMESTAMP))` : `epoch_us(${sql})`);
  const fixed = `(${width.days} * ${MICROS_PER_DAY} + ${width.micros})`;
  const offset = `(${asMicros(value)} - ${asMicros(origin)})`;
  const start = `(${asMicros(origin)} + (${offset} - ((${offset} % ${fixed}) + ${fixed}) % ${fixed}))`;
  const fromMicros = type === 'DATE' ? `CAST(make_timestamp(${start}) AS DATE)` : type === 'TIMESTAMP' ? `make_timestamptz(${start})` : `make_timestamp(${start})`;
  // Months: whole months from the origin, one less when the value's day and time come before the origin's.
  const wall = (sql: string) => (type === 'DATE' ? `CAST(${sql} AS TIMESTAMP)` : type === 'TIMESTAMP' ? `make_timestamp(epoch_us(${sql}))` : sql);
  const monthsApart = `date_diff('month', ${wall(origin)}, ${wall(value)})`;
  const rem = `(((${monthsApart} % ${width.months}) + ${width.months}) % ${width.months})`;
  const withinMonth = (sql: string) => `(epoch_us(${wall(sql)}) - epoch_us(date_trunc('month', ${wall(sql)})))`;
  const early = `(${withinMonth(value)} < ${withinMonth(origin)} AND NOT (last_day(${wall(value)}) = CAST(${wall(value)} AS DATE) AND last_day(${wall(origin)}) = CAST(${wall(origin)} AS DATE)))`;
  const months = `(${monthsApart} - ${rem} - CASE WHEN ${rem} = 0 AND ${early} THEN ${width.months} ELSE 0 END)`;
  const monthStart = `(${wall(origin)} + to_months(CAST(${months} AS INTEGER)))`;
  const monthValue = type === 'DATE' ? `CAST(${monthStart} AS DATE)` : type === 'TIMESTAMP' ? `make_timestamptz(epoch_us(${monthStart}))` : monthStart;
  const invalid = `${width.months} < 0 OR ${width.days} < 0 OR ${width.micros} < 0 OR (CASE WHEN ${width.months} > 0 THEN 1 ELSE 0 END + CASE WHEN ${width.days} > 0 THEN 1 ELSE 0 END + CASE WHEN ${width.micros} > 0 THEN 1 ELSE 0 END) <> 1`;
  const monthsRefused = type === 'TIMESTAMP' ? ` OR ${width.months} > 0` : type === 'DATE' ? ` OR ${width.micros} > 0` : '';
  return `(CASE WHEN ${invalid}${monthsRefused} THEN ${fail(call, 'Bucket width INTERVAL must have exactly one non-zero part of a unit the value has')} WHEN ${width.months} > 0 THEN ${monthValue} ELSE ${fromMicros} END)`;
}

export const TIME_SERIES: Renderings<typeof TIME_SERIES_FUNCTIONS> = {
  date_bucket: bucket,
  datetime_bucket: bucket,
  timestamp_bucket: bucket,
};
