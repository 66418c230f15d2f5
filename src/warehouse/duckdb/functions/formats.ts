/**
 * DuckDB's rendering of BigQuery's format elements (src/sql/format-elements.ts): FORMAT_* as one
 * strftime call for the runs of elements DuckDB writes exactly as BigQuery does, and SQL for the
 * others; PARSE_* as one regular expression match whose groups are assembled into the value.
 */

import { assembleFormat, assembleParse, formatPieces, parsePlan, type Casing, type FormatPiece, type NumberField, type ParseDialect, type ParsePlan, type TimeType } from '../../../sql/format-elements.ts';
import { invalidSql } from '../../../sql/parse.ts';
import { quoted as quoteString } from './shared.ts';

/** A name in the case CAST … FORMAT asks for (strftime writes `Monday`). */
function cased(name: string, casing: Casing | undefined): string {
  return casing === 'upper' ? `upper(${name})` : casing === 'lower' ? `lower(${name})` : name;
}

/** strftime's specifier for a piece it writes as BigQuery does, if it does. */
function strftimeCode(piece: FormatPiece): string | undefined {
  if (piece.kind === 'name' && piece.casing !== undefined && piece.casing !== 'capitalized') return undefined;
  if (piece.kind === 'meridiem' && piece.dots) return undefined;
  if (piece.kind === 'name') return { weekday: '%A', weekday_short: '%a', month: '%B', month_short: '%b' }[piece.name];
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
    week_sunday: ['%U', 2],
    week_monday: ['%W', 2],
    isoweek: ['%V', 2],
    year2: ['%y', 2],
    weekday_monday1: ['%u', 0],
    weekday_sunday0: ['%w', 0],
  };
  const code = codes[piece.field];
  return code && code[1] === piece.width ? code[0] : undefined;
}

const text = (value: string) => `CAST(${value} AS VARCHAR)`;
const padded = (value: string, width: number, pad: string) => (width === 0 ? text(value) : `lpad(${text(value)}, ${width}, '${pad}')`);

/** The number a field writes, of a wall clock (TIMESTAMP); `epochMicros` of the instant for %s. */
function fieldValue(field: NumberField, wall: string, epochMicros: string): string {
  switch (field) {
    case 'year':
      return `year(${wall})`;
    case 'year2':
      return `(year(${wall}) % 100)`;
    case 'century':
      return `(year(${wall}) // 100)`;
    case 'hour12':
      return `((hour(${wall}) + 11) % 12 + 1)`;
    case 'weekday_monday1':
      return `isodow(${wall})`;
    case 'weekday_sunday0':
      return `dayofweek(${wall})`;
    case 'week_sunday':
      return `CAST(strftime(${wall}, '%U') AS BIGINT)`;
    case 'week_monday':
      return `CAST(strftime(${wall}, '%W') AS BIGINT)`;
    case 'isoweek':
      return `week(${wall})`;
    case 'isoyear2':
      return `(isoyear(${wall}) % 100)`;
    case 'iso_dayofyear':
      return `(date_diff('day', date_trunc('isoyear', ${wall}), ${wall}) + 1)`;
    case 'epoch_seconds':
      return `CAST(floor(${epochMicros} / 1000000) AS BIGINT)`;
    case 'year_last3':
      return `(year(${wall}) % 1000)`;
    case 'year_last1':
      return `(year(${wall}) % 10)`;
    case 'year_thousands':
      return `(year(${wall}) // 1000)`;
    case 'weekday_sunday1':
      return `(dayofweek(${wall}) + 1)`;
    case 'seconds_of_day':
      return `((hour(${wall}) * 60 + minute(${wall})) * 60 + second(${wall}))`;
    default:
      return `${field}(${wall})`;
  }
}

/** `+0530` / `+05:30`, or BigQuery's zone name `UTC+0530`, `UTC+5`, `UTC`, of an offset in minutes. */
function offsetText(minutes: string, style: 'offset' | 'colon' | 'short' | 'zone'): string {
  const sign = `CASE WHEN ${minutes} < 0 THEN '-' ELSE '+' END`;
  const hours = `lpad(${text(`abs(${minutes}) // 60`)}, 2, '0')`;
  const rest = `lpad(${text(`abs(${minutes}) % 60`)}, 2, '0')`;
  if (style === 'offset') return `(${sign} || ${hours} || ${rest})`;
  if (style === 'colon') return `(${sign} || ${hours} || ':' || ${rest})`;
  if (style === 'short') return `(${sign} || ${hours} || CASE WHEN abs(${minutes}) % 60 = 0 THEN '' ELSE ':' || ${rest} END)`;
  const short = `CASE WHEN abs(${minutes}) % 60 = 0 THEN ${text(`abs(${minutes}) // 60`)} ELSE ${hours} || ${rest} END`;
  return `(CASE WHEN ${minutes} = 0 THEN 'UTC' ELSE 'UTC' || ${sign} || ${short} END)`;
}

