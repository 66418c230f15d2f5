/**
 * The format models of CAST … FORMAT (BigQuery's "Format elements for CAST"), read when the query
 * is translated, after ZetaSQL's cast_date_time.cc and convert_string_with_format.cc:
 *
 * - date and time to text (`YYYY-MM-DD HH24:MI:SS TZH:TZM`) as the pieces the engines already
 *   render for FORMAT_* (format-elements.ts), with BigQuery's case matching (`Month`, `MON`, `mon`);
 * - text to a date or time as a parse plan (the same assembly as PARSE_*), with the model's rules
 *   checked at save: each part at most once, HH with A.M., SSSSS alone …; a year, month or day the
 *   text leaves out is the current one (day 1);
 * - BYTES to and from text (HEX, BASE2 … BASE64, BASE64M, ASCII, UTF-8);
 * - numbers to text (`999,999.00`, `S9.99EEEE`, `X`, `RN`, `FM` …) as a plan for the engines.
 */

import type { FormatPiece, NumberField, ParseField, ParsePlan, TimeType } from './format-elements.ts';
import { MONTH_NAMES } from './format-elements.ts';
import { invalidSql } from './parse.ts';

// ---- date and time elements ---------------------------------------------------------------------

type Casing = 'upper' | 'lower' | 'capitalized';

type Element =
  | { kind: 'literal'; text: string }
  | { kind: 'space'; count: number }
  | { kind: 'element'; name: string; written: string; casing: Casing; digits?: number };

/** Element names, longest first so that the longest match wins (ZetaSQL's trie). */
const NAMES = [
  'Y,YYY',
  'A.M.',
  'P.M.',
  'SSSSS',
  'MONTH',
  'HH24',
  'HH12',
  'YYYY',
  'RRRR',
  'YYY',
  'MON',
  'DAY',
  'DDD',
  'TZH',
  'TZM',
  'FF',
  'YY',
  'RR',
  'MM',
  'DD',
  'DY',
  'HH',
  'MI',
  'SS',
  'AM',
  'PM',
  'Y',
  'D',
];
const LITERALS = new Set(['-', '.', '/', ',', "'", ';', ':']);

function casingOf(written: string, name: string): Casing {
  if (/^[a-z]/.test(written)) return 'lower';
  if (name.length === 1 || name.includes('.') || name === 'AM' || name === 'PM' || name === 'Y,YYY') return 'upper';
  return /^[A-Z][a-z]/.test(written) ? 'capitalized' : 'upper';
}

/** The model's elements, in order; an unknown element is refused at save in BigQuery's words. */
export function readModel(model: string): Element[] {
  const elements: Element[] = [];
  let index = 0;
  while (index < model.length) {
    const char = model[index]!;
    if (char === ' ') {
      let count = 0;
      while (model[index] === ' ') {
        count++;
        index++;
      }
      elements.push({ kind: 'space', count });
      continue;
    }
    if (char === '"') {
      let text = '';
      index++;
      while (index < model.length && model[index] !== '"') {
        if (model[index] === '\\' && (model[index + 1] === '"' || model[index + 1] === '\\')) index++;
        else if (model[index] === '\\') throw invalidSql(`Unsupported escape sequence in the format string: ${model}`);
        text += model[index++];
      }
      if (index >= model.length) throw invalidSql(`Cannot find matching " for quoted literal in the format string: ${model}`);
      index++;
      elements.push({ kind: 'literal', text });
      continue;
    }
    if (LITERALS.has(char) && !model.slice(index).toUpperCase().startsWith('A.M.')) {
      elements.push({ kind: 'literal', text: char });
      index++;
      continue;
    }
    const rest = model.slice(index).toUpperCase();
    const name = NAMES.find((candidate) => rest.startsWith(candidate));
    if (!name) throw invalidSql(`Cannot find matched format element at ${index} in the format string: ${model}`);
    const written = model.slice(index, index + name.length);
    index += name.length;
    if (name === 'FF') {
      const digit = /^[1-9]/.exec(model.slice(index));
      if (!digit) throw invalidSql(`Cannot find matched format element at ${index - 2} in the format string: ${model}`);
      index++;
      elements.push({ kind: 'element', name, written, casing: casingOf(written, name), digits: Number(digit[0]) });
      continue;
    }
    elements.push({ kind: 'element', name, written, casing: casingOf(written, name) });
  }
  return elements;
}

