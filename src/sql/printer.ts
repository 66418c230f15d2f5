/**
 * The printer the engines share, after sqlglot's Generator: one walk over the translator's tree
 * (ir.ts) that prints what every engine spells alike (WITH, set operations, SELECT clauses,
 * joins, CASE, IN, windows), and asks its engine's subclass for the rest. A subclass
 * (src/warehouse/<engine>/sql-generator.ts) supplies quoting, type names, parameters, its
 * function table (sql-functions.ts), how it plans a FROM clause, and overrides any form it
 * writes its own way.
 */

import { andAll, conjunctsOf } from './analysis.ts';
import { type SqlType, type TableShape, UNKNOWN } from './catalog.ts';
import type { FunctionRenderings } from './emitters.ts';
import { TEMPORAL_OPERATOR_OF } from './functions/families/interval.ts';
import type { FunctionName } from './functions/index.ts';
import type * as ir from './ir.ts';
import { checkOutputLimits } from './output-limits.ts';
import { readTimeLiteral, TIME_TYPES, type TimeLiteral } from './time-literals.ts';
import { invalidSql } from './parse.ts';

export type ExprOf<Kind extends ir.Expr['kind']> = Extract<ir.Expr, { kind: Kind }>;
export type UnnestStep = Extract<ir.FromStep, { kind: 'unnest' }>;
export type JoinStep = Extract<ir.FromStep, { kind: 'join' }>;
export type UnnestRelation = Extract<ir.Relation, { kind: 'unnest' }>;

/** A SELECT's FROM clause as its engine planned it. */
export interface PlannedFrom {
  sql: string;
  /** The WHERE conjuncts the SELECT prints: the planner may have moved some into `sql`, or added ON conditions. */
  where: ir.Expr[];
  /** An unqualified `*` would expand UNNEST elements (struct fields), which is unknowable without the schema. */
  ambiguousStar: boolean;
  /** Columns the plan added to a range variable (by alias, lower case) that `alias.*` must not show. */
  hiddenColumns?: ReadonlyMap<string, readonly string[]>;
}

const COMPARISONS: ReadonlySet<ir.BinaryOperator> = new Set(['=', '!=', '<', '<=', '>', '>=']);
const TRUE: ir.Expr = { kind: 'bool', value: true };

export abstract class SqlPrinter {
  protected readonly quoteIdentifier: (name: string) => string;
  protected readonly quoteString: (value: string) => string;
  /** How the engine spells each allow-listed function. */
  protected abstract readonly functions: FunctionRenderings;
  /** The keyword of `* EXCEPT (columns)`. */
  protected readonly starExcept: string = 'EXCEPT';

  protected constructor(quoting: { identifier: (name: string) => string; string: (value: string) => string }) {
    this.quoteIdentifier = quoting.identifier;
    this.quoteString = quoting.string;
  }

  /** One statement of the engine's SQL for a validated query; `output` as SqlDialect.generate takes it. */
  print(query: ir.Query, output?: TableShape): string {
    const sql = this.query(query);
    const replaced = (output?.columns ?? []).flatMap((column) => {
      const name = this.quoteIdentifier(column.name);
      const value = this.outputValue(name, column.type);
      return value === undefined ? [] : [`${value} AS ${name}`];
    });
    if (replaced.length === 0) return sql;
    return `SELECT * REPLACE (${replaced.join(', ')}) FROM (${sql}) AS ${this.quoteIdentifier('__result')}`;
  }

  /** A CTE's name, in one spelling wherever it is written: BigQuery's names are not case-sensitive, ClickHouse's are. */
  private cteName(name: string): string {
    return this.quoteIdentifier(name.toLowerCase());
  }

  /**
   * How a result column of `type` goes out, where the engine's value is not already BigQuery's
   * reply: BYTES as base64 text, as BigQuery's REST API sends them (and a NULL ARRAY as an empty
   * one, in engines that have NULL arrays: printers override).
   */
  protected outputValue(column: string, type: SqlType): string | undefined {
    return type.kind === 'scalar' && type.name === 'BYTES' ? this.base64(column) : undefined;
  }

