/**
 * BigQuery's format elements for dates and times (FORMAT_DATE … PARSE_TIMESTAMP: `%Y-%m-%d`), read
 * when the query is translated. The engines have strftime-like functions, but each differs from
 * BigQuery in many elements (DuckDB's %Y pads to four digits and has no %e or %Q, ClickHouse's %h is
 * an hour): so a format is turned here into pieces, which each engine renders with its own
 * functions, and a parse format into a regular expression and rules for assembling the value,
 * after ZetaSQL's FormatTime (date_time_util.cc) and ParseTime (parse_date_time.cc).
 */

import { invalidSql } from './parse.ts';

export type TimeType = 'DATE' | 'DATETIME' | 'TIME' | 'TIMESTAMP';

/** Numbers a format element writes, from the wall clock (and, for a TIMESTAMP, its zone). */
export type NumberField =
  | 'year'
  | 'year2'
  | 'century'
  | 'month'
  | 'day'
  | 'hour'
  | 'hour12'
  | 'minute'
  | 'second'
  | 'dayofyear'
  | 'weekday_monday1'
  | 'weekday_sunday0'
  | 'week_sunday'
  | 'week_monday'
  | 'isoweek'
  | 'isoyear'
  | 'isoyear2'
  | 'iso_dayofyear'
  | 'quarter'
  | 'epoch_seconds'
  /** CAST … FORMAT's: YYY, Y, the thousands of Y,YYY, D (1 = Sunday), SSSSS. */
  | 'year_last3'
  | 'year_last1'
  | 'year_thousands'
  | 'weekday_sunday1'
  | 'seconds_of_day';

/** CAST … FORMAT's case matching of names (`MON`, `Mon`, `mon`). */
export type Casing = 'upper' | 'lower' | 'capitalized';

export type FormatPiece =
  | { kind: 'text'; text: string }
  /** A number; `width` 0 writes it as it is, else padded on the left with `pad`. */
  | { kind: 'number'; field: NumberField; width: number; pad: '0' | ' '; element: string }
  | { kind: 'name'; name: 'weekday' | 'weekday_short' | 'month' | 'month_short'; element: string; casing?: Casing }
  /** AM/PM (am/pm with `lower`), A.M./P.M. with `dots`. */
  | { kind: 'meridiem'; lower: boolean; dots?: boolean; element: string }
  /**
   * The second's fraction: `digits` digits, or all of them without trailing zeros (`'*'`), or
   * three or six digits, as few as hold it (`'3|6'`, CAST's form), after a dot (`dot`).
   */
  | { kind: 'fraction'; digits: number | '*' | '3|6'; dot: boolean }
  /**
   * The zone's offset: `+0530`, or `+05:30` with `colon`, or `+05:30` and `+05` (`short`: CAST's
   * form); or only its signed hours (`+05`) or its minutes (`30`), CAST … FORMAT's TZH and TZM.
   */
  | { kind: 'offset'; colon: boolean; short?: boolean; part?: 'hours' | 'minutes' }
  /** BigQuery's zone name: `UTC`, `UTC+5`, `UTC+0530`. */
  | { kind: 'zone' };

/** Elements each type does not have: FORMAT_DATE('%H') writes `%H` as it is (ZetaSQL's SanitizeFormat). */
const NOT_IN_TYPE: Record<TimeType, string> = {
  DATE: 'cHIklMPpRrSsTXZz',
  TIME: 'AaBbhCcDdeFGgjmQsUuVWwxYyZz',
  DATETIME: 'Zz',
  TIMESTAMP: '',
};

const COMPOSITES: Record<string, string> = {
  c: '%a %b %e %H:%M:%S %Y',
  D: '%m/%d/%y',
  F: '%Y-%m-%d',
  R: '%H:%M',
  r: '%I:%M:%S %p',
  T: '%H:%M:%S',
  X: '%H:%M:%S',
  x: '%m/%d/%y',
};

const number = (field: NumberField, width: number, element: string, pad: '0' | ' ' = '0'): FormatPiece => ({ kind: 'number', field, width, pad, element });

const SIMPLE: Record<string, FormatPiece> = {
  A: { kind: 'name', name: 'weekday', element: 'A' },
  a: { kind: 'name', name: 'weekday_short', element: 'a' },
  B: { kind: 'name', name: 'month', element: 'B' },
  b: { kind: 'name', name: 'month_short', element: 'b' },
  h: { kind: 'name', name: 'month_short', element: 'b' },
  C: number('century', 2, 'C'),
  d: number('day', 2, 'd'),
  e: number('day', 2, 'e', ' '),
  G: number('isoyear', 0, 'G'),
  g: number('isoyear2', 2, 'g'),
  H: number('hour', 2, 'H'),
  I: number('hour12', 2, 'I'),
  J: number('iso_dayofyear', 3, 'J'),
  j: number('dayofyear', 3, 'j'),
  k: number('hour', 2, 'k', ' '),
  l: number('hour12', 2, 'l', ' '),
  M: number('minute', 2, 'M'),
  m: number('month', 2, 'm'),
  P: { kind: 'meridiem', lower: true, element: 'P' },
  p: { kind: 'meridiem', lower: false, element: 'p' },
  Q: number('quarter', 0, 'Q'),
  S: number('second', 2, 'S'),
  s: number('epoch_seconds', 0, 's'),
  U: number('week_sunday', 2, 'U'),
  u: number('weekday_monday1', 0, 'u'),
  V: number('isoweek', 2, 'V'),
  W: number('week_monday', 2, 'W'),
  w: number('weekday_sunday0', 0, 'w'),
  Y: number('year', 0, 'Y'),
  y: number('year2', 2, 'y'),
  Z: { kind: 'zone' },
  z: { kind: 'offset', colon: false },
  n: { kind: 'text', text: '\n' },
  t: { kind: 'text', text: '\t' },
};

