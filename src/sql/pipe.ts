/**
 * Pipe syntax (BigQuery's "Pipe query syntax" reference): `query |> operator |> …`, lowered into
 * the tree of the standard query it equals, so every later stage is the one standard queries
 * take.
 *
 * Operators keep adding to one SELECT while the standard query can say the same: after `FROM t`
 * (a SELECT *), WHERE adds a condition (QUALIFY for one that reads a window function), EXTEND adds
 * columns, SET replaces and DROP removes columns of the star (REPLACE, EXCEPT), RENAME renames
 * them, JOIN adds a join; SELECT, AGGREGATE and DISTINCT then give the select list, ORDER BY and
 * LIMIT the query's tail. A later operator reads the columns an earlier one made: a name EXTEND,
 * SET or RENAME defined is replaced by its expression (a table alias still reads the original
 * row, as in BigQuery), a name DROP or RENAME removed is refused. Where the standard query would
 * need a subquery (WHERE after AGGREGATE, anything after LIMIT, AS), the pipeline so far becomes
 * `SELECT * FROM (…) [AS alias]` and goes on from there.
 */

import type { AstExpr, AstJoin, AstOrderByExpr, AstQuery, AstSelectItem, Ident, Position } from './ast.ts';
import { positionOf } from './ast.ts';
import { aggregatesOrWindows, andAll, childrenOf, containsWindow } from './analysis.ts';
import { semanticError } from './analyze.ts';
import type * as ir from './ir.ts';
import { invalidSql } from './parse.ts';
import { cubeSets, MAX_CUBE_ITEMS, rollupSets } from './grouping-sets.ts';
import type { SyntaxNotes } from './syntax-notes.ts';

/** What the pipeline needs of the lowering (lower.ts), in the scope it lowers in. */
export interface PipeLowering<Scope extends { ctes: Set<string>; rangeVariables: Set<string> }> {
  notes: SyntaxNotes | undefined;
  expr(ast: AstExpr, scope: Scope): ir.Expr;
  selectItems(ast: AstSelectItem[], scope: Scope): ir.SelectItem[];
  orderItem(ast: AstOrderByExpr, scope: Scope, items: ir.SelectItem[]): ir.OrderItem;
  joinStep(ast: AstJoin, scope: Scope): ir.FromStep;
  query(ast: AstQuery, scope: Scope): ir.Query;
  /** PIVOT / UNPIVOT of `input`, their clauses as the FROM clause's grammar writes them. */
  pivot(input: ir.Relation, ast: Record<string, unknown>, scope: Scope): ir.Relation;
  unpivot(input: ir.Relation, ast: Record<string, unknown>, scope: Scope): ir.Relation;
}

type PipeOperator = Record<string, unknown>;

/**
 * Where the pipeline is: `rows` while its query is one SELECT of the FROM's rows (a star, maybe
 * extended), `output` once its select list or set operation is final (ORDER BY and LIMIT may
 * still join it), `ordered` with an ORDER BY, `closed` with a LIMIT.
 */
type Stage = 'rows' | 'output' | 'ordered' | 'closed';

export class Pipeline<Scope extends { ctes: Set<string>; rangeVariables: Set<string> }> {
  private stage: Stage;
  /** Names EXTEND, SET and RENAME gave a value, by lower-case name. */
  private defined = new Map<string, ir.Expr>();
  /** Names DROP and RENAME took away. */
  private removed = new Set<string>();
  private subqueries = 0;

  constructor(
    private query: ir.Query,
    private scope: Scope,
    private readonly lowering: PipeLowering<Scope>,
    /** The scope of the query's own SELECT when it is `SELECT * FROM …` (a FROM query), for its range variables. */
    rowsScope: Scope | undefined,
  ) {
    this.stage = rowsScope && isRows(query) ? 'rows' : query.limit || query.offset ? 'closed' : query.orderBy.length > 0 ? 'ordered' : 'output';
    if (rowsScope && this.stage === 'rows') this.scope = rowsScope;
  }

  apply(operators: unknown[]): ir.Query {
    for (const operator of operators as PipeOperator[]) this.operator(operator);
    return this.query;
  }

