/**
 * Lowering ClickHouse SQL into the translator's tree (ir.ts). The clauses ClickHouse SQL shares
 * with BigQuery SQL (WITH, SELECT, FROM, JOIN, WHERE, GROUP BY, ORDER BY, LIMIT) come from the
 * BigQuery lowering; what differs is here:
 *
 * - query parameters: `{name:Type}` (the bound string cast to Type) and `@name`;
 * - ClickHouse's functions, case-sensitive names and semantics (functions.ts);
 * - aliases: a SELECT-list alias may be used anywhere in its SELECT (WHERE, other items, GROUP BY,
 *   ORDER BY, LIMIT BY) and wins over a column of the same name, as ClickHouse resolves them;
 * - `arrayJoin(a)` in a SELECT: one row per element (an UNNEST step of its FROM);
 * - `arr[i]` counts from 1, `m['key']` reads a Map (a map_subscript node), `LIMIT n BY x`
 *   (a ROW_NUMBER() filter in QUALIFY), PREWHERE (a condition like WHERE);
 * - comparisons and other conditions are UInt8 numbers in ClickHouse: where one is selected or
 *   added up it is 1 or 0, not a BOOL.
 */

import type { AccessSubscript, AstExpr, AstFunction, AstJoin, AstQuery, AstSelect, AstSetExpr, AstValue, ExprVariants, Position, TableFactorVariants } from '../ast.ts';
import { positionOf, variantOf } from '../ast.ts';
import type * as ir from '../ir.ts';
import { Lowering, type LowerOptions, type Scope } from '../lower.ts';
import { parameterName } from '../parameters.ts';
import { invalidSql } from '../parse.ts';
import { subExpressions } from '../unnest-chains.ts';
import { isBooleanShaped } from '../analysis.ts';
import { become, callOf, intervalArithmetic, lowerClickHouseCall, numeric, parameterCast, type CallLowering, type TypeOf } from './functions.ts';
import { positionKey, type OuterLimits, type TypedParameter } from './parse.ts';

const ARITHMETIC: ReadonlySet<string> = new Set(['+', '-', '*', '/', '%']);

export class ClickHouseLowering extends Lowering {
  /** Rewrites that need the analyzer's types, run after analysis (clickhouse/index.ts). */
  readonly afterAnalysis: Array<(typeOf: TypeOf) => void> = [];
  private arrayJoinCount = 0;
  /** arrayJoin calls (their placeholder ref's name → the array) not yet given an UNNEST. */
  private readonly pendingArrayJoins = new Map<string, ir.Expr>();

  constructor(
    options: LowerOptions,
    private readonly typedParameters: ReadonlyMap<string, TypedParameter>,
    /** The statement's own query, and the LIMITs parse.ts kept for it. */
    private readonly outermost?: { ast: AstQuery; limits: OuterLimits },
  ) {
    super(options);
  }

  // ---- queries -------------------------------------------------------------------------------

  override query(ast: AstQuery, outer: Scope): ir.Query {
    const limits = ast === this.outermost?.ast ? this.outermost.limits : {};
    const query = this.queryOf(ast, outer, limits.byOffset);
    if (limits.limit !== undefined) {
      query.limit = number(limits.limit);
      if (limits.offset !== undefined) query.offset = number(limits.offset);
    }
    return query;
  }

  private queryOf(ast: AstQuery, outer: Scope, byOffset: number | undefined): ir.Query {
    const written = limitByOf(ast);
    const limitBy = written && byOffset !== undefined ? { ...written, offset: { Value: { value: { Number: [String(byOffset), false] } } } as AstExpr } : written;
    const query = super.query(limitBy ? { ...ast, limit_clause: undefined } as AstQuery : ast, outer);
    if (query.body.kind === 'select') {
      const { select } = query.body;
      substituteAliases(select.items, query.orderBy.map((item) => item.expr));
      if (limitBy) this.limitBy(query, select, limitBy, this.scopeOfSelect(ast, outer));
    } else if (limitBy) {
      throw invalidSql('LIMIT … BY is supported on a plain SELECT (not a UNION)', positionOf(limitBy.exprs));
    }
    return query;
  }

  /** Refuses an arrayJoin no SELECT could place (written in ORDER BY or a join condition). */
  checkComplete(): void {
    if (this.pendingArrayJoins.size > 0) throw invalidSql('arrayJoin is supported in a SELECT list, WHERE, GROUP BY and HAVING');
  }

