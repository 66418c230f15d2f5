/**
 * ClickHouse's rendering of BigQuery's format elements (src/sql/format-elements.ts): FORMAT_* as
 * one formatDateTime call for the runs of elements ClickHouse writes exactly as BigQuery does, and
 * SQL for the others; PARSE_* as one regular expression match whose groups are assembled into the
 * value. The session reads formatDateTime's %M as minutes (formatdatetime_parsedatetime_m_is_month_name=0).
 */

import { assembleFormat, assembleParse, formatPieces, parsePlan, type FormatPiece, type NumberField, type ParseDialect, type ParsePlan, type TimeType } from '../../../sql/format-elements.ts';
import { quoted as quoteString } from './shared.ts';
import { floorDivide } from './calendar.ts';

/** formatDateTime's specifier for a piece it writes as BigQuery does, if it does. */
function nativeCode(piece: FormatPiece): string | undefined {
  if (piece.kind === 'name' && piece.casing !== undefined && piece.casing !== 'capitalized') return undefined;
  if (piece.kind === 'meridiem' && piece.dots) return undefined;
  if (piece.kind === 'name') return { weekday: '%W', weekday_short: '%a', month: undefined, month_short: '%b' }[piece.name];
  if (piece.kind === 'meridiem') return piece.lower ? undefined : '%p';
  if (piece.kind !== 'number' || piece.pad !== '0') return undefined;
  const codes: Partial<Record<NumberField, [string, number]>> = {
    day: ['%d', 2],
    hour: ['%H', 2],
    hour12: ['%I', 2],
    minute: ['%M', 2],
    month: ['%m', 2],
    second: ['%S', 2],
    dayofyear: ['%j', 3],
    isoweek: ['%V', 2],
    year2: ['%y', 2],
    weekday_monday1: ['%u', 0],
    weekday_sunday0: ['%w', 0],
  };
  const code = codes[piece.field];
  return code && code[1] === piece.width ? code[0] : undefined;
}

const padded = (value: string, width: number, pad: string) => (width === 0 ? `toString(${value})` : `leftPad(toString(${value}), ${width}, '${pad}')`);

function weekOfYear(wall: string, startsMonday: boolean): string {
  const dayOfYear = `toInt64(toDayOfYear(${wall}))`;
  const yearStartsOn = `((((toDayOfWeek(${wall}, 3) - 1) - (${dayOfYear} - 1)) % 7 + 7) % 7)`;
  const firstWeekStart = `((${startsMonday ? 1 : 0} - ${yearStartsOn} + 7) % 7)`;
  return `intDiv(${dayOfYear} + 6 - ${firstWeekStart}, 7)`;
}

function fieldValue(field: NumberField, wall: string, epochMicros: string): string {
  switch (field) {
    case 'year':
      return `toYear(${wall})`;
    case 'year2':
      return `(toYear(${wall}) % 100)`;
    case 'century':
      return `intDiv(toYear(${wall}), 100)`;
    case 'month':
      return `toMonth(${wall})`;
    case 'day':
      return `toDayOfMonth(${wall})`;
    case 'hour':
      return `toHour(${wall})`;
    case 'hour12':
      return `((toHour(${wall}) + 11) % 12 + 1)`;
    case 'minute':
      return `toMinute(${wall})`;
    case 'second':
      return `toSecond(${wall})`;
    case 'dayofyear':
      return `toDayOfYear(${wall})`;
    case 'weekday_monday1':
      return `toDayOfWeek(${wall}, 0)`;
    case 'weekday_sunday0':
      return `toDayOfWeek(${wall}, 2)`;
    case 'week_sunday':
      return weekOfYear(wall, false);
    case 'week_monday':
      return weekOfYear(wall, true);
    case 'isoweek':
      return `toISOWeek(${wall})`;
    case 'isoyear':
      return `toISOYear(${wall})`;
    case 'isoyear2':
      return `(toISOYear(${wall}) % 100)`;
    case 'iso_dayofyear':
      return `(dateDiff('day', toStartOfISOYear(${wall}), toDate32(${wall})) + 1)`;
    case 'quarter':
      return `toQuarter(${wall})`;
    case 'epoch_seconds':
      return floorDivide(epochMicros, 1000000);
    case 'year_last3':
      return `(toYear(${wall}) % 1000)`;
    case 'year_last1':
      return `(toYear(${wall}) % 10)`;
    case 'year_thousands':
      return `intDiv(toYear(${wall}), 1000)`;
    case 'weekday_sunday1':
      return `toDayOfWeek(${wall}, 3)`;
    case 'seconds_of_day':
      return `((toHour(${wall}) * 60 + toMinute(${wall})) * 60 + toSecond(${wall}))`;
  }
}