  private operator(operator: PipeOperator): void {
    const [name, body] = Object.entries(operator)[0] as [string, Record<string, unknown>];
    switch (name) {
      case 'Where':
        return this.where(body.expr as AstExpr);
      case 'Select':
        return this.select(body.exprs as AstSelectItem[]);
      case 'Extend':
        return this.extend(body.exprs as AstSelectItem[]);
      case 'Set':
        return this.set(body.assignments as Array<{ target: unknown; value: AstExpr }>);
      case 'Drop':
        return this.drop((body.columns as Ident[]).map((ident) => ident.value), positionOf(body));
      case 'Rename':
        return this.rename(body.mappings as Array<{ ident: Ident; alias: Ident }>);
      case 'As':
        return this.wrap((body.alias as Ident).value);
      case 'OrderBy':
        return this.orderBy(body.exprs as AstOrderByExpr[]);
      case 'Limit':
        return this.limit(body.expr as AstExpr, body.offset as AstExpr | undefined);
      case 'Aggregate':
        return this.aggregate(body.full_table_exprs as AggregateItem[], body.group_by_expr as AggregateItem[]);
      case 'Join':
        return this.join(body as unknown as AstJoin);
      case 'Union':
      case 'Intersect':
      case 'Except':
        return this.setOperation(name.toLowerCase() as 'union', body.set_quantifier as string, body.queries as AstQuery[]);
      case 'Pivot':
      case 'Unpivot':
        return this.rotate(name, body);
      default:
        throw invalidSql(`the pipe operator ${describe(name)} is not supported`, positionOf(body));
    }
  }

  // ---- the row stage: one SELECT over the FROM's rows ------------------------------------------

  private get select_(): ir.Select {
    return (this.query.body as Extract<ir.SetExpr, { kind: 'select' }>).select;
  }

  private rows(): void {
    if (this.stage !== 'rows') this.wrap(undefined);
  }

  /** A name a later operator reads: what EXTEND, SET or RENAME made of it; refused once DROP or RENAME took it. */
  private resolveNames(expr: ir.Expr): ir.Expr {
    if (expr.kind === 'ref') {
      const head = expr.path[0]!.toLowerCase();
      // A table alias still reads the original row.
      if (this.scope.rangeVariables.has(head) && expr.path.length > 1) return expr;
      const value = this.defined.get(head);
      if (value) return expr.path.slice(1).reduce<ir.Expr>((base, name) => ({ kind: 'field', base, name }), structuredClone(value));
      if (this.removed.has(head)) throw semanticError(`Unrecognized name: ${expr.path[0]}`, expr.at);
      return expr;
    }
    replaceChildren(expr, (child) => this.resolveNames(child));
    return expr;
  }

  private lowerExpr(ast: AstExpr): ir.Expr {
    return this.resolveNames(this.lowering.expr(ast, this.scope));
  }

  private lowerItems(ast: AstSelectItem[]): ir.SelectItem[] {
    return this.lowering.selectItems(ast, this.scope).map((item) => {
      if (item.kind === 'expr') return { ...item, expr: this.resolveNames(item.expr) };
      return { ...item, ...(item.expr ? { expr: this.resolveNames(item.expr) } : {}), ...(item.replace ? { replace: item.replace.map((entry) => ({ ...entry, expr: this.resolveNames(entry.expr) })) } : {}) };
    });
  }

  private where(ast: AstExpr): void {
    // `|> DISTINCT` arrives as `|> WHERE 1` (syntax-notes.ts).
    if (this.lowering.notes?.at(positionOf(ast)) === 'distinct') return this.distinct();
    this.rows();
    const condition = this.lowerExpr(ast);
    const select = this.select_;
    // A window function of an EXTENDed column filters after the windows are computed.
    if (containsWindow(condition)) select.qualify = andAll([...(select.qualify ? [select.qualify] : []), condition]);
    else select.where = andAll([...(select.where ? [select.where] : []), condition]);
  }

  private select(ast: AstSelectItem[]): void {
    this.rows();
    const select = this.select_;
    const current = select.items;
    // `SELECT *` here is every column the pipeline has so far.
    select.items = this.lowerItems(ast).flatMap((item) => (item.kind === 'star' && !item.qualifier && !item.expr && item.except.length === 0 && !item.replace ? current : [item]));
    select.distinct = this.lowering.notes?.at(positionOf(ast)) === 'distinct';
    this.stage = 'output';
  }

  private extend(ast: AstSelectItem[]): void {
    this.rows();
    for (const item of this.lowerItems(ast)) {
      if (item.kind !== 'expr') throw invalidSql('EXTEND takes expressions, not *', item.at);
      this.select_.items.push(item);
      this.defined.set(item.alias.toLowerCase(), item.expr);
    }
  }

  private set(assignments: Array<{ target: unknown; value: AstExpr }>): void {
    this.rows();
    for (const { target, value } of assignments) {
      const name = columnName(target);
      const expr = this.lowerExpr(value);
      const extended = this.extension(name);
      if (extended) extended.expr = expr;
      else (this.star().replace ??= []).push({ name, expr });
      this.defined.set(name.toLowerCase(), expr);
    }
  }