const DATE_ELEMENTS = new Set(['Y,YYY', 'YYYY', 'RRRR', 'YYY', 'YY', 'RR', 'Y', 'MM', 'MON', 'MONTH', 'DDD', 'DD', 'D', 'DAY', 'DY']);
const TIME_ELEMENTS = new Set(['HH', 'HH12', 'HH24', 'MI', 'SS', 'SSSSS', 'FF', 'A.M.', 'P.M.', 'AM', 'PM']);

/** Whether a value of `type` has what the element writes or reads (TZH and TZM are a TIMESTAMP's). */
function fits(name: string, type: TimeType): boolean {
  if (DATE_ELEMENTS.has(name)) return type !== 'TIME';
  if (TIME_ELEMENTS.has(name)) return type !== 'DATE';
  return type === 'TIMESTAMP' || name === 'TZH' || name === 'TZM';
}

const digits = (field: NumberField, width: number, element: string): FormatPiece => ({ kind: 'number', field, width, pad: '0', element });

/** CAST(value AS STRING FORMAT model): what each element writes. */
export function castFormatPieces(model: string, type: TimeType): FormatPiece[] {
  const pieces: FormatPiece[] = [];
  for (const element of readModel(model)) {
    if (element.kind === 'literal') pieces.push({ kind: 'text', text: element.text });
    else if (element.kind === 'space') pieces.push({ kind: 'text', text: ' '.repeat(element.count) });
    else {
      if (!fits(element.name, type)) throw invalidSql(`Format element ${element.written} is not supported for ${type}`);
      pieces.push(...elementPieces(element));
    }
  }
  return pieces;
}

function elementPieces(element: Extract<Element, { kind: 'element' }>): FormatPiece[] {
  const casing = element.casing;
  switch (element.name) {
    case 'YYYY':
    case 'RRRR':
      return [digits('year', 4, 'E4Y')];
    case 'YYY':
      return [digits('year_last3', 3, 'YYY')];
    case 'YY':
    case 'RR':
      return [digits('year2', 2, 'y')];
    case 'Y':
      return [digits('year_last1', 1, 'Y')];
    case 'Y,YYY':
      return [digits('year_thousands', 0, 'Y,YYY'), { kind: 'text', text: ',' }, digits('year_last3', 3, 'YYY')];
    case 'MM':
      return [digits('month', 2, 'm')];
    case 'MON':
      return [{ kind: 'name', name: 'month_short', element: 'b', casing }];
    case 'MONTH':
      return [{ kind: 'name', name: 'month', element: 'B', casing }];
    case 'DDD':
      return [digits('dayofyear', 3, 'j')];
    case 'DD':
      return [digits('day', 2, 'd')];
    case 'D':
      return [digits('weekday_sunday1', 0, 'D')];
    case 'DAY':
      return [{ kind: 'name', name: 'weekday', element: 'A', casing }];
    case 'DY':
      return [{ kind: 'name', name: 'weekday_short', element: 'a', casing }];
    case 'HH':
    case 'HH12':
      return [digits('hour12', 2, 'I')];
    case 'HH24':
      return [digits('hour', 2, 'H')];
    case 'MI':
      return [digits('minute', 2, 'M')];
    case 'SS':
      return [digits('second', 2, 'S')];
    case 'SSSSS':
      return [digits('seconds_of_day', 5, 'SSSSS')];
    case 'FF':
      return [{ kind: 'fraction', digits: element.digits!, dot: false }];
    case 'AM':
    case 'PM':
      return [{ kind: 'meridiem', lower: casing === 'lower', element: 'p' }];
    case 'A.M.':
    case 'P.M.':
      return [{ kind: 'meridiem', lower: casing === 'lower', dots: true, element: 'p' }];
    case 'TZH':
      return [{ kind: 'offset', colon: false, part: 'hours' }];
    case 'TZM':
      return [{ kind: 'offset', colon: false, part: 'minutes' }];
    default:
      throw invalidSql(`Format element ${element.written} is not supported`);
  }
}

// ---- text to date and time ------------------------------------------------------------------------