  /** The engine's base64 text of a BYTES value. */
  protected abstract base64(value: string): string;

  // ---- what every engine spells its own way -----------------------------------------------

  protected abstract type(type: ir.TypeName): string;
  /** The engine's placeholder for a bound `@name` parameter (never the value). */
  protected abstract param(name: string): string;
  /** Plans a SELECT's FROM clause: relations, joins and UNNESTs, and the WHERE left to print. */
  protected abstract from(select: ir.Select, from: ir.From): PlannedFrom;
  /** UNNEST as a FROM item: a table of the elements named by the alias (and of their offsets). */
  protected abstract unnestRelation(relation: UnnestRelation): string;
  /** `x IN UNNEST(list)` with BigQuery's three-valued result. */
  /** `structs`: the value's STRUCT type, when it is one. */
  protected abstract inUnnest(value: string, list: string, structs?: SqlType): string;
  /** EXTRACT(part FROM value), by the value's type (`from`, set by the analyzer). */
  protected abstract extract(expr: ExprOf<'extract'>): string;
  protected abstract interval(expr: ExprOf<'interval'>): string;
  protected abstract struct(expr: ExprOf<'struct'>): string;
  /** The functions that read a struct field by name and by 1-based position. */
  protected abstract readonly fieldFunctions: { byName: string; byPosition: string };
  /** BigQuery's OFFSET / ORDINAL / SAFE_ subscripts. */
  protected abstract subscript(expr: ExprOf<'subscript'>): string;
  protected abstract quantile(expr: ExprOf<'quantile'>): string;
  protected abstract quantiles(expr: ExprOf<'quantiles'>): string;
  /** ClickHouse SQL's `m['key']`: the value, or the value type's default when the key is absent. */
  protected abstract mapSubscript(expr: ExprOf<'map_subscript'>): string;

  // ---- queries ------------------------------------------------------------------------------

  protected query(query: ir.Query): string {
    const ctes = query.ctes.length > 0 ? [this.withClause(query.ctes)] : [];
    return [...ctes, ...this.queryBody(query)].join(' ');
  }

  private withClause(ctes: ir.Cte[]): string {
    const recursive = ctes.some((cte) => cte.recursive) ? 'RECURSIVE ' : '';
    return `WITH ${recursive}${ctes.map((cte) => `${this.cteName(cte.name)} AS (${this.cteQuery(cte)})`).join(', ')}`;
  }

  protected cteQuery(cte: ir.Cte): string {
    return this.query(cte.query);
  }

  /** Everything after WITH: the body, then its ORDER BY / LIMIT / OFFSET. */
  protected queryBody(query: ir.Query): string[] {
    return [this.setExpr(query.body), ...this.tail(query)];
  }

  protected tail(query: ir.Query): string[] {
    const tail: string[] = [];
    if (query.orderBy.length > 0) tail.push(`ORDER BY ${query.orderBy.map((item) => this.orderItem(item)).join(', ')}`);
    if (query.limit) tail.push(`LIMIT ${this.expr(query.limit)}`);
    if (query.offset) tail.push(`OFFSET ${this.expr(query.offset)}`);
    return tail;
  }

  protected setExpr(body: ir.SetExpr): string {
    switch (body.kind) {
      case 'select':
        return this.select(body.select);
      case 'nested':
        return `(${this.query(body.query)})`;
      case 'setop': {
        const operand = (side: ir.SetExpr) => (side.kind === 'setop' ? `(${this.setExpr(side)})` : this.setExpr(side));
        return `${operand(body.left)} ${this.setOperator(body.op, body.all)} ${operand(body.right)}`;
      }
    }
  }

  protected setOperator(op: 'union' | 'intersect' | 'except', all: boolean): string {
    return `${op.toUpperCase()}${all ? ' ALL' : ''}`;
  }