  private drop(names: string[], at: Position | undefined): void {
    this.rows();
    for (const name of names) {
      const extended = this.extension(name);
      if (extended) this.select_.items.splice(this.select_.items.indexOf(extended), 1);
      else this.star().except.push(name);
      if (this.removed.has(name.toLowerCase())) throw semanticError(`Unrecognized name: ${name}`, at);
      this.defined.delete(name.toLowerCase());
      this.removed.add(name.toLowerCase());
    }
  }

  private rename(mappings: Array<{ ident: Ident; alias: Ident }>): void {
    this.rows();
    for (const { ident, alias } of mappings) {
      const [from, to] = [ident.value, alias.value];
      const value = this.defined.get(from.toLowerCase()) ?? ({ kind: 'ref', path: [from] } satisfies ir.Expr);
      const extended = this.extension(from);
      if (extended) extended.alias = to;
      else (this.star().rename ??= []).push({ from, to });
      this.defined.delete(from.toLowerCase());
      this.removed.add(from.toLowerCase());
      this.removed.delete(to.toLowerCase());
      this.defined.set(to.toLowerCase(), value);
    }
  }

  /** The select item EXTEND made for `name`. */
  private extension(name: string): Extract<ir.SelectItem, { kind: 'expr' }> | undefined {
    return this.select_.items.find((item): item is Extract<ir.SelectItem, { kind: 'expr' }> => item.kind === 'expr' && item.alias.toLowerCase() === name.toLowerCase());
  }

  private star(): ir.StarItem {
    const star = this.select_.items.find((item): item is ir.StarItem => item.kind === 'star' && !item.qualifier && !item.expr);
    if (!star) throw invalidSql('SET, DROP and RENAME change columns of the input table; here it has none to change');
    return star;
  }

  private join(ast: AstJoin): void {
    // A condition already there filters the left side: kept in WHERE under an inner or left join only.
    const type = Object.keys(ast.join_operator)[0] ?? '';
    if (this.stage === 'rows' && this.select_.where && /Right|Full/.test(type)) this.wrap(undefined);
    this.rows();
    const step = this.lowering.joinStep(ast, this.scope);
    if (step.kind === 'join' && step.on) step.on = this.resolveNames(step.on);
    if (step.kind === 'unnest') step.array = this.resolveNames(step.array);
    (this.select_.from ??= { base: { kind: 'subquery', query: emptyRow() }, steps: [] }).steps.push(step);
  }

  // ---- the output and the tail -----------------------------------------------------------------

  private aggregate(aggregates: AggregateItem[], keys: AggregateItem[]): void {
    this.rows();
    // An aggregate cannot read a window function of the same SELECT: EXTENDed windows are computed first.
    if (this.select_.items.some((item) => item.kind === 'expr' && containsWindow(item.expr)) || this.select_.qualify) this.wrap(undefined);
    const ordered = keys.length > 0 && this.lowering.notes?.at(positionOf(keys[0]!.expr.expr)) === 'order';
    const { keys: plainKeys, sets } = groupingOf(keys);
    keys = plainKeys;
    const keyItems = this.lowerItems(keys.map(selectItemOf));
    const aggregateItems = this.lowerItems(aggregates.map(selectItemOf));
    for (const item of aggregateItems) {
      if (item.kind !== 'expr' || !aggregatesOrWindows(item.expr)) throw invalidSql('each AGGREGATE expression must aggregate', item.kind === 'star' ? item.at : undefined);
    }
    const select = this.select_;
    select.items = [...keyItems, ...aggregateItems];
    select.groupBy = keyItems.map((_, index) => ({ kind: 'position', position: index + 1 }));
    if (sets) select.groupingSets = sets;
    if (keys.length === 0 && aggregates.length === 0) throw invalidSql('AGGREGATE needs an aggregate or a GROUP BY');
    // Ordering suffixes (and GROUP AND ORDER BY): the grouping columns first, then the aggregates.
    const orderBy: ir.OrderItem[] = [];
    [...keys, ...aggregates].forEach((item, index) => {
      const written = item.order_by as { asc?: boolean; nulls_first?: boolean } | undefined;
      if (written?.asc === undefined && !(ordered && index < keys.length)) return;
      const descending = written?.asc === false;
      orderBy.push({ expr: { kind: 'position', position: index + 1 }, descending, nullsFirst: written?.nulls_first ?? !descending });
    });
    this.stage = orderBy.length > 0 ? 'ordered' : 'output';
    this.query.orderBy = orderBy;
  }

