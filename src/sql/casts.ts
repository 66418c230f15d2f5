/**
 * BigQuery's CAST and SAFE_CAST where its rules differ from an engine's own cast: which cast needs
 * BigQuery's reading is decided here, once, and each engine renders it with its primitives
 * (src/warehouse/<engine>/functions/casts.ts). A string literal cast to a date, a time or an
 * INTERVAL is read when the query is translated: text BigQuery does not read is refused at save
 * (NULL for SAFE_CAST).
 */

import { argType, type CallParts, type Emitter, type Rendering } from './emitters.ts';
import type { TimeType } from './format-elements.ts';
import { readIntervalCast } from './interval-text.ts';
import type * as ir from './ir.ts';
import { invalidSql } from './parse.ts';
import type { ExprOf } from './printer.ts';
import { readTimeLiteral, type TimeLiteral } from './time-literals.ts';

const TIME_TYPES: ReadonlySet<ir.TypeName> = new Set(['DATE', 'DATETIME', 'TIME', 'TIMESTAMP']);

export interface CastContext {
  /** The printed value being cast. */
  value: string;
  printTimeLiteral(literal: TimeLiteral): string;
}

/** An engine's renderings of the casts that follow BigQuery's rules rather than its own. */
export interface CastRenderings {
  /** CAST … FORMAT (cast-formats.ts). */
  formatted(expr: ExprOf<'cast'>, target: ir.ScalarTypeName, value: string, format: { model: string; zone?: string }): string;
  /** CAST(value AS STRING) of a date or time value. */
  timeText(value: string, type: TimeType): string;
  intervalText(value: string): string;
  /** CAST(text AS INTERVAL) of text that is not a literal. */
  intervalFromText(text: string, safe: boolean): string;
  intervalOf(months: string, days: string, micros: string): string;
  timeFromText(text: string, type: 'DATE' | 'DATETIME' | 'TIME', safe: boolean): string;
  int64FromText(text: string, safe: boolean): string;
  /** What SAFE_CAST of a literal that is no date or time of `type` gives. */
  nullOf(type: TimeLiteral['type']): string;
  /** The engine's own further cases, tried last. */
  more?(expr: ExprOf<'cast'>, target: ir.ScalarTypeName, value: string): string | undefined;
}

/** The cast in BigQuery's terms, or undefined where the engine's own CAST is BigQuery's. */
export function castSql(expr: ExprOf<'cast'>, context: CastContext, engine: CastRenderings): string | undefined {
  const { value } = context;
  const target = expr.type;
  if (typeof target !== 'string') return undefined;
  const from = expr.from;
  if (expr.format) return engine.formatted(expr, target, value, expr.format);
  if (expr.expr.kind === 'string' && TIME_TYPES.has(target)) return literalCast(expr, target as TimeLiteral['type'], context, engine);
  if (target === 'STRING' && from && TIME_TYPES.has(from)) return engine.timeText(value, from as TimeType);
  if (target === 'STRING' && from === 'INTERVAL') return engine.intervalText(value);
  if (target === 'INTERVAL' && from === 'STRING') return expr.expr.kind === 'string' ? intervalLiteral(expr, expr.expr.value, engine) : engine.intervalFromText(value, expr.safe);
  if (from === 'STRING' && (target === 'DATE' || target === 'DATETIME' || target === 'TIME')) return engine.timeFromText(value, target, expr.safe);
  if (from === 'STRING' && target === 'INT64') return engine.int64FromText(value, expr.safe);
  return engine.more?.(expr, target, value);
}

function literalCast(expr: ExprOf<'cast'>, target: TimeLiteral['type'], context: CastContext, engine: CastRenderings): string {
  const text = (expr.expr as ExprOf<'string'>).value;
  const literal = readTimeLiteral(target, text);
  if (literal) return context.printTimeLiteral(literal);
  if (expr.safe) return engine.nullOf(target);
  throw invalidSql(`Could not cast literal "${text}" to type ${target}`);
}

function intervalLiteral(expr: ExprOf<'cast'>, text: string, engine: CastRenderings): string {
  const parts = readIntervalCast(text);
  if (parts) return engine.intervalOf(String(parts.months), String(parts.days), String(parts.micros));
  if (expr.safe) return 'NULL';
  throw invalidSql(`Invalid INTERVAL value '${text}'`);
}

/**
 * STRING(value[, zone]) of a TIMESTAMP (in the zone), DATE, DATETIME or TIME: CAST's text, by
 * `timeText`; the JSON form is `json`'s.
 */
export function stringOf(engineName: string, timeText: (call: CallParts, type: TimeType) => string): (json: Rendering) => Emitter {
  return (json) => (call) => {
    const type = argType(call, 0);
    if (type && TIME_TYPES.has(type)) return timeText(call, type as TimeType);
    if (typeof json !== 'function') throw invalidSql(`STRING is not supported on ${engineName}: ${json.unsupported}`);
    return json(call);
  };
}