  /**
   * `LIMIT n [OFFSET m] BY exprs`: the first n rows (after m) of each group of `exprs`, in the
   * query's ORDER BY order: ROW_NUMBER() over that order, per group, filtered in QUALIFY.
   */
  private limitBy(query: ir.Query, select: ir.Select, limitBy: LimitBy, scope: Scope): void {
    const count = integerLiteralOf(limitBy.limit);
    const skip = limitBy.offset ? integerLiteralOf(limitBy.offset) : 0;
    if (count === undefined || skip === undefined) throw invalidSql('LIMIT … BY takes integer literals', positionOf(limitBy.exprs));
    const positioned = (expr: ir.Expr): ir.Expr => {
      if (expr.kind !== 'position') return expr;
      const item = select.items[expr.position - 1];
      if (item?.kind !== 'expr') throw invalidSql('LIMIT … BY and ORDER BY positions must name select-list expressions');
      return structuredClone(item.expr);
    };
    const partitionBy = limitBy.exprs.map((ast) => positioned(this.aliasOrExpr(ast, scope, select.items)));
    const orderBy = query.orderBy.map((item) => ({ ...item, expr: positioned(structuredClone(item.expr)) }));
    substituteAliases(select.items, [...partitionBy, ...orderBy.map((item) => item.expr)]);
    const rowNumber: ir.Expr = { kind: 'call', fn: 'row_number', args: [], distinct: false, over: { partitionBy, orderBy } };
    const upTo: ir.Expr = { kind: 'binary', op: '<=', left: rowNumber, right: number(skip + count) };
    const kept: ir.Expr = skip > 0 ? { kind: 'binary', op: 'AND', left: { kind: 'binary', op: '>', left: structuredClone(rowNumber), right: number(skip) }, right: upTo } : upTo;
    select.qualify = select.qualify ? { kind: 'binary', op: 'AND', left: select.qualify, right: kept } : kept;
  }

  /**
   * `ARRAY JOIN arr [AS x]`: one row per element of the array column, rows with an empty array
   * dropped; `LEFT ARRAY JOIN` keeps them (with NULL, where ClickHouse gives the element type's
   * default). Without an alias the column's name means the element from there on.
   */
  protected override joinStep(join: AstJoin, scope: Scope): ir.FromStep {
    const operator = join.join_operator as unknown;
    if (operator !== 'ArrayJoin' && operator !== 'LeftArrayJoin') return super.joinStep(join, scope);
    const table = 'Table' in join.relation ? (join.relation.Table as TableFactorVariants['Table']) : undefined;
    if (!table || table.args !== undefined) {
      throw invalidSql('ARRAY JOIN takes an array column (arrayJoin(…) in the SELECT list takes any array)', positionOf(join.relation));
    }
    const path = table.name.map((part) => part.Identifier.value);
    const alias = table.alias?.name.value ?? path[path.length - 1]!;
    scope.rangeVariables.add(alias.toLowerCase());
    return { kind: 'unnest', array: { kind: 'ref', path }, alias, keepEmpty: operator === 'LeftArrayJoin' };
  }

  /** A bare UNION needs ALL or DISTINCT, as in ClickHouse with its default settings. */
  protected override setExpr(ast: AstSetExpr, scope: Scope): ir.SetExpr {
    const operation = (ast as { SetOperation?: { set_quantifier?: unknown } }).SetOperation;
    if (operation && operation.set_quantifier !== 'All' && operation.set_quantifier !== 'Distinct') {
      throw invalidSql('Expected ALL or DISTINCT after UNION, INTERSECT or EXCEPT', positionOf(ast));
    }
    return super.setExpr(ast, scope);
  }

  protected override select(ast: AstSelect, outer: Scope): ir.Select {
    // PREWHERE is a filter ClickHouse applies first; the rows are those of WHERE.
    const prewhere = ast.prewhere as AstExpr | undefined;
    const merged: AstSelect = prewhere
      ? { ...ast, prewhere: undefined, selection: ast.selection ? ({ BinaryOp: { left: prewhere, op: 'And', right: ast.selection } } as AstExpr) : prewhere }
      : ast;
    const select = super.select(merged, outer);
    substituteAliases(select.items, [select.where, select.having, select.qualify, ...select.groupBy].filter((expr): expr is ir.Expr => expr !== undefined));
    this.placeArrayJoins(select);
    for (const item of select.items) {
      if (item.kind === 'expr' && isBooleanShaped(item.expr)) item.expr = numeric(item.expr);
    }
    return select;
  }