  /** DISTINCT keeps the input's table alias, as BigQuery's pipe DISTINCT does (when there is one). */
  private distinct(): void {
    const [alias, ...more] = this.stage === 'rows' ? [...this.scope.rangeVariables] : [];
    if (this.stage !== 'rows' && (this.stage !== 'output' || this.query.body.kind !== 'select')) this.wrap(undefined);
    this.select_.distinct = true;
    this.wrap(alias !== undefined && more.length === 0 ? alias : undefined);
  }

  private orderBy(ast: AstOrderByExpr[]): void {
    if (this.stage === 'ordered' || this.stage === 'closed') this.wrap(undefined);
    const items = this.query.body.kind === 'select' ? this.select_.items : [];
    this.query.orderBy = ast.map((item) => {
      const lowered = this.lowering.orderItem(item, this.scope, this.stage === 'rows' ? [] : items);
      return { ...lowered, expr: this.resolveNames(lowered.expr) };
    });
    this.stage = 'ordered';
  }

  private limit(limit: AstExpr, offset: AstExpr | undefined): void {
    if (this.stage === 'closed') this.wrap(undefined);
    this.query.limit = this.lowering.expr(limit, this.scope);
    if (offset) this.query.offset = this.lowering.expr(offset, this.scope);
    this.stage = 'closed';
  }

  private setOperation(op: 'union' | 'intersect' | 'except', quantifier: string, queries: AstQuery[]): void {
    if (quantifier !== 'All' && quantifier !== 'Distinct') throw invalidSql(`${op.toUpperCase()} needs ALL or DISTINCT in BigQuery`);
    const { ctes, ...left } = this.query;
    const outer = { ctes: this.scope.ctes, rangeVariables: new Set<string>() } as Scope;
    let body: ir.SetExpr = left.orderBy.length > 0 || left.limit || left.offset ? { kind: 'nested', query: { ...left, ctes: [] } } : left.body;
    for (const ast of queries) body = { kind: 'setop', op, all: quantifier === 'All', left: body, right: { kind: 'nested', query: this.lowering.query(ast, outer) } };
    this.query = { ctes, body, orderBy: [] };
    this.scope = outer;
    this.defined = new Map();
    this.removed = new Set();
    this.stage = 'output';
  }

  /** PIVOT and UNPIVOT of the pipeline so far, whose columns their clauses name bare. */
  private rotate(name: 'Pivot' | 'Unpivot', body: Record<string, unknown>): void {
    const alias = (body.alias as Ident | undefined)?.value;
    const { ctes, ...inner } = this.query;
    const input: ir.Relation = { kind: 'subquery', query: { ...inner, ctes: [] } };
    const named = alias ? { alias: { name: { value: alias }, columns: [] } } : {};
    const scope = { ctes: this.scope.ctes, rangeVariables: new Set<string>() } as Scope;
    const relation =
      name === 'Pivot'
        ? this.lowering.pivot(input, { ...body, value_column: (body.value_column as Ident[]).map((ident) => ({ Identifier: ident })), ...named }, scope)
        : this.lowering.unpivot(input, { value: { Identifier: body.value_column }, name: body.name_column, columns: (body.unpivot_columns as Ident[]).map((ident) => ({ expr: { Identifier: ident } })), ...named }, scope);
    const select: ir.Select = { distinct: false, items: [{ kind: 'star', except: [] }], from: { base: relation, steps: [] }, groupBy: [] };
    this.query = { ctes, body: { kind: 'select', select }, orderBy: [] };
    this.scope = scope;
    this.defined = new Map();
    this.removed = new Set();
    this.stage = 'rows';
  }

  /** The pipeline so far as `SELECT * FROM (…) [AS alias]`, in the row stage again. */
  private wrap(alias: string | undefined): void {
    const { ctes, ...inner } = this.query;
    const name = alias ?? `__pipe_${++this.subqueries}`;
    const select: ir.Select = { distinct: false, items: [{ kind: 'star', except: [] }], from: { base: { kind: 'subquery', query: { ...inner, ctes: [] }, alias: name }, steps: [] }, groupBy: [] };
    this.query = { ctes, body: { kind: 'select', select }, orderBy: [] };
    // Only an alias written with AS is a name later operators may use.
    this.scope = { ctes: this.scope.ctes, rangeVariables: new Set(alias ? [alias.toLowerCase()] : []) } as Scope;
    this.defined = new Map();
    this.removed = new Set();
    this.stage = 'rows';
  }
}

