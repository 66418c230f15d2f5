/**
 * ClickHouse functions, each lowered into the translator's tree with ClickHouse's semantics
 * (what it returns for NULL, for no rows, for a bad value). Names are case-sensitive, as in
 * ClickHouse, except those ClickHouse itself registers case-insensitively (CASE_INSENSITIVE).
 * A function not listed is refused by name: no engine function is reachable by writing it.
 */

import type { AstExpr, AstFunction, Position } from '../ast.ts';
import { positionOf } from '../ast.ts';
import { closestName, type SqlType } from '../catalog.ts';
import type { FunctionName } from '../functions/index.ts';
import type * as ir from '../ir.ts';
import { invalidSql } from '../parse.ts';
import type { TypedParameter } from './parse.ts';
import { isBooleanShaped } from '../analysis.ts';

/** The type of an expression after analysis (undefined when the analyzer did not reach it). */
export type TypeOf = (expr: ir.Expr) => SqlType | undefined;
/** Registers a rewrite to run once the analyzer has typed the tree. */
export type AfterAnalysis = (fix: (typeOf: TypeOf) => void) => void;

/** What a function's lowering may ask of the lowering that called it. */
export interface CallLowering {
  expr(ast: AstExpr): ir.Expr;
  /** The plain arguments (refusing named and `*` ones). */
  args(name: string): AstExpr[];
  window(name: string): ir.WindowSpec | undefined;
  afterAnalysis: AfterAnalysis;
  /** arrayJoin(array): the element, one row per element (the SELECT gains an UNNEST). */
  arrayJoin(array: ir.Expr): ir.Expr;
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

export const callOf = (fn: FunctionName, ...args: ir.Expr[]): ir.Expr => ({ kind: 'call', fn, args, distinct: false });
const number = (value: number): ir.Expr => ({ kind: 'number', text: String(value) });
const string = (value: string): ir.Expr => ({ kind: 'string', value });
const when = (condition: ir.Expr, then: ir.Expr, otherwise?: ir.Expr): ir.Expr => ({ kind: 'case', whens: [{ when: condition, then }], ...(otherwise ? { else: otherwise } : {}) });
const cast = (expr: ir.Expr, type: ir.TypeName, safe = false): ir.Expr => ({ kind: 'cast', expr, type, safe });

/** Aggregates of numbers, which add up a condition as the number 1 or 0. */
const NUMERIC_AGGREGATES: ReadonlySet<FunctionName> = new Set(['sum', 'avg', 'min', 'max', 'stddev_pop', 'stddev_samp', 'var_pop', 'var_samp']);

function aggregate(fn: FunctionName, call: Call, args: ir.Expr[] = call.args): ir.Expr {
  const values = NUMERIC_AGGREGATES.has(fn) ? args.map(numeric) : args;
  return { kind: 'call', fn, args: values, distinct: call.distinct, ...(call.over ? { over: call.over } : {}) };
}

/** A condition where ClickHouse uses it as a number (selected, added up): 1 or 0, NULL staying NULL. */
export function numeric(expr: ir.Expr): ir.Expr {
  return isBooleanShaped(expr) ? { kind: 'cast', expr, type: 'INT64', safe: false } : expr;
}

const scalar = (minArgs: number, maxArgs: number, lower: (call: Call) => ir.Expr): FunctionSpec => ({ minArgs, maxArgs, lower });
const aggregateSpec = (minArgs: number, maxArgs: number, lower: (call: Call) => ir.Expr): FunctionSpec => ({ minArgs, maxArgs, aggregate: true, lower });
/** A function that is the BigQuery function of another name, argument for argument. */
const renamed = (fn: FunctionName, minArgs: number, maxArgs = minArgs): FunctionSpec => scalar(minArgs, maxArgs, (call) => callOf(fn, ...call.args));

const arg = (call: Call, index: number): ir.Expr => {
  const value = call.args[index];
  if (!value) throw invalidSql(`${call.name} is missing argument ${index + 1}`, call.at);
  return value;
};

// ---- the functions ---------------------------------------------------------------------------

type ExprOf<Kind extends ir.Expr['kind']> = Extract<ir.Expr, { kind: Kind }>;

const datePart = (part: ir.DatePart): ir.Expr => ({ kind: 'date_part', part });
const truncTo = (part: ir.DatePart) => scalar(1, 1, (call) => callOf('timestamp_trunc', arg(call, 0), datePart(part)));
/** A DATE-returning truncation (ClickHouse's toStartOfMonth…, toMonday). */
const dateTruncTo = (part: ir.DatePart) => scalar(1, 1, (call) => callOf('date_trunc', cast(arg(call, 0), 'DATE'), datePart(part)));
const extractPart = (part: ir.DatePart) => scalar(1, 1, (call): ir.Expr => ({ kind: 'extract', part, expr: arg(call, 0) }));
const isNull = (expr: ir.Expr): ir.Expr => ({ kind: 'is', test: 'null', negated: false, expr });

/** The value where an -If combinator's condition holds, else NULL (which the aggregate skips). */
const onlyWhere = (value: ir.Expr, condition: ir.Expr): ir.Expr => when(condition, value);

/** Seconds in each unit toStartOfInterval counts from the epoch. */
const UNIT_SECONDS: Partial<Record<ir.DatePart, number>> = { second: 1, minute: 60, hour: 3600, day: 86400 };

/** The start of the n-unit interval holding `value`, counted from 1970-01-01 00:00:00 UTC as ClickHouse does. */
function startOfInterval(value: ir.Expr, count: number, unit: ir.DatePart, at: Position | undefined): ir.Expr {
  const seconds = UNIT_SECONDS[unit];
  if (seconds !== undefined) {
    const width = number(count * seconds);
    return callOf('timestamp_seconds', { kind: 'binary', op: '*', left: callOf('div', callOf('unix_seconds', cast(value, 'TIMESTAMP')), width), right: width });
  }
  const dateParts: Partial<Record<ir.DatePart, ir.DatePart>> = { week: 'isoweek', month: 'month', quarter: 'quarter', year: 'year' };
  const part = dateParts[unit];
  if (part && count === 1) return callOf('date_trunc', cast(value, 'DATE'), datePart(part));
  throw invalidSql(`toStartOfInterval by ${count} ${unit}s is not supported: weeks, months, quarters and years take only 1`, at);
}

/** toIntervalMinute(n) and the like: INTERVAL n MINUTE. */
const intervalOf = (unit: ir.DatePart) => scalar(1, 1, (call): ir.Expr => ({ kind: 'interval', value: arg(call, 0), unit }));

const everyFew = (minutes: number) => scalar(1, 1, (call) => startOfInterval(arg(call, 0), minutes, 'minute', call.at));

/** `INTERVAL n unit` written with a literal count, as toStartOfInterval takes it. */
function literalInterval(expr: ir.Expr | undefined, at: Position | undefined): { count: number; unit: ir.DatePart } {
  if (expr?.kind === 'interval' && expr.value.kind === 'number' && /^\d+$/.test(expr.value.text) && Number(expr.value.text) > 0) {
    return { count: Number(expr.value.text), unit: expr.unit };
  }
  throw invalidSql('toStartOfInterval takes INTERVAL <positive integer> <unit> as its second argument', at);
}

/**
 * `time ± INTERVAL n unit`. A Date plus days stays a Date in ClickHouse: once the left side is
 * known to be a DATE, the sum is DATE_ADD / DATE_SUB.
 */
export function intervalArithmetic(node: ExprOf<'binary'>, after: AfterAnalysis): ir.Expr {
  const interval = node.right;
  if ((node.op !== '+' && node.op !== '-') || interval.kind !== 'interval') return node;
  after((typeOf) => {
    const left = typeOf(node.left);
    if (left?.kind === 'scalar' && left.name === 'DATE') become(node, callOf(node.op === '+' ? 'date_add' : 'date_sub', node.left, interval));
  });
  return node;
}

const addInterval = (op: '+' | '-', unit: ir.DatePart) => ({
  minArgs: 2,
  maxArgs: 2,
  lower: (call: Call, after: AfterAnalysis) => intervalArithmetic({ kind: 'binary', op, left: arg(call, 0), right: { kind: 'interval', value: arg(call, 1), unit } }, after),
});

/** ClickHouse's dateDiff units (and their abbreviations). */
const DIFF_UNITS: Record<string, ir.DatePart> = {
  second: 'second', seconds: 'second', ss: 'second', s: 'second',
  minute: 'minute', minutes: 'minute', mi: 'minute', n: 'minute',
  hour: 'hour', hours: 'hour', hh: 'hour', h: 'hour',
  day: 'day', days: 'day', dd: 'day', d: 'day',
  week: 'week', weeks: 'week', wk: 'week', ww: 'week',
  month: 'month', months: 'month', mm: 'month', m: 'month',
  quarter: 'quarter', quarters: 'quarter', qq: 'quarter', q: 'quarter',
  year: 'year', years: 'year', yyyy: 'year', yy: 'year',
};

/** dateDiff counts unit boundaries crossed between the two times (10:59 → 11:00 is one hour). */
function dateDiff(call: Call): ir.Expr {
  const unitExpr = arg(call, 0);
  const unit = unitExpr.kind === 'string' ? DIFF_UNITS[unitExpr.value.toLowerCase()] : undefined;
  if (!unit) throw invalidSql(`dateDiff takes a unit literal: ${Object.keys(DIFF_UNITS).filter((name) => name.length > 2).join(', ')}`, call.at);
  const [start, end] = [arg(call, 1), arg(call, 2)];
  if (unit === 'second' || unit === 'minute' || unit === 'hour' || unit === 'day') {
    const truncated = (value: ir.Expr) => callOf('timestamp_trunc', cast(value, 'TIMESTAMP'), datePart(unit));
    return callOf('timestamp_diff', truncated(end), truncated(start), datePart(unit));
  }
  return callOf('date_diff', cast(end, 'DATE'), cast(start, 'DATE'), datePart(unit === 'week' ? 'isoweek' : unit));
}

/** formatDateTime's specifiers as strftime ones (FORMAT_TIMESTAMP's, which each engine spells its way). */
const FORMAT_SPECIFIERS: Record<string, string> = {
  Y: '%Y', m: '%m', d: '%d', H: '%H', i: '%M', S: '%S', s: '%S', F: '%Y-%m-%d', T: '%H:%M:%S', y: '%y', j: '%j', p: '%p', I: '%I',
  h: '%I', a: '%a', b: '%b', u: '%u', w: '%w', V: '%V', D: '%m/%d/%y', R: '%H:%M', r: '%I:%M %p', c: '%m', k: '%H', '%': '%%',
};

function strftimeFormat(format: ir.Expr | undefined, at: Position | undefined): ir.Expr {
  if (format?.kind !== 'string') throw invalidSql('formatDateTime takes a format string literal', at);
  const converted = format.value.replace(/%(.?)/g, (_, specifier: string) => {
    const mapped = FORMAT_SPECIFIERS[specifier];
    if (mapped === undefined) {
      throw invalidSql(`formatDateTime specifier %${specifier} is not supported; supported: ${Object.keys(FORMAT_SPECIFIERS).map((key) => `%${key}`).join(' ')}`, at);
    }
    return mapped;
  });
  return string(converted);
}

/** A string of only an optional sign and digits: what toIntN…OrZero/OrNull accept. */
const INTEGER_TEXT = '^[+-]?[0-9]+$';

const INTEGER_RANGES: Record<string, [string, string]> = {
  Int8: ['-128', '127'], Int16: ['-32768', '32767'], Int32: ['-2147483648', '2147483647'], Int64: ['-9223372036854775808', '9223372036854775807'],
  UInt8: ['0', '255'], UInt16: ['0', '65535'], UInt32: ['0', '4294967295'], UInt64: ['0', '9223372036854775807'],
};
const INTEGER_TYPES = Object.keys(INTEGER_RANGES);

const signed = (text: string): ir.Expr => (text.startsWith('-') ? { kind: 'negate', expr: { kind: 'number', text: text.slice(1) } } : { kind: 'number', text });

/** toInt32OrZero(s) / toInt32OrNull(s): the integer a string spells when it fits the type, else 0 or NULL; NULL stays NULL. */
function integerOr(type: string, fallback: 'zero' | 'null'): FunctionSpec {
  const [min, max] = INTEGER_RANGES[type]!;
  return scalar(1, 1, (call) => {
    const text = arg(call, 0);
    const parsed = cast(text, 'INT64', true);
    const fits: ir.Expr = { kind: 'between', negated: false, expr: parsed, low: signed(min), high: signed(max) };
    return {
      kind: 'case',
      whens: [
        { when: isNull(text), then: { kind: 'null' } },
        { when: { kind: 'binary', op: 'AND', left: callOf('regexp_contains', text, string(INTEGER_TEXT)), right: fits }, then: parsed },
      ],
      else: fallback === 'zero' ? number(0) : { kind: 'null' },
    };
  });
}

/** toFloat64OrZero(s) / …OrNull: the number a string spells (no spaces), else 0 or NULL; NULL stays NULL. */
function floatOr(fallback: 'zero' | 'null'): FunctionSpec {
  return scalar(1, 1, (call) => {
    const text = arg(call, 0);
    const spelled = callOf('regexp_contains', text, string('^[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?$'));
    return {
      kind: 'case',
      whens: [
        { when: isNull(text), then: { kind: 'null' } },
        { when: spelled, then: cast(text, 'FLOAT64', true) },
      ],
      else: fallback === 'zero' ? number(0) : { kind: 'null' },
    };
  });
}

/** Make `target` the node `source` is (a node rewritten in place, where its parent holds it). */
export function become(target: ir.Expr, source: ir.Expr): void {
  const copy = { ...source };
  for (const key of Object.keys(target)) delete (target as unknown as Record<string, unknown>)[key];
  Object.assign(target, copy);
}

/** toInt32(x) and the like: a float is truncated towards zero (known by its type after analysis), a string parsed. */
function toInteger(call: Call, after: AfterAnalysis): ir.Expr {
  const value = arg(call, 0);
  const node = cast(value, 'INT64') as ExprOf<'cast'>;
  after((typeOf) => {
    const type = typeOf(value);
    if (type?.kind === 'scalar' && (type.name === 'FLOAT64' || type.name === 'NUMERIC')) node.expr = callOf('trunc', value);
  });
  return node;
}

/** toString(x): a time as ClickHouse writes it (`2024-01-01 10:00:00`; a stored DateTime64(6) column with its microseconds). */
function toText(call: Call, after: AfterAnalysis): ir.Expr {
  const value = arg(call, 0);
  const node = cast(value, 'STRING');
  after((typeOf) => {
    const type = typeOf(value);
    if (type?.kind === 'scalar' && type.name === 'TIMESTAMP') {
      const seconds = callOf('format_timestamp', string('%Y-%m-%d %H:%M:%S'), value);
      const micros = callOf('lpad', cast({ kind: 'extract', part: 'microsecond', expr: value }, 'STRING'), number(6), string('0'));
      become(node, value.kind === 'ref' ? callOf('concat', seconds, string('.'), micros) : seconds);
    }
  });
  return node;
}

/** length(x): bytes of a string, elements of an array (the catalog's signature by the argument's type). */
const lengthOf = (value: ir.Expr): ir.Expr => callOf('length_of', value);

function jsonCall(fn: 'json_extract_string' | 'json_extract_int' | 'json_extract_float' | 'json_extract_bool' | 'json_extract_raw' | 'json_has'): FunctionSpec {
  return scalar(1, MANY, (call): ir.Expr => {
    for (const key of call.args.slice(1)) {
      if (!(key.kind === 'string' || key.kind === 'number' || (key.kind === 'negate' && key.expr.kind === 'number'))) {
        throw invalidSql(`${call.name} takes key names and indexes as literals`, call.at);
      }
    }
    return { kind: 'call', fn, args: call.args, distinct: false };
  });
}

/** quantile(level)(x): the levels from the parameters (0.5 without any). */
function quantileLevels(call: Call, many: boolean): number[] {
  const levels = call.parameters.map((parameter) => ('Value' in parameter && 'Number' in parameter.Value.value ? Number(parameter.Value.value.Number[0]) : Number.NaN));
  if (levels.some((level) => !(level >= 0 && level <= 1))) throw invalidSql(`${call.name} levels are number literals from 0 to 1`, call.at);
  if (levels.length === 0) return [0.5];
  if (!many && levels.length > 1) throw invalidSql(`${call.name} takes one level; quantiles takes several`, call.at);
  return levels;
}

const quantileOf = (call: Call, level: number): ir.Expr => ({
  kind: 'call',
  fn: 'quantile_interpolated',
  args: [arg(call, 0), number(level)],
  distinct: false,
  ...(call.over ? { over: call.over } : {}),
});

/** A literal pattern whose capturing groups after the first are made non-capturing: extract returns the first. */
function onlyFirstGroup(pattern: ir.Expr): ir.Expr {
  if (pattern.kind !== 'string') return pattern;
  let groups = 0;
  let inClass = false;
  let out = '';
  for (let index = 0; index < pattern.value.length; index++) {
    const char = pattern.value[index]!;
    out += char;
    if (char === '\\') out += pattern.value[++index] ?? '';
    else if (inClass) inClass = char !== ']';
    else if (char === '[') inClass = true;
    else if (char === '(' && pattern.value[index + 1] !== '?' && ++groups > 1) out += '?:';
  }
  return string(out);
}

/** A string argument, for functions whose ClickHouse form takes a number as its text. */
const asText = (expr: ir.Expr): ir.Expr => (expr.kind === 'number' ? cast(expr, 'STRING') : expr);

export const CLICKHOUSE_FUNCTIONS: Record<string, FunctionSpec> = {
  // ---- aggregates
  count: aggregateSpec(0, 1, (call) => ({ ...aggregate('count', call), ...(call.args.length === 0 ? { star: true } : {}) })),
  // An empty sum is 0 in ClickHouse.
  sum: aggregateSpec(1, 1, (call) => (call.over ? aggregate('sum', call) : callOf('coalesce', aggregate('sum', call), number(0)))),
  avg: aggregateSpec(1, 1, (call) => aggregate('avg', call)),
  min: aggregateSpec(1, 1, (call) => aggregate('min', call)),
  max: aggregateSpec(1, 1, (call) => aggregate('max', call)),
  any: aggregateSpec(1, 1, (call) => aggregate('any_value', call)),
  countIf: aggregateSpec(1, 1, (call) => aggregate('countif', call)),
  sumIf: aggregateSpec(2, 2, (call) => callOf('coalesce', aggregate('sum', call, [onlyWhere(arg(call, 0), arg(call, 1))]), number(0))),
  avgIf: aggregateSpec(2, 2, (call) => aggregate('avg', call, [onlyWhere(arg(call, 0), arg(call, 1))])),
  minIf: aggregateSpec(2, 2, (call) => aggregate('min', call, [onlyWhere(arg(call, 0), arg(call, 1))])),
  maxIf: aggregateSpec(2, 2, (call) => aggregate('max', call, [onlyWhere(arg(call, 0), arg(call, 1))])),
  // uniq is approximate in ClickHouse (an adaptive sample, exact for small sets): the exact count is within its bounds.
  uniq: aggregateSpec(1, 1, (call) => ({ ...aggregate('count', call), distinct: true })),
  uniqCombined: aggregateSpec(1, 1, (call) => ({ ...aggregate('count', call), distinct: true })),
  uniqCombined64: aggregateSpec(1, 1, (call) => ({ ...aggregate('count', call), distinct: true })),
  uniqHLL12: aggregateSpec(1, 1, (call) => ({ ...aggregate('count', call), distinct: true })),
  countDistinct: aggregateSpec(1, 1, (call) => ({ ...aggregate('count', call), distinct: true })),
  uniqExact: aggregateSpec(1, 1, (call) => ({ ...aggregate('count', call), distinct: true })),
  uniqIf: aggregateSpec(2, 2, (call) => ({ ...aggregate('count', call, [onlyWhere(arg(call, 0), arg(call, 1))]), distinct: true })),
  // quantile samples up to 8,192 values (exact, interpolated, below that): the exact interpolated quantile.
  quantile: { minArgs: 1, maxArgs: 1, aggregate: true, parametric: true, lower: (call) => quantileOf(call, quantileLevels(call, false)[0]!) },
  median: aggregateSpec(1, 1, (call) => quantileOf(call, 0.5)),
  quantiles: {
    minArgs: 1,
    maxArgs: 1,
    aggregate: true,
    parametric: true,
    lower: (call) => ({ kind: 'array', elements: quantileLevels(call, true).map((level) => quantileOf(call, level)) }),
  },
  argMax: aggregateSpec(2, 2, (call) => aggregate('arg_max', call)),
  argMin: aggregateSpec(2, 2, (call) => aggregate('arg_min', call)),
  groupArray: aggregateSpec(1, 1, (call) => ({ ...aggregate('array_agg', call), ignoreNulls: true })),
  stddevPop: aggregateSpec(1, 1, (call) => aggregate('stddev_pop', call)),
  stddevSamp: aggregateSpec(1, 1, (call) => aggregate('stddev_samp', call)),
  varPop: aggregateSpec(1, 1, (call) => aggregate('var_pop', call)),
  varSamp: aggregateSpec(1, 1, (call) => aggregate('var_samp', call)),

  // ---- window functions
  row_number: aggregateSpec(0, 0, (call) => aggregate('row_number', call)),
  rank: aggregateSpec(0, 0, (call) => aggregate('rank', call)),
  dense_rank: aggregateSpec(0, 0, (call) => aggregate('dense_rank', call)),

  // ---- conditionals and NULL
  if: scalar(3, 3, (call) => when(arg(call, 0), arg(call, 1), arg(call, 2))),
  multiIf: scalar(3, MANY, (call) => {
    if (call.args.length % 2 === 0) throw invalidSql('multiIf takes pairs of condition and value, then the value otherwise', call.at);
    const whens = [];
    for (let index = 0; index + 1 < call.args.length; index += 2) whens.push({ when: call.args[index]!, then: call.args[index + 1]! });
    return { kind: 'case', whens, else: call.args[call.args.length - 1]! };
  }),
  coalesce: renamed('coalesce', 1, MANY),
  ifNull: renamed('ifnull', 2),
  nullIf: renamed('nullif', 2),
  isNull: scalar(1, 1, (call) => isNull(arg(call, 0))),
  isNotNull: scalar(1, 1, (call): ir.Expr => ({ kind: 'is', test: 'null', negated: true, expr: arg(call, 0) })),
  greatest: renamed('greatest', 1, MANY),
  least: renamed('least', 1, MANY),

  // ---- time (DateTime has whole seconds)
  now: scalar(0, 0, () => callOf('timestamp_trunc', callOf('current_timestamp'), datePart('second'))),
  today: scalar(0, 0, () => callOf('current_date')),
  toStartOfSecond: truncTo('second'),
  toStartOfMinute: truncTo('minute'),
  toStartOfHour: truncTo('hour'),
  toStartOfDay: truncTo('day'),
  toStartOfFiveMinutes: everyFew(5),
  toStartOfFiveMinute: everyFew(5),
  toStartOfTenMinutes: everyFew(10),
  toStartOfFifteenMinutes: everyFew(15),
  toStartOfInterval: scalar(2, 2, (call) => {
    const { count, unit } = literalInterval(call.args[1], call.at);
    return startOfInterval(arg(call, 0), count, unit, call.at);
  }),
  toMonday: dateTruncTo('isoweek'),
  toStartOfWeek: dateTruncTo('week'),
  toStartOfMonth: dateTruncTo('month'),
  toStartOfQuarter: dateTruncTo('quarter'),
  toStartOfYear: dateTruncTo('year'),
  toYear: extractPart('year'),
  toQuarter: extractPart('quarter'),
  toMonth: extractPart('month'),
  toDayOfMonth: extractPart('day'),
  toDayOfYear: extractPart('dayofyear'),
  toHour: extractPart('hour'),
  toMinute: extractPart('minute'),
  toSecond: extractPart('second'),
  // ClickHouse counts Monday as 1 … Sunday as 7; EXTRACT(DAYOFWEEK) Sunday as 1.
  toDayOfWeek: scalar(1, 1, (call): ir.Expr => ({
    kind: 'binary',
    op: '+',
    left: callOf('mod', { kind: 'binary', op: '+', left: { kind: 'extract', part: 'dayofweek', expr: arg(call, 0) }, right: number(5) }, number(7)),
    right: number(1),
  })),
  toIntervalSecond: intervalOf('second'),
  toIntervalMinute: intervalOf('minute'),
  toIntervalHour: intervalOf('hour'),
  toIntervalDay: intervalOf('day'),
  toIntervalWeek: intervalOf('week'),
  toIntervalMonth: intervalOf('month'),
  toIntervalYear: intervalOf('year'),
  fromUnixTimestamp: scalar(1, 1, (call) => callOf('timestamp_seconds', arg(call, 0))),
  toUnixTimestamp64Milli: scalar(1, 1, (call) => callOf('unix_millis', arg(call, 0))),
  toUnixTimestamp64Micro: scalar(1, 1, (call) => callOf('unix_micros', arg(call, 0))),
  // ISO 8601 and the usual forms; the DateTime forms keep whole seconds.
  parseDateTimeBestEffort: scalar(1, 1, (call) => callOf('timestamp_trunc', cast(arg(call, 0), 'TIMESTAMP'), datePart('second'))),
  parseDateTimeBestEffortOrNull: scalar(1, 1, (call) => callOf('timestamp_trunc', cast(arg(call, 0), 'TIMESTAMP', true), datePart('second'))),
  parseDateTime64BestEffort: scalar(1, 1, (call) => cast(arg(call, 0), 'TIMESTAMP')),
  parseDateTime64BestEffortOrNull: scalar(1, 1, (call) => cast(arg(call, 0), 'TIMESTAMP', true)),
  toYYYYMMDD: scalar(1, 1, (call) => cast(callOf('format_timestamp', string('%Y%m%d'), cast(arg(call, 0), 'TIMESTAMP')), 'INT64')),
  toYYYYMM: scalar(1, 1, (call) => cast(callOf('format_timestamp', string('%Y%m'), cast(arg(call, 0), 'TIMESTAMP')), 'INT64')),
  toUnixTimestamp: scalar(1, 1, (call) => callOf('unix_seconds', cast(arg(call, 0), 'TIMESTAMP'))),
  formatDateTime: scalar(2, 2, (call) => callOf('format_timestamp', strftimeFormat(call.args[1], call.at), cast(arg(call, 0), 'TIMESTAMP'))),
  dateDiff: scalar(3, 3, dateDiff),

  // ---- conversions
  ...Object.fromEntries(
    INTEGER_TYPES.flatMap((type) => [
      [`to${type}OrZero`, integerOr(type, 'zero')],
      [`to${type}OrNull`, integerOr(type, 'null')],
    ]),
  ),
  toFloat64OrZero: floatOr('zero'),
  toFloat64OrNull: floatOr('null'),
  toFloat32OrZero: floatOr('zero'),
  toFloat32OrNull: floatOr('null'),
  toFloat64: scalar(1, 1, (call) => cast(arg(call, 0), 'FLOAT64')),
  toDate: scalar(1, 1, (call) => cast(arg(call, 0), 'DATE')),
  toDateOrNull: scalar(1, 1, (call) => cast(arg(call, 0), 'DATE', true)),
  toDateTime: scalar(1, 1, (call) => callOf('timestamp_trunc', cast(arg(call, 0), 'TIMESTAMP'), datePart('second'))),
  toDateTimeOrNull: scalar(1, 1, (call) => callOf('timestamp_trunc', cast(arg(call, 0), 'TIMESTAMP', true), datePart('second'))),

  // ---- strings (ClickHouse counts bytes; the UTF8 forms count characters)
  lower: renamed('lower', 1),
  upper: renamed('upper', 1),
  lowerUTF8: renamed('lower', 1),
  upperUTF8: renamed('upper', 1),
  lengthUTF8: renamed('length', 1),
  concat: scalar(1, MANY, (call) => callOf('concat', ...call.args.map(asText))),
  substring: scalar(2, 3, (call) => callOf('substr', ...call.args)),
  substringUTF8: scalar(2, 3, (call) => callOf('substr', ...call.args)),
  position: scalar(2, 2, (call) => callOf('byte_position', arg(call, 0), arg(call, 1))),
  positionUTF8: scalar(2, 2, (call) => callOf('strpos', arg(call, 0), arg(call, 1))),
  positionCaseInsensitive: scalar(2, 2, (call) => callOf('byte_position', callOf('lower', arg(call, 0)), callOf('lower', arg(call, 1)))),
  startsWith: renamed('starts_with', 2),
  endsWith: renamed('ends_with', 2),
  replaceAll: renamed('replace', 3),
  replaceRegexpAll: renamed('regexp_replace', 3),
  match: renamed('regexp_contains', 2),
  // The first group (or the whole match); no match is '' in ClickHouse.
  extract: scalar(2, 2, (call) => callOf('coalesce', callOf('regexp_extract', arg(call, 0), onlyFirstGroup(arg(call, 1))), string(''))),
  extractAll: renamed('regexp_extract_all', 2),
  like: scalar(2, 2, (call): ir.Expr => ({ kind: 'like', negated: false, expr: arg(call, 0), pattern: arg(call, 1) })),
  notLike: scalar(2, 2, (call): ir.Expr => ({ kind: 'like', negated: true, expr: arg(call, 0), pattern: arg(call, 1) })),
  ilike: scalar(2, 2, (call): ir.Expr => ({ kind: 'like', negated: false, expr: callOf('lower', arg(call, 0)), pattern: callOf('lower', arg(call, 1)) })),
  splitByChar: scalar(2, 2, (call) => {
    const separator = arg(call, 0);
    if (separator.kind !== 'string' || [...separator.value].length !== 1) throw invalidSql('splitByChar takes a one-character separator literal', call.at);
    return callOf('split', arg(call, 1), separator);
  }),
  splitByString: scalar(2, 2, (call) => callOf('split', arg(call, 1), arg(call, 0))),
  arrayStringConcat: scalar(1, 2, (call) => callOf('array_to_string', arg(call, 0), call.args[1] ?? string(''))),
  trimBoth: renamed('trim', 1),
  trimLeft: renamed('ltrim', 1),
  trimRight: renamed('rtrim', 1),
  reverse: renamed('reverse', 1),
  repeat: renamed('repeat', 2),
  leftPad: renamed('lpad', 2, 3),
  rightPad: renamed('rpad', 2, 3),
  left: renamed('left', 2),
  right: renamed('right', 2),

  // ---- arrays
  has: scalar(2, 2, (call): ir.Expr => ({ kind: 'in_unnest', negated: false, expr: arg(call, 1), array: arg(call, 0) })),
  arrayElement: scalar(2, 2, (call): ir.Expr => ({ kind: 'subscript', base: arg(call, 0), index: arg(call, 1), mode: 'safe_ordinal' })),
  arrayConcat: renamed('array_concat', 1, MANY),

  // ---- JSON text
  JSONExtractString: jsonCall('json_extract_string'),
  JSONExtractInt: jsonCall('json_extract_int'),
  JSONExtractUInt: jsonCall('json_extract_int'),
  JSONExtractFloat: jsonCall('json_extract_float'),
  JSONExtractBool: jsonCall('json_extract_bool'),
  JSONExtractRaw: jsonCall('json_extract_raw'),
  JSONHas: jsonCall('json_has'),

  // ---- numbers
  abs: renamed('abs', 1),
  // ClickHouse rounds a float's halves to even.
  round: scalar(1, 2, (call) => callOf('round_half_even', ...call.args)),
  floor: renamed('floor', 1),
  ceil: renamed('ceil', 1),
  ceiling: renamed('ceil', 1),
  trunc: renamed('trunc', 1, 2),
  truncate: renamed('trunc', 1, 2),
  sqrt: renamed('sqrt', 1),
  exp: renamed('exp', 1),
  ln: renamed('ln', 1),
  log: renamed('ln', 1),
  log10: renamed('log10', 1),
  pow: renamed('pow', 2),
  power: renamed('pow', 2),
  sign: renamed('sign', 1),
  intDiv: renamed('div', 2),
  modulo: renamed('mod', 2),
  mod: renamed('mod', 2),
};

/** Functions whose lowering depends on their arguments' types, known after analysis. */
const TYPED_FUNCTIONS: Record<string, { minArgs: number; maxArgs: number; lower(call: Call, after: AfterAnalysis): ir.Expr }> = {
  toString: { minArgs: 1, maxArgs: 1, lower: toText },
  length: { minArgs: 1, maxArgs: 1, lower: (call) => lengthOf(arg(call, 0)) },
  empty: { minArgs: 1, maxArgs: 1, lower: (call) => ({ kind: 'binary', op: '=', left: lengthOf(arg(call, 0)), right: number(0) }) },
  notEmpty: { minArgs: 1, maxArgs: 1, lower: (call) => ({ kind: 'binary', op: '>', left: lengthOf(arg(call, 0)), right: number(0) }) },
  ...Object.fromEntries(INTEGER_TYPES.map((type) => [`to${type}`, { minArgs: 1, maxArgs: 1, lower: toInteger }])),
  addSeconds: addInterval('+', 'second'),
  addMinutes: addInterval('+', 'minute'),
  addHours: addInterval('+', 'hour'),
  addDays: addInterval('+', 'day'),
  addWeeks: addInterval('+', 'week'),
  addMonths: addInterval('+', 'month'),
  addYears: addInterval('+', 'year'),
  subtractSeconds: addInterval('-', 'second'),
  subtractMinutes: addInterval('-', 'minute'),
  subtractHours: addInterval('-', 'hour'),
  subtractDays: addInterval('-', 'day'),
  subtractWeeks: addInterval('-', 'week'),
  subtractMonths: addInterval('-', 'month'),
  subtractYears: addInterval('-', 'year'),
};

/** Names ClickHouse accepts in any case (its case-insensitive registrations and aliases), by lower-case name. */
const CASE_INSENSITIVE: ReadonlyMap<string, string> = new Map([
  ...[
    'count', 'sum', 'avg', 'min', 'max', 'if', 'coalesce', 'lower', 'upper', 'concat', 'length', 'substring', 'position', 'replaceAll', 'round',
    'abs', 'floor', 'ceil', 'ceiling', 'greatest', 'least', 'ifNull', 'nullIf', 'isNull', 'now', 'today', 'reverse', 'left', 'right', 'repeat',
    'pow', 'power', 'sqrt', 'exp', 'ln', 'log', 'log10', 'sign', 'trunc', 'truncate', 'mod',
  ].map((name) => [name.toLowerCase(), name] as const),
  // ClickHouse's case-insensitive aliases.
  ['substr', 'substring'], ['mid', 'substring'], ['replace', 'replaceAll'], ['lcase', 'lower'], ['ucase', 'upper'], ['current_timestamp', 'now'],
  ['date_format', 'formatDateTime'], ['regexp_matches', 'match'], ['unnest', 'arrayJoin'], ['array_agg', 'groupArray'], ['any_value', 'any'],
  ['std', 'stddevPop'], ['stddev_pop', 'stddevPop'], ['stddev_samp', 'stddevSamp'], ['var_pop', 'varPop'], ['var_samp', 'varSamp'], ['stddev', 'stddevSamp'],
  ['from_unixtime', 'fromUnixTimestamp'], ['char_length', 'lengthUTF8'], ['character_length', 'lengthUTF8'], ['octet_length', 'length'], ['time_bucket', 'toStartOfInterval'], ['date_bin', 'toStartOfInterval'],
]);

/** Case-sensitive aliases ClickHouse registers. */
const ALIASES: ReadonlyMap<string, string> = new Map([
  ['date_diff', 'dateDiff'], ['DATE_DIFF', 'dateDiff'], ['timestampDiff', 'dateDiff'], ['timestamp_diff', 'dateDiff'], ['TIMESTAMP_DIFF', 'dateDiff'],
]);

/** The function a written name means, as ClickHouse resolves names. */
function canonicalName(written: string): string | undefined {
  if (Object.hasOwn(CLICKHOUSE_FUNCTIONS, written) || Object.hasOwn(TYPED_FUNCTIONS, written) || written === 'arrayJoin') return written;
  return ALIASES.get(written) ?? CASE_INSENSITIVE.get(written.toLowerCase());
}

/** A `{name:Type}` parameter: the bound string read as Type. */
export function parameterCast(param: ir.Expr, parameter: TypedParameter): ir.Expr {
  const type = parameterType(parameter.type);
  if (!type) throw invalidSql(`query parameter type ${parameter.type} is not supported; use a String, (U)Int, Float, Bool, Date or DateTime type`, parameter.at);
  return type === 'STRING' ? param : cast(param, type);
}

function parameterType(written: string): ir.ScalarTypeName | undefined {
  const type = /^(?:Nullable|LowCardinality)\((.*)\)$/.exec(written)?.[1] ?? written;
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
  const name = parts.length === 1 ? canonicalName(written) : undefined;
  if (name === undefined) {
    const names = [...Object.keys(CLICKHOUSE_FUNCTIONS), ...Object.keys(TYPED_FUNCTIONS), 'arrayJoin'];
    const suggestion = names.find((candidate) => candidate.toLowerCase() === written.toLowerCase()) ?? closestName(written, names);
    throw invalidSql(`Unknown function ${written}${suggestion ? `. Maybe you meant: ${suggestion}` : ''}`, at);
  }
  const typed = TYPED_FUNCTIONS[name];
  const spec: Pick<FunctionSpec, 'minArgs' | 'maxArgs' | 'parametric' | 'aggregate'> = name === 'arrayJoin' ? { minArgs: 1, maxArgs: 1 } : (typed ?? CLICKHOUSE_FUNCTIONS[name]!);
  if (fn.filter !== undefined || fn.within_group.length > 0) throw invalidSql(`this form of ${written} is not supported`, at);
  if (fn.null_treatment !== undefined && fn.null_treatment !== null && fn.null_treatment !== 'None') throw invalidSql(`this form of ${written} is not supported`, at);
  const parameters = parametersOf(fn);
  if (parameters.length > 0 && !spec.parametric) throw invalidSql(`function ${written} takes no parameters`, at);
  const list = fn.args !== 'None' && 'List' in fn.args ? fn.args.List : undefined;
  if (list && list.clauses.length > 0) throw invalidSql(`this form of ${written} is not supported`, at);
  const distinct = list?.duplicate_treatment === 'Distinct';
  const isCountStar = name === 'count' && list?.args.length === 1 && (list.args[0] as { Unnamed?: unknown }).Unnamed === 'Wildcard';
  const raw = isCountStar ? [] : lowering.args(written);
  if (raw.length < spec.minArgs || raw.length > spec.maxArgs) {
    const expected = spec.minArgs === spec.maxArgs ? `${spec.minArgs}` : spec.maxArgs === MANY ? `at least ${spec.minArgs}` : `${spec.minArgs} to ${spec.maxArgs}`;
    throw invalidSql(`Number of arguments for function ${written} doesn't match: passed ${raw.length}, should be ${expected}`, at);
  }
  if ((distinct || fn.over) && !spec.aggregate) throw invalidSql(`${written} is not an aggregate function`, at);
  const over = lowering.window(written);
  const call: Call = { name: written, args: raw.map((ast) => lowering.expr(ast)), raw, parameters, distinct, over, at };
  if (name === 'arrayJoin') return lowering.arrayJoin(arg(call, 0));
  return typed ? typed.lower(call, lowering.afterAnalysis) : CLICKHOUSE_FUNCTIONS[name]!.lower(call);
}

function parametersOf(fn: AstFunction): AstExpr[] {
  const parameters = fn.parameters as { List?: { args: Array<{ Unnamed?: { Expr?: AstExpr } }> } } | 'None' | undefined;
  if (!parameters || parameters === 'None' || !parameters.List) return [];
  return parameters.List.args.map((item) => {
    if (!item.Unnamed?.Expr) throw invalidSql('function parameters must be plain values', positionOf(fn.name));
    return item.Unnamed.Expr;
  });
}
