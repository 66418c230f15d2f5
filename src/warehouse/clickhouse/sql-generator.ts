/**
 * ClickHouse printer for the translator's tree (src/sql/ir.ts), beside the DuckDB one.
 *
 * Types: BigQuery TIMESTAMP is DateTime64(6, 'UTC') and DATETIME a DateTime64 without that
 * explicit zone (results.ts tells them apart by it), DATE is Date32, INT64 Int64 (counts and
 * lengths are cast from ClickHouse's unsigned results). Parameters are bound server-side as
 * `{name:Nullable(String)}`, never spliced.
 *
 * UNNEST: `CROSS JOIN UNNEST(a) AS m` is `ARRAY JOIN a AS m` (rows with an empty array are
 * dropped, as in BigQuery); `LEFT JOIN UNNEST(a) AS m ON TRUE` is `LEFT ARRAY JOIN`, which keeps
 * them with a default element, so a hidden `arrayEnumerate` column (0 for the kept row) answers
 * `m IS NULL`. ClickHouse evaluates WHERE below ARRAY JOIN where it can (PREWHERE on the table),
 * so no select-list rewrite is needed here. A chain of UNNESTs over a source column joins only
 * the leaf subcolumns the query reads, not whole records (array-join.ts). A subquery that reads
 * only an UNNEST of an outer array (correlated) becomes array functions (arrayCount, arrayReduce,
 * arrayExists, arrayMap).
 *
 * Settings the output relies on (set by the adapter on every statement): session_timezone=UTC,
 * prefer_column_name_to_alias=1 (a select alias never shadows a column in WHERE, as in
 * BigQuery), join_use_nulls=1, aggregate_functions_null_for_empty=1, cast_keep_nullable=1,
 * cast_string_to_date_time_mode=best_effort, formatdatetime_parsedatetime_m_is_month_name=0
 * (%M is minutes, as in BigQuery), enable_positional_arguments=1, enable_unaligned_array_join=1
 * (see array-join.ts).
 */

import { andAll, conjunctsOf, namesUsedBy } from '../../sql/analysis.ts';
import type { SqlDialect } from '../../sql/dialect.ts';
import type { BigQueryFunction } from '../../sql/functions.ts';
import type * as ir from '../../sql/ir.ts';
import { invalidSql } from '../../sql/parse.ts';
import { planArrayJoins } from './array-join.ts';
import { FUNCTION_EMITTERS } from './sql-functions.ts';

export const clickhouseDialect: SqlDialect = {
  name: 'clickhouse',
  generate: (query) => printQuery(query),
};

/**
 * The printer as it was before subcolumn ARRAY JOINs (array-join.ts): every UNNEST joins whole
 * records. Kept for measuring the difference (bench/clickhouse.ts) and for comparing rows.
 */
export const wholeRecordDialect: SqlDialect = {
  name: 'clickhouse',
  generate: (query) => {
    pruneArrayJoins = false;
    try {
      return printQuery(query);
    } finally {
      pruneArrayJoins = true;
    }
  },
};
let pruneArrayJoins = true;

export function quoteIdentifier(name: string): string {
  return `\`${name.replaceAll('\\', '\\\\').replaceAll('`', '\\`')}\``;
}