/**
 * The text CAST(value AS STRING) writes (ZetaSQL's ConvertTimestampToStringWithTruncation and kin):
 * `YYYY-MM-DD`, `HH:MM:SS[.fff|.ffffff]`, the two joined by a space, a TIMESTAMP's zone as `+00`
 * or `+05:30`.
 */
export function canonicalPieces(type: TimeType): FormatPiece[] {
  const date: FormatPiece[] = [number('year', 4, 'E4Y'), { kind: 'text', text: '-' }, number('month', 2, 'm'), { kind: 'text', text: '-' }, number('day', 2, 'd')];
  const clock: FormatPiece[] = [
    number('hour', 2, 'H'),
    { kind: 'text', text: ':' },
    number('minute', 2, 'M'),
    { kind: 'text', text: ':' },
    number('second', 2, 'S'),
    { kind: 'fraction', digits: '3|6', dot: true },
  ];
  if (type === 'DATE') return date;
  if (type === 'TIME') return clock;
  const datetime: FormatPiece[] = [...date, { kind: 'text', text: ' ' }, ...clock];
  return type === 'DATETIME' ? datetime : [...datetime, { kind: 'offset', colon: true, short: true }];
}

/** The pieces FORMAT_<type>(format, value) writes, in order; adjacent text joined. */
export function formatPieces(format: string, type: TimeType): FormatPiece[] {
  const pieces: FormatPiece[] = [];
  const text = (value: string) => {
    const last = pieces[pieces.length - 1];
    if (last?.kind === 'text') last.text += value;
    else pieces.push({ kind: 'text', text: value });
  };
  const skip = NOT_IN_TYPE[type];
  const expand = (source: string): void => {
    for (let index = 0; index < source.length; index++) {
      const char = source[index]!;
      if (char !== '%' || index === source.length - 1) {
        text(char);
        continue;
      }
      const element = readElement(source, index + 1);
      index = element.end - 1;
      if (skip.includes(element.letter)) text(source.slice(element.start - 1, element.end));
      else emit(element, text, pieces, expand);
    }
  };
  expand(format);
  return pieces;
}

interface Element {
  /** The element's letter (after any E or O modifier and width). */
  letter: string;
  modifier: '' | 'E' | 'O';
  /** `%E3S`'s 3, `%E*S`'s '*'. */
  digits?: number | '*';
  start: number;
  end: number;
}

function readElement(source: string, start: number): Element {
  let index = start;
  let modifier: Element['modifier'] = '';
  let digits: Element['digits'];
  if (source[index] === 'E' || source[index] === 'O') modifier = source[index++] as 'E' | 'O';
  if (modifier === 'E' && source[index] === '*') {
    digits = '*';
    index++;
  } else if (modifier === 'E') {
    const match = /^\d+/.exec(source.slice(index));
    if (match) {
      digits = Number(match[0]);
      index += match[0].length;
    }
  }
  const letter = source[index] ?? '';
  return { letter, modifier, ...(digits !== undefined ? { digits } : {}), start, end: Math.min(index + 1, source.length) };
}

function emit(element: Element, text: (value: string) => void, pieces: FormatPiece[], expand: (source: string) => void): void {
  const { letter, modifier, digits } = element;
  if (letter === '%') return text('%');
  if (modifier === 'E') {
    if (letter === 'S' && digits !== undefined) {
      pieces.push(number('second', 2, 'S'));
      if (digits === '*' || digits > 0) pieces.push({ kind: 'fraction', digits, dot: true });
      return;
    }
    if (letter === 'f' && digits !== undefined) return void pieces.push({ kind: 'fraction', digits, dot: false });
    if (letter === 'Y' && digits === 4) return void pieces.push(number('year', 4, 'E4Y'));
    if (letter === 'z' && digits === undefined) return void pieces.push({ kind: 'offset', colon: true });
    if (digits !== undefined) return text(`%E${digits}${letter}`);
  }
  const composite = COMPOSITES[letter];
  if (composite) return expand(composite);
  const simple = SIMPLE[letter];
  if (simple) {
    if (simple.kind === 'text') text(simple.text);
    else pieces.push({ ...simple });
    return;
  }
  // An element BigQuery does not know is written as it is.
  text(`%${modifier}${letter}`);
}

// ---- parsing -----------------------------------------------------------------------------------

