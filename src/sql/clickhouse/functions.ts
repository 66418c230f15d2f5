/**
 * ClickHouse functions, each lowered into the translator's tree with ClickHouse's semantics
 * (what it returns for NULL, for no rows, for a bad value). Names are case-sensitive, as in
 * ClickHouse, except those ClickHouse itself registers case-insensitively (CASE_INSENSITIVE).
 * A function not listed is refused by name: no engine function is reachable by writing it.
 */

import type { AstExpr, AstFunction, Position } from '../ast.ts';
import { positionOf } from '../ast.ts';
import { closestName } from '../catalog.ts';
import type { BigQueryFunction } from '../functions.ts';
import type * as ir from '../ir.ts';
import { invalidSql } from '../parse.ts';
import type { TypedParameter } from './parse.ts';

/** What a function's lowering may ask of the lowering that called it. */
export interface CallLowering {
  expr(ast: AstExpr): ir.Expr;
  /** The plain arguments (refusing named and `*` ones). */
  args(name: string): AstExpr[];
  window(name: string): ir.WindowSpec | undefined;
}

interface Call {
  name: string;
  args: ir.Expr[];
  /** Arguments as written, for the functions that need a literal. */
  raw: AstExpr[];
  /** `quantile(0.9)(x)`: the parameters in the first parentheses. */
  parameters: AstExpr[];
  distinct: boolean;
  over: ir.WindowSpec | undefined;
  at: Position | undefined;
}

interface FunctionSpec {
  minArgs: number;
  maxArgs: number;
  /** Takes parameters (`quantile(0.9)(x)`). */
  parametric?: boolean;
  /** May take DISTINCT and OVER. */
  aggregate?: boolean;
  lower(call: Call): ir.Expr;
}

const MANY = 255;

// ---- tree builders ---------------------------------------------------------------------------

export const callOf = (fn: BigQueryFunction, ...args: ir.Expr[]): ir.Expr => ({ kind: 'call', fn, args, distinct: false });
const number = (value: number): ir.Expr => ({ kind: 'number', text: String(value) });
const string = (value: string): ir.Expr => ({ kind: 'string', value });
const when = (condition: ir.Expr, then: ir.Expr, otherwise?: ir.Expr): ir.Expr => ({ kind: 'case', whens: [{ when: condition, then }], ...(otherwise ? { else: otherwise } : {}) });
const cast = (expr: ir.Expr, type: ir.TypeName, safe = false): ir.Expr => ({ kind: 'cast', expr, type, safe });

function aggregate(fn: BigQueryFunction, call: Call, args: ir.Expr[] = call.args): ir.Expr {
  return { kind: 'call', fn, args, distinct: call.distinct, ...(call.over ? { over: call.over } : {}) };
}

const scalar = (minArgs: number, maxArgs: number, lower: (call: Call) => ir.Expr): FunctionSpec => ({ minArgs, maxArgs, lower });
const aggregateSpec = (minArgs: number, maxArgs: number, lower: (call: Call) => ir.Expr): FunctionSpec => ({ minArgs, maxArgs, aggregate: true, lower });
/** A function that is the BigQuery function of another name, argument for argument. */
const renamed = (fn: BigQueryFunction, minArgs: number, maxArgs = minArgs): FunctionSpec => scalar(minArgs, maxArgs, (call) => callOf(fn, ...call.args));

const arg = (call: Call, index: number): ir.Expr => {
  const value = call.args[index];
  if (!value) throw invalidSql(`${call.name} is missing argument ${index + 1}`, call.at);
  return value;
};

// ---- the functions ---------------------------------------------------------------------------

export const CLICKHOUSE_FUNCTIONS: Record<string, FunctionSpec> = {
  // aggregates
  count: aggregateSpec(0, 1, (call) => ({ ...aggregate('count', call), ...(call.args.length === 0 ? { star: true } : {}) })),
  sum: aggregateSpec(1, 1, (call) => (call.over ? aggregate('sum', call) : callOf('coalesce', aggregate('sum', call), number(0)))),
  avg: aggregateSpec(1, 1, (call) => aggregate('avg', call)),
  min: aggregateSpec(1, 1, (call) => aggregate('min', call)),
  max: aggregateSpec(1, 1, (call) => aggregate('max', call)),
  countIf: aggregateSpec(1, 1, (call) => aggregate('countif', call)),

  // conditionals
  if: scalar(3, 3, (call) => when(arg(call, 0), arg(call, 1), arg(call, 2))),
  multiIf: scalar(3, MANY, (call) => {
    if (call.args.length % 2 === 0) throw invalidSql('multiIf takes pairs of condition and value, then the value otherwise', call.at);
    const whens = [];
    for (let index = 0; index + 1 < call.args.length; index += 2) whens.push({ when: call.args[index]!, then: call.args[index + 1]! });
    return { kind: 'case', whens, else: call.args[call.args.length - 1]! };
  }),
  coalesce: renamed('coalesce', 1, MANY),

  // time
  now: scalar(0, 0, () => callOf('current_timestamp')),
  toStartOfMinute: scalar(1, 1, (call) => callOf('timestamp_trunc', arg(call, 0), { kind: 'date_part', part: 'minute' })),
  toStartOfHour: scalar(1, 1, (call) => callOf('timestamp_trunc', arg(call, 0), { kind: 'date_part', part: 'hour' })),
  toStartOfDay: scalar(1, 1, (call) => callOf('timestamp_trunc', arg(call, 0), { kind: 'date_part', part: 'day' })),

  // strings
  lower: renamed('lower', 1),
  upper: renamed('upper', 1),
  concat: scalar(1, MANY, (call) => callOf('concat', ...call.args)),
};