  private orderItem(item: ir.OrderItem): string {
    return `${this.expr(item.expr)} ${item.descending ? 'DESC' : 'ASC'} NULLS ${item.nullsFirst ? 'FIRST' : 'LAST'}`;
  }

  /**
   * One SELECT; with `owner`, also the ORDER BY / LIMIT / OFFSET of the query it is the body of.
   * FROM is planned first: the select list and WHERE read the plan (columns it hides, aliases
   * an engine reads differently once joined).
   */
  protected select(select: ir.Select, owner?: ir.Query): string {
    const from = select.from ? this.from(select, select.from) : undefined;
    const items = select.items.map((item) => this.selectItem(item, from));
    const parts = [`SELECT ${select.distinct ? 'DISTINCT ' : ''}${items.join(', ')}`];
    if (from) parts.push(`FROM ${from.sql}`);
    const where = andAll(from ? from.where : conjunctsOf(select.where));
    if (where) parts.push(`WHERE ${this.expr(where)}`);
    if (select.groupingSets) {
      // Keys as expressions, not positions: GROUPING(key) must find its key among them (ClickHouse).
      const keys = select.groupBy.map((expr) => {
        const item = expr.kind === 'position' ? select.items[expr.position - 1] : undefined;
        return this.expr(item?.kind === 'expr' ? item.expr : expr);
      });
      parts.push(`GROUP BY GROUPING SETS (${select.groupingSets.map((set) => `(${set.map((index) => keys[index]).join(', ')})`).join(', ')})`);
    } else if (select.groupBy.length > 0) parts.push(`GROUP BY ${select.groupBy.map((expr) => this.expr(expr)).join(', ')}`);
    if (select.having) parts.push(`HAVING ${this.expr(select.having)}`);
    if (select.qualify) parts.push(`QUALIFY ${this.expr(select.qualify)}`);
    if (owner) parts.push(...this.tail(owner));
    return parts.join(' ');
  }

  private selectItem(item: ir.SelectItem, from: PlannedFrom | undefined): string {
    if (item.kind === 'expr') return `${this.selectedValue(item.expr)} AS ${this.quoteIdentifier(item.alias)}`;
    // The analyzer writes these out where it knows the columns.
    if (item.expr || item.rename) throw invalidSql('this .* needs columns or fields that are not known here', item.at);
    if (item.qualifier === undefined && from?.ambiguousStar) {
      throw invalidSql('SELECT * with UNNEST in FROM is not supported; list the columns (or use alias.*)');
    }
    const hidden = item.qualifier !== undefined ? (from?.hiddenColumns?.get(item.qualifier.toLowerCase()) ?? []) : [];
    const excluded = [...hidden, ...item.except];
    const star = item.qualifier !== undefined ? `${this.quoteIdentifier(item.qualifier)}.*` : '*';
    const except = excluded.length > 0 ? ` ${this.starExcept} (${excluded.map(this.quoteIdentifier).join(', ')})` : '';
    const replace = item.replace?.length ? ` REPLACE (${item.replace.map(({ name, expr }) => `${this.selectedValue(expr)} AS ${this.quoteIdentifier(name)}`).join(', ')})` : '';
    return `${star}${except}${replace}`;
  }

  /** A value as it leaves a SELECT, where an engine may need to restore BigQuery's type. */
  protected selectedValue(expr: ir.Expr): string {
    return this.expr(expr);
  }

  // ---- FROM ----------------------------------------------------------------------------------

  protected relation(relation: ir.Relation): string {
    switch (relation.kind) {
      case 'source':
        // The warehouse hands the relation over as SQL already (a quoted or qualified name).
        return `${relation.relation} AS ${this.quoteIdentifier(relation.alias)}`;
      case 'cte':
        return `${this.cteName(relation.name)} AS ${this.quoteIdentifier(relation.alias)}`;
      case 'subquery':
        return `(${this.query(relation.query)})${relation.alias ? ` AS ${this.quoteIdentifier(relation.alias)}` : ''}`;
      case 'unnest':
        return this.unnestRelation(relation);
      case 'pivot':
      case 'unpivot':
        // The analyzer replaces them by the subqueries they stand for.
        throw invalidSql(`${relation.kind.toUpperCase()} needs the columns of its input, which are not known here`, relation.at);
    }
  }

