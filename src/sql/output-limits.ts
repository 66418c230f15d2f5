/**
 * Bounds on the functions that build values whose size the query, not the data, chooses: one
 * call could otherwise build a billion-element list or a gigabyte string, which no engine can
 * interrupt and no memory limit governs (issue 17). GENERATE_*_ARRAY refuses more than 16,000
 * elements, as ZetaSQL's reference implementation does (`kMaxGeneratedArraySize`). ZetaSQL refuses
 * REPEAT, LPAD, RPAD and REPLACE output over 1 MiB; Sawmill over 64 KiB, because DuckDB computes
 * 2,048 rows at once: a row-dependent REPEAT at 1 MiB held 2 GiB per batch of rows (RSS +906 MB
 * measured before the query was cut off), at 64 KiB it is at most 128 MiB.
 *
 * Arguments that are literals are checked here, at translation, so the endpoint is refused when
 * it is saved; each engine's emitter adds a run-time check for the others.
 */
import type * as ir from './ir.ts';
import { invalidSql } from './parse.ts';
import { FIXED_PART_MICROS } from './functions/families/time-parts.ts';

export const MAX_GENERATED_ARRAY_ELEMENTS = 16_000;
export const MAX_STRING_OUTPUT_BYTES = 1 << 16;

export const tooManyElements = (fn: string) => `${fn.toUpperCase()} cannot generate arrays with more than ${MAX_GENERATED_ARRAY_ELEMENTS} elements`;
export const outputTooLarge = (fn: string) => `output of ${fn.toUpperCase()} exceeds the limit of ${MAX_STRING_OUTPUT_BYTES} bytes`;

/** The value of a numeric literal (or its negation), else undefined. */
export function literalNumber(expr: ir.Expr | undefined): number | undefined {
  if (expr?.kind === 'number') return Number(expr.text);
  if (expr?.kind === 'negate') {
    const value = literalNumber(expr.expr);
    return value === undefined ? undefined : -value;
  }
  return undefined;
}

/** Microseconds since the epoch of a TIMESTAMP/DATE literal or a string literal, else undefined. */
function literalInstantMicros(expr: ir.Expr | undefined): number | undefined {
  const text = expr?.kind === 'typed_literal' ? expr.value : expr?.kind === 'string' ? expr.value : undefined;
  if (text === undefined) return undefined;
  // BigQuery reads a zone-less literal as UTC; Date.parse reads a date-time without one as local time.
  const hasZone = /(?:Z|[+-]\d\d(?::?\d\d)?|\s[A-Za-z_]+\/[A-Za-z_]+)$/.test(text.trim());
  const millis = Date.parse(hasZone || !/\d:\d/.test(text) ? text : `${text.trim().replace(' ', 'T')}Z`);
  return Number.isFinite(millis) ? millis * 1000 : undefined;
}

const UNIT_MICROS: Partial<Record<ir.DatePart, number>> = {
  ...FIXED_PART_MICROS,
  week: 7 * 86_400_000_000,
  // The shortest month and year: the count they give is the largest the call can produce.
  month: 28 * 86_400_000_000,
  quarter: 89 * 86_400_000_000,
  year: 365 * 86_400_000_000,
};

function literalIntervalMicros(expr: ir.Expr | undefined): number | undefined {
  if (expr?.kind !== 'interval') return undefined;
  const value = literalNumber(expr.value);
  const unit = UNIT_MICROS[expr.unit];
  return value === undefined || unit === undefined ? undefined : value * unit;
}

/** Elements of a range from start to end by step, or undefined when the step is zero or not finite. */
function rangeLength(start: number, end: number, step: number): number | undefined {
  if (step === 0 || !Number.isFinite(step)) return undefined;
  const steps = (end - start) / step;
  return steps < 0 ? 0 : Math.floor(steps) + 1;
}

/**
 * Refuses a call that certainly builds more than the engine may: a generator with literal bounds
 * past MAX_GENERATED_ARRAY_ELEMENTS, REPEAT/LPAD/RPAD with a literal length past
 * MAX_STRING_OUTPUT_BYTES. Calls it cannot decide are left to the run-time check.
 */
export function checkOutputLimits(fn: string, args: ir.Expr[]): void {
  switch (fn) {
    case 'generate_array': {
      const [start, end, step] = [literalNumber(args[0]), literalNumber(args[1]), args[2] ? literalNumber(args[2]) : 1];
      if (start === undefined || end === undefined || step === undefined) return;
      if ((rangeLength(start, end, step) ?? 0) > MAX_GENERATED_ARRAY_ELEMENTS) throw invalidSql(tooManyElements(fn));
      return;
    }
    case 'generate_timestamp_array':
    case 'generate_date_array': {
      const [start, end] = [literalInstantMicros(args[0]), literalInstantMicros(args[1])];
      const step = args[2] ? literalIntervalMicros(args[2]) : UNIT_MICROS.day;
      if (start === undefined || end === undefined || step === undefined) return;
      if ((rangeLength(start, end, step) ?? 0) > MAX_GENERATED_ARRAY_ELEMENTS) throw invalidSql(tooManyElements(fn));
      return;
    }
    case 'repeat': {
      const count = literalNumber(args[1]);
      const text = args[0]?.kind === 'string' ? Buffer.byteLength(args[0].value) : undefined;
      if (count !== undefined && text !== undefined && text * count > MAX_STRING_OUTPUT_BYTES) throw invalidSql(outputTooLarge(fn));
      return;
    }
    case 'lpad':
    case 'rpad': {
      const length = literalNumber(args[1]);
      if (length !== undefined && length > MAX_STRING_OUTPUT_BYTES) throw invalidSql(outputTooLarge(fn));
      return;
    }
    case 'format': {
      // A width or precision is the one way a format string builds more than its arguments.
      const widths = args[0]?.kind === 'string' ? (args[0].value.match(/%[-+ #0']*\d*(?:\.\d+)?/g) ?? []) : [];
      const widest = Math.max(0, ...widths.flatMap((spec) => (spec.match(/\d+/g) ?? []).map(Number)));
      if (widest > MAX_STRING_OUTPUT_BYTES) throw invalidSql(`a width or precision in FORMAT exceeds the limit of ${MAX_STRING_OUTPUT_BYTES}`);
      return;
    }
  }
}