/** Each element's category (ZetaSQL's FormatElementCategory), named in the errors. */
const CATEGORY_OF: Record<string, string> = {
  'Y,YYY': 'YEAR',
  YYYY: 'YEAR',
  RRRR: 'YEAR',
  YYY: 'YEAR',
  YY: 'YEAR',
  RR: 'YEAR',
  Y: 'YEAR',
  MM: 'MONTH',
  MON: 'MONTH',
  MONTH: 'MONTH',
  DD: 'DAY',
  DDD: 'DAY',
  D: 'DAY',
  DAY: 'DAY',
  DY: 'DAY',
  HH: 'HOUR',
  HH12: 'HOUR',
  HH24: 'HOUR',
  MI: 'MINUTE',
  SS: 'SECOND',
  SSSSS: 'SECOND',
  FF: 'SECOND',
  'A.M.': 'MERIDIAN_INDICATOR',
  'P.M.': 'MERIDIAN_INDICATOR',
  AM: 'MERIDIAN_INDICATOR',
  PM: 'MERIDIAN_INDICATOR',
  TZH: 'TIME_ZONE',
  TZM: 'TIME_ZONE',
};

/** The categories a type has no place for, when text is cast to it. */
const NOT_IN: Record<TimeType, string[]> = {
  DATE: ['HOUR', 'MINUTE', 'SECOND', 'MERIDIAN_INDICATOR', 'TIME_ZONE'],
  TIME: ['YEAR', 'MONTH', 'DAY', 'TIME_ZONE'],
  DATETIME: ['TIME_ZONE'],
  TIMESTAMP: [],
};

/** The format model rules for text to a date or time (ZetaSQL's ValidateDateTimeFormatElements), refused at save in its words. */
function checkModel(elements: ReadonlyArray<Extract<Element, { kind: 'element' }>>, type: TimeType): void {
  const shown = (element: Extract<Element, { kind: 'element' }>) => `'${element.written}${element.digits ?? ''}'`;
  const byType = new Map<string, Extract<Element, { kind: 'element' }>>();
  const byCategory = new Map<string, Array<Extract<Element, { kind: 'element' }>>>();
  for (const element of elements) {
    if (element.name === 'D' || element.name === 'DAY' || element.name === 'DY') throw invalidSql(`Format element ${shown(element)} is not supported for parsing`);
    const key = element.name === 'FF' ? `FF${element.digits}` : element.name;
    if (byType.has(key)) throw invalidSql(`Format element ${shown(element)} appears more than once in the format string`);
    byType.set(key, element);
    const category = CATEGORY_OF[element.name]!;
    byCategory.set(category, [...(byCategory.get(category) ?? []), element]);
  }
  for (const category of NOT_IN[type]) {
    const found = byCategory.get(category);
    if (found) throw invalidSql(`Format element in category ${category} (${shown(found[0]!)}) is not allowed for output type ${type}`);
  }
  for (const category of ['MERIDIAN_INDICATOR', 'YEAR', 'MONTH', 'DAY', 'HOUR', 'MINUTE']) {
    const found = byCategory.get(category) ?? [];
    if (found.length > 1) throw invalidSql(`More than one format element in category ${category} exist: ${shown(found[0]!)} and ${shown(found[1]!)}`);
  }
  const element = (name: string) => byType.get(name);
  const meridian = byCategory.get('MERIDIAN_INDICATOR')?.[0];
  const exclusive = (one: Extract<Element, { kind: 'element' }> | undefined, category: string) => {
    const other = byCategory.get(category)?.[0];
    if (one && other) throw invalidSql(`Format element in category ${category} (${shown(other)}) and format element ${shown(one)} cannot exist simultaneously`);
  };
  exclusive(element('HH24'), 'MERIDIAN_INDICATOR');
  const twelve = element('HH') ?? element('HH12');
  if (twelve && !meridian) throw invalidSql(`Format element in category MERIDIAN_INDICATOR is required when format element ${shown(twelve)} exists`);
  if (meridian && !twelve) throw invalidSql(`Format element of type HH/HH12 is required when format element in category MERIDIAN_INDICATOR (${shown(meridian)}) exists`);
  exclusive(element('SSSSS'), 'HOUR');
  exclusive(element('SSSSS'), 'MINUTE');
  if (element('SSSSS') && element('SS')) throw invalidSql(`Format elements ${shown(element('SSSSS')!)} and ${shown(element('SS')!)} cannot exist simultaneously`);
  // BigQuery's rule: a day of the year fixes the month.
  const month = byCategory.get('MONTH')?.[0];
  if (element('DDD') && month) throw invalidSql(`Format element in category MONTH (${shown(month)}) and format element ${shown(element('DDD')!)} cannot exist simultaneously`);
}