  /** A JOIN of a relation, with its leading space. */
  protected join(step: JoinStep): string {
    const relation = this.relation(step.relation);
    if (step.type === 'cross') return ` CROSS JOIN ${relation}`;
    const join = ` ${this.joinType(step.type)} JOIN ${relation}`;
    if (step.using) return `${join} USING (${step.using.map(this.quoteIdentifier).join(', ')})`;
    return `${join} ON ${this.joinCondition(step.on)}`;
  }

  protected joinType(type: Exclude<JoinStep['type'], 'cross'>): string {
    return type.toUpperCase();
  }

  /** The ON condition; a join written without one joins on TRUE. */
  protected joinCondition(on: ir.Expr | undefined): string {
    return this.expr(on ?? TRUE);
  }

  // ---- expressions ---------------------------------------------------------------------------

  protected expr(expr: ir.Expr): string {
    switch (expr.kind) {
      case 'ref':
        return this.ref(expr.path);
      case 'number':
        return this.number(expr.text);
      case 'string':
        return this.quoteString(expr.value);
      case 'bool':
        return this.bool(expr.value);
      case 'null':
        return 'NULL';
      case 'typed_literal':
        // A BYTES literal's value is the hex of its bytes (lower.ts); both engines read it with unhex.
        if (expr.type === 'BYTES') return `unhex(${this.quoteString(expr.value)})`;
        if (TIME_TYPES.has(expr.type)) return this.timeLiteral(expr.type as TimeLiteral['type'], expr.value);
        return this.typedLiteral(expr.type, this.quoteString(expr.value));
      case 'param':
        return this.param(expr.name);
      case 'binary':
        return expr.temporal ? this.temporalOperator(TEMPORAL_OPERATOR_OF[expr.op as keyof typeof TEMPORAL_OPERATOR_OF], [expr.left, expr.right], expr.temporal) : this.binary(expr);
      case 'not':
        return `(NOT ${this.expr(expr.expr)})`;
      case 'negate':
        return expr.temporal ? this.temporalOperator('interval_negate', [expr.expr], expr.temporal) : `(- ${this.expr(expr.expr)})`;
      case 'is':
        return this.is(expr);
      case 'distinct_from':
        return this.distinctFrom(expr);
      case 'like':
        return `(${this.expr(expr.expr)} ${expr.negated ? 'NOT ' : ''}LIKE ${this.expr(expr.pattern)}${this.likeEscape(expr.pattern)})`;
      case 'between':
        return this.between(expr);
      case 'in_list':
        return this.inList(expr);
      case 'in_subquery':
        return `(${this.expr(expr.expr)} ${expr.negated ? 'NOT ' : ''}IN (${this.query(expr.query)}))`;
      case 'in_unnest': {
        const test = this.inUnnest(this.expr(expr.expr), this.expr(expr.array), expr.structs);
        return expr.negated ? `(NOT ${test})` : test;
      }
      case 'exists':
        return this.exists(expr.query, expr.negated);
      case 'subquery':
        return this.scalarSubquery(expr.query);
      case 'array_subquery':
        return this.arraySubquery(expr.query);
      case 'case':
        return this.caseExpr(expr);
      case 'cast':
        return this.cast(expr);
      case 'extract':
        return this.extract(expr);
      case 'interval':
        return this.interval(expr);
      case 'date_part':
        throw invalidSql(`date part ${expr.part.toUpperCase()} is only valid as a function argument`);
      case 'array':
        return `[${expr.elements.map((element) => this.expr(element)).join(', ')}]`;
      case 'struct':
        return this.struct(expr);
      case 'field':
        return `${this.fieldFunctions.byName}(${this.expr(expr.base)}, ${this.quoteString(expr.name)})`;
      case 'subscript':
        return this.subscript(expr);
      case 'map_subscript':
        return this.mapSubscript(expr);
      case 'field_at':
        return `${this.fieldFunctions.byPosition}(${this.expr(expr.base)}, ${expr.position + 1})`;
      case 'call':
        return this.call(expr);
      case 'quantile':
        return this.quantile(expr);
      case 'quantiles':
        return this.quantiles(expr);
      case 'position':
        return String(expr.position);
      case 'grouping':
        return this.groupingCall(this.expr(expr.expr));
    }
  }