interface AggregateItem {
  expr: { expr: AstExpr; alias?: Ident };
  order_by?: unknown;
}

/** `GROUP BY ROLLUP(a, b)` / `CUBE(…)` as its keys and the grouping sets over their positions. */
function groupingOf(keys: AggregateItem[]): { keys: AggregateItem[]; sets?: number[][] } {
  const [only] = keys;
  const fn = keys.length === 1 && only && 'Function' in only.expr.expr ? (only.expr.expr as { Function: { name: Array<{ Identifier: Ident }>; args: unknown } }).Function : undefined;
  const name = fn?.name.map((part) => part.Identifier.value.toUpperCase()).join('.');
  if (!fn || (name !== 'ROLLUP' && name !== 'CUBE')) return { keys };
  const args = ((fn.args as { List?: { args: Array<{ Unnamed?: { Expr?: AstExpr } }> } }).List?.args ?? []).map((arg) => {
    if (!arg.Unnamed?.Expr) throw invalidSql(`${name} takes grouping keys`, positionOf(fn));
    return arg.Unnamed.Expr;
  });
  if (name === 'CUBE' && args.length > MAX_CUBE_ITEMS) throw invalidSql(`CUBE takes at most ${MAX_CUBE_ITEMS} items`, positionOf(fn));
  const items = args.map((_, index) => [index]);
  return { keys: args.map((expr) => ({ expr: { expr } })), sets: name === 'ROLLUP' ? rollupSets(items) : cubeSets(items) };
}

function selectItemOf(item: AggregateItem): AstSelectItem {
  return item.expr.alias ? { ExprWithAlias: { expr: item.expr.expr, alias: item.expr.alias } } : { UnnamedExpr: item.expr.expr };
}

/** A query that is `SELECT * FROM …` and nothing more. */
function isRows(query: ir.Query): boolean {
  if (query.body.kind !== 'select' || query.orderBy.length > 0 || query.limit || query.offset) return false;
  const { select } = query.body;
  const [only, ...more] = select.items;
  return (
    more.length === 0 && only?.kind === 'star' && !only.qualifier && !only.expr && only.except.length === 0 && !only.replace && !!select.from && !select.distinct && select.groupBy.length === 0 && !select.having && !select.qualify
  );
}

function columnName(target: unknown): string {
  const parts = (target as { ColumnName?: Array<{ Identifier: Ident }> }).ColumnName;
  if (!parts || parts.length !== 1) throw invalidSql('SET takes a column name', positionOf(target));
  return parts[0]!.Identifier.value;
}

/** `SELECT 1` with no columns, the FROM a JOIN needs when the pipeline has none. */
function emptyRow(): ir.Query {
  return { ctes: [], body: { kind: 'select', select: { distinct: false, items: [{ kind: 'star', except: [] }], groupBy: [] } }, orderBy: [] };
}

/** Replace each direct sub-expression (not inside subqueries) by what `f` returns for it. */
function replaceChildren(expr: ir.Expr, f: (child: ir.Expr) => ir.Expr): void {
  for (const [key, value] of Object.entries(expr) as Array<[string, unknown]>) {
    if (key === 'query' || key === 'resolved') continue;
    if (isExpr(value) && childrenOf(expr).includes(value)) (expr as unknown as Record<string, unknown>)[key] = f(value);
    else if (Array.isArray(value)) {
      value.forEach((element, index) => {
        if (isExpr(element) && childrenOf(expr).includes(element)) value[index] = f(element);
        else if (element && typeof element === 'object') replaceNested(element as Record<string, unknown>, expr, f);
      });
    } else if (value && typeof value === 'object' && key !== 'over') replaceNested(value as Record<string, unknown>, expr, f);
  }
  if ((expr.kind === 'call' || expr.kind === 'quantile' || expr.kind === 'quantiles') && expr.over) {
    expr.over.partitionBy = expr.over.partitionBy.map(f);
    for (const item of expr.over.orderBy) item.expr = f(item.expr);
  }
}

/** Children held one level down (`{ when, then }`, `{ name, value }`, `having.expr`). */
function replaceNested(holder: Record<string, unknown>, parent: ir.Expr, f: (child: ir.Expr) => ir.Expr): void {
  for (const [key, value] of Object.entries(holder)) if (isExpr(value) && childrenOf(parent).includes(value)) holder[key] = f(value);
}

function isExpr(value: unknown): value is ir.Expr {
  return value !== null && typeof value === 'object' && typeof (value as { kind?: unknown }).kind === 'string';
}

function describe(name: string): string {
  return name.replace(/([a-z])([A-Z])/g, '$1 $2').toUpperCase();
}