const NUMERIC_WIDTH: Record<string, number> = { YYYY: 5, RRRR: 5, YYY: 3, YY: 2, RR: 2, Y: 1, MM: 2, DD: 2, DDD: 3, HH: 2, HH12: 2, HH24: 2, MI: 2, SS: 2, SSSSS: 5 };
const FIELD_OF: Record<string, ParseField> = {
  YYYY: 'year',
  RRRR: 'year',
  YYY: 'year_last3',
  YY: 'year_last2',
  RR: 'year_rr',
  Y: 'year_last1',
  MM: 'month',
  DD: 'day',
  DDD: 'dayofyear',
  HH: 'hour12',
  HH12: 'hour12',
  HH24: 'hour',
  MI: 'minute',
  SS: 'second',
  SSSSS: 'seconds_of_day',
};

/** CAST(text AS type FORMAT model) as a parse plan (format-elements.ts assembles it). */
export function castParsePlan(model: string, type: TimeType): ParsePlan {
  const elements = readModel(model);
  checkModel(elements.filter((element): element is Extract<Element, { kind: 'element' }> => element.kind === 'element'), type);
  let pattern = '';
  const plan: ParsePlan = { pattern: '', captures: 0, groups: [], texts: [], runs: [], year: undefined, month: undefined, day: undefined, defaults: 'today' };
  const group = (field: ParseField, regex: string): number => {
    pattern += `(${regex})`;
    plan.groups.push(field);
    plan.texts.push({ capture: ++plan.captures });
    return plan.groups.length;
  };
  elements.forEach((element, index) => {
    if (element.kind === 'space') {
      pattern += '\\s+';
      return;
    }
    if (element.kind === 'literal') {
      pattern += element.text.replace(/[\\^$.|?*+()[\]{}]/g, '\\$&');
      return;
    }
    const next = elements[index + 1];
    // A numeric element followed by another takes exactly its width; else up to it.
    const delimited = next === undefined || next.kind !== 'element' || !(next.name in NUMERIC_WIDTH);
    const width = NUMERIC_WIDTH[element.name];
    if (width !== undefined) {
      const max = element.name === 'YYYY' || element.name === 'RRRR' ? (delimited ? 5 : 4) : width;
      const at = group(FIELD_OF[element.name]!, delimited ? `\\d{1,${max}}` : `\\d{${max}}`);
      assign(plan, element.name, at);
      return;
    }
    switch (element.name) {
      case 'Y,YYY': {
        const thousands = group('year_thousands', '\\d{1,2}');
        pattern += ',';
        plan.year = { thousands, group: group('year_last3', '\\d{3}') };
        return;
      }
      case 'MON':
      case 'MONTH': {
        const names = element.name === 'MON' ? MONTH_NAMES.map((name) => name.slice(0, 3)) : MONTH_NAMES;
        plan.month = { group: group('month_name', `(?i)${names.join('|')}`), name: true };
        return;
      }
      case 'FF':
        plan.fraction = group('fraction', '\\d{1,9}');
        plan.fractionDigits = element.digits!;
        return;
      case 'A.M.':
      case 'P.M.':
        plan.meridiem = group('meridiem', '[AaPp]\\.[Mm]\\.');
        return;
      case 'AM':
      case 'PM':
        plan.meridiem = group('meridiem', '[AaPp][Mm]');
        return;
      case 'TZH':
        plan.offsetHours = group('offset', `[+\\- ]\\d{1,2}`);
        return;
      case 'TZM':
        plan.offsetMinutes = group('offset', '\\d{2}');
        return;
    }
  });
  plan.pattern = `^\\s*${pattern}\\s*$`;
  return plan;
}

function assign(plan: ParsePlan, name: string, group: number): void {
  switch (name) {
    case 'YYYY':
    case 'RRRR':
      plan.year = { group };
      return;
    case 'YYY':
    case 'YY':
    case 'Y':
      plan.year = { lastDigits: group, digits: name.length };
      return;
    case 'RR':
      plan.year = { rr: group };
      return;
    case 'MM':
      plan.month = { group, name: false };
      return;
    case 'DD':
      plan.day = { group };
      return;
    case 'DDD':
      plan.dayOfYear = { group };
      return;
    case 'HH':
    case 'HH12':
      plan.hour = { group, twelveHour: true };
      return;
    case 'HH24':
      plan.hour = { group, twelveHour: false };
      return;
    case 'MI':
      plan.minute = group;
      return;
    case 'SS':
      plan.second = group;
      return;
    case 'SSSSS':
      plan.secondsOfDay = group;
      return;
  }
}