  /** GROUPING(key), an INT64. */
  protected groupingCall(key: string): string {
    return `GROUPING(${key})`;
  }

  protected ref(path: string[]): string {
    return path.map(this.quoteIdentifier).join('.');
  }

  protected number(text: string): string {
    return text;
  }

  protected bool(value: boolean): string {
    return value ? 'TRUE' : 'FALSE';
  }

  /** `TIMESTAMP '…'` and the like, given the value already quoted. */
  protected typedLiteral(type: ir.ScalarTypeName, quoted: string): string {
    return `CAST(${quoted} AS ${this.type(type)})`;
  }

  /** A date or time literal, read here (time-literals.ts) so that each engine gets one canonical form. */
  protected timeLiteral(type: TimeLiteral['type'], text: string): string {
    const literal = readTimeLiteral(type, text);
    if (!literal) throw invalidSql(`Invalid ${type} literal: '${text}'`);
    return this.printTimeLiteral(literal);
  }

  protected abstract printTimeLiteral(literal: TimeLiteral): string;

  private binary(expr: ExprOf<'binary'>): string {
    const comparison = COMPARISONS.has(expr.op);
    const left = comparison ? this.comparand(expr.left, expr.right) : this.expr(expr.left);
    const right = comparison ? this.comparand(expr.right, expr.left) : this.expr(expr.right);
    return this.operator(expr.op, left, right, expr);
  }

  /**
   * One side of a comparison with `other` (printed as `otherSql` when at hand): the place where
   * an engine coerces a string to the other side's type, as BigQuery does.
   */
  protected comparand(side: ir.Expr, _other: ir.Expr, _otherSql?: string): string {
    return this.expr(side);
  }

  /** `source`: the operation printed, for what the analyzer noted on it (its `floating`). */
  protected operator(op: ir.BinaryOperator, left: string, right: string, _source?: ExprOf<'binary'>): string {
    return `(${left} ${op} ${right})`;
  }

  /** `x [NOT] IN (a, b …)`: TRUE if x equals an element, else NULL if x or an element is NULL, else FALSE. */
  protected inList(expr: ExprOf<'in_list'>): string {
    return `(${this.expr(expr.expr)} ${expr.negated ? 'NOT ' : ''}IN (${expr.list.map((item) => this.expr(item)).join(', ')}))`;
  }

  protected is(expr: ExprOf<'is'>): string {
    return `(${this.expr(expr.expr)} IS ${expr.negated ? 'NOT ' : ''}${expr.test.toUpperCase()})`;
  }

  protected distinctFrom(expr: ExprOf<'distinct_from'>): string {
    return `(${this.expr(expr.left)} IS ${expr.negated ? 'NOT ' : ''}DISTINCT FROM ${this.expr(expr.right)})`;
  }

  /** What follows a LIKE pattern: BigQuery escapes with backslash, an engine without that default says so. */
  protected likeEscape(_pattern: ir.Expr): string {
    return '';
  }

  private between(expr: ExprOf<'between'>): string {
    const value = this.expr(expr.expr);
    const bound = (side: ir.Expr) => this.comparand(side, expr.expr, value);
    return this.betweenOperator(expr, value, bound(expr.low), bound(expr.high));
  }