  /** Gives each arrayJoin of the SELECT an UNNEST step (one per distinct array, as ClickHouse evaluates an expression once). */
  private placeArrayJoins(select: ir.Select): void {
    if (this.pendingArrayJoins.size === 0) return;
    const placed = new Map<string, string>();
    const visit = (expr: ir.Expr): void => {
      if (expr.kind === 'ref' && expr.path.length === 1 && this.pendingArrayJoins.has(expr.path[0]!)) {
        const name = expr.path[0]!;
        const array = this.pendingArrayJoins.get(name)!;
        const key = JSON.stringify(array, (field, value: unknown) => (field === 'at' ? undefined : value));
        const alias = placed.get(key);
        if (alias === undefined) {
          placed.set(key, name);
          this.pendingArrayJoins.delete(name);
          visit(array);
          const step: ir.FromStep = { kind: 'unnest', array, alias: name, keepEmpty: false };
          if (select.from) select.from.steps.push(step);
          else select.from = { base: { kind: 'unnest', array, alias: name }, steps: [] };
        } else if (alias !== name) {
          expr.path = [alias];
          this.pendingArrayJoins.delete(name);
        }
        return;
      }
      subExpressions(expr).forEach(visit);
    };
    const exprs = [...select.items.flatMap((item) => (item.kind === 'expr' ? [item.expr] : [])), select.where, select.having, select.qualify, ...select.groupBy];
    for (const expr of exprs) if (expr) visit(expr);
  }

  // ---- parameters ----------------------------------------------------------------------------

  protected override value(value: AstValue, node: unknown): ir.Expr {
    if (typeof value === 'object' && value !== null && 'Placeholder' in value) return this.parameter(value.Placeholder as string, positionOf(node));
    return super.value(value, node);
  }

  /** `@name`, or `{name:Type}` (which parse.ts left as `@name` at the same position): the value cast to Type. */
  private parameter(written: string, at: Position | undefined): ir.Expr {
    const match = /^@([A-Za-z_][A-Za-z0-9_]*)$/.exec(written);
    if (!match?.[1]) throw invalidSql(`${written} is not a query parameter; write {name:Type} or @name`, at);
    this.parameters.add(parameterName(match[1], at));
    const param: ir.Expr = { kind: 'param', name: match[1] };
    const typed = at ? this.typedParameters.get(positionKey(at)) : undefined;
    return typed ? parameterCast(param, typed) : param;
  }

  // ---- expressions ---------------------------------------------------------------------------

  override expr(ast: AstExpr, scope: Scope): ir.Expr {
    const [kind, body] = variantOf<ExprVariants & { ILike: ExprVariants['Like']; Position: { expr: AstExpr; in: AstExpr } }>(ast as never);
    if (kind === 'Position') {
      // position(needle IN haystack): the byte offset, as position(haystack, needle).
      const { expr: needle, in: haystack } = body as { expr: AstExpr; in: AstExpr };
      return callOf('byte_position', this.expr(haystack, scope), this.expr(needle, scope));
    }
    if (kind === 'ILike') {
      const like = body as ExprVariants['Like'];
      if (like.any) throw invalidSql('ILIKE ANY is not supported', positionOf(like));
      this.refuseIfPresent(like.escape_char, 'ILIKE … ESCAPE');
      const lower = (expr: ir.Expr) => callOf('lower', expr);
      return { kind: 'like', negated: like.negated, expr: lower(this.expr(like.expr, scope)), pattern: lower(this.expr(like.pattern, scope)) };
    }
    const lowered = super.expr(ast, scope);
    // A condition added, multiplied or divided is the number 1 or 0.
    if (lowered.kind === 'binary' && ARITHMETIC.has(lowered.op)) {
      lowered.left = numeric(lowered.left);
      lowered.right = numeric(lowered.right);
      return intervalArithmetic(lowered, (fix) => this.afterAnalysis.push(fix));
    }
    return lowered;
  }

  protected override call(fn: AstFunction, scope: Scope): ir.Expr {
    const lowering: CallLowering = {
      expr: (ast) => this.expr(ast, scope),
      args: (name) => this.plainArgs(fn, name),
      window: (name) => (fn.over ? this.window(fn.over, scope, name) : undefined),
      afterAnalysis: (fix) => this.afterAnalysis.push(fix),
      arrayJoin: (array) => {
        const name = `__array_join_${++this.arrayJoinCount}`;
        this.pendingArrayJoins.set(name, array);
        return { kind: 'ref', path: [name] };
      },
    };
    return lowerClickHouseCall(fn, lowering);
  }

  /** ClickHouse's CAST(x AS Int32) truncates a float towards zero. */
  protected override cast(ast: ExprVariants['Cast'], scope: Scope): ir.Expr {
    const lowered = super.cast(ast, scope);
    if (lowered.kind === 'cast' && lowered.type === 'INT64') {
      this.afterAnalysis.push((typeOf) => {
        const type = typeOf(lowered.expr);
        if (type?.kind === 'scalar' && (type.name === 'FLOAT64' || type.name === 'NUMERIC')) lowered.expr = callOf('trunc', lowered.expr);
      });
    }
    return lowered;
  }