// ---- bytes ----------------------------------------------------------------------------------------

export type BytesFormat = 'HEX' | 'BASE2' | 'BASE8' | 'BASE16' | 'BASE32' | 'BASE64' | 'BASE64M' | 'ASCII' | 'UTF-8';

/** A BYTES ↔ STRING format (case does not matter; UTF8 is UTF-8), or undefined when it is none. */
export function bytesFormat(model: string): BytesFormat | undefined {
  const name = model.trim().toUpperCase();
  if (name === 'UTF8') return 'UTF-8';
  return (['HEX', 'BASE2', 'BASE8', 'BASE16', 'BASE32', 'BASE64', 'BASE64M', 'ASCII', 'UTF-8'] as const).find((format) => format === name);
}

// ---- numbers to text --------------------------------------------------------------------------------

/** What SQL the number formats need spelled per engine; the rest (CASE, ||, substr, lpad, repeat) is common. */
export interface NumberDialect {
  /** The text of a non-negative number with exactly `digits` fraction digits (`12.500`), rounded half away from zero. */
  fixed(value: string, digits: number): string;
  /** An integer's text. */
  text(value: string): string;
  /** A non-negative integer in upper-case hexadecimal. */
  hex(value: string): string;
  /** An INT64 of a whole number. */
  integer(value: string): string;
  /** The part of a number's text before its point, and after it. */
  before(text: string): string;
  after(text: string): string;
  /** `text` padded on the left with `pad` to `width` characters (an integer expression). */
  lpad(text: string, width: string, pad: string): string;
}

interface NumberModel {
  /** The integer part's elements, left to right: digits ('9', '0') and group separators (','). */
  integer: string[];
  fraction: number;
  point: boolean;
  sign: 'slot' | 'S_leading' | 'S_trailing' | 'MI' | 'PR';
  currency: string;
  fm: boolean;
  blank: boolean;
  exponent: boolean;
  /** V: the value is multiplied by 10 to this power. */
  scale: number;
  /** X/x digits: each position's case (0 takes the next X's or x's, upper-case without one) and where leading zeros start. */
  hex?: { cases: boolean[]; forced: number };
  /** RN (upper-case) or rn (lower-case). */
  roman: false | 'upper' | 'lower';
}

/** A numeric format model (`$999,999.00`, `S9.99EEEE`, `0X0x`, `RN`), refused at save where BigQuery refuses it. */
export function readNumberModel(model: string): NumberModel {
  const result: NumberModel = { integer: [], fraction: 0, point: false, sign: 'slot', currency: '', fm: false, blank: false, exponent: false, scale: 0, roman: false };
  let text = model;
  const bad = () => invalidSql(`Invalid numeric format model: ${model}`);
  let afterV = false;
  let hexDigits = 0;
  // Every digit position of a hexadecimal model: 'X', 'x' or '0'.
  const hexPositions: string[] = [];
  while (text.length > 0) {
    const upper = text.toUpperCase();
    const take = (count: number) => (text = text.slice(count));
    if (upper.startsWith('FM')) ((result.fm = true), take(2));
    else if (upper.startsWith('RN')) ((result.roman = text[0] === 'r' ? 'lower' : 'upper'), take(2));
    else if (upper.startsWith('EEEE')) ((result.exponent = true), take(4));
    else if (upper.startsWith('MI')) ((result.sign = 'MI'), take(2));
    else if (upper.startsWith('PR')) ((result.sign = 'PR'), take(2));
    else if (upper[0] === 'S') ((result.sign = result.integer.length > 0 || result.point ? 'S_trailing' : 'S_leading'), take(1));
    else if (text[0] === '$') ((result.currency = '$'), take(1));
    else if (upper[0] === 'L') ((result.currency = '$'), take(1));
    else if (text[0] === 'C') ((result.currency = 'USD'), take(1));
    else if (text[0] === 'c') ((result.currency = 'usd'), take(1));
    else if (upper[0] === 'B') ((result.blank = true), take(1));
    else if (upper[0] === 'V') ((afterV = true), take(1));
    else if (upper[0] === 'X') {
      hexDigits++;
      hexPositions.push(text[0]!);
      take(1);
    } else if (text[0] === '9' || text[0] === '0') {
      // Digits after V scale the value and are printed as integer digits.
      if (afterV) ((result.scale++), result.integer.push(text[0]));
      else if (result.point) result.fraction++;
      else result.integer.push(text[0]);
      hexPositions.push(text[0]!);
      take(1);
    } else if (text[0] === ',' || upper[0] === 'G') {
      if (result.point) throw bad();
      result.integer.push(',');
      take(1);
    } else if (text[0] === '.' || upper[0] === 'D') {
      if (result.point) throw bad();
      result.point = true;
      take(1);
    } else throw bad();
  }
  if (hexDigits > 0) {
    const positions = hexPositions.filter((position) => position !== '9');
    if (positions.length !== hexPositions.length || positions.length > 16 || result.point || result.exponent || result.currency) throw bad();
    const cases = positions.map((position, index) => (position === '0' ? positions.slice(index).find((next) => next !== '0') ?? 'X' : position) === 'X');
    const leftmostZero = positions.indexOf('0');
    result.hex = { cases, forced: leftmostZero < 0 ? 0 : positions.length - leftmostZero };
  }
  if (result.roman && (result.integer.length > 0 || result.point || result.hex)) throw bad();
  return result;
}

