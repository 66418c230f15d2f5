import type * as ir from './ir.ts';
import { invalidSql } from './parse.ts';

/**
 * The toolkit every engine's function table is written with: a call's printed parts, and the
 * emitters that most functions share. Each engine's sql-functions.ts maps BigQuery functions to
 * its own spelling with these.
 */

export interface CallParts {
  /** Printed arguments; a date-part keyword is printed as the engine's quoted part name ('hour'). */
  args: string[];
  raw: ir.Expr[];
  /** 'DISTINCT ' or ''. */
  distinct: string;
  /** ' OVER (…)' or ''. */
  over: string;
  /** COUNT(*). */
  star: boolean;
}

export type Emitter = (call: CallParts) => string;

export function arg(call: CallParts, index: number): string {
  const value = call.args[index];
  if (value === undefined) throw invalidSql(`missing argument ${index + 1}`);
  return value;
}

export const optionalArg = (call: CallParts, index: number): string | undefined => call.args[index];

/** `name(args)`, passing DISTINCT and OVER through (aggregates and window functions). */
export const same =
  (name: string): Emitter =>
  (call) =>
    `${name}(${call.distinct}${call.args.join(', ')})${call.over}`;
