/**
 * INTERVAL text BigQuery reads (ZetaSQL's IntervalValue::ParseFromString): a literal with a range
 * of parts (`INTERVAL '1-2 3 4:5:6.789' YEAR TO SECOND`, `'10 -12:30' DAY TO MINUTE`), a single
 * part written as text (`INTERVAL '10' DAY`), and CAST's forms (the canonical `Y-M D H:M:S[.F]`,
 * ISO 8601's `P1Y2M3DT4H5M6.5S`). Read when the query is translated into months, days and
 * microseconds, BigQuery's three fields.
 */

import type * as ir from './ir.ts';

export interface IntervalParts {
  months: number;
  days: number;
  micros: bigint;
}

const ORDER: ir.DatePart[] = ['year', 'month', 'day', 'hour', 'minute', 'second'];
const MICROS: Partial<Record<ir.DatePart, bigint>> = { hour: 3_600_000_000n, minute: 60_000_000n, second: 1_000_000n, millisecond: 1_000n, microsecond: 1n };

/** `[-]n` or `[-]n.f` (seconds), microseconds of it at `unit`. */
function secondsMicros(sign: bigint, text: string): bigint | undefined {
  const match = /^(\d+)(?:\.(\d{1,9}))?$/.exec(text);
  if (!match) return undefined;
  return sign * (BigInt(match[1]!) * 1_000_000n + BigInt((match[2] ?? '').slice(0, 6).padEnd(6, '0')));
}

/** A literal `INTERVAL '<text>' <from> [TO <to>]`, or undefined when BigQuery would not read it. */
export function readIntervalText(text: string, from: ir.DatePart, to: ir.DatePart = from): IntervalParts | undefined {
  const first = ORDER.indexOf(from);
  const last = ORDER.indexOf(to);
  if (from === to) return singlePart(text.trim(), from);
  if (first < 0 || last <= first) return undefined;
  const parts = ORDER.slice(first, last + 1);
  // Year-month, day and time groups, separated by spaces; each group carries its own sign.
  const groups = text.trim().split(/\s+/);
  const result: IntervalParts = { months: 0, days: 0, micros: 0n };
  const wants = (part: ir.DatePart) => parts.includes(part);
  const takeSign = (group: string): [bigint, string] => (group.startsWith('-') ? [-1n, group.slice(1)] : group.startsWith('+') ? [1n, group.slice(1)] : [1n, group]);
  let index = 0;
  if (wants('year') || wants('month')) {
    const [sign, body] = takeSign(groups[index++] ?? '');
    const yearMonth = wants('year') && wants('month') ? /^(\d+)-(\d+)$/.exec(body) : /^(\d+)$/.exec(body);
    if (!yearMonth) return undefined;
    const months = wants('year') && wants('month') ? Number(yearMonth[1]) * 12 + Number(yearMonth[2]) : wants('year') ? Number(yearMonth[1]) * 12 : Number(yearMonth[1]);
    result.months = Number(sign) * months;
  }
  if (wants('day')) {
    const [sign, body] = takeSign(groups[index++] ?? '');
    if (!/^\d+$/.test(body)) return undefined;
    result.days = Number(sign) * Number(body);
  }
  const clockParts = parts.filter((part) => part === 'hour' || part === 'minute' || part === 'second');
  if (clockParts.length > 0) {
    const [sign, body] = takeSign(groups[index++] ?? '');
    const fields = body.split(':');
    if (fields.length !== clockParts.length) return undefined;
    let micros = 0n;
    for (const [position, part] of clockParts.entries()) {
      const field = fields[position]!;
      if (part === 'second') {
        const seconds = secondsMicros(1n, field);
        if (seconds === undefined) return undefined;
        micros += seconds;
      } else {
        if (!/^\d+$/.test(field)) return undefined;
        micros += BigInt(field) * MICROS[part]!;
      }
    }
    result.micros = sign * micros;
  }
  return index === groups.length ? result : undefined;
}

function singlePart(text: string, part: ir.DatePart): IntervalParts | undefined {
  const sign = text.startsWith('-') ? -1n : 1n;
  const body = text.replace(/^[+-]/, '');
  if (part === 'second') {
    const micros = secondsMicros(sign, body);
    return micros === undefined ? undefined : { months: 0, days: 0, micros };
  }
  if (!/^\d+$/.test(body)) return undefined;
  const count = sign * BigInt(body);
  switch (part) {
    case 'year':
      return { months: Number(count) * 12, days: 0, micros: 0n };
    case 'quarter':
      return { months: Number(count) * 3, days: 0, micros: 0n };
    case 'month':
      return { months: Number(count), days: 0, micros: 0n };
    case 'week':
      return { months: 0, days: Number(count) * 7, micros: 0n };
    case 'day':
      return { months: 0, days: Number(count), micros: 0n };
    default: {
      const unit = MICROS[part];
      return unit === undefined ? undefined : { months: 0, days: 0, micros: count * unit };
    }
  }
}

/**
 * The parts CAST(text AS INTERVAL) reads, told apart as ZetaSQL does (IntervalValue::Parse) by the
 * text's spaces, colons and dashes after a digit: `Y-M D H:M:S` (2, 2, 1) down to `H:M:S` (0, 2, 0).
 */