const ROMAN: Array<[number, string]> = [
  [1000, 'M'],
  [900, 'CM'],
  [500, 'D'],
  [400, 'CD'],
  [100, 'C'],
  [90, 'XC'],
  [50, 'L'],
  [40, 'XL'],
  [10, 'X'],
  [9, 'IX'],
  [5, 'V'],
  [4, 'IV'],
  [1, 'I'],
];

/** CAST(number AS STRING FORMAT model) as SQL over the printed value. */
export function numberFormatSql(model: string, value: string, sql: NumberDialect): string {
  const format = readNumberModel(model);
  const negative = `(${value} < 0)`;
  const absolute = format.scale > 0 ? `abs(${value}) * ${10 ** format.scale}` : `abs(${value})`;
  const pad = (core: string, width: number) => (format.fm ? core : sql.lpad(core, String(width), "' '"));
  if (format.roman) {
    let rest = sql.integer(`round(${absolute})`);
    const parts: string[] = [];
    for (const [amount, letters] of ROMAN) {
      parts.push(`repeat('${letters}', CAST(floor((${rest}) / ${amount}) AS INTEGER))`);
      rest = `((${rest}) % ${amount})`;
    }
    const numeral = `(${parts.join(' || ')})`;
    return pad(format.roman === 'lower' ? `lower(${numeral})` : numeral, 15);
  }
  const signText =
    format.sign === 'S_leading' || format.sign === 'S_trailing'
      ? `(CASE WHEN ${value} < 0 THEN '-' WHEN ${value} > 0 THEN '+' ELSE ' ' END)`
      : format.sign === 'slot'
        ? `(CASE WHEN ${negative} THEN '-' ELSE '${format.fm ? '' : ' '}' END)`
        : "''";
  // The number is padded to `width` characters, the sign's place (or the text it adds) besides.
  const withSign = (number: string, width: number) => {
    switch (format.sign) {
      case 'MI':
        return `(${pad(number, width)} || CASE WHEN ${negative} THEN '-' ELSE ' ' END)`;
      case 'PR':
        return `(CASE WHEN ${negative} THEN ${pad(`'<' || ${number}`, width + 1)} || '>' ELSE ${pad(number, width + 1)} || ' ' END)`;
      case 'S_trailing':
        return `(${pad(number, width)} || ${signText})`;
      default:
        return pad(`(${signText} || ${number})`, width + 1);
    }
  };
  if (format.hex) {
    const hex = sql.hex(sql.integer(`round(${absolute})`));
    const { cases, forced } = format.hex;
    const digits = cases.length;
    const padded = forced > 0 ? sql.lpad(hex, `greatest(length(${hex}), ${forced})`, "'0'") : hex;
    // Each printed digit takes its position's case, positions counted from the right.
    const text = cases.every((upper) => upper)
      ? padded
      : cases.every((upper) => !upper)
        ? `lower(${padded})`
        : `(${cases
            .map((upper, index) => {
              const fromRight = digits - 1 - index;
              const digit = `substr(${padded}, length(${padded}) - ${fromRight}, 1)`;
              return `(CASE WHEN length(${padded}) > ${fromRight} THEN ${upper ? digit : `lower(${digit})`} ELSE '' END)`;
            })
            .join(' || ')})`;
    const overflow = `length(${hex}) > ${digits}`;
    return `(CASE WHEN ${overflow} THEN ${withSign(`'${'#'.repeat(digits)}'`, digits)} ELSE ${withSign(text, digits)} END)`;
  }
  const digitCount = format.integer.filter((element) => element !== ',').length;
  const width = format.currency.length + format.integer.length + (format.point ? 1 + format.fraction : 0) + (format.exponent ? 4 : 0);
  if (format.exponent) {
    const exponent = `CAST(floor(log10(${absolute})) AS BIGINT)`;
    const mantissa = sql.fixed(`${absolute} / pow(10, ${exponent})`, format.fraction);
    // Rounding can make the mantissa 10: then it is 1 and the exponent one more.
    const carried = `(CASE WHEN ${mantissa} LIKE '10%' THEN ${sql.fixed(`${absolute} / pow(10, ${exponent} + 1)`, format.fraction)} ELSE ${mantissa} END)`;
    const power = `(CASE WHEN ${absolute} = 0 THEN 0 WHEN ${mantissa} LIKE '10%' THEN ${exponent} + 1 ELSE ${exponent} END)`;
    const exponentText = `'E' || CASE WHEN ${power} < 0 THEN '-' ELSE '+' END || ${sql.lpad(sql.text(`abs(${power})`), '2', "'0'")}`;
    const number = `(CASE WHEN ${absolute} = 0 THEN ${sql.fixed('0', format.fraction)} ELSE ${carried} END || ${exponentText})`;
    return withSign(`('${format.currency}' || ${number})`, width);
  }
  const fixed = sql.fixed(absolute, format.fraction);
  const integerText = format.fraction > 0 ? sql.before(fixed) : fixed;
  const fractionText = format.fraction > 0 ? sql.after(fixed) : "''";
  // Leading zeros start at the format's leftmost 0; a zero integer part is written only where a 0 asks for it.
  const leftmostZero = format.integer.filter((element) => element !== ',').indexOf('0');
  const forced = leftmostZero < 0 ? 0 : digitCount - leftmostZero;
  const count = `(CASE WHEN ${integerText} = '0' THEN 0 ELSE length(${integerText}) END)`;
  const printed = `greatest(${count}, ${forced})`;
  const digits = sql.lpad(`CASE WHEN ${integerText} = '0' THEN '' ELSE ${integerText} END`, printed, "'0'");
  const pieces: string[] = [];
  let offset = 0;
  for (const element of [...format.integer].reverse()) {
    if (element === ',') pieces.unshift(`(CASE WHEN ${printed} > ${offset} THEN ',' ELSE '' END)`);
    else {
      pieces.unshift(`(CASE WHEN ${printed} > ${offset} THEN substr(${digits}, ${printed} - ${offset}, 1) ELSE '' END)`);
      offset++;
    }
  }
  const integerPart = pieces.length > 0 ? pieces.join(' || ') : "''";
  let number = `(${integerPart}${format.point ? ` || '.' || ${fractionText}` : ''})`;
  // FM drops the fraction's trailing zeros, not the point (ZetaSQL writes 12 with '99.99FM' as '12.').
  if (format.fm && format.fraction > 0) number = `rtrim(${number}, '0')`;
  const overflowText = `'${format.currency}${format.integer.map((element) => (element === ',' ? ',' : '#')).join('')}${format.point ? `.${'#'.repeat(format.fraction)}` : ''}'`;
  const body = withSign(`('${format.currency}' || ${number})`, width);
  const overflow = withSign(overflowText, width);
  const blank = format.blank ? `WHEN ${absolute} < 1 THEN repeat(' ', ${width + (format.sign === 'PR' ? 2 : 1)}) ` : '';
  return `(CASE WHEN ${value} IS NULL THEN NULL ${blank}WHEN length(${integerText}) > ${digitCount} AND NOT (${integerText} = '0' AND ${digitCount} = 0) THEN ${overflow} ELSE ${body} END)`;
}