/** What a capture group of the parse pattern holds. */
export type ParseField =
  | 'year'
  | 'century'
  | 'year2'
  | 'month'
  | 'month_name'
  | 'day'
  | 'hour'
  | 'hour12'
  | 'meridiem'
  | 'minute'
  | 'second'
  | 'fraction'
  | 'dayofyear'
  | 'week_sunday'
  | 'week_monday'
  | 'weekday'
  | 'weekday_monday1'
  | 'weekday_sunday0'
  | 'isoyear'
  | 'isoyear2'
  | 'isoweek'
  | 'iso_dayofyear'
  | 'quarter'
  | 'epoch_seconds'
  | 'offset'
  | 'zone'
  /** CAST … FORMAT's: YYY, YY, RR, Y, Y,YYY's thousands, SSSSS. */
  | 'year_last3'
  | 'year_last2'
  | 'year_rr'
  | 'year_last1'
  | 'year_thousands'
  | 'seconds_of_day';

/**
 * How a value is assembled from a parse pattern's groups (1-based group numbers), decided from the
 * format when the query is translated: the last element for each part wins (ZetaSQL's rule), with
 * its defaults (1970-01-01 00:00:00, in the function's zone).
 */
export interface ParsePlan {
  /** A regular expression (RE2) over the whole input. */
  pattern: string;
  /** How many capture groups the pattern has. */
  captures: number;
  /** What each element read holds (numbered from 1), and where its text is: a capture, or a slice of one. */
  groups: ParseField[];
  texts: Array<{ capture: number; start?: number; width?: number }>;
  /**
   * Digit runs: consecutive numeric elements without a separator (`%Y%m%d`) read as one capture
   * and split by their widths, each taking as many digits as it may, as ZetaSQL reads them (a
   * regular expression would backtrack into another split). The run's length must fit.
   */
  runs: Array<{ capture: number; min: number; max: number }>;
  /**
   * The year: a group holding it (and the thousands of Y,YYY), or a two-digit year with a century
   * (a group, or 19/20 by the year); CAST … FORMAT's last digits of the current year's (YYY, YY,
   * Y) or RR's century rule.
   */
  year: { group: number; thousands?: number } | { year2?: number; century?: number } | { lastDigits: number; digits: number } | { rr: number } | undefined;
  /** Fields the text leaves out: 1970-01-01 (PARSE_*) or the current year and month, day 1 (CAST … FORMAT). */
  defaults?: 'today';
  /** CAST … FORMAT's FFn: the fraction rounded to n digits. */
  fractionDigits?: number;
  /** CAST … FORMAT's TZH (sign and hours) and TZM groups, and SSSSS's. */
  offsetHours?: number;
  offsetMinutes?: number;
  secondsOfDay?: number;
  month: { group: number; name: boolean } | { quarter: number } | undefined;
  day: { group: number } | { quarter: number } | undefined;
  /** A day of the year (with the year), or a week of the year counted from Sundays or Mondays. */
  dayOfYear?: { group: number };
  week?: { group: number; startsMonday: boolean };
  /** The Monday of the first ISO week of an ISO year (a group, or a two-digit one), plus an ISO day of the year. */
  isoYear?: { group: number; twoDigits: boolean; dayOfYear?: number };
  /** A format element ZetaSQL refuses at run time (a weekday with a week, ISO weeks). */
  unsupported?: string;
  hour?: { group: number; twelveHour: boolean };
  meridiem?: number;
  minute?: number;
  second?: number;
  fraction?: number;
  epochSeconds?: number;
  offset?: number;
  zone?: number;
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
export const MONTH_NAMES = MONTHS;
export const WEEKDAY_NAMES = WEEKDAYS;
/** Full or abbreviated names, case-insensitive (strptime's %b and %a). */
const names = (list: string[]) => `((?i)${[...list, ...list.map((name) => name.slice(0, 3))].join('|')})`;

/** Elements each type cannot parse (PARSE_DATE('%H', …) is refused, as ZetaSQL's ValidateParseFormat does). */
const NOT_PARSED: Record<TimeType, string> = {
  DATE: 'cHIklMPpRrSsTXZzs',
  TIME: 'AaBbhCcDdeFGgJjmQsUuVWwxYyZz',
  DATETIME: 'Zzs',
  TIMESTAMP: '',
};

const escapeRegex = (char: string) => char.replace(/[\\^$.|?*+()[\]{}]/g, '\\$&');

/**
 * The plan for PARSE_<type>(format, text): a whole-input pattern (leading and trailing whitespace
 * allowed, a run of spaces in the format matching any whitespace) and the rules for its groups.
 */
export function parsePlan(format: string, type: TimeType, functionName: string): ParsePlan {
  let pattern = '';
  const groups: ParseField[] = [];
  const texts: ParsePlan['texts'] = [];
  const runs: ParsePlan['runs'] = [];
  const plan: ParsePlan = { pattern: '', captures: 0, groups, texts, runs, year: undefined, month: undefined, day: undefined };
  let run: Array<{ group: number; width: number }> = [];
  const flush = () => {
    if (run.length === 0) return;
    const capture = ++plan.captures;
    if (run.length === 1) {
      pattern += `(\\d{1,${run[0]!.width}})`;
      texts[run[0]!.group - 1] = { capture };
    } else {
      pattern += '(\\d+)';
      let start = 1;
      for (const { group, width } of run) {
        texts[group - 1] = { capture, start, width };
        start += width;
      }
      runs.push({ capture, min: start - run[run.length - 1]!.width, max: start - 1 });
    }
    run = [];
  };
  /** Regular expression text that is not a numeric element: it ends a digit run. */
  const raw = (regex: string) => {
    flush();
    pattern += regex;
  };
  const group = (field: ParseField, regex: string): number => {
    raw(`(${regex})`);
    groups.push(field);
    texts.push({ capture: plan.captures + 1 });
    plan.captures++;
    return groups.length;
  };
  /** A numeric element of at most `width` digits. */
  const digits = (field: ParseField, width: number): number => {
    groups.push(field);
    texts.push({ capture: 0 });
    run.push({ group: groups.length, width });
    return groups.length;
  };
  // ZetaSQL's year rules: %Y sets the year; %C a century; %y a year of a century (19 or 20 unless %C said).
  let year: number | undefined;
  let year2: number | undefined;
  let century: number | undefined;
  let useCentury = false;
  let explicitCentury = false;
  let twelveHour = false;
  let position = 0;
  const positions = { year: -1, month: -1, day: -1 };
  // Elements of the date that count days otherwise (ZetaSQL's DateParseContext).
  const dateElements: Array<{ letter: string; group: number; position: number }> = [];
  let nonIsoDatePart = false;

  const setYear = (group: number) => {
    year = group;
    useCentury = false;
    explicitCentury = false;
    positions.year = position;
    nonIsoDatePart = true;
  };
  const setMonth = () => {
    positions.month = position;
    nonIsoDatePart = true;
  };
  const setDay = () => {
    positions.day = position;
    nonIsoDatePart = true;
  };

  const parse = (source: string): void => {
    for (let index = 0; index < source.length; index++) {
      const char = source[index]!;
      if (/\s/.test(char)) {
        while (/\s/.test(source[index + 1] ?? '')) index++;
        raw('\\s*');
        continue;
      }
      if (char !== '%') {
        raw(escapeRegex(char));
        continue;
      }
      if (index === source.length - 1) throw invalidSql(`${functionName}: the format cannot end with a single '%'`);
      const element = readElement(source, index + 1);
      index = element.end - 1;
      const nextIsElement = source[element.end] === '%';
      position++;
      const { letter, modifier, digits: fractionDigits } = element;
      if (NOT_PARSED[type].includes(letter) && letter !== '%') {
        throw invalidSql(`${functionName} does not support the format element %${modifier}${fractionDigits ?? ''}${letter}`);
      }
      if (modifier === 'E' && letter === 'S' && fractionDigits !== undefined) {
        plan.second = digits('second', 2);
        if (fractionDigits === '*' || fractionDigits > 0) {
          raw('(?:\\.');
          plan.fraction = group('fraction', fractionDigits === '*' ? '\\d+' : `\\d{1,${fractionDigits}}`);
          raw(')?');
        }
        continue;
      }
      if (modifier === 'E' && letter === 'Y' && fractionDigits === 4) {
        setYear(digits('year', 4));
        continue;
      }
      if (modifier === 'E' && letter === 'z') {
        plan.offset = group('offset', 'Z|[+-]\\d{2}(?::?\\d{2})?');
        plan.zone = undefined;
        continue;
      }
      const composite = COMPOSITES[letter];
      if (composite && (modifier === '' || modifier === 'E')) {
        if (letter === 'c' || letter === 'D' || letter === 'F' || letter === 'x') {
          parse(composite);
          positions.year = positions.month = positions.day = position;
        } else parse(composite);
        if (letter !== 'r') twelveHour = false;
        continue;
      }
      switch (letter) {
        case 'Y':
          setYear(digits('year', nextIsElement ? 4 : 5));
          break;
        case 'C':
          century = digits('century', nextIsElement ? 2 : 3);
          if (!useCentury) year = undefined;
          useCentury = true;
          explicitCentury = true;
          positions.year = position;
          nonIsoDatePart = true;
          break;
        case 'y':
          year2 = digits('year2', 2);
          year = undefined;
          if (!explicitCentury) century = undefined;
          useCentury = true;
          positions.year = position;
          nonIsoDatePart = true;
          break;
        case 'm':
          plan.month = { group: digits('month', 2), name: false };
          setMonth();
          break;
        case 'B':
        case 'b':
        case 'h':
          plan.month = { group: group('month_name', names(MONTHS).slice(1, -1)), name: true };
          setMonth();
          break;
        case 'd':
          plan.day = { group: digits('day', 2) };
          setDay();
          break;
        case 'e':
          raw(' *');
          plan.day = { group: digits('day', 2) };
          setDay();
          break;
        case 'Q':
          plan.month = plan.day = { quarter: digits('quarter', 1) };
          setMonth();
          setDay();
          break;
        case 'H':
        case 'k':
          if (letter === 'k') raw(' *');
          plan.hour = { group: digits('hour', 2), twelveHour: false };
          twelveHour = false;
          break;
        case 'I':
        case 'l':
          raw('\\s*');
          plan.hour = { group: digits('hour12', 2), twelveHour: true };
          twelveHour = true;
          break;
        case 'p':
        case 'P':
          plan.meridiem = group('meridiem', '[AaPp][Mm]');
          break;
        case 'M':
          plan.minute = digits('minute', 2);
          break;
        case 'S':
          plan.second = digits('second', 2);
          break;
        case 'j':
          dateElements.push({ letter, group: digits('dayofyear', 3), position });
          nonIsoDatePart = true;
          break;
        case 'U':
        case 'W':
          dateElements.push({ letter, group: digits(letter === 'U' ? 'week_sunday' : 'week_monday', 2), position });
          nonIsoDatePart = true;
          break;
        case 'A':
        case 'a':
          dateElements.push({ letter, group: group('weekday', names(WEEKDAYS).slice(1, -1)), position });
          break;
        case 'u':
        case 'w':
          dateElements.push({ letter, group: digits(letter === 'u' ? 'weekday_monday1' : 'weekday_sunday0', 1), position });
          break;
        case 'G':
          dateElements.push({ letter, group: digits('isoyear', 20), position });
          break;
        case 'g':
          dateElements.push({ letter, group: digits('isoyear2', 2), position });
          break;
        case 'V':
          dateElements.push({ letter, group: digits('isoweek', 2), position });
          break;
        case 'J':
          dateElements.push({ letter, group: digits('iso_dayofyear', 3), position });
          break;
        case 's':
          plan.epochSeconds = group('epoch_seconds', '-?\\d{1,12}');
          positions.year = positions.month = positions.day = position;
          nonIsoDatePart = true;
          break;
        case 'z':
          plan.offset = group('offset', '[+-]\\d{2}(?:\\d{2})?');
          plan.zone = undefined;
          break;
        case 'Z':
          plan.zone = group('zone', '\\S+');
          plan.offset = undefined;
          break;
        case 'n':
        case 't':
          raw('\\s*');
          break;
        case '%':
          raw('%');
          break;
        default:
          throw invalidSql(`${functionName} does not support the format element %${modifier}${letter}`);
      }
    }
  };
  parse(format);
  flush();
  plan.pattern = `^\\s*${pattern}\\s*$`;
  if (plan.hour) plan.hour.twelveHour = twelveHour && plan.hour.twelveHour;
  plan.year = year !== undefined && !useCentury ? { group: year } : useCentury ? { ...(year2 !== undefined ? { year2 } : {}), ...(century !== undefined ? { century } : {}) } : undefined;
  if (useCentury && year2 === undefined && explicitCentury) plan.year = { ...(century !== undefined ? { century } : {}) };
  resolveDateElements(plan, dateElements, nonIsoDatePart, positions);
  return plan;
}

/**
 * Day of year, week and ISO elements, by ZetaSQL's CanonicalizeDateParseContext: ISO elements only
 * without Gregorian ones; the later of a day of year and a week wins; a week sets the date only
 * where no later element set the year, month or day.
 */
function resolveDateElements(
  plan: ParsePlan,
  elements: ReadonlyArray<{ letter: string; group: number; position: number }>,
  nonIsoDatePart: boolean,
  positions: { year: number; month: number; day: number },
): void {
  const last = (letters: string) => [...elements].reverse().find((element) => letters.includes(element.letter));
  const weekday = last('Aauw');
  if (!nonIsoDatePart) {
    const isoYear = last('Gg');
    if (!isoYear) return;
    const isoWeek = last('V');
    const isoDay = last('J');
    const dayWins = isoDay && (!isoWeek || isoDay.position > isoWeek.position || !weekday);
    if (isoWeek && !dayWins) {
      plan.unsupported = 'ISO parse elements are not supported yet';
      return;
    }
    plan.isoYear = { group: isoYear.group, twoDigits: isoYear.letter === 'g', ...(dayWins ? { dayOfYear: isoDay.group } : {}) };
    return;
  }
  const dayOfYear = last('j');
  const week = last('UW');
  if (dayOfYear && (!week || dayOfYear.position > week.position || !weekday)) {
    if (dayOfYear.position > positions.year || dayOfYear.position > positions.month || dayOfYear.position > positions.day) plan.dayOfYear = { group: dayOfYear.group };
    return;
  }
  if (!week) return;
  if (weekday) {
    plan.unsupported = 'Weekday parse elements are not supported yet';
    return;
  }
  plan.week = { group: week.group, startsMonday: week.letter === 'W' };
}

/**
 * The text CAST(text AS DATE | DATETIME | TIME) reads, as a parse plan (ZetaSQL's
 * ParseStringToDatetimeParts): `YYYY-[M]M-[D]D`, then ` `, `T` or `t` and `[H]H:[M]M:[S]S[.F]`
 * (up to nine digits, microseconds kept) for a DATETIME (the time may be left out), the time alone for a TIME. A leap
 * second (`:60`) is the next minute's first.
 */
export function castTextPlan(type: 'DATE' | 'DATETIME' | 'TIME'): ParsePlan {
  const date = '(\\d{4,5})-(\\d{1,2})-(\\d{1,2})';
  const clock = '(\\d{1,2}):(\\d{1,2}):(\\d{1,2})(?:\\.(\\d{1,9}))?';
  const fields: ParseField[] = type === 'DATE' ? ['year', 'month', 'day'] : type === 'TIME' ? ['hour', 'minute', 'second', 'fraction'] : ['year', 'month', 'day', 'hour', 'minute', 'second', 'fraction'];
  const pattern = type === 'DATE' ? `^${date}$` : type === 'TIME' ? `^${clock}$` : `^${date}(?:[ Tt]${clock})?$`;
  const at = (field: ParseField) => fields.indexOf(field) + 1;
  const plan: ParsePlan = {
    pattern,
    captures: fields.length,
    groups: fields,
    texts: fields.map((_, index) => ({ capture: index + 1 })),
    runs: [],
    year: type === 'TIME' ? undefined : { group: at('year') },
    month: type === 'TIME' ? undefined : { group: at('month'), name: false },
    day: type === 'TIME' ? undefined : { group: at('day') },
  };
  if (type !== 'DATE') Object.assign(plan, { hour: { group: at('hour'), twelveHour: false }, minute: at('minute'), second: at('second'), fraction: at('fraction') });
  return plan;
}

// ---- assembling a parsed value -----------------------------------------------------------------

/** How an engine reads the groups of a parse pattern's match and does the few things SQL spells differently. */
export interface ParseDialect {
  /** The text of capture group `index` (1-based); '' or NULL when the group took no part. */
  group(index: number): string;
  /** Digits as an INT64; NULL for '' or NULL. */
  integer(text: string): string;
  /** Floor division of INT64s (the divisor positive). */
  floorDivide(dividend: string, divisor: string): string;
  /** Lower case of the first three characters. */
  prefix3(text: string): string;
  /** A string literal. */
  quote(text: string): string;
  /** The current year and month (CAST … FORMAT's defaults), as INT64s. */
  currentYear: string;
  currentMonth: string;
}

/** A parsed value as SQL, for the engine to turn into its type. */
export interface ParsedValue {
  /**
   * DATE: days since 1970-01-01; TIME: microseconds since midnight; DATETIME and TIMESTAMP: the
   * wall clock's microseconds since 1970-01-01 00:00:00.
   */
  value: string;
  /** Each group in the range its element allows (else BigQuery's "Failed to parse input string"). */
  inRange: string;
  /** The date exists (else "Out-of-range datetime field in parsing function"). */
  validDate: string;
  /** TIMESTAMP: the offset %z or %Ez read, in minutes east; the zone name %Z read. */
  offsetMinutes?: string;
  zoneName?: string;
  /** %s: seconds since the epoch, which override every other element. */
  epochSeconds?: string;
}

/** The ranges ZetaSQL's ParseInt allows each numeric element. */
const FIELD_RANGES: Partial<Record<ParseField, [number, number]>> = {
  year: [0, 10000],
  century: [0, 100],
  year2: [0, 99],
  month: [1, 12],
  day: [1, 31],
  hour: [0, 23],
  hour12: [1, 12],
  minute: [0, 59],
  second: [0, 60],
  dayofyear: [1, 366],
  week_sunday: [0, 53],
  week_monday: [0, 53],
  isoweek: [1, 53],
  iso_dayofyear: [1, 371],
  isoyear: [0, 99999],
  isoyear2: [0, 99],
  year_last3: [0, 999],
  year_last2: [0, 99],
  year_rr: [0, 99],
  year_last1: [0, 9],
  year_thousands: [0, 99],
  seconds_of_day: [0, 86399],
  quarter: [1, 4],
  weekday_monday1: [1, 7],
  weekday_sunday0: [0, 6],
};

const MICROS_PER_DAY = '86400000000';

/** How an engine prints a date/time format: its own strftime-like function for the elements it has, SQL for the others. */
export interface FormatDialect {
  /** The engine function's code for an element, if it has one. */
  nativeCode(piece: FormatPiece): string | undefined;
  /** One call of that function with `codes` (a run of codes and literal text, `%` doubled). */
  native(codes: string): string;
  /** An element the function lacks. */
  piece(piece: Exclude<FormatPiece, { kind: 'text' }>): string;
  /** The value of an empty format: '' unless the value is NULL. */
  empty: string;
  concat(parts: string[]): string;
}

/** A format's pieces as SQL: runs the engine's function prints in one call, the other elements one by one. */
export function assembleFormat(pieces: FormatPiece[], dialect: FormatDialect): string {
  const parts: string[] = [];
  let run = '';
  const flush = () => {
    if (run) parts.push(dialect.native(run));
    run = '';
  };
  for (const piece of pieces) {
    const code = dialect.nativeCode(piece);
    if (code !== undefined) run += code;
    else if (piece.kind === 'text') run += piece.text.replaceAll('%', '%%');
    else {
      flush();
      parts.push(dialect.piece(piece));
    }
  }
  flush();
  if (parts.length === 0) return dialect.empty;
  return parts.length === 1 ? parts[0]! : dialect.concat(parts);
}

export function assembleParse(plan: ParsePlan, type: TimeType, dialect: ParseDialect): ParsedValue {
  const textOf = (group: number) => {
    const place = plan.texts[group - 1]!;
    return place.start === undefined ? dialect.group(place.capture) : `substr(${dialect.group(place.capture)}, ${place.start}, ${place.width})`;
  };
  const sql: ParseDialect = { ...dialect, group: textOf };
  const int = (group: number) => sql.integer(sql.group(group));
  const mod = (value: string, divisor: number) => `(((${value}) % ${divisor} + ${divisor}) % ${divisor})`;
  const year = yearOf(plan, int, plan.defaults === 'today' ? dialect.currentYear : '1970');
  const month = plan.month === undefined ? (plan.defaults === 'today' ? dialect.currentMonth : '1') : 'quarter' in plan.month ? `((${int(plan.month.quarter)} - 1) * 3 + 1)` : plan.month.name ? monthNumber(sql.prefix3(sql.group(plan.month.group))) : int(plan.month.group);
  const day = plan.day === undefined || 'quarter' in plan.day ? '1' : int(plan.day.group);
  const daysFromCivil = (y: string, m: string, d: string) => {
    const shifted = `(${y} - CASE WHEN ${m} <= 2 THEN 1 ELSE 0 END)`;
    const era = sql.floorDivide(shifted, '400');
    const yearOfEra = `(${shifted} - ${era} * 400)`;
    const dayOfYear = `(${sql.floorDivide(`153 * (${m} + CASE WHEN ${m} > 2 THEN -3 ELSE 9 END) + 2`, '5')} + ${d} - 1)`;
    const dayOfEra = `(${yearOfEra} * 365 + ${sql.floorDivide(yearOfEra, '4')} - ${sql.floorDivide(yearOfEra, '100')} + ${dayOfYear})`;
    return `(${era} * 146097 + ${dayOfEra} - 719468)`;
  };
  const leap = (y: string) => `(CASE WHEN (${y} % 4 = 0 AND ${y} % 100 <> 0) OR ${y} % 400 = 0 THEN 1 ELSE 0 END)`;
  const monthDays = (y: string, m: string) => `(CASE WHEN ${m} = 2 THEN 28 + ${leap(y)} WHEN ${m} IN (4, 6, 9, 11) THEN 30 ELSE 31 END)`;
  const weekday = (days: string) => mod(`${days} + 4`, 7);

  let days = daysFromCivil(year, month, day);
  const checks: string[] = [`${month} BETWEEN 1 AND 12`, `${day} BETWEEN 1 AND ${monthDays(year, month)}`];
  if (plan.dayOfYear) {
    const n = int(plan.dayOfYear.group);
    days = `(${daysFromCivil(year, '1', '1')} + ${n} - 1)`;
    checks.splice(0, 2, `${n} <= 365 + ${leap(year)}`);
  } else if (plan.week) {
    const jan1 = daysFromCivil(year, '1', '1');
    const start = plan.week.startsMonday ? 1 : 0;
    const beforeFirst = mod(`${start} - ${weekday(jan1)}`, 7);
    const week = int(plan.week.group);
    days = `(${jan1} + ${beforeFirst} + 7 * (${week} - 1))`;
    const last = `(CASE WHEN 365 + ${leap(year)} - ${beforeFirst} > 364 THEN 53 ELSE 52 END)`;
    checks.splice(0, 2, `${week} BETWEEN CASE WHEN ${beforeFirst} = 0 THEN 1 ELSE 0 END AND ${last}`);
  } else if (plan.isoYear) {
    const raw = int(plan.isoYear.group);
    const iso = plan.isoYear.twoDigits ? `(${raw} + CASE WHEN ${raw} <= 68 THEN 2000 ELSE 1900 END)` : raw;
    const jan5 = daysFromCivil(iso, '1', '5');
    const sinceMonday = mod(`${weekday(jan5)} - 1`, 7);
    const firstMonday = `(${jan5} - CASE WHEN ${sinceMonday} = 0 THEN 7 ELSE ${sinceMonday} END)`;
    const dayOfYear = plan.isoYear.dayOfYear ? int(plan.isoYear.dayOfYear) : '1';
    days = `(${firstMonday} + ${dayOfYear} - 1)`;
    const isoDays = (y: string) => `(364 + 7 * CASE WHEN ${mod(`${y} + ${sql.floorDivide(y, '4')} - ${sql.floorDivide(y, '100')} + ${sql.floorDivide(y, '400')}`, 7)} = 4 OR ${mod(`(${y} - 1) + ${sql.floorDivide(`${y} - 1`, '4')} - ${sql.floorDivide(`${y} - 1`, '100')} + ${sql.floorDivide(`${y} - 1`, '400')}`, 7)} = 3 THEN 1 ELSE 0 END)`;
    checks.splice(0, 2, `${dayOfYear} <= ${isoDays(iso)}`);
  }

  // A clock part a match may leave out (DATETIME text without its time) counts as 0.
  const clockPart = (group: number) => `coalesce(${int(group)}, 0)`;
  const hour = plan.hour === undefined ? '0' : plan.hour.twelveHour ? `(${int(plan.hour.group)} % 12 + CASE WHEN ${plan.meridiem !== undefined ? `${sql.prefix3(sql.group(plan.meridiem))} LIKE 'p%'` : 'FALSE'} THEN 12 ELSE 0 END)` : clockPart(plan.hour.group);
  const clock = [hour, plan.minute === undefined ? '0' : clockPart(plan.minute), plan.second === undefined ? '0' : clockPart(plan.second)];
  const fractionText = plan.fraction === undefined ? undefined : sql.group(plan.fraction);
  // FFn: the digits read, rounded to n (then to microseconds); PARSE_*'s %E#S: the first six.
  const fraction = fractionText === undefined ? '0' : plan.fractionDigits !== undefined ? roundedFraction(sql, fractionText, plan.fractionDigits) : `coalesce(${sql.integer(`substr(${fractionText} || '000000', 1, 6)`)}, 0)`;
  const clockMicros = plan.secondsOfDay !== undefined ? `${int(plan.secondsOfDay)} * 1000000` : `((${clock[0]} * 60 + ${clock[1]}) * 60 + ${clock[2]}) * 1000000`;
  const microsOfDay = `(${clockMicros} + ${fraction})`;

  const inRange = plan.groups.flatMap((field, index) => {
    const range = FIELD_RANGES[field];
    return range ? [`coalesce(${int(index + 1)} BETWEEN ${range[0]} AND ${range[1]}, TRUE)`] : [];
  });
  for (const run of plan.runs) inRange.push(`length(${dialect.group(run.capture)}) BETWEEN ${run.min} AND ${run.max}`);
  if (plan.unsupported) inRange.push('FALSE');
  const parts: ParsedValue = {
    value: type === 'DATE' ? days : type === 'TIME' ? mod(microsOfDay, Number(MICROS_PER_DAY)) : `(${days} * ${MICROS_PER_DAY} + ${microsOfDay})`,
    inRange: inRange.length > 0 ? inRange.join(' AND ') : 'TRUE',
    validDate: type === 'TIME' ? 'TRUE' : [...checks, `${year} BETWEEN 1 AND 9999`].join(' AND '),
  };
  if (plan.offset !== undefined) {
    const text = sql.group(plan.offset);
    const minutes = `coalesce(${sql.integer(`substr(replace(${text}, ':', ''), 4, 2)`)}, 0)`;
    parts.offsetMinutes = `(CASE WHEN ${text} = 'Z' THEN 0 ELSE (CASE WHEN substr(${text}, 1, 1) = '-' THEN -1 ELSE 1 END) * (${sql.integer(`substr(${text}, 2, 2)`)} * 60 + ${minutes}) END)`;
  }
  if (plan.offsetHours !== undefined) {
    // TZH's sign (a space is +) applies to TZM's minutes too.
    const hours = sql.group(plan.offsetHours);
    const sign = `(CASE WHEN substr(${hours}, 1, 1) = '-' THEN -1 ELSE 1 END)`;
    const minutes = plan.offsetMinutes === undefined ? '0' : int(plan.offsetMinutes);
    parts.offsetMinutes = `(${sign} * (${sql.integer(`trim(substr(${hours}, 2))`)} * 60 + ${minutes}))`;
  }
  if (plan.zone !== undefined) parts.zoneName = sql.group(plan.zone);
  if (plan.epochSeconds !== undefined) parts.epochSeconds = int(plan.epochSeconds);
  return parts;
}

/** FFn: up to nine digits read, rounded half up to n digits, as microseconds. */
function roundedFraction(sql: ParseDialect, text: string, digits: number): string {
  const nanos = sql.integer(`substr(${text} || '000000000', 1, 9)`);
  const rounded = sql.floorDivide(`${nanos} + ${5 * 10 ** (8 - digits)}`, String(10 ** (9 - digits)));
  const micros = digits <= 6 ? `${rounded} * ${10 ** (6 - digits)}` : sql.floorDivide(rounded, String(10 ** (digits - 6)));
  return `coalesce(${micros}, 0)`;
}

function yearOf(plan: ParsePlan, int: (group: number) => string, missing: string): string {
  const year = plan.year;
  if (year === undefined) return missing;
  if ('group' in year) return year.thousands === undefined ? int(year.group) : `(${int(year.thousands)} * 1000 + ${int(year.group)})`;
  if ('lastDigits' in year) {
    const power = 10 ** year.digits;
    return `(${missing} - ${missing} % ${power} + ${int(year.lastDigits)})`;
  }
  if ('rr' in year) {
    // RR: a year in the current century's half of the input's, else in the neighbouring century.
    const two = int(year.rr);
    const base = `(${missing} - ${missing} % 100)`;
    return `(${base} + ${two} + CASE WHEN ${two} < 50 AND ${missing} % 100 >= 50 THEN 100 WHEN ${two} >= 50 AND ${missing} % 100 < 50 THEN -100 ELSE 0 END)`;
  }
  const twoDigits = year.year2 === undefined ? '0' : int(year.year2);
  const century = year.century !== undefined ? int(year.century) : year.year2 !== undefined ? `(CASE WHEN ${twoDigits} < 69 THEN 20 ELSE 19 END)` : '19';
  return `(${century} * 100 + ${twoDigits})`;
}

function monthNumber(prefix: string): string {
  return `(CASE ${prefix} ${MONTHS.map((name, index) => `WHEN '${name.slice(0, 3)}' THEN ${index + 1}`).join(' ')} END)`;
}
