/**
 * DuckDB printer for the translator's tree (src/sql/ir.ts).
 *
 * Type mapping: BigQuery TIMESTAMP is TIMESTAMPTZ (the session runs with TimeZone=UTC), DATETIME
 * is TIMESTAMP. Parameters are DuckDB named parameters (`$name`) bound as strings or NULL.
 *
 * FROM t CROSS JOIN UNNEST(…) chains become chained select-list `unnest()` subqueries with each
 * WHERE conjunct evaluated at the shallowest level that has its names: DuckDB plans the literal
 * FROM-clause form as a delim join that cannot prune by timestamp (engines.md §2.2).
 */

import { andAll, assignConjunctsToLevels, conjunctsOf } from '../../sql/analysis.ts';
import type { SqlDialect } from '../../sql/dialect.ts';
import type * as ir from '../../sql/ir.ts';
import { childrenOf } from '../../sql/analysis.ts';
import { invalidSql } from '../../sql/parse.ts';
import { FUNCTION_EMITTERS, sourceTimestampRefs } from './sql-functions.ts';

export const duckdbDialect: SqlDialect = {
  name: 'duckdb',
  generate: (query) => printQuery(query),
};

export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

export function quoteString(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

// ---- queries -------------------------------------------------------------------------------

function printQuery(query: ir.Query): string {
  // ORDER BY of a plain SELECT reads that SELECT's FROM.
  if (query.body.kind === 'select') markSourceTimestamps(query.body.select, query.orderBy.map((item) => item.expr));
  const parts: string[] = [];
  if (query.ctes.length > 0) {
    parts.push(`WITH ${query.ctes.map((cte) => `${quoteIdentifier(cte.name)} AS (${printQuery(cte.query)})`).join(', ')}`);
  }
  parts.push(printSetExpr(query.body));
  if (query.orderBy.length > 0) parts.push(`ORDER BY ${query.orderBy.map(printOrderItem).join(', ')}`);
  if (query.limit) parts.push(`LIMIT ${printExpr(query.limit)}`);
  if (query.offset) parts.push(`OFFSET ${printExpr(query.offset)}`);
  return parts.join(' ');
}

function printSetExpr(body: ir.SetExpr): string {
  switch (body.kind) {
    case 'select':
      return printSelect(body.select);
    case 'nested':
      return `(${printQuery(body.query)})`;
    case 'setop': {
      const operand = (side: ir.SetExpr) => (side.kind === 'setop' ? `(${printSetExpr(side)})` : printSetExpr(side));
      return `${operand(body.left)} ${body.op.toUpperCase()}${body.all ? ' ALL' : ''} ${operand(body.right)}`;
    }
  }
}

function printOrderItem(item: ir.OrderItem): string {
  return `${printExpr(item.expr)} ${item.descending ? 'DESC' : 'ASC'} NULLS ${item.nullsFirst ? 'FIRST' : 'LAST'}`;
}

function printSelect(select: ir.Select): string {
  markSourceTimestamps(select, []);
  shareQuantileSketches(select);
  const planned = select.from ? planFrom(select.from, conjunctsOf(select.where)) : undefined;
  const where = planned ? planned.where : conjunctsOf(select.where);
  const parts = [
    `SELECT ${select.distinct ? 'DISTINCT ' : ''}${select.items.map((item) => printSelectItem(item, planned?.addedColumns)).join(', ')}`,
  ];
  if (planned) parts.push(`FROM ${planned.sql}`);
  const whereExpr = andAll(where);
  if (whereExpr) parts.push(`WHERE ${printExpr(whereExpr)}`);
  if (select.groupBy.length > 0) parts.push(`GROUP BY ${select.groupBy.map(printExpr).join(', ')}`);
  if (select.having) parts.push(`HAVING ${printExpr(select.having)}`);
  if (select.qualify) parts.push(`QUALIFY ${printExpr(select.qualify)}`);
  return parts.join(' ');
}

function printSelectItem(item: ir.SelectItem, addedColumns: AddedColumns | undefined): string {
  if (item.kind === 'expr') return `${printExpr(item.expr)} AS ${quoteIdentifier(item.alias)}`;
  const hidden = item.qualifier !== undefined ? (addedColumns?.get(item.qualifier.toLowerCase()) ?? []) : [];
  if (item.qualifier === undefined && addedColumns?.has(AMBIGUOUS_STAR)) {
    throw invalidSql('SELECT * with UNNEST in FROM is not supported; list the columns (or use alias.*)');
  }
  const excluded = [...hidden, ...item.except];
  const star = item.qualifier !== undefined ? `${quoteIdentifier(item.qualifier)}.*` : '*';
  return excluded.length > 0 ? `${star} EXCLUDE (${excluded.map(quoteIdentifier).join(', ')})` : star;
}

/**
 * Marks the refs of this SELECT (not of its subqueries) that read a source's fixed `timestamp`
 * column, TIMESTAMPTZ in every segment (layout.ts), so that functions of it can be printed as
 * plain arithmetic on epoch microseconds instead of ICU calendar calls (sql-functions.ts):
 * `alias.timestamp` for an alias bound to a source in this FROM, and a bare `timestamp` when the
 * FROM is one source followed only by UNNESTs (none of them named `timestamp`).
 */
export function markSourceTimestamps(select: ir.Select, extra: ir.Expr[]): void {
  const from = select.from;
  if (!from) return;
  const sources = new Set<string>();
  const relations = [from.base, ...from.steps.flatMap((step) => (step.kind === 'join' ? [step.relation] : []))];
  for (const relation of relations) {
    if (relation.kind === 'source') sources.add(relation.alias.toLowerCase());
  }
  if (sources.size === 0) return;
  const unnestNames = from.steps.flatMap((step) => (step.kind === 'unnest' ? [step.alias, ...(step.offsetAlias ? [step.offsetAlias] : [])] : []));
  const bareIsSource =
    from.base.kind === 'source' && from.steps.every((step) => step.kind === 'unnest') && unnestNames.every((name) => name.toLowerCase() !== 'timestamp');
  const mark = (expr: ir.Expr): void => {
    if (expr.kind === 'ref') {
      const [head, column, ...rest] = expr.path.map((part) => part.toLowerCase());
      const qualified = column === 'timestamp' && rest.length === 0 && sources.has(head!);
      const bare = expr.path.length === 1 && head === 'timestamp' && bareIsSource;
      if (qualified || bare) sourceTimestampRefs.add(expr);
      return;
    }
    if ((expr.kind === 'call' || expr.kind === 'quantile' || expr.kind === 'quantiles') && expr.over) {
      expr.over.partitionBy.forEach(mark);
      expr.over.orderBy.forEach((item) => mark(item.expr));
    }
    childrenOf(expr).forEach(mark);
  };
  for (const item of select.items) if (item.kind === 'expr') mark(item.expr);
  for (const expr of [select.where, select.having, select.qualify, ...select.groupBy, ...extra]) if (expr) mark(expr);
  for (const step of from.steps) {
    if (step.kind === 'unnest') {
      mark(step.array);
      if (step.condition) mark(step.condition);
    } else if (step.on) mark(step.on);
  }
}

/**
 * Quantiles of one value in one SELECT (p95 and p99 of execution_time_ms): each
 * `approx_quantile(x, f)` builds its own t-digest, while `approx_quantile(x, [f1, f2])[k]` with
 * the same list everywhere is one aggregate DuckDB computes once (same values; 14 → 9 ms of
 * functions.invocation-stats' 92 ms at 1M events). Aggregates only: windowed ones keep their own.
 */
const sharedQuantiles = new WeakMap<ir.Expr, { fractions: number[]; index: number }>();

function shareQuantileSketches(select: ir.Select): void {
  const byValue = new Map<string, Array<Extract<ir.Expr, { kind: 'quantile' }>>>();
  const collect = (expr: ir.Expr): void => {
    if (expr.kind === 'quantile' && !expr.over) {
      const key = printExpr(expr.expr);
      byValue.set(key, [...(byValue.get(key) ?? []), expr]);
      return;
    }
    childrenOf(expr).forEach(collect);
  };
  for (const item of select.items) if (item.kind === 'expr') collect(item.expr);
  if (select.having) collect(select.having);
  for (const nodes of byValue.values()) {
    const fractions = [...new Set(nodes.map((node) => node.fraction))].sort((a, b) => a - b);
    if (fractions.length < 2) continue;
    for (const node of nodes) sharedQuantiles.set(node, { fractions, index: fractions.indexOf(node.fraction) + 1 });
  }
}

// ---- FROM ----------------------------------------------------------------------------------

/**
 * Columns the unnest chain adds to the base alias's derived table, hidden from `alias.*`; the
 * AMBIGUOUS_STAR key marks a FROM where BigQuery's `*` would expand UNNEST elements (struct
 * fields), which cannot be known without the schema.
 */
type AddedColumns = Map<string, string[]>;
const AMBIGUOUS_STAR = '\u0000unnest';

function withStarMarker(from: ir.From, added: AddedColumns): AddedColumns {
  const unnests = [...(from.base.kind === 'unnest' ? [from.base.array] : []), ...from.steps.flatMap((step) => (step.kind === 'unnest' ? [step.array] : []))];
  const onlyGeneratedSeries = unnests.every((array) => array.kind === 'call' && (array.fn === 'generate_array' || array.fn === 'generate_timestamp_array'));
  if (!onlyGeneratedSeries) added.set(AMBIGUOUS_STAR, []);
  return added;
}

interface PlannedFrom {
  sql: string;
  /** WHERE conjuncts left for the outer query. */
  where: ir.Expr[];
  addedColumns: AddedColumns;
}

type UnnestStep = Extract<ir.FromStep, { kind: 'unnest' }>;

function planFrom(from: ir.From, where: ir.Expr[]): PlannedFrom {
  const chain: UnnestStep[] = [];
  for (const step of from.steps) {
    if (step.kind !== 'unnest') break;
    chain.push(step);
  }
  const rest = from.steps.slice(chain.length);
  const baseAlias = from.base.alias;
  if (chain.length === 0 || from.base.kind === 'unnest' || baseAlias === undefined) {
    return planGeneric(from, where);
  }

  // Conjuncts may move below the chain only when nothing later can null-extend the base rows.
  const canPush = rest.every((step) => step.kind === 'unnest' || step.type === 'inner' || step.type === 'cross' || step.type === 'left');
  const levelNames = [
    new Set([baseAlias.toLowerCase()]),
    ...chain.map((step) => new Set([step.alias.toLowerCase(), ...(step.offsetAlias ? [step.offsetAlias.toLowerCase()] : [])])),
  ];
  // A JOIN UNNEST … ON condition always belongs to its own level or deeper.
  const stepConditions = chain.flatMap((step) => conjunctsOf(step.condition));
  const movable = canPush ? [...where, ...stepConditions] : stepConditions;
  const { perLevel, remaining } = assignConjunctsToLevels(movable, levelNames);
  const outerWhere = canPush ? remaining : [...where, ...remaining];
  const lastLevel = perLevel[chain.length] ?? [];

  const alias = quoteIdentifier(baseAlias);
  let sql = printRelation(from.base);
  chain.forEach((step, index) => {
    const source = index === 0 ? sql : `(${sql}) AS ${alias}`;
    const filter = andAll(perLevel[index] ?? []);
    sql = `SELECT ${alias}.*, ${unnestColumns(step)} FROM ${source}${filter ? ` WHERE ${printExpr(filter)}` : ''}`;
  });
  const added = chain.flatMap((step) => [step.alias, ...(step.offsetAlias ? [step.offsetAlias] : [])]);
  const restSql = rest.map(printJoinStep).join('');
  return {
    sql: `(${sql}) AS ${alias}${restSql}`,
    where: [...lastLevel, ...outerWhere],
    addedColumns: withStarMarker(from, new Map([[baseAlias.toLowerCase(), added]])),
  };
}

/** The select-list unnest of one chain level (and its 0-based offset when asked for). */
function unnestColumns(step: UnnestStep): string {
  const array = printExpr(step.array);
  // Select-list unnest drops rows whose list is empty or NULL (CROSS JOIN semantics); LEFT JOIN
  // keeps them with one NULL element.
  const source = step.keepEmpty ? `coalesce(nullif(${array}, []), [NULL])` : array;
  const element = `unnest(${source}) AS ${quoteIdentifier(step.alias)}`;
  if (!step.offsetAlias) return element;
  return `${element}, generate_subscripts(${array}, 1) - 1 AS ${quoteIdentifier(step.offsetAlias)}`;
}

function planGeneric(from: ir.From, where: ir.Expr[]): PlannedFrom {
  return {
    sql: printRelation(from.base) + from.steps.map(printJoinStep).join(''),
    where,
    addedColumns: withStarMarker(from, new Map()),
  };
}

function printJoinStep(step: ir.FromStep): string {
  if (step.kind === 'unnest') {
    const relation = unnestRelation(step.keepEmpty ? `coalesce(nullif(${printExpr(step.array)}, []), [NULL])` : printExpr(step.array), step.alias, step.offsetAlias);
    const condition = step.condition ? printExpr(step.condition) : 'TRUE';
    return ` ${step.condition ? 'INNER' : 'CROSS'} JOIN ${relation}${step.condition ? ` ON ${condition}` : ''}`;
  }
  const relation = printRelation(step.relation);
  if (step.type === 'cross') return ` CROSS JOIN ${relation}`;
  const join = ` ${step.type.toUpperCase()} JOIN ${relation}`;
  if (step.using) return `${join} USING (${step.using.map(quoteIdentifier).join(', ')})`;
  return `${join} ON ${printExpr(step.on ?? { kind: 'bool', value: true })}`;
}

/**
 * UNNEST as a FROM item. The alias names a column, not a table, so `m.field` reads a field of
 * the element as in BigQuery (`unnest(x) AS m` would make `m` a table without that column).
 */
function unnestRelation(array: string, alias: string, offsetAlias: string | undefined): string {
  const hidden = quoteIdentifier(`_unnest_${alias}`);
  if (!offsetAlias) return `unnest(${array}) AS ${hidden}(${quoteIdentifier(alias)})`;
  return `(SELECT unnest(${array}) AS ${quoteIdentifier(alias)}, generate_subscripts(${array}, 1) - 1 AS ${quoteIdentifier(offsetAlias)}) AS ${hidden}`;
}

function printRelation(relation: ir.Relation): string {
  switch (relation.kind) {
    case 'source':
      // The warehouse hands us the relation as SQL already (a quoted or plain table name).
      return `${relation.relation} AS ${quoteIdentifier(relation.alias)}`;
    case 'cte':
      return `${quoteIdentifier(relation.name)} AS ${quoteIdentifier(relation.alias)}`;
    case 'subquery':
      return `(${printQuery(relation.query)})${relation.alias ? ` AS ${quoteIdentifier(relation.alias)}` : ''}`;
    case 'unnest':
      return unnestRelation(printExpr(relation.array), relation.alias, relation.offsetAlias);
  }
}

// ---- expressions ---------------------------------------------------------------------------

const TYPE_NAMES: Record<ir.ScalarTypeName, string> = {
  INT64: 'BIGINT',
  FLOAT64: 'DOUBLE',
  NUMERIC: 'DECIMAL(38, 9)',
  BIGNUMERIC: 'DECIMAL(38, 9)',
  STRING: 'VARCHAR',
  BYTES: 'BLOB',
  BOOL: 'BOOLEAN',
  TIMESTAMP: 'TIMESTAMPTZ',
  DATETIME: 'TIMESTAMP',
  DATE: 'DATE',
  TIME: 'TIME',
  JSON: 'JSON',
};

export function printType(type: ir.TypeName): string {
  return typeof type === 'string' ? TYPE_NAMES[type] : `${printType(type.array)}[]`;
}

const INTERVAL_FUNCTIONS: Partial<Record<ir.DatePart, string>> = {
  microsecond: 'to_microseconds',
  millisecond: 'to_milliseconds',
  second: 'to_seconds',
  minute: 'to_minutes',
  hour: 'to_hours',
  day: 'to_days',
  week: 'to_weeks',
  month: 'to_months',
  year: 'to_years',
};

export function printExpr(expr: ir.Expr): string {
  switch (expr.kind) {
    case 'ref':
      return expr.path.map(quoteIdentifier).join('.');
    case 'number':
      // BigQuery reads 1.5 as FLOAT64; DuckDB would read DECIMAL(2,1).
      return /^\d+$/.test(expr.text) ? expr.text : `CAST(${expr.text} AS DOUBLE)`;
    case 'string':
      return quoteString(expr.value);
    case 'bool':
      return expr.value ? 'TRUE' : 'FALSE';
    case 'null':
      return 'NULL';
    case 'typed_literal':
      return `CAST(${quoteString(expr.value)} AS ${printType(expr.type)})`;
    case 'param':
      return `$${expr.name}`;
    case 'binary':
      return printBinary(expr);
    case 'not':
      return `(NOT ${printExpr(expr.expr)})`;
    case 'negate':
      return `(- ${printExpr(expr.expr)})`;
    case 'is':
      return `(${printExpr(expr.expr)} IS ${expr.negated ? 'NOT ' : ''}${expr.test.toUpperCase()})`;
    case 'distinct_from':
      return `(${printExpr(expr.left)} IS ${expr.negated ? 'NOT ' : ''}DISTINCT FROM ${printExpr(expr.right)})`;
    case 'like': {
      // BigQuery LIKE treats backslash as the escape character; DuckDB has none by default. A
      // literal pattern without one needs no ESCAPE, and plain LIKE is what DuckDB's optimizer
      // turns into contains/prefix/suffix (LIKE … ESCAPE runs a generic matcher per row).
      const literal = expr.pattern.kind === 'string' && !expr.pattern.value.includes('\\');
      return `(${printExpr(expr.expr)} ${expr.negated ? 'NOT ' : ''}LIKE ${printExpr(expr.pattern)}${literal ? '' : " ESCAPE '\\'"})`;
    }
    case 'between':
      return `(${printExpr(expr.expr)} ${expr.negated ? 'NOT ' : ''}BETWEEN ${printExpr(expr.low)} AND ${printExpr(expr.high)})`;
    case 'in_list':
      return `(${printExpr(expr.expr)} ${expr.negated ? 'NOT ' : ''}IN (${expr.list.map(printExpr).join(', ')}))`;
    case 'in_subquery':
      return `(${printExpr(expr.expr)} ${expr.negated ? 'NOT ' : ''}IN (${printQuery(expr.query)}))`;
    case 'in_unnest': {
      const test = printInUnnest(printExpr(expr.expr), printExpr(expr.array));
      return expr.negated ? `(NOT ${test})` : test;
    }
    case 'exists':
      return `(${expr.negated ? 'NOT ' : ''}EXISTS (${printQuery(expr.query)}))`;
    case 'subquery':
      return `(${printQuery(expr.query)})`;
    case 'array_subquery':
      return `ARRAY(${printQuery(expr.query)})`;
    case 'case':
      return printCase(expr);
    case 'cast':
      return `${expr.safe ? 'TRY_CAST' : 'CAST'}(${printExpr(expr.expr)} AS ${printType(expr.type)})`;
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
      return `struct_extract(${printExpr(expr.base)}, ${quoteString(expr.name)})`;
    case 'subscript':
      return printSubscript(expr);
    case 'field_at':
      return `struct_extract_at(${printExpr(expr.base)}, ${expr.position + 1})`;
    case 'call':
      return printCall(expr);
    case 'quantile': {
      const shared = sharedQuantiles.get(expr);
      if (shared) return `approx_quantile(${printExpr(expr.expr)}, [${shared.fractions.join(', ')}])[${shared.index}]`;
      return `approx_quantile(${printExpr(expr.expr)}, ${expr.fraction})${printOver(expr.over)}`;
    }
    case 'quantiles': {
      // BigQuery returns n+1 boundaries, minimum and maximum included. DuckDB needs the list of
      // fractions as a constant.
      const fractions = Array.from({ length: expr.buckets + 1 }, (_, index) => index / expr.buckets);
      return `approx_quantile(${printExpr(expr.expr)}, [${fractions.join(', ')}])${printOver(expr.over)}`;
    }
    case 'position':
      return String(expr.position);
  }
}

function printBinary(expr: Extract<ir.Expr, { kind: 'binary' }>): string {
  const left = printExpr(expr.left);
  const right = printExpr(expr.right);
  switch (expr.op) {
    case '!=':
      return `(${left} <> ${right})`;
    case '^':
      // `^` is exponentiation in DuckDB, bitwise xor in BigQuery.
      return `xor(${left}, ${right})`;
    default:
      return `(${left} ${expr.op} ${right})`;
  }
}

/**
 * `x IN UNNEST(list)` with BigQuery's three-valued result: FALSE for an empty or NULL list, NULL
 * when x is NULL or when x is absent from a list holding NULLs. (DuckDB's own `x IN unnest(l)`
 * expands to one row per element; list_contains alone ignores NULL elements.)
 */
function printInUnnest(value: string, list: string): string {
  return (
    `(CASE WHEN len(coalesce(${list}, [])) = 0 THEN FALSE WHEN ${value} IS NULL THEN NULL` +
    ` WHEN list_contains(${list}, ${value}) THEN TRUE WHEN list_count(${list}) < len(${list}) THEN NULL ELSE FALSE END)`
  );
}

function printCase(expr: Extract<ir.Expr, { kind: 'case' }>): string {
  const operand = expr.operand ? ` ${printExpr(expr.operand)}` : '';
  const whens = expr.whens.map((when) => ` WHEN ${printExpr(when.when)} THEN ${printExpr(when.then)}`).join('');
  const otherwise = expr.else ? ` ELSE ${printExpr(expr.else)}` : '';
  return `(CASE${operand}${whens}${otherwise} END)`;
}

function printStruct(expr: Extract<ir.Expr, { kind: 'struct' }>): string {
  if (expr.fields.every((field) => field.name !== undefined)) {
    return `{${expr.fields.map((field) => `${quoteString(field.name ?? '')}: ${printExpr(field.value)}`).join(', ')}}`;
  }
  return `row(${expr.fields.map((field) => printExpr(field.value)).join(', ')})`;
}

export function printExtract(part: ir.DatePart, value: string): string {
  switch (part) {
    case 'dayofweek':
      // BigQuery: 1 = Sunday … 7 = Saturday; DuckDB dayofweek: 0 = Sunday.
      return `(dayofweek(${value}) + 1)`;
    case 'millisecond':
      // DuckDB's millisecond() counts the seconds of the minute too.
      return `(millisecond(${value}) % 1000)`;
    case 'microsecond':
      return `(microsecond(${value}) % 1000000)`;
    case 'week':
      // BigQuery WEEK: weeks start on Sunday, days before the first Sunday are week 0.
      return `CAST(strftime(${value}, '%U') AS BIGINT)`;
    case 'isoweek':
      return `week(${value})`;
    case 'date':
      return `CAST(${value} AS DATE)`;
    default:
      return `${part}(${value})`;
  }
}

function printInterval(expr: Extract<ir.Expr, { kind: 'interval' }>): string {
  const count = `CAST(${printExpr(expr.value)} AS BIGINT)`;
  if (expr.unit === 'quarter') return `to_months(${count} * 3)`;
  const fn = INTERVAL_FUNCTIONS[expr.unit];
  if (!fn) throw invalidSql(`INTERVAL unit ${expr.unit.toUpperCase()} is not supported`);
  return `${fn}(${count})`;
}

/**
 * BigQuery subscripts: OFFSET is 0-based, ORDINAL 1-based, and both raise an error out of
 * range; the SAFE_ forms return NULL. DuckDB lists are 1-based, return NULL out of range and
 * count negative indexes from the end, so every form is guarded.
 */
function printSubscript(expr: Extract<ir.Expr, { kind: 'subscript' }>): string {
  const list = printExpr(expr.base);
  const index = `CAST(${printExpr(expr.index)} AS BIGINT)`;
  const zeroBased = expr.mode === 'offset' || expr.mode === 'safe_offset';
  const position = zeroBased ? `${index} + 1` : index;
  if (expr.mode === 'safe_offset' || expr.mode === 'safe_ordinal') {
    return `(CASE WHEN ${position} >= 1 THEN ${list}[${position}] END)`;
  }
  const name = zeroBased ? 'OFFSET' : 'ORDINAL';
  return (
    `(CASE WHEN ${list} IS NULL OR ${index} IS NULL THEN NULL` +
    ` WHEN ${position} BETWEEN 1 AND len(${list}) THEN ${list}[${position}]` +
    ` ELSE error('Array index ' || ${index} || ' is out of bounds (${name})') END)`
  );
}

function printCall(expr: Extract<ir.Expr, { kind: 'call' }>): string {
  const emit = FUNCTION_EMITTERS[expr.fn];
  return emit({
    args: expr.args.map(printArgument),
    raw: expr.args,
    distinct: expr.distinct ? 'DISTINCT ' : '',
    over: printOver(expr.over),
    star: expr.star === true,
  });
}

/** Date-part keywords become DuckDB's quoted part names. */
function printArgument(arg: ir.Expr): string {
  return arg.kind === 'date_part' ? quoteString(arg.part) : printExpr(arg);
}

function printOver(over: ir.WindowSpec | undefined): string {
  if (!over) return '';
  const parts: string[] = [];
  if (over.partitionBy.length > 0) parts.push(`PARTITION BY ${over.partitionBy.map(printExpr).join(', ')}`);
  if (over.orderBy.length > 0) parts.push(`ORDER BY ${over.orderBy.map(printOrderItem).join(', ')}`);
  if (over.frame) {
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