/** Names ClickHouse accepts in any case (its case-insensitive registrations), by lower-case name. */
const CASE_INSENSITIVE: ReadonlyMap<string, string> = new Map(
  ['count', 'sum', 'avg', 'min', 'max', 'if', 'coalesce', 'lower', 'upper', 'concat'].map((name) => [name.toLowerCase(), name]),
);

/** A `{name:Type}` parameter: the bound string read as Type. */
export function parameterCast(param: ir.Expr, parameter: TypedParameter): ir.Expr {
  const type = parameterType(parameter.type);
  if (!type) throw invalidSql(`query parameter type ${parameter.type} is not supported`, parameter.at);
  return type === 'STRING' ? param : cast(param, type);
}

function parameterType(written: string): ir.ScalarTypeName | undefined {
  const type = /^Nullable\((.*)\)$/.exec(written)?.[1] ?? written;
  if (/^U?Int(8|16|32|64)$/.test(type)) return 'INT64';
  if (/^Float(32|64)$/.test(type)) return 'FLOAT64';
  if (type === 'String' || /^FixedString\(\d+\)$/.test(type) || type === 'UUID') return 'STRING';
  if (type === 'Bool' || type === 'Boolean') return 'BOOL';
  if (type === 'Date' || type === 'Date32') return 'DATE';
  if (/^DateTime(64)?(\(.*\))?$/.test(type)) return 'TIMESTAMP';
  return undefined;
}

export function lowerClickHouseCall(fn: AstFunction, lowering: CallLowering): ir.Expr {
  const parts = fn.name.map((part) => part.Identifier.value);
  const written = parts.join('.');
  const at = positionOf(fn.name);
  if (parts.length > 1) throw invalidSql(`Unknown function ${written}`, at);
  const name = Object.hasOwn(CLICKHOUSE_FUNCTIONS, written) ? written : CASE_INSENSITIVE.get(written.toLowerCase());
  const spec = name === undefined ? undefined : CLICKHOUSE_FUNCTIONS[name];
  if (!spec || name === undefined) {
    const names = Object.keys(CLICKHOUSE_FUNCTIONS);
    const suggestion = names.find((candidate) => candidate.toLowerCase() === written.toLowerCase()) ?? closestName(written, names);
    throw invalidSql(`Unknown function ${written}${suggestion ? `. Maybe you meant: ${suggestion}` : ''}`, at);
  }
  if (fn.filter !== undefined || fn.within_group.length > 0) throw invalidSql(`this form of ${written} is not supported`, at);
  if (fn.null_treatment !== undefined && fn.null_treatment !== null && fn.null_treatment !== 'None') throw invalidSql(`this form of ${written} is not supported`, at);
  const parameters = parametersOf(fn);
  if (parameters.length > 0 && !spec.parametric) throw invalidSql(`function ${written} takes no parameters`, at);
  if (parameters.length === 0 && spec.parametric) throw invalidSql(`function ${written} needs parameters: ${written}(level)(value)`, at);
  const distinct = fn.args !== 'None' && 'List' in fn.args && fn.args.List.duplicate_treatment === 'Distinct';
  if (fn.args !== 'None' && 'List' in fn.args && fn.args.List.clauses.length > 0) throw invalidSql(`this form of ${written} is not supported`, at);
  const isCountStar = name === 'count' && fn.args !== 'None' && 'List' in fn.args && fn.args.List.args.length === 1 && (fn.args.List.args[0] as { Unnamed?: unknown }).Unnamed === 'Wildcard';
  const raw = isCountStar ? [] : lowering.args(written);
  if (raw.length < spec.minArgs || raw.length > spec.maxArgs) {
    const expected = spec.minArgs === spec.maxArgs ? `${spec.minArgs}` : spec.maxArgs === MANY ? `at least ${spec.minArgs}` : `${spec.minArgs} to ${spec.maxArgs}`;
    throw invalidSql(`Number of arguments for function ${written} doesn't match: passed ${raw.length}, should be ${expected}`, at);
  }
  if ((distinct || fn.over) && !spec.aggregate) throw invalidSql(`${written} is not an aggregate function`, at);
  const over = lowering.window(written);
  return spec.lower({ name: written, args: raw.map((ast) => lowering.expr(ast)), raw, parameters, distinct, over, at });
}

function parametersOf(fn: AstFunction): AstExpr[] {
  const parameters = fn.parameters as { List?: { args: Array<{ Unnamed?: { Expr?: AstExpr } }> } } | 'None' | undefined;
  if (!parameters || parameters === 'None' || !parameters.List) return [];
  return parameters.List.args.map((item) => {
    if (!item.Unnamed?.Expr) throw invalidSql('function parameters must be plain values', positionOf(fn.name));
    return item.Unnamed.Expr;
  });
}
