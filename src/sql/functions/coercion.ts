/**
 * BigQuery's implicit conversions (ZetaSQL's conversion rules): what an argument may become to
 * match a signature, at what cost, and the common supertype of several arguments.
 *
 * - Any expression: INT64 → NUMERIC → BIGNUMERIC → FLOAT64, and DATE → DATETIME.
 * - Literals: NULL to any type; a string literal to DATE, DATETIME, TIME and TIMESTAMP; `[]` to
 *   any array.
 * - Query parameters: Sawmill's are strings (Logflare's wire protocol), coerced as a literal of
 *   their text would be, and also to numbers and BOOL, since a caller cannot give another type.
 */

import { type SqlType, UNKNOWN } from '../catalog.ts';
import type * as ir from '../ir.ts';

/** An argument as the resolver sees it: its type, and whether it is a literal that coerces further. */
export interface ArgumentType {
  type: SqlType;
  literal?: 'null' | 'string' | 'parameter' | 'empty_array';
}

export function argumentType(expr: ir.Expr, type: SqlType): ArgumentType {
  switch (expr.kind) {
    case 'null':
      return { type, literal: 'null' };
    case 'string':
      return { type, literal: 'string' };
    case 'param':
      return { type, literal: 'parameter' };
    case 'array':
      return expr.elements.length === 0 ? { type, literal: 'empty_array' } : { type };
    default:
      return { type };
  }
}

/**
 * Implicit conversions between scalar types and their cost. INT64 becomes FLOAT64 more readily
 * than NUMERIC, as in ZetaSQL: ROUND(INT64) and SQRT(INT64) are FLOAT64 in BigQuery.
 */
const SCALAR_COERCIONS: Partial<Record<ir.ScalarTypeName, Partial<Record<ir.ScalarTypeName, number>>>> = {
  INT64: { FLOAT64: 1, NUMERIC: 2, BIGNUMERIC: 3 },
  NUMERIC: { BIGNUMERIC: 1, FLOAT64: 2 },
  BIGNUMERIC: { FLOAT64: 1 },
  DATE: { DATETIME: 1 },
};
const NUMERIC_TYPES: readonly ir.ScalarTypeName[] = ['INT64', 'NUMERIC', 'BIGNUMERIC', 'FLOAT64'];
const FROM_STRING_LITERAL: ReadonlySet<ir.ScalarTypeName> = new Set(['DATE', 'DATETIME', 'TIME', 'TIMESTAMP']);
const FROM_PARAMETER: ReadonlySet<ir.ScalarTypeName> = new Set([...FROM_STRING_LITERAL, ...NUMERIC_TYPES, 'BOOL', 'STRING']);

/** The cost of turning `arg` into `to` (0: as it is), or undefined when BigQuery would not. */
export function coercionCost(arg: ArgumentType, to: SqlType): number | undefined {
  const from = arg.type;
  if (to.kind === 'unknown' || from.kind === 'unknown') return literalCost(arg, to) ?? 0;
  if (sameType(from, to)) return 0;
  const literal = literalCost(arg, to);
  if (literal !== undefined) return literal;
  if (from.kind === 'scalar' && to.kind === 'scalar') return scalarCost(from.name, to.name);
  if (from.kind === 'array' && to.kind === 'array') return from.element.kind === 'unknown' || to.element.kind === 'unknown' ? 0 : sameType(from.element, to.element) ? 0 : undefined;
  if (from.kind === 'struct' && to.kind === 'struct') {
    if (from.fields.length !== to.fields.length) return undefined;
    let total = 0;
    for (const [index, field] of from.fields.entries()) {
      const cost = coercionCost({ type: field.type }, to.fields[index]!.type);
      if (cost === undefined) return undefined;
      total += cost;
    }
    return total;
  }
  return undefined;
}

