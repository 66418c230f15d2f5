/**
 * Checks of literal arguments against the bounds BigQuery sets for them (ZetaSQL's
 * FunctionArgumentTypeOptions min_value/max_value), refused at save in BigQuery's words:
 * `Argument 2 to APPROX_TOP_COUNT must be at least 1`. A parameter's value is known only when the
 * query runs and is left to the engine.
 */

import type { ArgumentCheck } from '../entry.ts';
import { literalNumber } from '../../output-limits.ts';

export function argumentBounds(name: string, index: number, min: number, max?: number): ArgumentCheck {
  return (args) => {
    const expr = args[index];
    const value = expr?.kind === 'cast' ? literalNumber(expr.expr) : literalNumber(expr);
    const isNull = expr?.kind === 'null' || (expr?.kind === 'cast' && expr.expr.kind === 'null');
    if (!isNull && (value === undefined || (value >= min && (max === undefined || value <= max)))) return undefined;
    const which = args.length === 1 ? `The argument to ${name}` : `Argument ${index + 1} to ${name}`;
    return { message: max === undefined ? `${which} must be at least ${min}` : `${which} must be between ${min} and ${max}` };
  };
}

/** A literal argument that must not be NULL (STRING_AGG's delimiter): `Argument 2 to STRING_AGG must be non-NULL`. */
export function nonNullArgument(name: string, index: number): ArgumentCheck {
  return (args) => {
    const expr = args[index];
    const isNull = expr?.kind === 'null' || (expr?.kind === 'cast' && expr.expr.kind === 'null');
    return isNull ? { message: `Argument ${index + 1} to ${name} must be non-NULL` } : undefined;
  };
}