  protected override typeName(type: Parameters<Lowering['typeName']>[0], node: unknown): ir.TypeName {
    const key = typeof type === 'string' ? type : (Object.keys(type)[0] ?? '');
    if (key === 'Nullable' || key === 'LowCardinality') return this.typeName((type as Record<string, Parameters<Lowering['typeName']>[0]>)[key]!, node);
    if (/^U?Int(8|16|32|64|128|256)$/.test(key)) return 'INT64';
    if (key === 'Float32' || key === 'Float64') return 'FLOAT64';
    if (key === 'String' || key === 'FixedString' || key === 'Uuid') return 'STRING';
    if (key === 'Date' || key === 'Date32') return 'DATE';
    if (key === 'Datetime' || key === 'Datetime64' || key === 'Timestamp') return 'TIMESTAMP';
    if (key === 'Bool' || key === 'Boolean') return 'BOOL';
    if (key === 'Decimal') return 'NUMERIC';
    throw invalidSql(`type ${key || JSON.stringify(type)} is not supported; CAST takes String, (U)IntN, FloatN, Bool, Date, DateTime(64) and Decimal`, positionOf(node));
  }

  /** `arr[1]` counts from 1 (out of range: NULL, where ClickHouse gives the element type's default); `m['key']` reads a Map. */
  protected override fieldAccess(ast: ExprVariants['CompoundFieldAccess'], scope: Scope): ir.Expr {
    let current = this.expr(ast.root, scope);
    for (const access of ast.access_chain) {
      if ('Dot' in access) {
        current = this.dot(current, access);
        continue;
      }
      const subscript = (access as AccessSubscript).Subscript.Index;
      if (!subscript) throw invalidSql('array slices are not supported', positionOf(access));
      const index = this.expr(subscript.index, scope);
      const at = positionOf(subscript.index);
      if (index.kind === 'string' || index.kind === 'param') {
        current = { kind: 'map_subscript', base: current, key: index, ...(at ? { at } : {}) };
        continue;
      }
      current = arrayElement(current, index);
    }
    return current;
  }
}

interface LimitBy {
  limit: AstExpr;
  offset?: AstExpr;
  exprs: AstExpr[];
}

function limitByOf(ast: AstQuery): LimitBy | undefined {
  const clause = ast.limit_clause as { LimitOffset?: { limit?: AstExpr; offset?: { value: AstExpr }; limit_by: AstExpr[] } } | undefined;
  const limitOffset = clause?.LimitOffset;
  if (!limitOffset || limitOffset.limit_by.length === 0 || !limitOffset.limit) return undefined;
  return { limit: limitOffset.limit, ...(limitOffset.offset ? { offset: limitOffset.offset.value } : {}), exprs: limitOffset.limit_by };
}

function integerLiteralOf(ast: AstExpr): number | undefined {
  if ('Value' in ast && 'Number' in ast.Value.value) {
    const value = Number(ast.Value.value.Number[0]);
    return Number.isInteger(value) && value >= 0 ? value : undefined;
  }
  return undefined;
}

const number = (value: number): ir.Expr => ({ kind: 'number', text: String(value) });

/** ClickHouse's 1-based element; a negative index counts from the end. */
function arrayElement(array: ir.Expr, index: ir.Expr): ir.Expr {
  if (index.kind === 'negate' && index.expr.kind === 'number') {
    const fromEnd: ir.Expr = { kind: 'binary', op: '-', left: { kind: 'binary', op: '+', left: callOf('array_length', array), right: number(1) }, right: index.expr };
    return { kind: 'subscript', base: array, index: fromEnd, mode: 'safe_ordinal' };
  }
  return { kind: 'subscript', base: array, index, mode: 'safe_ordinal' };
}

/**
 * Replace, in `exprs` and in the items themselves, each bare name that is a SELECT-list alias
 * (case-sensitive, as in ClickHouse) by the aliased expression: ClickHouse reads an alias before a
 * column of the same name. An item's own alias inside its expression is the column
 * (`toStartOfHour(timestamp) AS timestamp`), and a chain of aliases is followed without cycles.
 */
function substituteAliases(items: ir.SelectItem[], exprs: ir.Expr[]): void {
  const aliases = new Map<string, ir.Expr>();
  for (const item of items) {
    if (item.kind === 'expr' && item.aliasWritten && !aliases.has(item.alias)) aliases.set(item.alias, item.expr);
  }
  if (aliases.size === 0) return;
  const visit = (expr: ir.Expr, excluded: ReadonlySet<string>): void => {
    if (expr.kind === 'ref' && expr.path.length === 1) {
      const name = expr.path[0]!;
      const target = aliases.get(name);
      if (!target || excluded.has(name) || (target.kind === 'ref' && target.path.length === 1 && target.path[0] === name)) return;
      become(expr, structuredClone(target));
      visit(expr, new Set([...excluded, name]));
      return;
    }
    subExpressions(expr).forEach((child) => visit(child, excluded));
  };
  for (const item of items) if (item.kind === 'expr') visit(item.expr, new Set(item.aliasWritten ? [item.alias] : []));
  for (const expr of exprs) visit(expr, new Set());
}