function fractionText(wall: string, digits: number | '*' | '3|6', dot: boolean): string {
  const fraction = `(microsecond(${wall}) % 1000000)`;
  const micros = `lpad(${text(fraction)}, 6, '0')`;
  if (digits === '*') return dot ? `(CASE WHEN ${fraction} = 0 THEN '' ELSE '.' || rtrim(${micros}, '0') END)` : `rtrim(${micros}, '0')`;
  if (digits === '3|6') return `(CASE WHEN ${fraction} = 0 THEN '' WHEN ${fraction} % 1000 = 0 THEN '.' || substr(${micros}, 1, 3) ELSE '.' || ${micros} END)`;
  const fixed = digits <= 6 ? `substr(${micros}, 1, ${digits})` : `rpad(${micros}, ${digits}, '0')`;
  return dot ? `('.' || ${fixed})` : fixed;
}

export interface FormatValue {
  /** The wall clock to format, as a DuckDB TIMESTAMP. */
  wall: string;
  /** Microseconds since the epoch of the instant (for %s). */
  epochMicros: string;
  /** The zone's offset in minutes east (TIMESTAMP only). */
  offsetMinutes?: string;
}

/** FORMAT_<type>(format, value) for a literal format (or pieces made otherwise: CAST's). */
export function formatSql(format: string | FormatPiece[], type: TimeType, value: FormatValue): string {
  return assembleFormat(typeof format === 'string' ? formatPieces(format, type) : format, {
    nativeCode: strftimeCode,
    native: (codes) => `strftime(${value.wall}, ${quoteString(codes)})`,
    piece: (piece) => pieceSql(piece, value),
    empty: `CASE WHEN ${value.wall} IS NULL THEN NULL ELSE '' END`,
    concat: (parts) => `(${parts.join(' || ')})`,
  });
}

function pieceSql(piece: Exclude<FormatPiece, { kind: 'text' }>, value: FormatValue): string {
  const offset = value.offsetMinutes ?? '0';
  switch (piece.kind) {
    case 'number':
      return padded(fieldValue(piece.field, value.wall, value.epochMicros), piece.width, piece.pad);
    case 'name':
      return cased(`strftime(${value.wall}, '${{ weekday: '%A', weekday_short: '%a', month: '%B', month_short: '%b' }[piece.name]}')`, piece.casing);
    case 'meridiem': {
      const text = piece.dots ? `replace(replace(strftime(${value.wall}, '%p'), 'AM', 'A.M.'), 'PM', 'P.M.')` : `strftime(${value.wall}, '%p')`;
      return piece.lower ? `lower(${text})` : text;
    }
    case 'fraction':
      return fractionText(value.wall, piece.digits, piece.dot);
    case 'offset':
      if (piece.part === 'hours') return `(CASE WHEN ${offset} < 0 THEN '-' ELSE '+' END || lpad(${text(`abs(${offset}) // 60`)}, 2, '0'))`;
      if (piece.part === 'minutes') return `lpad(${text(`abs(${offset}) % 60`)}, 2, '0')`;
      return offsetText(offset, piece.short ? 'short' : piece.colon ? 'colon' : 'offset');
    case 'zone':
      return offsetText(offset, 'zone');
  }
}

/** A format argument must be a literal: it is translated into SQL when the query is. */
export function literalFormat(raw: { kind: string; value?: unknown } | undefined, name: string): string {
  if (raw?.kind !== 'string' || typeof raw.value !== 'string') throw invalidSql(`${name} needs its format as a string literal`);
  return raw.value;
}

// ---- parsing -------------------------------------------------------------------------------------

export interface ParseSql {
  /** The whole input matches the format. */
  matches: string;
  parts: ReturnType<typeof assembleParse>;
  /** Wraps an expression so that `m.gN` reads the match's groups. */
  withGroups(expression: string): string;
}

/** PARSE_<type>(format, text): the match of the format's pattern and the value's parts, as SQL. */
export function parseSql(format: string | ParsePlan, type: TimeType, input: string, name: string): ParseSql {
  const plan = typeof format === 'string' ? parsePlan(format, type, name) : format;
  const pattern = quoteString(plan.pattern);
  const names = Array.from({ length: plan.captures }, (_, index) => `'g${index + 1}'`);
  const dialect: ParseDialect = {
    group: (index) => `m.g${index}`,
    integer: (value) => `TRY_CAST(nullif(${value}, '') AS BIGINT)`,
    floorDivide: (dividend, divisor) => `CAST(floor((${dividend}) / ${divisor}) AS BIGINT)`,
    prefix3: (value) => `lower(substr(${value}, 1, 3))`,
    quote: quoteString,
    currentYear: 'year(current_date)',
    currentMonth: 'month(current_date)',
  };
  return {
    matches: `regexp_matches(${input}, ${pattern})`,
    parts: assembleParse(plan, type, dialect),
    withGroups: (expression) =>
      names.length === 0 ? expression : `list_transform([regexp_extract(${input}, ${pattern}, [${names.join(', ')}])], m -> ${expression})[1]`,
  };
}
