/**
 * BigQuery's FORMAT patterns (`%[flags][width][.precision]specifier`), parsed once here for the
 * analyzer, which checks them against the values' types and refuses what BigQuery refuses in its
 * words, and for the engines, which print each piece by the type of the value it formats (after
 * ZetaSQL's StringFormatEvaluator: string_format.cc).
 */

import { describeType, type SqlType } from '../catalog.ts';
import type * as ir from '../ir.ts';
import type { ArgumentCheck } from './entry.ts';

export type Conversion = 'd' | 'i' | 'u' | 'o' | 'x' | 'X' | 'f' | 'F' | 'e' | 'E' | 'g' | 'G' | 's' | 'p' | 'P' | 't' | 'T';

export interface FormatFlags {
  /** `-`: left-justify within the width. */
  left: boolean;
  /** `+`: a sign even for positive numbers. */
  plus: boolean;
  /** ` `: a space where no sign is written. */
  space: boolean;
  /** `#`: 0x/0 prefixes, a decimal point always, %g keeps its trailing zeros. */
  alternate: boolean;
  /** `0`: pad numbers with zeros instead of spaces. */
  zero: boolean;
  /** `'`: group digits (1,234,567; hex in fours with ':'). */
  grouping: boolean;
}

/** A width or precision: written in the pattern, or taken from the argument at `argument` (`*`). */
export type Count = { kind: 'fixed'; value: number } | { kind: 'argument'; argument: number };

export interface FormatSpec {
  flags: FormatFlags;
  width?: Count;
  /** Absent when not written; `.` alone is a precision of 0. */
  precision?: Count;
  conversion: Conversion;
  /** Index of the value among FORMAT's arguments after the pattern. */
  argument: number;
}

export type FormatPiece = { kind: 'text'; text: string } | { kind: 'spec'; spec: FormatSpec };

/** FORMAT's output (and so a width) is at most 1 MiB in BigQuery. */
export const MAX_FORMAT_WIDTH = 1024 * 1024;
/** Digits after the point %e and %f may ask for (2^-1074 has that many). */
export const MAX_FLOAT_PRECISION = 1074;

