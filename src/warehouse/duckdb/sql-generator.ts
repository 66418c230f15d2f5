/**
 * DuckDB's part of the printer (src/sql/printer.ts prints what the engines share).
 *
 * Type mapping: BigQuery TIMESTAMP is TIMESTAMPTZ (the session runs with TimeZone=UTC), DATETIME
 * is TIMESTAMP. Parameters are DuckDB named parameters (`$name`) bound as strings or NULL.
 *
 * FROM t CROSS JOIN UNNEST(…) chains become chained select-list `unnest()` subqueries with each
 * WHERE conjunct evaluated at the shallowest level that has its names: DuckDB plans the literal
 * FROM-clause form as a delim join that cannot prune by timestamp (engines.md §2.2).
 */

import { andAll, assignConjunctsToLevels, childrenOf, conjunctsOf, itemExpressions } from '../../sql/analysis.ts';
import type { SqlDialect } from '../../sql/dialect.ts';
import type { SqlType } from '../../sql/catalog.ts';
import type { TimeLiteral } from '../../sql/time-literals.ts';
import type * as ir from '../../sql/ir.ts';
import { invalidSql } from '../../sql/parse.ts';
import { quantilePosition } from '../../sql/quantile-rank.ts';
import { type ExprOf, type PlannedFrom, SqlPrinter, printedNumber, starExpandsUnnestElements, structFieldName, type UnnestRelation, type UnnestStep } from '../../sql/printer.ts';
import { extractPart } from './functions/calendar.ts';
import { castSql } from './functions/casts.ts';
import { DUCKDB_FUNCTIONS, isTimestampTz, sourceTimestampRefs } from './functions/index.ts';
import { intervalText } from './functions/interval.ts';

export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

