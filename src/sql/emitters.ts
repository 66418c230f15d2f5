import type { Position } from './ast.ts';
import type { SqlType } from './catalog.ts';
import type { BigQueryFunction, FunctionName } from './functions/index.ts';
import type * as ir from './ir.ts';
import { invalidSql } from './parse.ts';

/**
 * The toolkit every engine's function table is written with: a call's printed parts, the
 * emitters that most functions share, and the functions every engine spells alike. Each
 * engine's functions/ folder maps every catalog entry (src/sql/functions/) to its own spelling
 * with these, or says why it cannot.
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
  /** ' ORDER BY …' inside an aggregate's parentheses, or ''. */
  orderBy: string;
  /** The same keys one by one, for engines that sort themselves: printed, direction, NULLs placement, type. */
  orderKeys: ReadonlyArray<{ sql: string; descending: boolean; nullsFirst: boolean; type: SqlType }>;
  /** LIMIT n inside an aggregate's parentheses. */
  limit?: number;
  ignoreNulls: boolean;
  /** RESPECT NULLS written (where a function's default is to skip them: PERCENTILE_CONT). */
  respectNulls: boolean;
  /** `SAFE.fn(…)`: where the rendering checks for BigQuery's errors itself, it gives NULL instead. */
  safe: boolean;
  /** `HAVING MAX y` / `HAVING MIN y` inside an aggregate's parentheses, `y` printed. */
  having?: { max: boolean; value: string };
  /** Printed named arguments (`mode => 'x'`), by name. */
  named: Readonly<Record<string, string>>;
  /** The named arguments as written (a literal option is read at save), by name. */
  rawNamed: Readonly<Record<string, ir.Expr>>;
  /** Where the function's name was written, for a rendering's refusal. */
  at?: Position;
  /**
   * The type each argument has after the analyzer resolved the call (coercions applied), and
   * the result's; UNKNOWN where the analyzer could not know (a source's field not seen yet).
   */
  types: readonly SqlType[];
  result: SqlType;
  /** Prints any expression of the tree (the parts of a raw argument: an INTERVAL's count). */
  print(expr: ir.Expr): string;
}

export type Emitter = (call: CallParts) => string;

/** An entry the engine cannot render: the query is refused at save with this reason. */
export interface Unsupported {
  unsupported: string;
}

export type Rendering = Emitter | Unsupported;

/** How an engine renders the entries of one catalog family file; a missing entry is a compile error. */
export type Renderings<Entries> = { readonly [Name in keyof Entries]: Rendering };

/** All of an engine's renderings. */
export type FunctionRenderings = Readonly<Record<FunctionName, Rendering>>;

export const unsupported = (reason: string): Unsupported => ({ unsupported: reason });


/** The scalar type name of argument `index` as resolved, if known. */
export function argType(call: CallParts, index: number): ir.ScalarTypeName | undefined {
  const type = call.types[index];
  return type?.kind === 'scalar' ? type.name : undefined;
}

/** The scalar type name of the call's result as resolved, if known. */
export function resultType(call: CallParts): ir.ScalarTypeName | undefined {
  return call.result.kind === 'scalar' ? call.result.name : undefined;
}

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

/**
 * Functions both engines spell as BigQuery (or standard SQL) does. Each engine's table starts
 * from these and lists only its own spellings after them.
 */
export const PORTABLE_EMITTERS = {
  sum: same('sum'),
  avg: same('avg'),
  min: same('min'),
  max: same('max'),
  percent_rank: same('percent_rank'),
  cume_dist: same('cume_dist'),
  coalesce: same('coalesce'),
  abs: same('abs'),
  sign: same('sign'),
  floor: same('floor'),
  ceil: same('ceil'),
  ceiling: same('ceil'),
  sqrt: same('sqrt'),
  pow: same('pow'),
  power: same('pow'),
  exp: same('exp'),
  log10: same('log10'),
  mod: (call) => `(${arg(call, 0)} % ${arg(call, 1)})`,
  // BigQuery's CONCAT is NULL when an argument is, as `||` is; DuckDB's concat() skips NULLs.
  concat: (call) => `(${call.args.join(' || ')})`,
  timestamp_add: (call) => `(${arg(call, 0)} + ${arg(call, 1)})`,
  timestamp_sub: (call) => `(${arg(call, 0)} - ${arg(call, 1)})`,
  datetime_add: (call) => `(${arg(call, 0)} + ${arg(call, 1)})`,
  datetime_sub: (call) => `(${arg(call, 0)} - ${arg(call, 1)})`,
} satisfies Partial<Record<BigQueryFunction, Emitter>>;

/**
 * The date-part keyword at `index` as the quoted name the engines' date_diff and date_trunc take
 * ('hour'; ISOWEEK is 'week', weeks starting on Monday), refusing what BigQuery refuses there.
 * The names are plain words, quoted alike by every engine.
 */
export function datePartName(call: CallParts, index: number): string {
  const raw = call.raw[index];
  if (raw?.kind !== 'date_part') throw invalidSql('expected a date part keyword');
  if (raw.weekStart !== undefined) throw invalidSql('WEEK(<weekday>) is not supported here');
  if (raw.part === 'week') throw invalidSql('WEEK is not supported here; use ISOWEEK or DAY');
  if (raw.part === 'isoweek') return "'week'";
  if (['dayofweek', 'dayofyear', 'date', 'isoyear'].includes(raw.part)) {
    throw invalidSql(`date part ${raw.part.toUpperCase()} is not valid here`);
  }
  return `'${raw.part}'`;
}