function literalCost(arg: ArgumentType, to: SqlType): number | undefined {
  switch (arg.literal) {
    case 'null':
      return 1;
    case 'empty_array':
      return to.kind === 'array' || to.kind === 'unknown' ? 1 : undefined;
    case 'string':
      return to.kind === 'scalar' && FROM_STRING_LITERAL.has(to.name) ? 1 : undefined;
    case 'parameter':
      return to.kind === 'scalar' && FROM_PARAMETER.has(to.name) ? 1 : undefined;
    default:
      return undefined;
  }
}

function scalarCost(from: ir.ScalarTypeName, to: ir.ScalarTypeName): number | undefined {
  return SCALAR_COERCIONS[from]?.[to];
}

/** Whether two types are the same; an unknown type (or part of one) matches anything. */
export function sameType(a: SqlType, b: SqlType): boolean {
  if (a.kind === 'unknown' || b.kind === 'unknown') return true;
  if (a.kind !== b.kind) return false;
  switch (a.kind) {
    case 'scalar':
      return a.name === (b as typeof a).name;
    case 'array':
      return sameType(a.element, (b as typeof a).element);
    case 'struct': {
      const other = b as typeof a;
      return a.fields.length === other.fields.length && a.fields.every((field, index) => sameType(field.type, other.fields[index]!.type));
    }
    case 'map':
      return sameType(a.key, (b as typeof a).key) && sameType(a.value, (b as typeof a).value);
  }
}

/**
 * The common type of several arguments (IFNULL's, GREATEST's, an array's elements), by BigQuery's
 * supertype rules: literals follow the other arguments when there are any; UNKNOWN when nothing
 * is known; undefined when there is none.
 */
export function supertype(args: readonly ArgumentType[]): SqlType | undefined {
  const typed = args.filter((arg) => arg.type.kind !== 'unknown' && arg.literal !== 'null' && arg.literal !== 'empty_array');
  const fixed = typed.filter((arg) => arg.literal === undefined);
  const candidates = fixed.length > 0 ? fixed : typed;
  let result: SqlType | undefined;
  for (const arg of candidates) {
    result = result === undefined ? arg.type : widerOf(result, arg.type);
    if (result === undefined) return undefined;
  }
  if (result === undefined) return UNKNOWN;
  const target = result;
  return args.every((arg) => coercionCost(arg, target) !== undefined) ? target : undefined;
}

function widerOf(a: SqlType, b: SqlType): SqlType | undefined {
  if (sameType(a, b)) return a;
  if (a.kind === 'scalar' && b.kind === 'scalar') {
    if (scalarCost(a.name, b.name) !== undefined) return b;
    if (scalarCost(b.name, a.name) !== undefined) return a;
    return undefined;
  }
  if (a.kind === 'array' && b.kind === 'array') {
    if (a.element.kind === 'unknown') return b;
    if (b.element.kind === 'unknown') return a;
    return undefined;
  }
  if (a.kind === 'struct' && b.kind === 'struct' && a.fields.length === b.fields.length) {
    const fields = a.fields.map((field, index) => ({ name: field.name, type: widerOf(field.type, b.fields[index]!.type) }));
    return fields.every((field) => field.type !== undefined) ? { kind: 'struct', fields: fields as Array<{ name: string; type: SqlType }> } : undefined;
  }
  return undefined;
}

/** Scalar types BigQuery casts to STRING (CONCAT's arguments); not JSON, ARRAY or STRUCT. */
const CASTS_TO_STRING: ReadonlySet<ir.ScalarTypeName> = new Set(['INT64', 'FLOAT64', 'NUMERIC', 'BIGNUMERIC', 'BOOL', 'BYTES', 'TIMESTAMP', 'DATETIME', 'DATE', 'TIME', 'INTERVAL']);

/** The cost of an explicit cast where a parameter takes one (`CAST STRING`), dearer than any coercion. */
export function castCost(arg: ArgumentType, to: SqlType): number | undefined {
  if (to.kind !== 'scalar' || to.name !== 'STRING') return undefined;
  return arg.type.kind === 'scalar' && CASTS_TO_STRING.has(arg.type.name) ? 10 : undefined;
}