const SPEC = /^%([-+ #'0]*)(\*|[0-9]*)(\.(?:\*|[0-9]*))?([\s\S])/u;
const CONVERSIONS: ReadonlySet<string> = new Set(['d', 'i', 'u', 'o', 'x', 'X', 'f', 'F', 'e', 'E', 'g', 'G', 's', 'p', 'P', 't', 'T']);

/** The pieces of a pattern and how many values it takes, or BigQuery's message for a bad pattern. */
export function parseFormat(pattern: string): { pieces: FormatPiece[]; arguments: number } | { error: string } {
  const pieces: FormatPiece[] = [];
  const text = (value: string) => {
    const last = pieces.at(-1);
    if (last?.kind === 'text') last.text += value;
    else if (value) pieces.push({ kind: 'text', text: value });
  };
  let next = 0;
  let rest = pattern;
  while (rest.length > 0) {
    const marker = rest.indexOf('%');
    if (marker < 0) {
      text(rest);
      break;
    }
    text(rest.slice(0, marker));
    rest = rest.slice(marker);
    const match = SPEC.exec(rest);
    if (!match) return { error: `Invalid FORMAT string: "${pattern}"` };
    rest = rest.slice(match[0].length);
    const [, flagText = '', widthText = '', precisionText, conversion = ''] = match;
    if (conversion === '%') {
      if (flagText || widthText || precisionText) return { error: `Invalid FORMAT string: "${pattern}"` };
      text('%');
      continue;
    }
    let width: Count | undefined;
    if (widthText === '*') width = { kind: 'argument', argument: next++ };
    else if (widthText) {
      const value = Number(widthText);
      if (value > MAX_FORMAT_WIDTH) return { error: `Width ${widthText} exceeds the maximum supported output width of FORMAT. Limit: ${MAX_FORMAT_WIDTH}` };
      width = { kind: 'fixed', value };
    }
    let precision: Count | undefined;
    if (precisionText === '.*') precision = { kind: 'argument', argument: next++ };
    else if (precisionText !== undefined) {
      const value = precisionText.length > 1 ? Number(precisionText.slice(1)) : 0;
      const cap = 'eEfF'.includes(conversion) ? MAX_FLOAT_PRECISION : 'gG'.includes(conversion) ? Number.POSITIVE_INFINITY : MAX_FORMAT_WIDTH;
      if (value > cap) return { error: `Precision value is too big${cap}` };
      // %g takes any precision; past what a FLOAT64 holds it changes nothing.
      precision = { kind: 'fixed', value: Math.min(value, MAX_FLOAT_PRECISION) };
    }
    if (!CONVERSIONS.has(conversion)) return { error: `Invalid format specifier character "${conversion}" in FORMAT string: "${pattern}"` };
    const flags: FormatFlags = {
      left: flagText.includes('-'),
      plus: flagText.includes('+'),
      space: flagText.includes(' '),
      alternate: flagText.includes('#'),
      zero: flagText.includes('0'),
      grouping: flagText.includes("'"),
    };
    pieces.push({ kind: 'spec', spec: { flags, ...(width ? { width } : {}), ...(precision ? { precision } : {}), conversion: conversion as Conversion, argument: next++ } });
  }
  return { pieces, arguments: next };
}

/** What each conversion takes, as BigQuery names it in the refusal ("Expected integer"). */
function expectedType(conversion: Conversion): { accepts: (type: ir.ScalarTypeName | undefined, kind: SqlType['kind']) => boolean; name: string } {
  switch (conversion) {
    case 'd':
    case 'i':
    case 'o':
    case 'x':
    case 'X':
      return { accepts: (type) => type === 'INT64', name: 'integer' };
    case 'u':
      return { accepts: () => false, name: 'UINT' };
    case 'f':
    case 'F':
    case 'e':
    case 'E':
    case 'g':
    case 'G':
      return { accepts: (type) => type === 'FLOAT64' || type === 'NUMERIC' || type === 'BIGNUMERIC', name: 'FLOAT64' };
    case 's':
      return { accepts: (type) => type === 'STRING', name: 'STRING' };
    case 'p':
    case 'P':
      return { accepts: (type) => type === 'JSON', name: 'PROTO or JSON' };
    case 't':
    case 'T':
      return { accepts: () => true, name: 'any type' };
  }
}

/**
 * The type a value argument is checked as: its own, INT64 for an untyped NULL (as ZetaSQL types
 * it), undefined where the analyzer does not know it (not checked).
 */
function checkedType(expr: ir.Expr | undefined, type: SqlType | undefined): SqlType | undefined {
  if (expr?.kind === 'null') return { kind: 'scalar', name: 'INT64' };
  return type === undefined || type.kind === 'unknown' ? undefined : type;
}

/**
 * FORMAT's check at save, as BigQuery checks a literal pattern when the query is analyzed: the
 * pattern parses, each value has a type its specifier takes, and the values are as many as the
 * pattern asks for. Sawmill prints a pattern by the types it formats, so the pattern must be a
 * literal (or NULL, which makes the result NULL).
 */
export const checkFormat: ArgumentCheck = (args, types) => {
  const pattern = args[0];
  if (pattern?.kind === 'null') return undefined;
  if (pattern?.kind !== 'string') {
    return { message: 'FORMAT with a format string that is not a literal is not supported: Sawmill prints each value by its type when the query is saved' };
  }
  const parsed = parseFormat(pattern.value);
  if ('error' in parsed) return { message: parsed.error };
  const given = args.length - 1;
  const wrongType = (index: number, expected: string) => {
    const type = checkedType(args[index + 1], types[index + 1]);
    return type === undefined ? undefined : { message: `Invalid type for argument ${index + 2} to FORMAT; Expected ${expected}; Got ${describeType(type)}` };
  };
  for (const piece of parsed.pieces) {
    if (piece.kind !== 'spec') continue;
    const { spec } = piece;
    for (const count of [spec.width, spec.precision]) {
      if (count?.kind !== 'argument' || count.argument >= given) continue;
      const type = checkedType(args[count.argument + 1], types[count.argument + 1]);
      if (type !== undefined && !(type.kind === 'scalar' && type.name === 'INT64')) return wrongType(count.argument, 'integer');
    }
    if (spec.argument >= given) continue;
    const expected = expectedType(spec.conversion);
    const type = checkedType(args[spec.argument + 1], types[spec.argument + 1]);
    if (type !== undefined && !expected.accepts(type.kind === 'scalar' ? type.name : undefined, type.kind)) return wrongType(spec.argument, expected.name);
  }
  if (parsed.arguments !== given) {
    const which = parsed.arguments > given ? 'few' : 'many';
    return { message: `Too ${which} arguments to FORMAT for pattern "${pattern.value}"; Expected ${parsed.arguments + 1}; Got ${given + 1}` };
  }
  return undefined;
};