function offsetText(minutes: string, style: 'offset' | 'colon' | 'short' | 'zone'): string {
  const sign = `if(${minutes} < 0, '-', '+')`;
  const hours = `leftPad(toString(intDiv(abs(${minutes}), 60)), 2, '0')`;
  const rest = `leftPad(toString(abs(${minutes}) % 60), 2, '0')`;
  if (style === 'offset') return `concat(${sign}, ${hours}, ${rest})`;
  if (style === 'colon') return `concat(${sign}, ${hours}, ':', ${rest})`;
  if (style === 'short') return `concat(${sign}, ${hours}, if(abs(${minutes}) % 60 = 0, '', concat(':', ${rest})))`;
  const short = `if(abs(${minutes}) % 60 = 0, toString(intDiv(abs(${minutes}), 60)), concat(${hours}, ${rest}))`;
  return `if(${minutes} = 0, 'UTC', concat('UTC', ${sign}, ${short}))`;
}

function fractionText(epochMicros: string, digits: number | '*' | '3|6', dot: boolean): string {
  const fraction = `(((${epochMicros}) % 1000000 + 1000000) % 1000000)`;
  const six = `leftPad(toString(${fraction}), 6, '0')`;
  if (digits === '*') return dot ? `if(${fraction} = 0, '', concat('.', trimRight(${six}, '0')))` : `trimRight(${six}, '0')`;
  if (digits === '3|6') return `multiIf(${fraction} = 0, '', ${fraction} % 1000 = 0, concat('.', substring(${six}, 1, 3)), concat('.', ${six}))`;
  const fixed = digits <= 6 ? `substring(${six}, 1, ${digits})` : `rightPad(${six}, ${digits}, '0')`;
  return dot ? `concat('.', ${fixed})` : fixed;
}

export interface FormatValue {
  /** The wall clock to format (a DateTime64 or Date32 whose zone is the clock's). */
  wall: string;
  /** Microseconds since the epoch of the wall clock read as UTC (fractions), and of the instant (%s). */
  wallMicros: string;
  epochMicros: string;
  offsetMinutes?: string;
}

/** FORMAT_<type>(format, value) for a literal format (or pieces made otherwise: CAST's). */
export function formatSql(format: string | FormatPiece[], type: TimeType, value: FormatValue): string {
  return assembleFormat(typeof format === 'string' ? formatPieces(format, type) : format, {
    nativeCode: nativeCode,
    native: (codes) => `formatDateTime(${value.wall}, ${quoteString(codes)})`,
    piece: (piece) => pieceSql(piece, value),
    empty: `if(isNull(${value.wall}), NULL, '')`,
    concat: (parts) => `concat(${parts.join(', ')})`,
  });
}

function pieceSql(piece: Exclude<FormatPiece, { kind: 'text' }>, value: FormatValue): string {
  const offset = value.offsetMinutes ?? '0';
  switch (piece.kind) {
    case 'number':
      return padded(fieldValue(piece.field, value.wall, value.epochMicros), piece.width, piece.pad);
    case 'name': {
      const name = piece.name === 'month' ? `monthName(toDateTime64(${value.wall}, 6))` : `formatDateTime(${value.wall}, '${piece.name === 'weekday' ? '%W' : piece.name === 'weekday_short' ? '%a' : '%b'}')`;
      return piece.casing === 'upper' ? `upper(${name})` : piece.casing === 'lower' ? `lower(${name})` : name;
    }
    case 'meridiem': {
      const text = piece.dots ? `if(toHour(${value.wall}) < 12, 'A.M.', 'P.M.')` : `formatDateTime(${value.wall}, '%p')`;
      return piece.lower ? `lower(${text})` : text;
    }
    case 'fraction':
      return fractionText(value.wallMicros, piece.digits, piece.dot);
    case 'offset':
      if (piece.part === 'hours') return `concat(if(${offset} < 0, '-', '+'), leftPad(toString(intDiv(abs(${offset}), 60)), 2, '0'))`;
      if (piece.part === 'minutes') return `leftPad(toString(abs(${offset}) % 60), 2, '0')`;
      return offsetText(offset, piece.short ? 'short' : piece.colon ? 'colon' : 'offset');
    case 'zone':
      return offsetText(offset, 'zone');
  }
}

export interface ParseSql {
  matches: string;
  parts: ReturnType<typeof assembleParse>;
  withGroups(expression: string): string;
}

/** PARSE_<type>(format, text): the match of the format's pattern and the value's parts, as SQL. */
export function parseSql(format: string | ParsePlan, type: TimeType, input: string, name: string): ParseSql {
  const plan = typeof format === 'string' ? parsePlan(format, type, name) : format;
  const pattern = quoteString(plan.pattern);
  const dialect: ParseDialect = {
    group: (index) => `__groups[${index}]`,
    integer: (value) => `toInt64OrNull(${value})`,
    floorDivide: (dividend, divisor) => floorDivide(dividend, divisor),
    prefix3: (value) => `lower(substring(${value}, 1, 3))`,
    quote: quoteString,
    currentYear: 'toInt64(toYear(today()))',
    currentMonth: 'toInt64(toMonth(today()))',
  };
  return {
    matches: `match(${input}, ${pattern})`,
    parts: assembleParse(plan, type, dialect),
    withGroups: (expression) => (plan.captures === 0 ? expression : `arrayMap(__groups -> ${expression}, [extractGroups(${input}, ${pattern})])[1]`),
  };
}