/** ClickHouse string literals read backslash escapes, so backslashes are doubled. */
export function quoteString(value: string): string {
  return `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}

/** LEFT ARRAY JOIN aliases of the SELECTs being printed, innermost last. */
const keptEmptyScopes: Array<Set<string>> = [];
/** Per SELECT being printed (innermost last): UNNEST aliases read as subcolumns, field path → column. */
const subcolumnScopes: Array<Map<string, Map<string, string>>> = [];
const presenceColumn = (alias: string) => quoteIdentifier(`__present_${alias}`);

// ---- queries -------------------------------------------------------------------------------

function printQuery(query: ir.Query): string {
  const parts: string[] = [];
  if (query.ctes.length > 0) {
    parts.push(`WITH ${query.ctes.map((cte) => `${quoteIdentifier(cte.name)} AS (${printQuery(cte.query)})`).join(', ')}`);
  }
  // ORDER BY names the SELECT's UNNEST aliases too, so a SELECT prints its query's tail itself.
  if (query.body.kind === 'select') return [...parts, printSelect(query.body.select, query)].join(' ');
  const tail = printTail(query);
  // ClickHouse applies ORDER BY / LIMIT after a UNION to its last SELECT only: wrap the set.
  if (query.body.kind === 'setop' && tail.length > 0) parts.push(`SELECT * FROM (${printSetExpr(query.body)})`);
  else parts.push(printSetExpr(query.body));
  return [...parts, ...tail].join(' ');
}

function printTail(query: ir.Query): string[] {
  const tail: string[] = [];
  if (query.orderBy.length > 0) tail.push(`ORDER BY ${query.orderBy.map(printOrderItem).join(', ')}`);
  if (query.limit) tail.push(`LIMIT ${printExpr(query.limit)}`);
  if (query.offset) tail.push(`OFFSET ${printExpr(query.offset)}`);
  return tail;
}

function printSetExpr(body: ir.SetExpr): string {
  switch (body.kind) {
    case 'select':
      return printSelect(body.select);
    case 'nested':
      return `(${printQuery(body.query)})`;
    case 'setop': {
      const operand = (side: ir.SetExpr) => (side.kind === 'setop' ? `(${printSetExpr(side)})` : printSetExpr(side));
      return `${operand(body.left)} ${body.op.toUpperCase()} ${body.all ? 'ALL' : 'DISTINCT'} ${operand(body.right)}`;
    }
  }
}

function printOrderItem(item: ir.OrderItem): string {
  return `${printExpr(item.expr)} ${item.descending ? 'DESC' : 'ASC'} NULLS ${item.nullsFirst ? 'FIRST' : 'LAST'}`;
}

/** One SELECT; with `query`, also that query's ORDER BY / LIMIT, which may read its aliases. */
function printSelect(select: ir.Select, query?: ir.Query): string {
  const kept = new Set<string>();
  const arrayJoins = pruneArrayJoins ? planArrayJoins(select, query?.orderBy ?? []) : undefined;
  keptEmptyScopes.push(kept);
  subcolumnScopes.push(arrayJoins?.leaves ?? new Map());
  try {
    const planned = select.from ? planFrom(select.from, kept, arrayJoins?.clauses) : undefined;
    const where = [...conjunctsOf(select.where), ...(planned?.where ?? [])];
    const items = select.items.map((item) => printSelectItem(item, planned?.ambiguousStar ?? false));
    const parts = [`SELECT ${select.distinct ? 'DISTINCT ' : ''}${items.join(', ')}`];
    if (planned) parts.push(`FROM ${planned.sql}`);
    const whereExpr = andAll(where);
    if (whereExpr) parts.push(`WHERE ${printExpr(whereExpr)}`);
    if (select.groupBy.length > 0) parts.push(`GROUP BY ${select.groupBy.map(printExpr).join(', ')}`);
    if (select.having) parts.push(`HAVING ${printExpr(select.having)}`);
    if (select.qualify) parts.push(`QUALIFY ${printExpr(select.qualify)}`);
    if (query) parts.push(...printTail(query));
    return parts.join(' ');
  } finally {
    keptEmptyScopes.pop();
    subcolumnScopes.pop();
  }
}

function printSelectItem(item: ir.SelectItem, ambiguousStar: boolean): string {
  if (item.kind === 'expr') return `${printOutput(item.expr)} AS ${quoteIdentifier(item.alias)}`;
  if (item.qualifier === undefined && ambiguousStar) {
    throw invalidSql('SELECT * with UNNEST in FROM is not supported; list the columns (or use alias.*)');
  }
  const star = item.qualifier !== undefined ? `${quoteIdentifier(item.qualifier)}.*` : '*';
  return item.except.length > 0 ? `${star} EXCEPT (${item.except.map(quoteIdentifier).join(', ')})` : star;
}

/**
 * A selected value. ClickHouse comparisons and logical operators return UInt8; BigQuery returns
 * BOOL, so boolean-shaped expressions are cast to Bool where they leave a SELECT.
 */
function printOutput(expr: ir.Expr): string {
  const printed = printExpr(expr);
  return isBooleanShaped(expr) ? `CAST(${printed} AS Nullable(Bool))` : printed;
}

const BOOLEAN_FUNCTIONS: ReadonlySet<string> = new Set(['starts_with', 'ends_with', 'regexp_contains', 'logical_and', 'logical_or']);

function isBooleanShaped(expr: ir.Expr): boolean {
  switch (expr.kind) {
    case 'binary':
      return ['=', '!=', '<', '<=', '>', '>=', 'AND', 'OR'].includes(expr.op);
    case 'not':
    case 'is':
    case 'distinct_from':
    case 'like':
    case 'between':
    case 'in_list':
    case 'in_subquery':
    case 'in_unnest':
    case 'exists':
      return true;
    case 'call':
      return BOOLEAN_FUNCTIONS.has(expr.fn);
    default:
      return false;
  }
}

// ---- FROM ----------------------------------------------------------------------------------

interface PlannedFrom {
  sql: string;
  /** Conditions of `JOIN UNNEST(…) ON cond`, which filter like WHERE. */
  where: ir.Expr[];
  /** BigQuery's `*` would expand UNNEST elements (struct fields): refused, as on DuckDB. */
  ambiguousStar: boolean;
}

type UnnestStep = Extract<ir.FromStep, { kind: 'unnest' }>;

function planFrom(from: ir.From, kept: Set<string>, subcolumnJoins: Map<UnnestStep, string> | undefined): PlannedFrom {
  let sql = printRelation(from.base);
  const where: ir.Expr[] = [];
  for (const step of from.steps) {
    if (step.kind === 'unnest') {
      sql += subcolumnJoins?.get(step) ?? arrayJoin(step);
      if (step.keepEmpty) kept.add(step.alias.toLowerCase());
      where.push(...conjunctsOf(step.condition));
    } else {
      sql += printJoinStep(step);
    }
  }
  const unnests = [...(from.base.kind === 'unnest' ? [from.base.array] : []), ...from.steps.flatMap((step) => (step.kind === 'unnest' ? [step.array] : []))];
  const onlyGeneratedSeries = unnests.every((array) => array.kind === 'call' && (array.fn === 'generate_array' || array.fn === 'generate_timestamp_array'));
  return { sql, where, ambiguousStar: !onlyGeneratedSeries };
}

/** One UNNEST step as ARRAY JOIN; several arrays in one ARRAY JOIN are zipped, row by row. */
function arrayJoin(step: UnnestStep): string {
  const array = printExpr(step.array);
  const columns = [`${array} AS ${quoteIdentifier(step.alias)}`];
  if (step.offsetAlias) columns.push(`range(length(${array})) AS ${quoteIdentifier(step.offsetAlias)}`);
  if (step.keepEmpty) columns.push(`arrayEnumerate(${array}) AS ${presenceColumn(step.alias.toLowerCase())}`);
  return ` ${step.keepEmpty ? 'LEFT ' : ''}ARRAY JOIN ${columns.join(', ')}`;
}

function printJoinStep(step: Extract<ir.FromStep, { kind: 'join' }>): string {
  const relation = printRelation(step.relation);
  if (step.type === 'cross') return ` CROSS JOIN ${relation}`;
  const join = ` ${step.type === 'full' ? 'FULL OUTER' : step.type.toUpperCase()} JOIN ${relation}`;
  if (step.using) return `${join} USING (${step.using.map(quoteIdentifier).join(', ')})`;
  if (!step.on || (step.on.kind === 'bool' && step.on.value)) {
    if (step.type === 'inner') return ` CROSS JOIN ${relation}`;
    return `${join} ON 1 = 1`;
  }
  return `${join} ON ${printExpr(step.on)}`;
}

function printRelation(relation: ir.Relation): string {
  switch (relation.kind) {
    case 'source':
      // The warehouse hands us the relation as SQL already (a qualified view name).
      return `${relation.relation} AS ${quoteIdentifier(relation.alias)}`;
    case 'cte':
      return `${quoteIdentifier(relation.name)} AS ${quoteIdentifier(relation.alias)}`;
    case 'subquery':
      return `(${printQuery(relation.query)})${relation.alias ? ` AS ${quoteIdentifier(relation.alias)}` : ''}`;
    case 'unnest': {
      // UNNEST as the whole FROM: its elements as a one-column table named by the alias.
      const array = printExpr(relation.array);
      const columns = [quoteIdentifier(relation.alias), ...(relation.offsetAlias ? [quoteIdentifier(relation.offsetAlias)] : [])];
      const joined = [`${array} AS ${quoteIdentifier(relation.alias)}`, ...(relation.offsetAlias ? [`range(length(${array})) AS ${quoteIdentifier(relation.offsetAlias)}`] : [])];
      return `(SELECT ${columns.join(', ')} FROM system.one ARRAY JOIN ${joined.join(', ')}) AS ${quoteIdentifier(`__unnest_${relation.alias}`)}`;
    }
  }
}

// ---- subqueries over an UNNEST ---------------------------------------------------------------

interface UnnestOnly {
  array: string;
  alias: string;
  /** `alias -> condition` applied to the array, or the array itself. */
  filtered: string;
  select: ir.Select;
}

/**
 * `(SELECT … FROM UNNEST(arr) AS x [WHERE c])` with nothing else: usually correlated with the
 * outer row (ClickHouse cannot correlate a FROM), so it is computed with array functions.
 */
function unnestOnly(query: ir.Query): UnnestOnly | undefined {
  if (query.ctes.length > 0 || query.orderBy.length > 0 || query.limit || query.offset || query.body.kind !== 'select') return undefined;
  const select = query.body.select;
  const base = select.from?.base;
  if (!base || base.kind !== 'unnest' || base.offsetAlias || select.from!.steps.length > 0) return undefined;
  if (select.distinct || select.groupBy.length > 0 || select.having || select.qualify || select.items.length !== 1) return undefined;
  const array = printExpr(base.array);
  const alias = quoteIdentifier(base.alias);
  const filtered = select.where ? `arrayFilter(${alias} -> ${printExpr(select.where)}, ${array})` : array;
  return { array, alias, filtered, select };
}

const ARRAY_REDUCERS: Partial<Record<BigQueryFunction, string>> = {
  sum: 'sum',
  avg: 'avg',
  min: 'min',
  max: 'max',
  any_value: 'any',
  logical_and: 'min',
  logical_or: 'max',
};

function printScalarSubquery(query: ir.Query): string {
  const shape = unnestOnly(query);
  const item = shape?.select.items[0];
  if (shape && item?.kind === 'expr' && item.expr.kind === 'call' && !item.expr.over && !item.expr.distinct) {
    const call = item.expr;
    if (call.fn === 'count') {
      if (call.star || call.args.length === 0) return `toInt64(length(${shape.filtered}))`;
      return `toInt64(arrayCount(${shape.alias} -> isNotNull(${printExpr(call.args[0]!)}), ${shape.filtered}))`;
    }
    if (call.fn === 'countif') return `toInt64(arrayCount(${shape.alias} -> ${printExpr(call.args[0]!)}, ${shape.filtered}))`;
    const reducer = ARRAY_REDUCERS[call.fn];
    if (reducer && call.args.length === 1) {
      return `arrayReduce('${reducer}OrNull', arrayMap(${shape.alias} -> ${printExpr(call.args[0]!)}, ${shape.filtered}))`;
    }
  }
  return `(${printQuery(query)})`;
}

function printArraySubquery(query: ir.Query): string {
  const shape = unnestOnly(query);
  const item = shape?.select.items[0];
  if (shape && item?.kind === 'expr' && !containsAggregate(item.expr)) {
    return `arrayMap(${shape.alias} -> ${printExpr(item.expr)}, ${shape.filtered})`;
  }
  return `(SELECT groupArray(*) FROM (${printQuery(query)}))`;
}

function printExists(query: ir.Query, negated: boolean): string {
  const shape = unnestOnly(query);
  const test = shape ? `arrayExists(${shape.alias} -> ${shape.select.where ? printExpr(shape.select.where) : '1'}, ${shape.array})` : `EXISTS (${printQuery(query)})`;
  return negated ? `(NOT ${test})` : `(${test})`;
}

function containsAggregate(expr: ir.Expr): boolean {
  return namesUsedBy(expr).pinned;
}

// ---- expressions ---------------------------------------------------------------------------

const TYPE_NAMES: Record<ir.ScalarTypeName, string | undefined> = {
  INT64: 'Int64',
  FLOAT64: 'Float64',
  NUMERIC: 'Decimal(38, 9)',
  BIGNUMERIC: 'Decimal(76, 38)',
  STRING: 'String',
  BYTES: 'String',
  BOOL: 'Bool',
  TIMESTAMP: "DateTime64(6, 'UTC')",
  DATETIME: 'DateTime64(6)',
  DATE: 'Date32',
  TIME: undefined,
  JSON: 'String',
};

export function printType(type: ir.TypeName): string {
  if (typeof type !== 'string') return `Array(${nullableType(type.array)})`;
  const name = TYPE_NAMES[type];
  if (!name) throw invalidSql(`type ${type} is not supported on ClickHouse`);
  return name;
}

function nullableType(type: ir.TypeName): string {
  return typeof type === 'string' ? `Nullable(${printType(type)})` : printType(type);
}

const INTERVAL_FUNCTIONS: Partial<Record<ir.DatePart, string>> = {
  microsecond: 'toIntervalMicrosecond',
  millisecond: 'toIntervalMillisecond',
  second: 'toIntervalSecond',
  minute: 'toIntervalMinute',
  hour: 'toIntervalHour',
  day: 'toIntervalDay',
  week: 'toIntervalWeek',
  month: 'toIntervalMonth',
  quarter: 'toIntervalQuarter',
  year: 'toIntervalYear',
};

export function printExpr(expr: ir.Expr): string {
  switch (expr.kind) {
    case 'ref':
      return printRef(expr.path);
    case 'number':
      return expr.text;
    case 'string':
      return quoteString(expr.value);
    case 'bool':
      return expr.value ? 'true' : 'false';
    case 'null':
      return 'NULL';
    case 'typed_literal':
      return printTypedLiteral(expr.type, quoteString(expr.value));
    case 'param':
      return `{${expr.name}:Nullable(String)}`;
    case 'binary':
      return printBinary(expr);
    case 'not':
      return `(NOT ${printExpr(expr.expr)})`;
    case 'negate':
      return `(- ${printExpr(expr.expr)})`;
    case 'is':
      return printIs(expr);
    case 'distinct_from':
      return `(${expr.negated ? 'isNotDistinctFrom' : 'isDistinctFrom'}(${printExpr(expr.left)}, ${printExpr(expr.right)}))`;
    case 'like':
      // ClickHouse LIKE, like BigQuery's, treats backslash as the escape character.
      return `(${printExpr(expr.expr)} ${expr.negated ? 'NOT ' : ''}LIKE ${printExpr(expr.pattern)})`;
    case 'between': {
      const value = printExpr(expr.expr);
      const bound = (side: ir.Expr) => printComparand(side, expr.expr, value);
      return `(${value} ${expr.negated ? 'NOT ' : ''}BETWEEN ${bound(expr.low)} AND ${bound(expr.high)})`;
    }
    case 'in_list':
      return `(${printExpr(expr.expr)} ${expr.negated ? 'NOT ' : ''}IN (${expr.list.map(printExpr).join(', ')}))`;
    case 'in_subquery':
      return `(${printExpr(expr.expr)} ${expr.negated ? 'NOT ' : ''}IN (${printQuery(expr.query)}))`;
    case 'in_unnest': {
      const test = printInUnnest(printExpr(expr.expr), printExpr(expr.array));
      return expr.negated ? `(NOT ${test})` : test;
    }
    case 'exists':
      return printExists(expr.query, expr.negated);
    case 'subquery':
      return printScalarSubquery(expr.query);
    case 'array_subquery':
      return printArraySubquery(expr.query);
    case 'case':
      return printCase(expr);
    case 'cast':
      return printCast(expr);
    case 'extract':
      return printExtract(expr.part, printExpr(expr.expr));
    case 'interval':
      return printInterval(expr);
    case 'date_part':
      throw invalidSql(`date part ${expr.part.toUpperCase()} is only valid as a function argument`);
    case 'array':
      return `[${expr.elements.map(printExpr).join(', ')}]`;
    case 'struct':
      return printStruct(expr);
    case 'field':
      return `tupleElement(${printExpr(expr.base)}, ${quoteString(expr.name)})`;
    case 'subscript':
      return printSubscript(expr);
    case 'field_at':
      return `tupleElement(${printExpr(expr.base)}, ${expr.position + 1})`;
    case 'call':
      return printCall(expr);
    case 'quantile':
      // Reservoir-sampled (bounded memory), exact below 8,192 values: BigQuery's APPROX_QUANTILES.
      return `quantile(${expr.fraction})(${printExpr(expr.expr)})${printOver(expr.over)}`;
    case 'quantiles': {
      const fractions = Array.from({ length: expr.buckets + 1 }, (_, index) => index / expr.buckets);
      return `quantiles(${fractions.join(', ')})(${printExpr(expr.expr)})${printOver(expr.over)}`;
    }
    case 'position':
      return String(expr.position);
  }
}

function printRef(path: string[]): string {
  const subcolumn = path.length > 1 ? subcolumnScopes.at(-1)?.get(path[0]!.toLowerCase())?.get(path.slice(1).join('.')) : undefined;
  return subcolumn ?? path.map(quoteIdentifier).join('.');
}

export function printTypedLiteral(type: ir.ScalarTypeName, quoted: string): string {
  switch (type) {
    case 'TIMESTAMP':
      return `parseDateTime64BestEffort(${quoted}, 6, 'UTC')`;
    case 'DATETIME':
      return `parseDateTime64BestEffort(${quoted}, 6)`;
    case 'DATE':
      return `toDate32(${quoted})`;
    default:
      return `CAST(${quoted} AS ${printType(type)})`;
  }
}

const COMPARISONS: ReadonlySet<string> = new Set(['=', '!=', '<', '<=', '>', '>=']);

function printBinary(expr: Extract<ir.Expr, { kind: 'binary' }>): string {
  if (COMPARISONS.has(expr.op)) {
    const left = printComparand(expr.left, expr.right);
    const right = printComparand(expr.right, expr.left);
    return `(${left} ${expr.op} ${right})`;
  }
  const left = printExpr(expr.left);
  const right = printExpr(expr.right);
  switch (expr.op) {
    case '^':
      return `bitXor(${left}, ${right})`;
    case '&':
      return `bitAnd(${left}, ${right})`;
    case '|':
      return `bitOr(${left}, ${right})`;
    default:
      return `(${left} ${expr.op} ${right})`;
  }
}

const isTextLiteral = (expr: ir.Expr) => expr.kind === 'param' || expr.kind === 'string';

/**
 * BigQuery coerces a string (a parameter, always a string, or a literal) compared with a
 * TIMESTAMP, number or BOOL to that type. ClickHouse only parses plain `YYYY-MM-DD hh:mm:ss`
 * there, so the string is cast to the other side's type, taken from the query at analysis time
 * (toTypeName is a constant). assumeNotNull keeps a bad value an error instead of NULL.
 */
function printComparand(side: ir.Expr, other: ir.Expr, otherSql?: string): string {
  const printed = printExpr(side);
  if (!isTextLiteral(side) || isTextLiteral(other) || other.kind === 'null' || namesUsedBy(other).pinned) return printed;
  if (['number', 'bool', 'typed_literal'].includes(other.kind)) return printed;
  const target = `toTypeName(assumeNotNull(${otherSql ?? printExpr(other)}))`;
  return `if(isNull(${printed}), NULL, CAST(assumeNotNull(${printed}), ${target}))`;
}

function printIs(expr: Extract<ir.Expr, { kind: 'is' }>): string {
  const inner = expr.expr;
  // An element of LEFT ARRAY JOIN over an empty array is a default value, not NULL.
  if (expr.test === 'null' && inner.kind === 'ref' && inner.path.length === 1) {
    const alias = inner.path[0]!.toLowerCase();
    if (keptEmptyScopes.at(-1)?.has(alias)) return `(${presenceColumn(alias)} ${expr.negated ? '!=' : '='} 0)`;
  }
  const value = printExpr(inner);
  if (expr.test === 'null') return `(${value} IS ${expr.negated ? 'NOT ' : ''}NULL)`;
  const test = `coalesce(${value} = ${expr.test === 'true' ? 'true' : 'false'}, false)`;
  return expr.negated ? `(NOT ${test})` : `(${test})`;
}

/**
 * `x IN UNNEST(list)` with BigQuery's three-valued result: FALSE for an empty list, NULL when x
 * is NULL or when x is absent from a list holding NULLs.
 */
function printInUnnest(value: string, list: string): string {
  return `multiIf(empty(${list}), false, isNull(${value}), NULL, has(${list}, ${value}), true, has(${list}, NULL), NULL, false)`;
}

function printCase(expr: Extract<ir.Expr, { kind: 'case' }>): string {
  const operand = expr.operand ? ` ${printExpr(expr.operand)}` : '';
  const whens = expr.whens.map((when) => ` WHEN ${printExpr(when.when)} THEN ${printExpr(when.then)}`).join('');
  const otherwise = expr.else ? ` ELSE ${printExpr(expr.else)}` : '';
  return `(CASE${operand}${whens}${otherwise} END)`;
}

/**
 * CAST fails on a bad value, SAFE_CAST gives NULL. ClickHouse turns a failed cast of a Nullable
 * value into NULL, so the value is unwrapped first to keep the error.
 */
function printCast(expr: Extract<ir.Expr, { kind: 'cast' }>): string {
  const type = printType(expr.type);
  if (expr.expr.kind === 'null') return `CAST(NULL AS ${typeof expr.type === 'string' ? `Nullable(${type})` : type})`;
  const value = printExpr(expr.expr);
  if (typeof expr.type !== 'string') return `CAST(${value} AS ${type})`;
  if (expr.safe) return `accurateCastOrNull(${value}, ${quoteString(type)})`;
  return `if(isNull(${value}), NULL, CAST(assumeNotNull(${value}) AS ${type}))`;
}

function printStruct(expr: Extract<ir.Expr, { kind: 'struct' }>): string {
  const values = expr.fields.map((field) => printExpr(field.value));
  const tuple = `tuple(${values.join(', ')})`;
  if (!expr.fields.every((field) => field.name !== undefined)) return tuple;
  // Named tuple: element types come from the values, at analysis time.
  const elements = expr.fields.map((field, index) => `${quoteString(`${quoteIdentifier(field.name!)} `)}, toTypeName(${values[index]})`);
  return `CAST(${tuple}, concat('Tuple(', ${elements.join(", ', ', ")}, ')'))`;
}

export function printExtract(part: ir.DatePart, value: string): string {
  switch (part) {
    case 'microsecond':
      return `toInt64(toUnixTimestamp64Micro(toDateTime64(${value}, 6)) % 1000000)`;
    case 'millisecond':
      return `toInt64(toMillisecond(${value}))`;
    case 'second':
      return `toInt64(toSecond(${value}))`;
    case 'minute':
      return `toInt64(toMinute(${value}))`;
    case 'hour':
      return `toInt64(toHour(${value}))`;
    case 'day':
      return `toInt64(toDayOfMonth(${value}))`;
    case 'dayofweek':
      // BigQuery: 1 = Sunday … 7 = Saturday (ClickHouse mode 3).
      return `toInt64(toDayOfWeek(${value}, 3))`;
    case 'dayofyear':
      return `toInt64(toDayOfYear(${value}))`;
    case 'week':
      // BigQuery WEEK: weeks start on Sunday, days before the first Sunday are week 0 (mode 0).
      return `toInt64(toWeek(${value}, 0))`;
    case 'isoweek':
      return `toInt64(toISOWeek(${value}))`;
    case 'month':
      return `toInt64(toMonth(${value}))`;
    case 'quarter':
      return `toInt64(toQuarter(${value}))`;
    case 'year':
      return `toInt64(toYear(${value}))`;
    case 'isoyear':
      return `toInt64(toISOYear(${value}))`;
    case 'date':
      return `toDate32(${value})`;
  }
}

export function printInterval(expr: Extract<ir.Expr, { kind: 'interval' }>): string {
  const fn = INTERVAL_FUNCTIONS[expr.unit];
  if (!fn) throw invalidSql(`INTERVAL unit ${expr.unit.toUpperCase()} is not supported`);
  return `${fn}(toInt64(${printExpr(expr.value)}))`;
}

/**
 * BigQuery subscripts: OFFSET is 0-based, ORDINAL 1-based, and both raise an error out of range;
 * the SAFE_ forms return NULL. ClickHouse arrays are 1-based, give the element type's default
 * out of range and count negative indexes from the end, so every form is guarded. `if` is
 * short-circuited, so throwIf runs only for a bad index; its condition reads the array, because
 * a throwIf with constant arguments is evaluated once for the block, whatever the `if` says.
 */
function printSubscript(expr: Extract<ir.Expr, { kind: 'subscript' }>): string {
  const list = printExpr(expr.base);
  const index = `toInt64(${printExpr(expr.index)})`;
  const zeroBased = expr.mode === 'offset' || expr.mode === 'safe_offset';
  const position = zeroBased ? `(${index} + 1)` : index;
  if (expr.mode === 'safe_offset' || expr.mode === 'safe_ordinal') {
    return `arrayElement(${list}, if(${position} BETWEEN 1 AND length(${list}), ${position}, 0))`;
  }
  const name = zeroBased ? 'OFFSET' : 'ORDINAL';
  return `arrayElement(${list}, if(${position} BETWEEN 1 AND length(${list}), ${position}, throwIf(length(${list}) >= 0, 'Array index is out of bounds (${name})')))`;
}

function printCall(expr: Extract<ir.Expr, { kind: 'call' }>): string {
  const emit = FUNCTION_EMITTERS[expr.fn];
  const navigation = expr.fn === 'lag' || expr.fn === 'lead';
  return emit({
    args: expr.args.map(printArgument),
    raw: expr.args,
    distinct: expr.distinct ? 'DISTINCT ' : '',
    // lagInFrame/leadInFrame respect the frame; BigQuery's LAG/LEAD see the whole partition.
    over: printOver(expr.over, navigation),
    star: expr.star === true,
  });
}

/** Date-part keywords are resolved by the emitters (sql-functions.ts) from the raw arguments. */
function printArgument(arg: ir.Expr): string {
  return arg.kind === 'date_part' ? quoteString(arg.part) : printExpr(arg);
}

function printOver(over: ir.WindowSpec | undefined, wholePartition = false): string {
  if (!over) return '';
  const parts: string[] = [];
  if (over.partitionBy.length > 0) parts.push(`PARTITION BY ${over.partitionBy.map(printExpr).join(', ')}`);
  if (over.orderBy.length > 0) parts.push(`ORDER BY ${over.orderBy.map(printOrderItem).join(', ')}`);
  if (wholePartition) parts.push('ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING');
  else if (over.frame) {
    const { units, start, end } = over.frame;
    const bounds = end ? `BETWEEN ${printBound(start)} AND ${printBound(end)}` : printBound(start);
    parts.push(`${units.toUpperCase()} ${bounds}`);
  }
  return ` OVER (${parts.join(' ')})`;
}

function printBound(bound: ir.FrameBound): string {
  switch (bound.kind) {
    case 'unbounded_preceding':
      return 'UNBOUNDED PRECEDING';
    case 'unbounded_following':
      return 'UNBOUNDED FOLLOWING';
    case 'current_row':
      return 'CURRENT ROW';
    case 'preceding':
      return `${printExpr(bound.offset)} PRECEDING`;
    case 'following':
      return `${printExpr(bound.offset)} FOLLOWING`;
  }
}