export function quoteString(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

/**
 * Marks the refs of this SELECT (not of its subqueries) that read a source's fixed `timestamp`
 * column, TIMESTAMPTZ in every segment (layout.ts), so that functions of it can be printed as
 * plain arithmetic on epoch microseconds instead of ICU calendar calls (functions/time.ts):
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
  for (const item of select.items) itemExpressions(item).forEach(mark);
  for (const expr of [select.where, select.having, select.qualify, ...select.groupBy, ...extra]) if (expr) mark(expr);
  for (const step of from.steps) {
    if (step.kind === 'unnest') {
      mark(step.array);
      if (step.condition) mark(step.condition);
    } else if (step.on) mark(step.on);
  }
}

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
  INTERVAL: 'INTERVAL',
};

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

class DuckDbPrinter extends SqlPrinter {
  protected override readonly functions = DUCKDB_FUNCTIONS;
  protected override readonly fieldFunctions = { byName: 'struct_extract', byPosition: 'struct_extract_at' };
  protected override readonly starExcept = 'EXCLUDE';
  protected override readonly engineName = 'DuckDB';

  protected override safeCall(printed: string): string {
    return `try(${printed})`;
  }

  /**
   * Quantiles of one value in one SELECT (p95 and p99 of execution_time_ms): each
   * `quantile_disc(x, f)` keeps its own copy of the values, while `quantile_disc(x, [f1, f2])[k]`
   * with the same list everywhere is one aggregate DuckDB computes once (same values;
   * functions.invocation-stats at 10M events: 98 → 90 ms). Aggregates only: windowed ones keep their own.
   */
  private readonly sharedQuantiles = new WeakMap<ir.Expr, { fractions: number[]; index: number }>();

  constructor() {
    super({ identifier: quoteIdentifier, string: quoteString });
  }

  protected override query(query: ir.Query): string {
    // ORDER BY of a plain SELECT reads that SELECT's FROM.
    if (query.body.kind === 'select') markSourceTimestamps(query.body.select, query.orderBy.map((item) => item.expr));
    return super.query(query);
  }

  protected override select(select: ir.Select): string {
    markSourceTimestamps(select, []);
    this.shareQuantileSketches(select);
    return super.select(select);
  }

  private shareQuantileSketches(select: ir.Select): void {
    const byValue = new Map<string, Array<ExprOf<'quantile'>>>();
    const collect = (expr: ir.Expr): void => {
      if (expr.kind === 'quantile' && !expr.over && !expr.distinct && !expr.respectNulls) {
        const key = this.expr(expr.expr);
        byValue.set(key, [...(byValue.get(key) ?? []), expr]);
        return;
      }
      childrenOf(expr).forEach(collect);
    };
    for (const item of select.items) itemExpressions(item).forEach(collect);
    if (select.having) collect(select.having);
    for (const nodes of byValue.values()) {
      const fractions = [...new Set(nodes.map((node) => node.fraction))].sort((a, b) => a - b);
      if (fractions.length < 2) continue;
      for (const node of nodes) this.sharedQuantiles.set(node, { fractions, index: fractions.indexOf(node.fraction) + 1 });
    }
  }

  // ---- FROM: unnest chains -------------------------------------------------------------------

  protected override from(select: ir.Select, from: ir.From): PlannedFrom {
    const where = conjunctsOf(select.where);
    const chain: UnnestStep[] = [];
    for (const step of from.steps) {
      if (step.kind !== 'unnest') break;
      chain.push(step);
    }
    const baseAlias = from.base.alias;
    if (chain.length === 0 || from.base.kind === 'unnest' || baseAlias === undefined) {
      return { sql: this.relation(from.base) + from.steps.map((step) => this.step(step)).join(''), where, ambiguousStar: starExpandsUnnestElements(from) };
    }
    return this.unnestChain(from, baseAlias, chain, where);
  }

  private unnestChain(from: ir.From, baseAlias: string, chain: UnnestStep[], where: ir.Expr[]): PlannedFrom {
    const rest = from.steps.slice(chain.length);
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
    let sql = this.relation(from.base);
    chain.forEach((step, index) => {
      const source = index === 0 ? sql : `(${sql}) AS ${alias}`;
      const filter = andAll(perLevel[index] ?? []);
      sql = `SELECT ${alias}.*, ${this.unnestColumns(step)} FROM ${source}${filter ? ` WHERE ${this.expr(filter)}` : ''}`;
    });
    const added = chain.flatMap((step) => [step.alias, ...(step.offsetAlias ? [step.offsetAlias] : [])]);
    const restSql = rest.map((step) => this.step(step)).join('');
    return {
      sql: `(${sql}) AS ${alias}${restSql}`,
      where: [...lastLevel, ...outerWhere],
      ambiguousStar: starExpandsUnnestElements(from),
      hiddenColumns: new Map([[baseAlias.toLowerCase(), added]]),
    };
  }

  /** The select-list unnest of one chain level (and its 0-based offset when asked for). */
  private unnestColumns(step: UnnestStep): string {
    const array = this.expr(step.array);
    // Select-list unnest drops rows whose list is empty or NULL (CROSS JOIN semantics); LEFT JOIN
    // keeps them with one NULL element.
    const source = step.keepEmpty ? keepEmpty(array) : array;
    // A step without alias is named too: the analyzer reads its fields through the made-up name.
    const element = `unnest(${source}) AS ${quoteIdentifier(step.alias)}`;
    if (!step.offsetAlias) return element;
    return `${element}, ${offsetsOf(array, step.keepEmpty)} AS ${quoteIdentifier(step.offsetAlias)}`;
  }

  private step(step: ir.FromStep): string {
    if (step.kind === 'join') return this.join(step);
    const list = this.expr(step.array);
    const array = step.keepEmpty ? keepEmpty(list) : list;
    const relation = unnestItem(array, step.alias, step.offsetAlias, offsetsOf(list, step.keepEmpty));
    const condition = step.condition ? this.expr(step.condition) : 'TRUE';
    return ` ${step.condition ? 'INNER' : 'CROSS'} JOIN ${relation}${step.condition ? ` ON ${condition}` : ''}`;
  }

  protected override unnestRelation(relation: UnnestRelation): string {
    const array = this.expr(relation.array);
    return relation.anonymous ? anonymousUnnestItem(array, relation.alias, relation.offsetAlias, relation.valueColumn) : unnestItem(array, relation.alias, relation.offsetAlias);
  }

  // ---- expressions ---------------------------------------------------------------------------

  protected override type(type: ir.TypeName): string {
    if (typeof type === 'string') return TYPE_NAMES[type];
    if ('array' in type) return `${this.type(type.array)}[]`;
    return `STRUCT(${type.struct.map((field, index) => `${quoteIdentifier(structFieldName(field.name, index))} ${this.type(field.type)}`).join(', ')})`;
  }

  protected override base64(value: string): string {
    return `base64(${value})`;
  }

  /**
   * BigQuery's query results turn a NULL ARRAY into an empty one (inside a query the two differ),
   * write an INTERVAL as its canonical text (`1-2 3 4:5:6`) and a TIME as `HH:MM:SS[.ffffff]`.
   */
  protected override outputValue(column: string, type: SqlType): string | undefined {
    if (type.kind === 'array') return `coalesce(${column}, [])`;
    if (type.kind === 'scalar' && type.name === 'INTERVAL') return intervalText(column);
    // A TIME's fraction with six digits when it has one, as DATETIME's (DuckDB trims its zeros).
    if (type.kind === 'scalar' && type.name === 'TIME') return `CASE WHEN microsecond(${column}) % 1000000 = 0 THEN strftime(DATE '1970-01-01' + ${column}, '%H:%M:%S') ELSE strftime(DATE '1970-01-01' + ${column}, '%H:%M:%S.%f') END`;
    return super.outputValue(column, type);
  }

  protected override cast(expr: ExprOf<'cast'>): string {
    // Text and bytes convert as UTF-8 (DuckDB's VARCHAR -> BLOB cast reads escapes, and refuses non-ASCII).
    if (expr.type === 'BYTES' && expr.from === 'STRING' && !expr.format) return `encode(${this.expr(expr.expr)})`;
    if (expr.type === 'STRING' && expr.from === 'BYTES' && !expr.format) return `decode(${this.expr(expr.expr)})`;
    // BigQuery rounds a FLOAT64 half away from zero (as round() does); DuckDB's cast rounds half to even.
    if (expr.type === 'INT64' && expr.from === 'FLOAT64') return `${expr.safe ? 'TRY_CAST' : 'CAST'}(round(${this.expr(expr.expr)}) AS ${this.type('INT64')})`;
    // Date and time text, INTERVAL text, hexadecimal INT64 text, FORMAT: BigQuery's rules (functions/casts.ts).
    const from = expr.from ?? (expr.type === 'STRING' && isTimestampTz(expr.expr) ? 'TIMESTAMP' : undefined);
    const special = castSql({ ...expr, ...(from ? { from } : {}) }, { value: this.expr(expr.expr), printTimeLiteral: (literal) => this.printTimeLiteral(literal) });
    return special ?? super.cast(expr);
  }

  protected override printTimeLiteral(literal: TimeLiteral): string {
    if (literal.type !== 'TIMESTAMP') return `${TYPE_NAMES[literal.type]} ${quoteString(literal.text)}`;
    if ('utc' in literal) return `CAST(${quoteString(`${literal.utc}+00`)} AS TIMESTAMPTZ)`;
    return `timezone(${quoteString(literal.zone)}, TIMESTAMP ${quoteString(literal.wall)})`;
  }

  protected override param(name: string): string {
    return `$${name}`;
  }

  protected override number(text: string): string {
    // BigQuery reads 1.5 as FLOAT64; DuckDB would read DECIMAL(2,1).
    return /^\d+$/.test(text) ? text : `CAST(${text} AS DOUBLE)`;
  }

  protected override operator(op: ir.BinaryOperator, left: string, right: string, source?: ExprOf<'binary'>): string {
    if (source?.structs && (op === '=' || op === '!=')) {
      const equal = structEquality(left, right, source.structs);
      return op === '=' ? equal : `(NOT ${equal})`;
    }
    if (op === '!=') return `(${left} <> ${right})`;
    if (op === '/') return division(left, right, source?.floating === true);
    // `^` is exponentiation in DuckDB, bitwise xor in BigQuery.
    if (op === '^') return `xor(${left}, ${right})`;
    return super.operator(op, left, right);
  }

  /**
   * BETWEEN over FLOAT64 values, where NaN may take part: two comparisons as BigQuery makes them.
   * Bounds written as numbers cannot be NaN, so then only the value is tested, and DuckDB keeps a
   * plain BETWEEN it can push into a scan.
   */
  protected override betweenOperator(expr: ExprOf<'between'>, value: string, low: string, high: string): string {
    if (!expr.floating) return super.betweenOperator(expr, value, low, high);
    const test =
      printedNumber(low) !== undefined && printedNumber(high) !== undefined
        ? `(${value} BETWEEN ${low} AND ${high} AND NOT isnan(${value}))`
        : `(${floatComparison('>=', value, low)} AND ${floatComparison('<=', value, high)})`;
    return expr.negated ? `(NOT ${test})` : test;
  }

  protected override likeEscape(pattern: ir.Expr): string {
    // BigQuery LIKE treats backslash as the escape character; DuckDB has none by default. A
    // literal pattern without one needs no ESCAPE, and plain LIKE is what DuckDB's optimizer
    // turns into contains/prefix/suffix (LIKE … ESCAPE runs a generic matcher per row).
    const literal = pattern.kind === 'string' && !pattern.value.includes('\\');
    return literal ? '' : " ESCAPE '\\'";
  }

  /**
   * FALSE for an empty or NULL list, NULL when x is NULL or when x is absent from a list holding
   * NULLs. (DuckDB's own `x IN unnest(l)` expands to one row per element; list_contains alone
   * ignores NULL elements.)
   */
  protected override inUnnest(value: string, list: string, structs?: SqlType): string {
    if (structs) {
      // Each element compared as `=` compares structs: TRUE if one is equal, else NULL if one comparison is.
      const tests = `list_transform(${list}, __e -> ${structEquality(value, '__e', structs)})`;
      return (
        `(CASE WHEN len(coalesce(${list}, [])) = 0 THEN FALSE WHEN ${value} IS NULL THEN NULL` +
        ` WHEN list_contains(${tests}, TRUE) THEN TRUE WHEN list_count(${tests}) < len(${list}) THEN NULL ELSE FALSE END)`
      );
    }
    return (
      `(CASE WHEN len(coalesce(${list}, [])) = 0 THEN FALSE WHEN ${value} IS NULL THEN NULL` +
      ` WHEN list_contains(${list}, ${value}) THEN TRUE WHEN list_count(${list}) < len(${list}) THEN NULL ELSE FALSE END)`
    );
  }

  protected override struct(expr: ExprOf<'struct'>): string {
    return `{${expr.fields.map((field, index) => `${quoteString(structFieldName(field.name, index))}: ${this.expr(field.value)}`).join(', ')}}`;
  }

  protected override extract(expr: ExprOf<'extract'>): string {
    return extractPart(this.expr(expr.expr), expr.from, expr.part, expr.weekStart);
  }

  protected override interval(expr: ExprOf<'interval'>): string {
    const count = `CAST(${this.expr(expr.value)} AS BIGINT)`;
    if (expr.unit === 'quarter') return `to_months(${count} * 3)`;
    const fn = INTERVAL_FUNCTIONS[expr.unit];
    if (!fn) throw invalidSql(`INTERVAL unit ${expr.unit.toUpperCase()} is not supported`);
    return `${fn}(${count})`;
  }

  /**
   * OFFSET is 0-based, ORDINAL 1-based, and both raise an error out of range; the SAFE_ forms
   * return NULL. DuckDB lists are 1-based, return NULL out of range and count negative indexes
   * from the end, so every form is guarded.
   */
  protected override subscript(expr: ExprOf<'subscript'>): string {
    const list = this.expr(expr.base);
    const index = `CAST(${this.expr(expr.index)} AS BIGINT)`;
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

  /**
   * APPROX_QUANTILES as exact quantiles, values of the input as in BigQuery: an exact answer is
   * within any approximation's bounds. DuckDB's approx_quantile keeps a t-digest of about 21 kB per
   * group however few values the group has, outside the memory limit: grouping 10M events by
   * path (31,573 groups) took RSS up by 675 MB and 340 ms, quantile_disc by 104 MB and 91 ms.
   * quantile_disc costs 8 bytes a value instead (80 MB for a quantile over 10M values).
   */
  protected override quantile(expr: ExprOf<'quantile'>): string {
    if (expr.respectNulls) return `${this.sortedWithNulls(expr)}[${this.nullsPosition(expr, expr.fraction)}]`;
    const shared = this.sharedQuantiles.get(expr);
    if (shared) return `quantile_disc(${this.expr(expr.expr)}, [${shared.fractions.join(', ')}])[${shared.index}]`;
    return `quantile_disc(${expr.distinct ? 'DISTINCT ' : ''}${this.expr(expr.expr)}, ${expr.fraction})${this.over(expr.over)}`;
  }

  /** RESPECT NULLS: the values NULLs first, sorted, from which the quantiles are picked (quantile_disc skips NULLs). */
  private sortedWithNulls(expr: ExprOf<'quantile'> | ExprOf<'quantiles'>): string {
    return `list_sort(list(${expr.distinct ? 'DISTINCT ' : ''}${this.expr(expr.expr)})${this.over(expr.over)}, 'ASC', 'NULLS FIRST')`;
  }

  private nullsPosition(expr: ExprOf<'quantile'> | ExprOf<'quantiles'>, fraction: number): string {
    return `CAST(${quantilePosition(`len(${this.sortedWithNulls(expr)})`, fraction, (a, b) => `((${a}) // ${b})`)} AS BIGINT)`;
  }

  /** DuckDB's map subscript gives NULL for an absent key; ClickHouse gives the value type's default. */
  protected override mapSubscript(expr: ExprOf<'map_subscript'>): string {
    const value = `${this.expr(expr.base)}[${this.expr(expr.key)}]`;
    const fallback = expr.valueType === 'STRING' ? "''" : expr.valueType === 'INT64' || expr.valueType === 'FLOAT64' ? '0' : undefined;
    return fallback === undefined ? value : `coalesce(${value}, ${fallback})`;
  }

  protected override quantiles(expr: ExprOf<'quantiles'>): string {
    // BigQuery returns n+1 boundaries, minimum and maximum included. DuckDB needs the list of
    // fractions as a constant.
    const fractions = Array.from({ length: expr.buckets + 1 }, (_, index) => index / expr.buckets);
    if (expr.respectNulls) {
      const list = this.sortedWithNulls(expr);
      return `(CASE WHEN len(${list}) = 0 THEN NULL ELSE [${fractions.map((fraction) => `${list}[${this.nullsPosition(expr, fraction)}]`).join(', ')}] END)`;
    }
    return `quantile_disc(${expr.distinct ? 'DISTINCT ' : ''}${this.expr(expr.expr)}, [${fractions.join(', ')}])${this.over(expr.over)}`;
  }

}

/**
 * UNNEST as a FROM item. The alias names a column, not a table, so `m.field` reads a field of
 * the element as in BigQuery (`unnest(x) AS m` would make `m` a table without that column).
 */
/**
 * BigQuery's division by zero is an error (SAFE_DIVIDE is the NULL form); DuckDB gives ±Infinity or
 * NaN. So is a FLOAT64 quotient of finite values beyond FLOAT64's range, which DuckDB makes
 * infinite. A divisor written as a number other than 0 needs no zero check, one of at least 1 no
 * overflow check either.
 */
function division(left: string, right: string, floating: boolean): string {
  const divisor = printedNumber(right);
  const checks: string[] = [];
  if (divisor === undefined || divisor === 0) checks.push(`WHEN ${right} = 0 AND ${left} IS NOT NULL THEN error('division by zero: ' || ${left} || ' / ' || ${right})`);
  if (floating && !(divisor !== undefined && Math.abs(divisor) >= 1)) {
    checks.push(`WHEN isinf(${left} / ${right}) AND isfinite(${left}) THEN error('double overflow: ' || ${left} || ' / ' || ${right})`);
  }
  return checks.length === 0 ? `(${left} / ${right})` : `(CASE ${checks.join(' ')} ELSE ${left} / ${right} END)`;
}

/**
 * Two STRUCTs of type `type` compared as BigQuery does: field by field, by position (DuckDB
 * matches fields by name, and finds a NULL field equal to a NULL field), so a NULL field makes the
 * comparison NULL unless another field differs.
 */
function structEquality(left: string, right: string, type: SqlType): string {
  if (type.kind !== 'struct') return `(${left} = ${right})`;
  if (type.fields.length === 0) return `(${left} IS NOT NULL AND ${right} IS NOT NULL OR NULL)`;
  const fields = type.fields.map((field, index) => structEquality(`struct_extract_at(${left}, ${index + 1})`, `struct_extract_at(${right}, ${index + 1})`, field.type));
  return `(${fields.join(' AND ')})`;
}

/**
 * A FLOAT64 comparison as BigQuery makes it: NULL when a side is NULL, else FALSE when a side is
 * NaN (BigQuery orders NaN with nothing; DuckDB orders it above every number).
 */
function floatComparison(op: '<=' | '>=', left: string, right: string): string {
  return `(CASE WHEN ${left} IS NULL OR ${right} IS NULL THEN NULL WHEN isnan(${left}) OR isnan(${right}) THEN FALSE ELSE ${left} ${op} ${right} END)`;
}

function unnestItem(array: string, alias: string, offsetAlias: string | undefined, offsets = offsetsOf(array, false)): string {
  const hidden = quoteIdentifier(`_unnest_${alias}`);
  if (!offsetAlias) return `unnest(${array}) AS ${hidden}(${quoteIdentifier(alias)})`;
  return `(SELECT unnest(${array}) AS ${quoteIdentifier(alias)}, ${offsets} AS ${quoteIdentifier(offsetAlias)}) AS ${hidden}`;
}

/** A list's 0-based offsets beside its unnested elements; NULL for the element LEFT JOIN UNNEST makes up for an empty or NULL list. */
function offsetsOf(list: string, keptEmpty: boolean): string {
  return keptEmpty ? `unnest(${keepEmpty(`range(len(${list}))`)})` : `generate_subscripts(${list}, 1) - 1`;
}

/**
 * UNNEST without an alias as a FROM item: a struct element's fields become columns (DuckDB's
 * unnest with max_depth 2 expands the struct, and stops there), a plain element one column
 * named `valueColumn`.
 */
function anonymousUnnestItem(array: string, alias: string, offsetAlias: string | undefined, valueColumn?: string): string {
  const offset = offsetAlias ? `, generate_subscripts(${array}, 1) - 1 AS ${quoteIdentifier(offsetAlias)}` : '';
  const elements = valueColumn ? `unnest(${array}) AS ${quoteIdentifier(valueColumn)}` : `unnest(${array}, max_depth := 2)`;
  return `(SELECT ${elements}${offset}) AS ${quoteIdentifier(alias)}`;
}

const printer = new DuckDbPrinter();

/**
 * A list, or [NULL] when it is empty or NULL: what LEFT JOIN UNNEST unnests. Tested by length,
 * not by comparing with [] (`nullif(list, [])`): a comparison reads every field of every element,
 * a length none, so unnesting still reads only the struct fields the query names (one field of an
 * edge log's metadata, 200k events: 500 ms → 160 ms).
 */
function keepEmpty(list: string): string {
  return `(CASE WHEN len(${list}) > 0 THEN ${list} ELSE [NULL] END)`;
}

export const duckdbDialect: SqlDialect = {
  name: 'duckdb',
  generate: (query, output) => printer.print(query, output),
};