const CAST_FORMS: Record<string, [ir.DatePart, ir.DatePart]> = {
  '221': ['year', 'second'],
  '211': ['year', 'minute'],
  '201': ['year', 'hour'],
  '101': ['year', 'day'],
  '001': ['year', 'month'],
  '200': ['month', 'hour'],
  '210': ['month', 'minute'],
  '220': ['month', 'second'],
  '110': ['day', 'minute'],
  '120': ['day', 'second'],
  '020': ['hour', 'second'],
};

/** CAST(text AS INTERVAL): the canonical forms (`1-2 3 4:5:6.5`, `1-2`, `10:20:30` …) or ISO 8601's `P…`; undefined where BigQuery refuses the text. */
export function readIntervalCast(text: string): IntervalParts | undefined {
  if (text.startsWith('P')) return readIso(text);
  const count = (pattern: RegExp) => (text.match(pattern) ?? []).length;
  const form = CAST_FORMS[`${count(/ /g)}${count(/:/g)}${count(/\d-/g)}`];
  return form && readIntervalText(text, form[0], form[1]);
}

const ISO_DATE: Record<string, [keyof IntervalParts, number]> = { Y: ['months', 12], M: ['months', 1], W: ['days', 7], D: ['days', 1] };
const ISO_TIME: Record<string, bigint> = { H: 3_600_000_000n, M: 60_000_000n };

/**
 * ISO 8601's duration as ZetaSQL reads it: `P`, then numbers each followed by its part, in any order
 * and sign (`P1Y-2M`, `PT10H20M30,456S`), `T` before the clock parts; only seconds take a fraction.
 */
function readIso(text: string): IntervalParts | undefined {
  if (text.length === 1) return undefined;
  const result: IntervalParts = { months: 0, days: 0, micros: 0n };
  let clock = false;
  let rest = text.slice(1);
  while (rest.length > 0) {
    if (rest[0] === 'T') {
      if (clock) return undefined;
      clock = true;
      rest = rest.slice(1);
      continue;
    }
    const match = /^(-?)(\d+)(?:[.,](\d*))?([A-Z])/.exec(rest);
    if (!match) return undefined;
    rest = rest.slice(match[0].length);
    const [, minus, digits, fraction, part] = match as unknown as [string, string, string, string | undefined, string];
    const sign = minus ? -1 : 1;
    if (fraction !== undefined && !(clock && part === 'S')) return undefined;
    if (!clock && ISO_DATE[part]) {
      const [field, factor] = ISO_DATE[part]!;
      (result[field] as number) += sign * Number(digits) * factor;
    } else if (clock && ISO_TIME[part]) result.micros += BigInt(sign) * BigInt(digits) * ISO_TIME[part]!;
    else if (clock && part === 'S') {
      const micros = secondsMicros(BigInt(sign), fraction ? `${digits}.${fraction}` : digits);
      if (micros === undefined) return undefined;
      result.micros += micros;
    } else return undefined;
  }
  return result;
}

/** One canonical form of CAST(text AS INTERVAL) as a regular expression, for engines that read the text in SQL. */
export interface IntervalCastPattern {
  /** The counts of spaces, colons and dashes after a digit that select it (`221`). */
  key: string;
  /** An anchored RE2 pattern. */
  pattern: string;
  /** 1-based group numbers; a sign group holds '', '+' or '-'; `fraction` holds up to nine digits or ''. */
  groups: Partial<Record<'monthSign' | 'years' | 'months' | 'days' | 'clockSign' | 'hours' | 'minutes' | 'seconds' | 'fraction', number>>;
}

export function intervalCastPatterns(): IntervalCastPattern[] {
  return Object.entries(CAST_FORMS).map(([key, [from, to]]) => {
    const parts = ORDER.slice(ORDER.indexOf(from), ORDER.indexOf(to) + 1);
    const groups: IntervalCastPattern['groups'] = {};
    const pieces: string[] = [];
    let count = 0;
    const group = (name: keyof IntervalCastPattern['groups'], regex: string) => {
      groups[name] = ++count;
      return `(${regex})`;
    };
    if (parts.includes('year') || parts.includes('month')) {
      const sign = group('monthSign', '[-+]?');
      pieces.push(parts.includes('year') ? `${sign}${group('years', '\\d+')}-${group('months', '\\d+')}` : `${sign}${group('months', '\\d+')}`);
    }
    if (parts.includes('day')) pieces.push(group('days', '[-+]?\\d+'));
    const clock = parts.filter((part) => part === 'hour' || part === 'minute' || part === 'second');
    if (clock.length > 0) {
      const names = { hour: 'hours', minute: 'minutes', second: 'seconds' } as const;
      const sign = group('clockSign', '[-+]?');
      const fields = clock.map((part) => group(names[part as keyof typeof names], '\\d+'));
      const fraction = clock.includes('second') ? `(?:\\.${group('fraction', '\\d{1,9}')})?` : '';
      pieces.push(`${sign}${fields.join(':')}${fraction}`);
    }
    return { key, pattern: `^${pieces.join(' ')}$`, groups };
  });
}