  /** NOT BETWEEN as the negation of BETWEEN, as BigQuery defines it (ClickHouse's NOT BETWEEN is FALSE for NaN, where BETWEEN is FALSE too). */
  protected betweenOperator(expr: ExprOf<'between'>, value: string, low: string, high: string): string {
    const test = `(${value} BETWEEN ${low} AND ${high})`;
    return expr.negated ? `(NOT ${test})` : test;
  }

  protected exists(query: ir.Query, negated: boolean): string {
    return `(${negated ? 'NOT ' : ''}EXISTS (${this.query(query)}))`;
  }

  protected scalarSubquery(query: ir.Query): string {
    return `(${this.query(query)})`;
  }

  protected arraySubquery(query: ir.Query): string {
    return `ARRAY(${this.query(query)})`;
  }

  protected caseExpr(expr: ExprOf<'case'>): string {
    const operand = expr.operand ? ` ${this.expr(expr.operand)}` : '';
    const whens = expr.whens.map((when) => ` WHEN ${this.expr(when.when)} THEN ${this.expr(when.then)}`).join('');
    const otherwise = expr.else ? ` ELSE ${this.expr(expr.else)}` : '';
    return `(CASE${operand}${whens}${otherwise} END)`;
  }

  /** An operator on dates, times or intervals, rendered as the catalog entry the analyzer resolved it to. */
  private temporalOperator(fn: FunctionName, args: ir.Expr[], resolved: ir.ResolvedCall): string {
    return this.call({ kind: 'call', fn, args, distinct: false, resolved });
  }

  protected cast(expr: ExprOf<'cast'>): string {
    return `${expr.safe ? 'TRY_CAST' : 'CAST'}(${this.expr(expr.expr)} AS ${this.type(expr.type)})`;
  }

  // ---- function calls and windows ------------------------------------------------------------

  private call(expr: ExprOf<'call'>): string {
    checkOutputLimits(expr.fn, expr.args);
    const rendering = this.functions[expr.fn];
    if (typeof rendering !== 'function') throw invalidSql(`${expr.fn.toUpperCase()} is not supported on ${this.engineName}: ${rendering.unsupported}`, expr.at);
    const printed = rendering({
      print: (node) => this.expr(node),
      args: expr.args.map((arg) => this.argument(arg)),
      raw: expr.args,
      distinct: expr.distinct ? 'DISTINCT ' : '',
      over: this.callWindow(expr),
      star: expr.star === true,
      orderBy: expr.orderBy?.length ? ` ORDER BY ${expr.orderBy.map((item) => this.orderItem(item)).join(', ')}` : '',
      orderKeys: (expr.orderBy ?? []).map((item, index) => ({
        sql: this.expr(item.expr),
        descending: item.descending,
        nullsFirst: item.nullsFirst,
        type: expr.resolved?.orderBy?.[index] ?? UNKNOWN,
      })),
      ...(expr.limit !== undefined ? { limit: expr.limit } : {}),
      ignoreNulls: expr.ignoreNulls === true,
      respectNulls: expr.ignoreNulls === false,
      safe: expr.safe === true,
      ...(expr.having ? { having: { max: expr.having.max, value: this.expr(expr.having.expr) } } : {}),
      named: Object.fromEntries((expr.named ?? []).map(({ name, value }) => [name, this.expr(value)])),
      rawNamed: Object.fromEntries((expr.named ?? []).map(({ name, value }) => [name, value])),
      ...(expr.at ? { at: expr.at } : {}),
      types: expr.resolved?.args ?? expr.args.map(() => UNKNOWN),
      result: expr.resolved?.result ?? UNKNOWN,
    });
    return expr.safe ? this.safeCall(printed, expr) : printed;
  }

  /**
   * `SAFE.fn(…)`: the call, NULL where it would raise an error. The renderings' own checks
   * already give NULL (CallParts.safe); an engine may catch its own errors besides.
   */
  protected safeCall(printed: string, _expr: ExprOf<'call'>): string {
    return printed;
  }

