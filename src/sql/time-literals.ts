/**
 * The text forms BigQuery reads as DATE, DATETIME, TIME and TIMESTAMP values (literals, and casts
 * of string literals), after ZetaSQL's ParseStringToTimestampParts: `YYYY-[M]M-[D]D`, then ` `, `T`
 * or `t` and `[H]H:[M]M:[S]S[.F…]`, then for a TIMESTAMP a zone (`Z`, `+HH[:MM]`, ` UTC`, ` <name>`).
 * A literal is read here, when the query is translated, so that every engine gets one canonical
 * form (and a bad literal is refused at save); a leap second (`:60`) is the next minute's first.
 */

import { parseZone, type Zone } from './time-zones.ts';

export interface CivilTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  micros: number;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const isLeapYear = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
export const daysInMonth = (year: number, month: number) => (month === 2 && isLeapYear(year) ? 29 : DAYS_IN_MONTH[month - 1]!);

const DATE = /^(\d{4,5})-(\d{1,2})-(\d{1,2})/;
const TIME = /^(\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.(\d{1,9}))?/;

interface Parsed {
  civil: CivilTime;
  /** The zone written in the text, for a TIMESTAMP. */
  zone?: Zone;
}

function readDate(text: string): { rest: string; year: number; month: number; day: number } | undefined {
  const match = DATE.exec(text);
  if (!match) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (year < 1 || year > 9999 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  return { rest: text.slice(match[0].length), year, month, day };
}

function readTime(text: string): { rest: string; hour: number; minute: number; second: number; micros: number } | undefined {
  const match = TIME.exec(text);
  if (!match) return undefined;
  const [hour, minute, second] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const fraction = match[4] ?? '';
  // Up to nine digits, as BigQuery reads them; past microseconds they are dropped.
  if (hour > 23 || minute > 59 || second > 60) return undefined;
  const micros = second === 60 ? 0 : Number(fraction.slice(0, 6).padEnd(6, '0'));
  return { rest: text.slice(match[0].length), hour, minute, second, micros };
}

function read(text: string, withZone: boolean): Parsed | undefined {
  const date = readDate(text);
  if (!date) return undefined;
  const civil: CivilTime = { year: date.year, month: date.month, day: date.day, hour: 0, minute: 0, second: 0, micros: 0 };
  let rest = date.rest;
  if (rest === '') return { civil };
  if (!/^[ Tt]/.test(rest)) return undefined;
  const time = readTime(rest.slice(1));
  if (time) {
    Object.assign(civil, { hour: time.hour, minute: time.minute, second: time.second, micros: time.micros });
    rest = time.rest;
  } else if (!withZone || !/^[ Tt][+-]/.test(rest)) return undefined;
  else rest = rest.slice(1);
  if (rest === '') return { civil };
  if (!withZone) return undefined;
  const zone = readZone(rest);
  return zone ? { civil, zone } : undefined;
}

function readZone(text: string): Zone | undefined {
  if (text === 'Z' || text === 'z' || text === ' UTC') return { kind: 'offset', minutes: 0 };
  if (/^[+-]/.test(text)) return parseZone(text);
  if (text.startsWith(' UTC') && /^[+-]/.test(text.slice(4))) return parseZone(text.slice(1));
  if (text.startsWith(' ') && text.length > 1 && !/^[+-]/.test(text.slice(1))) return parseZone(text.slice(1));
  return undefined;
}

/** A leap second is the next minute's first second; carried into the date where it must be. */
function normalized(civil: CivilTime): CivilTime {
  if (civil.second !== 60) return civil;
  return civilOf(civilMicros({ ...civil, second: 59, micros: 0 }) + 1_000_000n);
}

export function parseDateText(text: string): CivilTime | undefined {
  const date = readDate(text);
  return date && date.rest === '' ? { year: date.year, month: date.month, day: date.day, hour: 0, minute: 0, second: 0, micros: 0 } : undefined;
}

export function parseDatetimeText(text: string): CivilTime | undefined {
  const parsed = read(text, false);
  return parsed && normalized(parsed.civil);
}

export function parseTimeText(text: string): CivilTime | undefined {
  const time = readTime(text);
  if (!time || time.rest !== '') return undefined;
  const civil = normalized({ year: 1970, month: 1, day: 1, ...time });
  return { ...civil, year: 1970, month: 1, day: 1 };
}

/** A TIMESTAMP's text: the civil time and the zone it was written in (none: the default zone, UTC). */
export function parseTimestampText(text: string): Parsed | undefined {
  const parsed = read(text, true);
  return parsed && { ...parsed, civil: normalized(parsed.civil) };
}

const pad = (value: number, width: number) => String(value).padStart(width, '0');

/** `YYYY-MM-DD`. */
export const dateText = (civil: CivilTime) => `${pad(civil.year, 4)}-${pad(civil.month, 2)}-${pad(civil.day, 2)}`;
/** `HH:MM:SS[.ffffff]`. */
export const timeText = (civil: CivilTime) => `${pad(civil.hour, 2)}:${pad(civil.minute, 2)}:${pad(civil.second, 2)}${civil.micros ? `.${pad(civil.micros, 6)}` : ''}`;
/** `YYYY-MM-DD HH:MM:SS[.ffffff]`. */
export const datetimeText = (civil: CivilTime) => `${dateText(civil)} ${timeText(civil)}`;

/** Microseconds since the epoch of a civil time read at a UTC offset (minutes east). */
export function civilMicros(civil: CivilTime, offsetMinutes = 0): bigint {
  // setUTCFullYear, unlike Date.UTC, reads years below 100 as they are.
  const date = new Date(0);
  date.setUTCFullYear(civil.year, civil.month - 1, civil.day);
  date.setUTCHours(civil.hour, civil.minute, civil.second, 0);
  return BigInt(date.getTime()) * 1000n + BigInt(civil.micros) - BigInt(offsetMinutes) * 60_000_000n;
}

/** The civil time of an instant (microseconds since the epoch) at a UTC offset. */
export function civilOf(micros: bigint, offsetMinutes = 0): CivilTime {
  const shifted = micros + BigInt(offsetMinutes) * 60_000_000n;
  const millis = shifted / 1000n - (shifted % 1000n < 0n ? 1n : 0n);
  const date = new Date(Number(millis));
  const fraction = Number(((shifted % 1_000_000n) + 1_000_000n) % 1_000_000n);
  return { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate(), hour: date.getUTCHours(), minute: date.getUTCMinutes(), second: date.getUTCSeconds(), micros: fraction };
}

/** A DATE, DATETIME, TIME or TIMESTAMP literal in the canonical text each engine reads. */
export type TimeLiteral =
  | { type: 'DATE' | 'DATETIME' | 'TIME'; text: string }
  /** An instant, written in UTC (`YYYY-MM-DD HH:MM:SS.ffffff`). */
  | { type: 'TIMESTAMP'; utc: string }
  /** A wall clock in a named zone, which only the engine's zone data can place. */
  | { type: 'TIMESTAMP'; wall: string; zone: string };

export const TIME_TYPES: ReadonlySet<string> = new Set(['DATE', 'DATETIME', 'TIME', 'TIMESTAMP']);

const full = (civil: CivilTime) => `${dateText(civil)} ${timeText({ ...civil, micros: 0 })}.${pad(civil.micros, 6)}`;

/** The literal's canonical form, or undefined when BigQuery would not read the text as that type. */
export function readTimeLiteral(type: 'DATE' | 'DATETIME' | 'TIME' | 'TIMESTAMP', text: string): TimeLiteral | undefined {
  switch (type) {
    case 'DATE': {
      const civil = parseDateText(text);
      return civil && { type, text: dateText(civil) };
    }
    case 'DATETIME': {
      const civil = parseDatetimeText(text);
      return civil && { type, text: full(civil) };
    }
    case 'TIME': {
      const civil = parseTimeText(text);
      return civil && { type, text: `${timeText({ ...civil, micros: 0 })}.${pad(civil.micros, 6)}` };
    }
    case 'TIMESTAMP': {
      const parsed = parseTimestampText(text);
      if (!parsed) return undefined;
      const zone = parsed.zone ?? { kind: 'offset', minutes: 0 };
      if (zone.kind === 'name') return { type, wall: full(parsed.civil), zone: zone.name };
      const micros = civilMicros(parsed.civil, zone.minutes);
      if (micros < -62135596800000000n || micros > 253402300799999999n) return undefined;
      return { type, utc: full(civilOf(micros)) };
    }
  }
}