  protected abstract readonly engineName: string;

  /** Date-part keywords reach the emitters as quoted part names ('hour'); they read `raw` for more. */
  private argument(arg: ir.Expr): string {
    return arg.kind === 'date_part' ? this.quoteString(arg.part) : this.expr(arg);
  }

  /** The OVER clause of a function call. */
  protected callWindow(expr: ExprOf<'call'>): string {
    return this.over(expr.over);
  }

  /** ` OVER (…)`, or '' without a window; `wholePartition` replaces the frame with the whole partition. */
  protected over(over: ir.WindowSpec | undefined, wholePartition = false): string {
    if (!over) return '';
    const parts: string[] = [];
    if (over.partitionBy.length > 0) parts.push(`PARTITION BY ${over.partitionBy.map((expr) => this.expr(expr)).join(', ')}`);
    if (over.orderBy.length > 0) parts.push(`ORDER BY ${over.orderBy.map((item) => this.orderItem(item)).join(', ')}`);
    if (wholePartition) parts.push('ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING');
    else if (over.frame) parts.push(this.frame(over.frame));
    return ` OVER (${parts.join(' ')})`;
  }

  private frame({ units, start, end }: NonNullable<ir.WindowSpec['frame']>): string {
    const bounds = end ? `BETWEEN ${this.frameBound(start)} AND ${this.frameBound(end)}` : this.frameBound(start);
    return `${units.toUpperCase()} ${bounds}`;
  }

  private frameBound(bound: ir.FrameBound): string {
    switch (bound.kind) {
      case 'unbounded_preceding':
        return 'UNBOUNDED PRECEDING';
      case 'unbounded_following':
        return 'UNBOUNDED FOLLOWING';
      case 'current_row':
        return 'CURRENT ROW';
      case 'preceding':
        return `${this.expr(bound.offset)} PRECEDING`;
      case 'following':
        return `${this.expr(bound.offset)} FOLLOWING`;
    }
  }
}

/**
 * Whether BigQuery's unqualified `*` over this FROM would expand UNNEST elements, whose struct
 * fields only the schema knows. Generated series are plain values and expand to one column.
 */
export function starExpandsUnnestElements(from: ir.From): boolean {
  const unnests = [...(from.base.kind === 'unnest' ? [from.base] : []), ...from.steps.flatMap((step) => (step.kind === 'unnest' ? [step] : []))];
  // An anonymous UNNEST's columns are its elements' fields, which `*` expands as BigQuery does.
  const arrays = unnests.filter((unnest) => !unnest.anonymous).map((unnest) => unnest.array);
  return !arrays.every((array) => array.kind === 'call' && (array.fn === 'generate_array' || array.fn === 'generate_timestamp_array'));
}

/**
 * A struct field's name in the engine: an anonymous field (`STRUCT(1, 2)`, `(1, 2)`) is named as
 * BigQuery names it in JSON results, `_field_1`, `_field_2`…, by its 1-based position.
 */
export function structFieldName(name: string | undefined, index: number): string {
  return name ?? `_field_${index + 1}`;
}

/**
 * Whether printed SQL is a number literal other than 0 (`1000`, `1.5`, `CAST(1.5 AS DOUBLE)` as
 * the engines print numbers): a divisor that needs no division-by-zero check.
 */
export function isNonZeroNumber(sql: string): boolean {
  const value = printedNumber(sql);
  return value !== undefined && value !== 0;
}

/** The value of a number literal as the printers print it (`12`, `CAST(1.5 AS DOUBLE)`), or undefined. */
export function printedNumber(sql: string): number | undefined {
  const literal = /^(?:CAST\()?(\d+(?:\.\d*)?(?:[eE][+-]?\d+)?)(?: AS DOUBLE\))?$/.exec(sql);
  return literal === null ? undefined : Number(literal[1]);
}
