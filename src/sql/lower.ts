/**
 * Lowering: the parser's BigQuery syntax tree → the translator's tree (ir.ts).
 *
 * This is where queries are validated. Every construct is matched against what we know how to
 * translate; anything else is refused with a message naming it, so an unsupported query fails
 * instead of returning different rows than BigQuery would.
 */

import type {
  AccessDot,
  AccessSubscript,
  AstCte,
  AstDataType,
  AstExpr,
  AstFunction,
  AstJoin,
  AstOrderByExpr,
  AstQuery,
  AstSelect,
  AstSelectItem,
  AstSetExpr,
  AstStructField,
  AstTableFactor,
  AstTableWithJoins,
  AstValue,
  AstWindowBound,
  AstWindowSpec,
  AstWildcardOptions,
  ExprVariants,
  FunctionArg,
  Ident,
  JoinConstraint,
  JoinOperatorVariants,
  Position,
  SelectItemVariants,
  SetExprVariants,
  TableAlias,
  TableFactorVariants,
  ValueVariants,
} from './ast.ts';
import { aggregatesOrWindows, groupByAll, namesUsedBy } from './analysis.ts';
import { positionOf, variantOf } from './ast.ts';
import { semanticError } from './analyze.ts';
import { closestName } from './catalog.ts';
import { BIGQUERY_FUNCTIONS, datePartPositions, enumPositions, lookupFunction, outOfScopeFamily, type Clause, type FunctionEntry } from './functions/index.ts';
import type * as ir from './ir.ts';
import { readIntervalText } from './interval-text.ts';
import { parameterName } from './parameters.ts';
import { jsonText, JsonSyntaxError, parseJson } from './json/value.ts';
import { invalidSql, syntaxNotes } from './parse.ts';
import { quantifiedLike } from './quantified-like.ts';
import { orderRecursiveWith } from './recursive-ctes.ts';
import { cubeSets, MAX_CUBE_ITEMS, rollupSets } from './grouping-sets.ts';
import { Pipeline, type PipeLowering } from './pipe.ts';
import type { SyntaxNotes } from './syntax-notes.ts';

export interface LowerOptions {
  /** Source name as written → engine relation, or undefined when the caller has no such source. */
  resolveTable(name: string): string | undefined;
  /** CTE names visible before the query's own WITH (sandboxing: the endpoint's CTEs). */
  outerCtes?: ReadonlySet<string>;
  /** Names of the tables the query could read, for "Did you mean" when it names another. */
  tableNames?(): Iterable<string>;
  /** Message for a table that is neither a source nor a CTE (`{name}` is replaced). */
  unknownTableMessage?: string;
  /**
   * A table that is no source: another endpoint's query, lowered, when the name is one the caller
   * may read as a table (endpoint composition, index.ts); undefined otherwise.
   */
  readEndpoint?(name: string, at: Position | undefined): Omit<Lowered, 'sources'> | undefined;
}

export interface Lowered {
  query: ir.Query;
  parameters: string[];
  sources: string[];
}

/** A front end's lowering (BigQuery's by default). */
export type MakeLowering = (options: LowerOptions) => Lowering;

const bigQueryLowering: MakeLowering = (options) => new Lowering(options);

export function lowerQuery(ast: AstQuery, options: LowerOptions, makeLowering: MakeLowering = bigQueryLowering): Lowered {
  const lowering = makeLowering(options);
  lowering.notes = syntaxNotes(ast);
  const query = lowering.query(ast, { ctes: new Set(options.outerCtes ?? []), rangeVariables: new Set() });
  return { query, parameters: [...lowering.parameters], sources: [...lowering.sources] };
}

/** Only the WITH clause of a query (sandboxing keeps the endpoint's CTEs, not its SELECT). */
export function lowerCtes(ast: AstQuery, options: LowerOptions, makeLowering: MakeLowering = bigQueryLowering): { ctes: ir.Cte[]; parameters: string[]; sources: string[] } {
  const lowering = makeLowering(options);
  lowering.notes = syntaxNotes(ast);
  const ctes = lowering.ctesOf(ast, { ctes: new Set(options.outerCtes ?? []), rangeVariables: new Set() });
  return { ctes, parameters: [...lowering.parameters], sources: [...lowering.sources] };
}

/** What a name can refer to at one point of the query. */
export interface Scope {
  /** CTE names (lower case) visible here. */
  ctes: Set<string>;
  /** Range variables (table and UNNEST aliases, lower case) of this SELECT and enclosing ones. */
  rangeVariables: Set<string>;
  /** The SELECT's named windows (`WINDOW w AS (…)`), by lower-case name. */
  windows?: ReadonlyMap<string, AstWindowSpec>;
  /** A scalar, ARRAY, IN or EXISTS subquery (where `SELECT AS STRUCT` makes one struct value). */
  expressionSubquery?: boolean;
}

const DATE_PARTS: Record<string, ir.DatePart> = {
  microsecond: 'microsecond',
  millisecond: 'millisecond',
  second: 'second',
  minute: 'minute',
  hour: 'hour',
  day: 'day',
  dayofweek: 'dayofweek',
  dayofyear: 'dayofyear',
  week: 'week',
  isoweek: 'isoweek',
  month: 'month',
  quarter: 'quarter',
  year: 'year',
  isoyear: 'isoyear',
  date: 'date',
};

const BINARY_OPERATORS: Record<string, ir.BinaryOperator> = {
  Plus: '+',
  Minus: '-',
  Multiply: '*',
  Divide: '/',
  Modulo: '%',
  StringConcat: '||',
  Eq: '=',
  NotEq: '!=',
  Lt: '<',
  LtEq: '<=',
  Gt: '>',
  GtEq: '>=',
  And: 'AND',
  Or: 'OR',
  BitwiseAnd: '&',
  BitwiseOr: '|',
  BitwiseXor: '^',
};

const JOIN_TYPES: Partial<Record<string, 'inner' | 'left' | 'right' | 'full' | 'cross'>> = {
  CrossJoin: 'cross',
  Join: 'inner',
  Inner: 'inner',
  Left: 'left',
  LeftOuter: 'left',
  Right: 'right',
  RightOuter: 'right',
  FullOuter: 'full',
};

const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'] as const;

/** An argument where a date part may be: `HOUR`, or `WEEK(MONDAY)`. */
function isDatePartKeyword(ast: AstExpr): boolean {
  if ('Identifier' in ast) return ast.Identifier.quote_style === undefined && !ast.Identifier.value.startsWith('@');
  if (!('Function' in ast)) return false;
  const name = ast.Function.name.map((part) => part.Identifier.value).join('.');
  return name.toLowerCase() === 'week';
}

interface CallModifiers {
  orderBy?: ir.OrderItem[];
  limit?: number;
  ignoreNulls?: boolean;
  /** `HAVING MAX y` / `HAVING MIN y`: only the rows where y is largest (smallest) are aggregated. */
  having?: { max: boolean; expr: ir.Expr };
}

const PARAMETER_NAME = /^@([A-Za-z_][A-Za-z0-9_]*)$/;

/**
 * The BigQuery lowering. Its members are protected so that another front end (ClickHouse SQL,
 * src/sql/clickhouse/lower.ts) can reuse the clauses both languages share and replace the rest.
 */
export class Lowering {
  readonly parameters = new Set<string>();
  readonly sources = new Set<string>();
  /** What the text said that the parsed tree does not (syntax-notes.ts). */
  notes: SyntaxNotes | undefined;
  protected anonymousUnnests = 0;

  constructor(protected readonly options: LowerOptions) {}

  // ---- queries -------------------------------------------------------------------------------

  query(ast: AstQuery, outer: Scope): ir.Query {
    this.refuseIfPresent(ast.fetch, 'FETCH');
    this.refuseIfPresent(ast.for_clause, 'FOR clause');
    this.refuseIfPresent(ast.settings, 'SETTINGS');
    this.refuseIfPresent(ast.format_clause, 'FORMAT');
    if (ast.locks.length > 0) throw invalidSql('locking clauses are not supported');

    const scope: Scope = { ctes: new Set(outer.ctes), rangeVariables: outer.rangeVariables, ...(outer.expressionSubquery ? { expressionSubquery: true } : {}) };
    const ctes = this.withClause(ast, scope);
    const body = this.setExpr(ast.body, scope);
    const selectItems = body.kind === 'select' ? body.select.items : [];
    const orderBy = this.orderBy(ast, scope, body, selectItems);
    const { limit, offset } = this.limitClause(ast, scope);
    const query: ir.Query = { ctes, body, orderBy, ...(limit ? { limit } : {}), ...(offset ? { offset } : {}) };
    if (ast.pipe_operators.length === 0) return query;
    return new Pipeline(query, scope, this.pipeLowering(), body.kind === 'select' ? this.scopeOfSelect(ast, scope) : undefined).apply(ast.pipe_operators);
  }

  /** What pipe.ts lowers with. */
  private pipeLowering(): PipeLowering<Scope> {
    return {
      notes: this.notes,
      expr: (ast, scope) => this.expr(ast, scope),
      selectItems: (ast, scope) => this.selectItems(ast, scope),
      orderItem: (ast, scope, items) => this.orderItem(ast, scope, items),
      joinStep: (ast, scope) => this.joinStep(ast, scope),
      query: (ast, scope) => this.query(ast, scope),
      pivot: (input, ast, scope) => this.pivotOver(input, ast as Omit<TableFactorVariants['Pivot'], 'table'>, scope, scope),
      unpivot: (input, ast, scope) => this.unpivotOver(input, ast as Omit<TableFactorVariants['Unpivot'], 'table'>, scope),
    };
  }

  ctesOf(ast: AstQuery, scope: Scope): ir.Cte[] {
    return this.withClause(ast, scope);
  }

  protected withClause(ast: AstQuery, scope: Scope): ir.Cte[] {
    if (!ast.with) return [];
    if (ast.with.recursive) return this.recursiveWith(ast.with.cte_tables, scope);
    const defined = new Set<string>();
    return ast.with.cte_tables.map((cte: AstCte) => {
      if (cte.alias.columns.length > 0) throw invalidSql('column lists on CTEs are not supported', positionOf(cte.alias));
      const name = cte.alias.name.value;
      const key = name.toLowerCase();
      // A CTE sees the ones defined before it, not itself (BigQuery WITH is not recursive).
      const query = this.query(cte.query, { ctes: new Set(scope.ctes), rangeVariables: new Set() });
      // A nested WITH may reuse an outer name (shadowing it; a sandboxed query's CTE shadows the
      // endpoint's of that name, see translateSandboxed); one WITH may not define a name twice.
      if (defined.has(key)) throw invalidSql(`CTE ${name} is defined twice`, positionOf(cte.alias));
      defined.add(key);
      scope.ctes.add(key);
      return { name, query };
    });
  }

  /**
   * WITH RECURSIVE: every CTE of the clause sees every other and itself; recursive-ctes.ts checks
   * the recursion and orders the CTEs so each is defined before it is read.
   */
  protected recursiveWith(tables: AstCte[], scope: Scope): ir.Cte[] {
    const names = new Map<string, Position | undefined>();
    for (const cte of tables) {
      if (cte.alias.columns.length > 0) throw invalidSql('column lists on CTEs are not supported', positionOf(cte.alias));
      const key = cte.alias.name.value.toLowerCase();
      if (names.has(key)) throw invalidSql(`CTE ${cte.alias.name.value} is defined twice`, positionOf(cte.alias));
      names.set(key, positionOf(cte.alias));
    }
    for (const name of names.keys()) scope.ctes.add(name);
    const ctes = tables.map((cte) => ({ name: cte.alias.name.value, query: this.query(cte.query, { ctes: new Set(scope.ctes), rangeVariables: new Set() }) }));
    return orderRecursiveWith(ctes, names);
  }

  protected setExpr(ast: AstSetExpr, scope: Scope): ir.SetExpr {
    const [kind, body] = variantOf<SetExprVariants>(ast);
    switch (kind) {
      case 'Select':
        return { kind: 'select', select: this.select(body, scope) };
      case 'Query':
        return { kind: 'nested', query: this.query(body, scope) };
      case 'SetOperation': {
        const op = ({ Union: 'union', Intersect: 'intersect', Except: 'except' } as const)[body.op as 'Union'];
        if (!op) throw invalidSql(`set operation ${body.op} is not supported`);
        const quantifier = body.set_quantifier;
        if (quantifier !== 'All' && quantifier !== 'Distinct') {
          throw invalidSql(`${op.toUpperCase()} needs ALL or DISTINCT in BigQuery`);
        }
        return {
          kind: 'setop',
          op,
          all: quantifier === 'All',
          left: this.setExpr(body.left, scope),
          right: this.setExpr(body.right, scope),
        };
      }
      default:
        throw invalidSql(`${describeVariant(kind)} is not supported; only SELECT queries are`);
    }
  }

  protected select(ast: AstSelect, outer: Scope): ir.Select {
    this.refuseIfPresent(ast.top, 'TOP');
    this.refuseIfPresent(ast.into, 'SELECT INTO');
    this.refuseIfPresent(ast.prewhere, 'PREWHERE');
    if (ast.connect_by !== undefined && !(Array.isArray(ast.connect_by) && ast.connect_by.length === 0)) {
      throw invalidSql('CONNECT BY is not supported');
    }
    for (const [list, name] of [
      [ast.lateral_views, 'LATERAL VIEW'],
      [ast.cluster_by, 'CLUSTER BY'],
      [ast.distribute_by, 'DISTRIBUTE BY'],
      [ast.sort_by, 'SORT BY'],
    ] as const) {
      if (list.length > 0) throw invalidSql(`${name} is not supported`);
    }
    if (ast.distinct !== undefined && ast.distinct !== 'Distinct' && ast.distinct !== 'All') {
      throw invalidSql('SELECT DISTINCT ON is not supported');
    }

    const scope: Scope = { ctes: outer.ctes, rangeVariables: new Set(outer.rangeVariables), windows: namedWindows(ast) };
    const from = ast.from.length > 0 ? this.from(ast.from, scope) : undefined;
    const items = this.selectItems(ast.projection, scope);
    const mode = typeof ast.value_table_mode === 'string' ? ast.value_table_mode : undefined;
    const select: ir.Select = {
      distinct: ast.distinct === 'Distinct' || mode?.startsWith('Distinct') === true,
      items,
      ...(from ? { from } : {}),
      groupBy: [],
    };
    const sets = this.groupingSets(ast, scope, items);
    if (sets) Object.assign(select, sets);
    else {
      const keys = this.groupBy(ast, scope, items);
      if (keys === 'all') select.groupByAll = true;
      else select.groupBy = keys;
    }
    if (mode?.endsWith('AsStruct') && outer.expressionSubquery) select.asStruct = true;
    if (mode?.endsWith('AsValue')) {
      const [only, ...more] = items;
      if (only?.kind !== 'expr' || more.length > 0) throw invalidSql('SELECT AS VALUE takes exactly one expression', positionOf(ast.projection));
      // Read as a table, the value's fields are its columns; as an expression, it is the one column.
      if (!outer.expressionSubquery) select.items = [{ kind: 'star', expr: only.expr, except: [], asValue: true }];
    }
    if (ast.selection) select.where = this.expr(ast.selection, scope);
    if (ast.having) select.having = this.expr(ast.having, scope);
    if (ast.qualify) select.qualify = this.expr(ast.qualify, scope);
    return select;
  }

  protected selectItems(projection: AstSelectItem[], scope: Scope): ir.SelectItem[] {
    let anonymous = 0;
    return projection.map((item) => {
      const [kind, body] = variantOf<SelectItemVariants>(item);
      switch (kind) {
        case 'UnnamedExpr': {
          const expr = this.expr(body, scope);
          // BigQuery names a column after the last field of a path, else f0_, f1_, …
          const implicit = implicitColumnName(expr) ?? `f${anonymous++}_`;
          return { kind: 'expr', expr, alias: implicit, aliasWritten: false };
        }
        case 'ExprWithAlias':
          return { kind: 'expr', expr: this.expr(body.expr, scope), alias: body.alias.value, aliasWritten: true };
        case 'Wildcard':
          return { kind: 'star', ...this.starOptions(body, scope), ...at(positionOf(body)) };
        case 'QualifiedWildcard': {
          const [qualifier, options] = body;
          const star = { kind: 'star' as const, ...this.starOptions(options, scope), ...at(positionOf(qualifier)) };
          const parts = 'ObjectName' in qualifier ? (qualifier.ObjectName as Array<{ Identifier: Ident }>) : undefined;
          // `t.*` of a range variable; `s.*`, `t.s.*` and `(expr).*` of a value with fields.
          if (parts?.length === 1 && parts[0] && scope.rangeVariables.has(parts[0].Identifier.value.toLowerCase())) return { ...star, qualifier: parts[0].Identifier.value };
          if (parts && parts.length > 0) return { ...star, expr: { kind: 'ref', path: parts.map((part) => part.Identifier.value), ...at(positionOf(parts)) } };
          if ('Expr' in qualifier) return { ...star, expr: this.expr(qualifier.Expr as AstExpr, scope) };
          throw invalidSql('this form of qualified * is not supported', positionOf(qualifier));
        }
        default:
          throw invalidSql(`select item ${describeVariant(kind)} is not supported`);
      }
    });
  }

  protected starOptions(options: AstWildcardOptions, scope: Scope): Pick<ir.StarItem, 'except' | 'replace'> {
    for (const [value, name] of [
      [options.opt_exclude, 'EXCLUDE'],
      [options.opt_rename, 'RENAME'],
      [options.opt_ilike, 'ILIKE'],
    ] as const) {
      this.refuseIfPresent(value, name);
    }
    const except = options.opt_except ? [options.opt_except.first_element, ...options.opt_except.additional_elements].map((ident) => ident.value) : [];
    const replace = (options.opt_replace?.items ?? []).map((item) => ({ name: item.column_name.value, expr: this.expr(item.expr, scope) }));
    return { except, ...(replace.length > 0 ? { replace } : {}) };
  }

  protected groupBy(ast: AstSelect, scope: Scope, items: ir.SelectItem[]): ir.Expr[] | 'all' {
    // Over a star, the keys are its columns, which the analyzer knows.
    if ('All' in ast.group_by) return items.some((item) => item.kind === 'star') ? 'all' : groupByAll(items);
    if (!('Expressions' in ast.group_by)) throw invalidSql('this form of GROUP BY is not supported');
    const [expressions, modifiers] = ast.group_by.Expressions;
    if (modifiers.length > 0) throw invalidSql('GROUP BY modifiers (ROLLUP, CUBE…) are not supported');
    // GROUP BY (): one group of all rows, even when nothing aggregates.
    const grouping = expressions.filter((expr) => !('Tuple' in expr && expr.Tuple.length === 0));
    if (grouping.length === 0 && expressions.length > 0) return groupByAll(items.some((item) => item.kind === 'expr' && aggregatesOrWindows(item.expr)) ? [] : items);
    return grouping.map((expr) => this.aliasOrExpr(expr, scope, items));
  }

  /**
   * `GROUP BY GROUPING SETS (…)`, `ROLLUP (…)` or `CUBE (…)` as the grouping sets they stand for:
   * ROLLUP's prefixes of its items down to (), CUBE's subsets, a GROUPING SETS list's items, each
   * a key or a parenthesized set of keys, and ROLLUP or CUBE within it expanded in place.
   */
  protected groupingSets(ast: AstSelect, scope: Scope, items: ir.SelectItem[]): Pick<ir.Select, 'groupBy' | 'groupingSets'> | undefined {
    if (!('Expressions' in ast.group_by)) return undefined;
    const [expressions] = ast.group_by.Expressions;
    const isSets = (expr: AstExpr) => 'Rollup' in expr || 'Cube' in expr || 'GroupingSets' in expr;
    if (!expressions.some(isSets)) return undefined;
    if (expressions.length > 1) throw invalidSql('GROUPING SETS, ROLLUP and CUBE must be the whole GROUP BY clause', positionOf(expressions));
    const keys: ir.Expr[] = [];
    const keyIndex = new Map<string, number>();
    const key = (astKey: AstExpr): number => {
      const lowered = this.aliasOrExpr(astKey, scope, items);
      const text = JSON.stringify(lowered, (name, value: unknown) => (name === 'at' ? undefined : value));
      if (!keyIndex.has(text)) {
        keyIndex.set(text, keys.length);
        keys.push(lowered);
      }
      return keyIndex.get(text)!;
    };
    // An item of ROLLUP or CUBE: one key, or `(a, b)` taken together.
    const itemSet = (item: AstExpr[]): number[] => item.flatMap((expr) => ('Tuple' in expr ? expr.Tuple.map(key) : [key(expr)]));
    const rollup = rollupSets;
    const cube = (list: number[][]): number[][] => {
      if (list.length > MAX_CUBE_ITEMS) throw invalidSql(`CUBE takes at most ${MAX_CUBE_ITEMS} items`, positionOf(expressions));
      return cubeSets(list);
    };
    const generated = (expr: AstExpr): number[][] => {
      const spec = expr as unknown as { Rollup?: AstExpr[][]; Cube?: AstExpr[][]; GroupingSets?: AstExpr[][] };
      if (spec.Rollup) return rollup(spec.Rollup.map(itemSet));
      if (spec.Cube) return cube(spec.Cube.map(itemSet));
      return (spec.GroupingSets ?? []).flatMap((set) => {
        const [only] = set;
        const name = set.length === 1 && only && 'Function' in only ? only.Function.name.map((part) => part.Identifier.value.toUpperCase()).join('.') : '';
        if (name === 'ROLLUP' || name === 'CUBE') {
          const list = this.plainArgs((only as { Function: AstFunction }).Function, name).map((arg) => itemSet([arg]));
          return name === 'ROLLUP' ? rollup(list) : cube(list);
        }
        return [itemSet(set)];
      });
    };
    const groupingSets = generated(expressions[0]!);
    return { groupBy: keys, groupingSets };
  }

  /**
   * GROUP BY / ORDER BY items: BigQuery resolves a bare name to a select-list alias before a
   * column of the same name (`timestamp_trunc(timestamp, hour) AS timestamp … GROUP BY timestamp`),
   * and a number to a select-list position. Engines differ, so make both explicit.
   */
  protected aliasOrExpr(ast: AstExpr, scope: Scope, items: ir.SelectItem[]): ir.Expr {
    const [kind, body] = variantOf<ExprVariants>(ast);
    if (kind === 'Identifier' && !body.value.startsWith('@')) {
      const name = body.value.toLowerCase();
      const index = items.findIndex((item) => item.kind === 'expr' && item.alias.toLowerCase() === name);
      if (index >= 0) return { kind: 'position', position: index + 1 };
    }
    if (kind === 'Value' && 'Number' in body.value) {
      const position = Number(body.value.Number[0]);
      // A star's columns are counted once the analyzer knows them.
      const starred = items.some((item) => item.kind === 'star');
      if (!Number.isInteger(position) || position < 1 || (position > items.length && !starred)) {
        throw invalidSql(`position ${body.value.Number[0]} is not in the select list`, positionOf(body));
      }
      return { kind: 'position', position };
    }
    return this.expr(ast, scope);
  }

  protected orderBy(ast: AstQuery, scope: Scope, body: ir.SetExpr, items: ir.SelectItem[]): ir.OrderItem[] {
    if (!ast.order_by) return [];
    const kind = ast.order_by.kind;
    if (!('Expressions' in kind)) throw invalidSql('ORDER BY ALL is not supported');
    this.refuseIfPresent(ast.order_by.interpolate, 'INTERPOLATE');
    // ORDER BY sees the FROM clause of a plain SELECT, so lower it in that scope.
    const orderScope = body.kind === 'select' ? this.scopeOfSelect(ast, scope) : scope;
    return (kind.Expressions as AstOrderByExpr[]).map((item) => this.orderItem(item, orderScope, items));
  }

  /** Range variables of the query's own SELECT, for ORDER BY expressions that name them. */
  protected scopeOfSelect(ast: AstQuery, scope: Scope): Scope {
    const select = 'Select' in ast.body ? (ast.body.Select as AstSelect) : undefined;
    const names = new Set(scope.rangeVariables);
    for (const item of select?.from ?? []) {
      for (const factor of [item.relation, ...item.joins.map((join) => join.relation)]) {
        const alias = relationAliasOf(factor);
        if (alias) names.add(alias.toLowerCase());
      }
    }
    return { ctes: scope.ctes, rangeVariables: names };
  }

  protected orderItem(item: AstOrderByExpr, scope: Scope, items: ir.SelectItem[]): ir.OrderItem {
    this.refuseIfPresent(item.with_fill, 'WITH FILL');
    const descending = item.options.asc === false;
    return {
      expr: this.aliasOrExpr(item.expr, scope, items),
      descending,
      nullsFirst: item.options.nulls_first ?? !descending,
    };
  }

  protected limitClause(ast: AstQuery, scope: Scope): { limit?: ir.Expr; offset?: ir.Expr } {
    const clause = ast.limit_clause;
    if (!clause) return {};
    if (!('LimitOffset' in clause)) throw invalidSql('this form of LIMIT is not supported');
    const { limit, offset, limit_by } = clause.LimitOffset as {
      limit?: AstExpr;
      offset?: { value: AstExpr };
      limit_by: unknown[];
    };
    if (limit_by.length > 0) throw invalidSql('LIMIT BY is not supported');
    return {
      ...(limit ? { limit: this.expr(limit, scope) } : {}),
      ...(offset ? { offset: this.expr(offset.value, scope) } : {}),
    };
  }

  // ---- FROM ----------------------------------------------------------------------------------

  protected from(items: AstTableWithJoins[], scope: Scope): ir.From {
    const [first, ...rest] = items;
    if (!first) throw invalidSql('empty FROM clause');
    const base = this.relation(first.relation, scope);
    const steps: ir.FromStep[] = [];
    const addJoins = (joins: AstJoin[]) => {
      for (const join of joins) steps.push(this.joinStep(join, scope));
    };
    addJoins(first.joins);
    // `FROM a, b` is a cross join; `FROM t, UNNEST(t.x)` a correlated unnest.
    for (const item of rest) {
      steps.push(this.crossStep(item.relation, scope));
      addJoins(item.joins);
    }
    return { base, steps };
  }

  protected crossStep(factor: AstTableFactor, scope: Scope): ir.FromStep {
    return this.correlatedStep(factor, scope, false) ?? { kind: 'join', type: 'cross', relation: this.relation(factor, scope) };
  }

  /**
   * The right side of a join that reads the left side's rows: `UNNEST(array)`, an array path
   * (`t.arr AS x`) or `LATERAL (subquery)`, as a step of the FROM clause; undefined for any other.
   */
  protected correlatedStep(factor: AstTableFactor, scope: Scope, keepEmpty: boolean): Extract<ir.FromStep, { kind: 'unnest' }> | undefined {
    if ('UNNEST' in factor) return this.unnestStep(factor.UNNEST, scope, keepEmpty);
    if ('Derived' in factor && (factor.Derived as TableFactorVariants['Derived']).lateral) return this.lateralStep(factor.Derived as TableFactorVariants['Derived'], scope, keepEmpty);
    const path = this.arrayPath(factor, scope);
    return path ? { kind: 'unnest', ...path, keepEmpty } : undefined;
  }

  /**
   * `LATERAL (subquery) [AS alias]`: the subquery's rows for each row on its left, as BigQuery
   * writes the same join without LATERAL, `UNNEST(ARRAY(SELECT AS STRUCT …)) AS alias`: its columns
   * are the element's fields. `on`: a LEFT JOIN's condition, which keeps the left row when no
   * subquery row meets it, so it filters inside the subquery.
   */
  protected lateralStep(ast: TableFactorVariants['Derived'], scope: Scope, keepEmpty: boolean, on?: AstExpr): Extract<ir.FromStep, { kind: 'unnest' }> {
    this.refuseAliasColumns(ast.alias);
    const alias = ast.alias?.name.value;
    let query = this.query(ast.subquery, { ctes: scope.ctes, rangeVariables: scope.rangeVariables });
    if (on) {
      const inner: Scope = { ctes: scope.ctes, rangeVariables: new Set([...scope.rangeVariables, ...(alias ? [alias.toLowerCase()] : [])]) };
      query = selectAll({ kind: 'subquery', query, ...(alias ? { alias } : {}) }, this.expr(on, inner));
    }
    const struct = query.body.kind === 'select' ? query : selectAll({ kind: 'subquery', query });
    if (struct.body.kind === 'select') struct.body.select.asStruct = true;
    if (alias) scope.rangeVariables.add(alias.toLowerCase());
    const array: ir.Expr = { kind: 'array_subquery', query: struct };
    return { kind: 'unnest', array, alias: alias ?? `_unnest_${++this.anonymousUnnests}`, ...(alias ? {} : { anonymous: true }), keepEmpty };
  }

  protected joinStep(join: AstJoin, scope: Scope): ir.FromStep {
    const [kind, constraint] = variantOf<JoinOperatorVariants>(join.join_operator);
    const type = JOIN_TYPES[kind];
    if (!type) throw invalidSql(`${describeVariant(kind)} joins are not supported`, positionOf(join.relation));

    const factor = join.relation;
    const lateral = 'Derived' in factor && (factor.Derived as TableFactorVariants['Derived']).lateral;
    if ('UNNEST' in factor && (type === 'right' || type === 'full')) return this.unnestJoin(type, factor.UNNEST as TableFactorVariants['UNNEST'], constraint as JoinConstraint, scope);
    if (lateral && (type === 'right' || type === 'full')) throw invalidSql(`LATERAL is not allowed with ${type.toUpperCase()} JOIN`, positionOf(factor));
    // A LEFT JOIN LATERAL's condition filters within the subquery.
    const lateralOn = lateral && type === 'left' && typeof constraint === 'object' && constraint !== null && 'On' in constraint ? (constraint as { On: AstExpr }).On : undefined;
    const step = type === 'right' || type === 'full' ? undefined : lateralOn ? this.lateralStep((factor as { Derived: TableFactorVariants['Derived'] }).Derived, scope, true, lateralOn) : this.correlatedStep(factor, scope, type === 'left');
    if (step) {
      if (type === 'cross' || lateralOn) return step;
      // An array that reads nothing of the row is a table like any other, joined on the columns named.
      const using = usingColumns(constraint as JoinConstraint);
      if (using && namesUsedBy(step.array).heads.length === 0) return { kind: 'join', type, relation: unnestRelation(step), using };
      // The condition may name the unnest alias, so lower it once the alias is in scope.
      const on = this.joinCondition(constraint as JoinConstraint, scope, true);
      if (on && !isTrueLiteral(on)) {
        if (type === 'left') {
          // An array that reads nothing of the row is a table like any other, joined on the condition.
          if (namesUsedBy(step.array).heads.length === 0) return { kind: 'join', type, relation: unnestRelation(step), on };
          if (step.anonymous) throw invalidSql('LEFT JOIN UNNEST … ON a condition other than TRUE needs an alias for the array\'s elements when the array reads the rows it joins', positionOf(join.relation));
          return this.elementsMeeting(step, on);
        }
        step.condition = on;
      }
      return step;
    }

    const relation = this.relation(join.relation, scope);
    if (type === 'cross') return { kind: 'join', type, relation };
    const joinConstraint = constraint as JoinConstraint;
    const using = usingColumns(joinConstraint);
    if (using) return { kind: 'join', type, relation, using };
    const on = this.joinCondition(joinConstraint, scope, false);
    if (!on) throw invalidSql(`${type.toUpperCase()} JOIN needs an ON or USING condition`, positionOf(join.relation));
    return { kind: 'join', type, relation, on };
  }

  /**
   * `LEFT JOIN UNNEST(arr) AS x [WITH OFFSET AS o] ON cond`, where arr reads the row it joins:
   * the elements that meet cond, with their offsets, as BigQuery writes a LATERAL join,
   * `UNNEST(ARRAY(SELECT AS STRUCT x, o FROM UNNEST(arr) AS x WITH OFFSET AS o WHERE cond))`,
   * whose fields x and o are columns. A row none meets is kept once, with NULLs.
   */
  private elementsMeeting(step: Extract<ir.FromStep, { kind: 'unnest' }>, on: ir.Expr): Extract<ir.FromStep, { kind: 'unnest' }> {
    const names = [step.alias, ...(step.offsetAlias ? [step.offsetAlias] : [])];
    const select: ir.Select = {
      distinct: false,
      items: names.map((name) => ({ kind: 'expr', expr: { kind: 'ref', path: [name] }, alias: name, aliasWritten: true })),
      from: { base: unnestRelation(step), steps: [] },
      where: on,
      groupBy: [],
      asStruct: true,
    };
    const query: ir.Query = { ctes: [], body: { kind: 'select', select }, orderBy: [] };
    return { kind: 'unnest', array: { kind: 'array_subquery', query }, alias: `_unnest_${++this.anonymousUnnests}`, anonymous: true, keepEmpty: true };
  }

  /** RIGHT / FULL JOIN UNNEST(array) ON …: the array is a table of its own (BigQuery refuses one that reads the other side). */
  protected unnestJoin(type: 'right' | 'full', ast: TableFactorVariants['UNNEST'], constraint: JoinConstraint, scope: Scope): ir.FromStep {
    const { offsetAlias, ...parts } = this.unnestParts(ast, scope);
    const relation: ir.Relation = { kind: 'unnest', ...parts, ...(offsetAlias ? { offsetAlias } : {}) };
    const using = usingColumns(constraint);
    if (using) return { kind: 'join', type, relation, using };
    const on = this.joinCondition(constraint, scope, false);
    if (!on) throw invalidSql(`${type.toUpperCase()} JOIN needs an ON or USING condition`);
    return { kind: 'join', type, relation, on };
  }

  protected joinCondition(constraint: JoinConstraint, scope: Scope, optional: boolean): ir.Expr | undefined {
    if (constraint === 'None' && optional) return undefined;
    if (typeof constraint === 'object' && 'On' in constraint) return this.expr(constraint.On, scope);
    if (constraint === 'Natural') throw invalidSql('NATURAL JOIN is not supported');
    if (typeof constraint === 'object' && 'Using' in constraint) throw invalidSql('JOIN UNNEST … USING is not supported');
    return undefined;
  }

  protected unnestStep(ast: TableFactorVariants['UNNEST'], scope: Scope, keepEmpty: boolean): Extract<ir.FromStep, { kind: 'unnest' }> {
    const { offsetAlias, ...parts } = this.unnestParts(ast, scope);
    return { kind: 'unnest', ...parts, keepEmpty, ...(offsetAlias ? { offsetAlias } : {}) };
  }

  protected unnestParts(ast: TableFactorVariants['UNNEST'], scope: Scope): { array: ir.Expr; alias: string; offsetAlias?: string; anonymous?: boolean } {
    if (ast.array_exprs.length !== 1 || !ast.array_exprs[0]) throw invalidSql('UNNEST takes exactly one array');
    if (ast.with_ordinality) throw invalidSql('UNNEST … WITH ORDINALITY is not supported');
    this.refuseAliasColumns(ast.alias);
    const arrayAst = ast.array_exprs[0];
    const array = this.expr(arrayAst, scope);
    // `FROM UNNEST(x)` has no implicit alias (ZetaSQL's alias rules): inside it, `x` is still the array.
    const alias = ast.alias?.name.value;
    const offsetAlias = ast.with_offset ? (ast.with_offset_alias?.value ?? 'offset') : undefined;
    const offset = offsetAlias ? { offsetAlias } : {};
    // Without an alias the elements have no name; a struct element's fields are columns.
    if (!alias) return { array, alias: `_unnest_${++this.anonymousUnnests}`, anonymous: true, ...offset };
    scope.rangeVariables.add(alias.toLowerCase());
    return { array, alias, ...offset };
  }

  /**
   * `FROM t, t.values v`: a path through a range variable in FROM is BigQuery's implicit UNNEST of
   * that array (aliased by its last name unless written).
   */
  protected arrayPath(factor: AstTableFactor, scope: Scope): { array: ir.Expr; alias: string } | undefined {
    if (!('Table' in factor)) return undefined;
    const table = factor.Table as TableFactorVariants['Table'];
    const parts = table.name.map((part) => part.Identifier.value);
    if (parts.length < 2 || !scope.rangeVariables.has(parts[0]!.toLowerCase()) || table.args !== undefined) return undefined;
    this.refuseAliasColumns(table.alias);
    const alias = table.alias?.name.value ?? parts[parts.length - 1]!;
    scope.rangeVariables.add(alias.toLowerCase());
    return { array: { kind: 'ref', path: parts }, alias };
  }

  protected relation(factor: AstTableFactor, scope: Scope): ir.Relation {
    const path = this.arrayPath(factor, scope);
    if (path) return { kind: 'unnest', ...path };
    const [kind, body] = variantOf<TableFactorVariants>(factor);
    switch (kind) {
      case 'Table':
        return this.table(body, scope);
      case 'Derived': {
        if (body.lateral) throw invalidSql('LATERAL cannot be used on the first item of a FROM clause', positionOf(body));
        this.refuseAliasColumns(body.alias);
        const alias = body.alias?.name.value;
        if (alias) scope.rangeVariables.add(alias.toLowerCase());
        const query = this.query(body.subquery, { ctes: scope.ctes, rangeVariables: new Set() });
        return { kind: 'subquery', query, ...(alias ? { alias } : {}) };
      }
      case 'UNNEST':
        return { kind: 'unnest', ...this.unnestParts(body, scope) };
      case 'Pivot':
        return this.pivot(body, scope);
      case 'Unpivot':
        return this.unpivot(body, scope);
      default:
        throw invalidSql(`${describeVariant(kind)} in FROM is not supported`, positionOf(body));
    }
  }

  /**
   * PIVOT: its input's alias is seen by the aggregates and the input column only; the PIVOT's
   * own alias names the result. The analyzer writes out the query it stands for (pivot.ts).
   */
  protected pivot(ast: TableFactorVariants['Pivot'], scope: Scope): ir.Relation {
    const inner: Scope = { ctes: scope.ctes, rangeVariables: new Set(scope.rangeVariables) };
    return this.pivotOver(this.relation(ast.table, inner), ast, inner, scope);
  }

  /** PIVOT of an input already lowered (`inner`: the scope that sees its alias). */
  pivotOver(input: ir.Relation, ast: Omit<TableFactorVariants['Pivot'], 'table'>, inner: Scope, scope: Scope): ir.Relation {
    this.refuseIfPresent(ast.default_on_null, 'PIVOT … DEFAULT ON NULL');
    if (!('List' in ast.value_source)) throw invalidSql('PIVOT … IN takes a list of values', positionOf(ast));
    const [column, ...more] = ast.value_column;
    if (!column || more.length > 0) throw invalidSql('PIVOT takes one input column', positionOf(ast));
    const aggregates = ast.aggregate_functions.map(({ expr, alias }) => ({ expr: this.expr(expr, inner), ...(alias ? { alias: alias.value } : {}) }));
    const values = (ast.value_source.List as Array<{ expr: AstExpr; alias?: Ident }>).map(({ expr, alias }) => ({ value: this.expr(expr, inner), ...(alias ? { alias: alias.value } : {}) }));
    this.refuseAliasColumns(ast.alias);
    const alias = ast.alias?.name.value;
    if (alias) scope.rangeVariables.add(alias.toLowerCase());
    return { kind: 'pivot', input, aggregates, column: this.expr(column, inner), values, ...(alias ? { alias } : {}), ...at(positionOf(ast.aggregate_functions)) };
  }

  /** UNPIVOT: column names only (BigQuery allows no expressions there); a row value alias is a string. */
  protected unpivot(ast: TableFactorVariants['Unpivot'], scope: Scope): ir.Relation {
    return this.unpivotOver(this.relation(ast.table, { ctes: scope.ctes, rangeVariables: new Set(scope.rangeVariables) }), ast, scope);
  }

  /** UNPIVOT of an input already lowered. */
  unpivotOver(input: ir.Relation, ast: Omit<TableFactorVariants['Unpivot'], 'table'>, scope: Scope): ir.Relation {
    const names = (expr: AstExpr): string[] => {
      const list = 'Tuple' in expr ? (expr.Tuple as AstExpr[]) : [expr];
      return list.map((item) => {
        if (!('Identifier' in item)) throw invalidSql('UNPIVOT takes column names, not expressions', positionOf(item));
        return item.Identifier.value;
      });
    };
    const values = names(ast.value);
    const columns = ast.columns.map(({ expr, alias }) => {
      const set = names(expr);
      if (set.length !== values.length) throw invalidSql(`UNPIVOT: each column set in IN must have ${values.length} column${values.length === 1 ? '' : 's'}, as the values columns`, positionOf(expr));
      if (alias && alias.quote_style !== "'" && alias.quote_style !== '"') throw invalidSql('a row value alias in UNPIVOT is a string literal', positionOf(expr));
      return { names: set, ...(alias ? { label: alias.value } : {}) };
    });
    this.refuseAliasColumns(ast.alias);
    const alias = ast.alias?.name.value;
    if (alias) scope.rangeVariables.add(alias.toLowerCase());
    return { kind: 'unpivot', input, values, name: ast.name.value, columns, includeNulls: ast.null_inclusion === 'IncludeNulls', ...(alias ? { alias } : {}), ...at(positionOf(ast.value)) };
  }

  protected table(ast: TableFactorVariants['Table'], scope: Scope): ir.Relation {
    const parts = ast.name.map((part) => part.Identifier.value);
    const name = parts.join('.');
    const position = positionOf(ast.name);
    if (ast.args !== undefined) {
      throw invalidSql(`table function ${name}(…) is not allowed; FROM takes sources and CTEs only`, position);
    }
    this.refuseIfPresent(ast.sample, 'TABLESAMPLE');
    this.refuseIfPresent(ast.version, 'FOR SYSTEM_TIME AS OF');
    if (ast.with_hints.length > 0 || ast.index_hints.length > 0 || ast.partitions.length > 0) {
      throw invalidSql(`table hints on ${name} are not supported`, position);
    }
    this.refuseAliasColumns(ast.alias);
    // An unaliased table is named by its last path part (`cloudflare.logs.prod` → prod).
    const alias = ast.alias?.name.value ?? parts[parts.length - 1] ?? name;
    scope.rangeVariables.add(alias.toLowerCase());
    if (parts.length === 1 && scope.ctes.has(name.toLowerCase())) return { kind: 'cte', name, alias, ...at(position) };
    const relation = this.options.resolveTable(name);
    const endpoint = relation === undefined ? this.options.readEndpoint?.(name, position) : undefined;
    if (endpoint) {
      for (const parameter of endpoint.parameters) this.parameters.add(parameter);
      return { kind: 'subquery', query: endpoint.query, alias };
    }
    if (relation === undefined) {
      const suggestion = closestName(name, [...scope.ctes, ...(this.options.tableNames?.() ?? [])]);
      if (suggestion) throw semanticError(`Table not found: ${name}; Did you mean ${suggestion}?`, position);
      const message = this.options.unknownTableMessage ?? 'table {name} is neither a source nor a CTE of this query';
      throw invalidSql(message.replace('{name}', name), position);
    }
    this.sources.add(name);
    return { kind: 'source', name, relation, alias };
  }

  protected refuseAliasColumns(alias: TableAlias | undefined): void {
    if (alias && alias.columns.length > 0) throw invalidSql('column lists in table aliases are not supported', positionOf(alias));
  }

  // ---- expressions ---------------------------------------------------------------------------

  expr(ast: AstExpr, scope: Scope): ir.Expr {
    const [kind, body] = variantOf<ExprVariants>(ast);
    switch (kind) {
      case 'Identifier':
        return this.identifier(body);
      case 'CompoundIdentifier':
        return { kind: 'ref', path: body.map((part) => part.value), ...at(body[0]?.span?.start) };
      case 'CompoundFieldAccess':
        return this.fieldAccess(body, scope);
      case 'Value':
        return this.value(body.value, body);
      case 'TypedString':
        return this.typedString(body);
      case 'Nested':
        return this.expr(body, scope);
      case 'BinaryOp': {
        const op = BINARY_OPERATORS[body.op];
        if (!op) throw invalidSql(`operator ${body.op} is not supported`, positionOf(body));
        return { kind: 'binary', op, left: this.expr(body.left, scope), right: this.expr(body.right, scope) };
      }
      case 'UnaryOp':
        if (body.op === 'Not') return { kind: 'not', expr: this.expr(body.expr, scope) };
        // INT64's least value is written negated: its digits alone are past INT64's range.
        if (body.op === 'Minus' && integerLiteralText(body.expr) === INT64_MIN_DIGITS) return { kind: 'negate', expr: { kind: 'number', text: INT64_MIN_DIGITS } };
        if (body.op === 'Minus') return { kind: 'negate', expr: this.expr(body.expr, scope) };
        if (body.op === 'Plus') return this.expr(body.expr, scope);
        throw invalidSql(`unary operator ${body.op} is not supported`, positionOf(body));
      case 'IsNull':
      case 'IsNotNull':
        return { kind: 'is', test: 'null', negated: kind === 'IsNotNull', expr: this.expr(body, scope) };
      case 'IsTrue':
      case 'IsNotTrue':
        return { kind: 'is', test: 'true', negated: kind === 'IsNotTrue', expr: this.expr(body, scope) };
      case 'IsFalse':
      case 'IsNotFalse':
        return { kind: 'is', test: 'false', negated: kind === 'IsNotFalse', expr: this.expr(body, scope) };
      case 'IsDistinctFrom':
      case 'IsNotDistinctFrom':
        return {
          kind: 'distinct_from',
          negated: kind === 'IsNotDistinctFrom',
          left: this.expr(body[0], scope),
          right: this.expr(body[1], scope),
        };
      case 'Like':
        return this.like(body, scope);
      case 'Between':
        return {
          kind: 'between',
          negated: body.negated,
          expr: this.expr(body.expr, scope),
          low: this.expr(body.low, scope),
          high: this.expr(body.high, scope),
        };
      case 'InList':
        return {
          kind: 'in_list',
          negated: body.negated,
          expr: this.expr(body.expr, scope),
          list: body.list.map((item) => this.expr(item, scope)),
        };
      case 'InSubquery':
        return { kind: 'in_subquery', negated: body.negated, expr: this.expr(body.expr, scope), query: this.subquery(body.subquery, scope) };
      case 'InUnnest':
        return { kind: 'in_unnest', negated: body.negated, expr: this.expr(body.expr, scope), array: this.expr(body.array_expr, scope) };
      case 'Exists':
        return { kind: 'exists', negated: body.negated, query: this.subquery(body.subquery, scope) };
      case 'Subquery':
        return { kind: 'subquery', query: this.subquery(body, scope) };
      case 'Case':
        return {
          kind: 'case',
          ...(body.operand ? { operand: this.expr(body.operand, scope) } : {}),
          whens: body.conditions.map((when) => ({ when: this.expr(when.condition, scope), then: this.expr(when.result, scope) })),
          ...(body.else_result ? { else: this.expr(body.else_result, scope) } : {}),
        };
      case 'Cast':
        return this.cast(body, scope);
      case 'Extract':
        return this.extract(body, scope);
      case 'Function':
        return isGroupingCall(body) ? this.grouping(body, scope) : this.call(body, scope);
      case 'Interval':
        return this.interval(body, scope);
      case 'Array':
        return { kind: 'array', elements: namedLikeFirstStruct(body.elem.map((element) => this.expr(element, scope))) };
      case 'Struct': {
        const struct: ir.Expr = {
          kind: 'struct',
          fields: body.values.map((value) => {
            if ('Named' in value) return { name: value.Named.name.value, value: this.expr(value.Named.expr, scope) };
            return { value: this.expr(value, scope) };
          }),
        };
        if (body.fields.length === 0) return struct;
        // STRUCT<a INT64, b STRING>(1, 'x'): the values take the written fields' names and types.
        const type = { struct: this.structFields(body.fields, body) };
        if (body.values.length !== type.struct.length) {
          throw invalidSql(`STRUCT<…> has ${type.struct.length} fields but ${body.values.length} values`, positionOf(body));
        }
        return typedValue(struct, type);
      }
      // `(1, 'a')`: BigQuery's tuple syntax for a STRUCT with anonymous fields.
      case 'Tuple':
        return { kind: 'struct', fields: body.map((value) => ({ value: this.expr(value, scope) })) };
      // The grammar gives these functions their own nodes; they are ordinary calls in BigQuery.
      case 'Substring':
        return this.builtin('substr', [body.expr, body.substring_from, body.substring_for], scope, body);
      case 'Floor':
      case 'Ceil':
        if (!isNoDateTimeField(body.field)) throw invalidSql(`${kind.toUpperCase()}(… TO …) is not supported`, positionOf(body));
        return this.builtin(kind === 'Floor' ? 'floor' : 'ceil', [body.expr], scope, body);
      case 'Trim':
        if (body.trim_where !== undefined || body.trim_what !== undefined) throw invalidSql('TRIM(BOTH/LEADING … FROM …) is not supported', positionOf(body));
        return this.builtin('trim', [body.expr, ...(body.trim_characters ?? [])], scope, body);
      default:
        throw invalidSql(`${describeVariant(kind)} expressions are not supported`, positionOf(body));
    }
  }

  /**
   * `x [NOT] LIKE pattern`, and the quantified forms `LIKE ANY|SOME|ALL` of a list, of
   * `UNNEST(array)` or of a subquery (quantified-like.ts).
   */
  protected like(ast: ExprVariants['Like'], scope: Scope): ir.Expr {
    this.refuseIfPresent(ast.escape_char, 'LIKE … ESCAPE');
    const value = this.expr(ast.expr, scope);
    const [kind, pattern] = variantOf<ExprVariants>(ast.pattern);
    const quantifierCall = kind === 'Function' ? pattern.name.map((part) => part.Identifier.value.toUpperCase()).join('.') : undefined;
    if (!ast.any && quantifierCall !== 'ALL' && quantifierCall !== 'SOME') {
      return { kind: 'like', negated: ast.negated, expr: value, pattern: this.expr(ast.pattern, scope) };
    }
    const all = ast.any ? this.notes?.at(positionOf(ast.pattern)) === 'like_all' : quantifierCall === 'ALL';
    const like = { value, all, negated: ast.negated };
    if (!ast.any) return quantifiedLike({ ...like, patterns: { list: this.plainArgs(pattern as AstFunction, quantifierCall!).map((arg) => this.expr(arg, scope)) } });
    if (kind === 'Tuple') return quantifiedLike({ ...like, patterns: { list: pattern.map((item) => this.expr(item, scope)) } });
    if (kind === 'Subquery') return quantifiedLike({ ...like, patterns: { query: this.subquery(pattern, scope) } });
    if (kind === 'Function' && quantifierCall === 'UNNEST') {
      const [array, ...more] = this.plainArgs(pattern, 'UNNEST');
      if (!array || more.length > 0) throw invalidSql('UNNEST takes exactly one array', positionOf(pattern));
      return quantifiedLike({ ...like, patterns: { array: this.expr(array, scope) } });
    }
    return quantifiedLike({ ...like, patterns: { list: [this.expr(ast.pattern, scope)] } });
  }

  /**
   * EXTRACT(part FROM x [AT TIME ZONE tz]); DATE, TIME and DATETIME are the functions of those
   * names (the wall clock in the zone, UTC without one).
   */
  protected extract(ast: ExprVariants['Extract'], scope: Scope): ir.Expr {
    const atZone = 'AtTimeZone' in ast.expr ? ast.expr.AtTimeZone : undefined;
    const value = this.expr(atZone ? atZone.timestamp : ast.expr, scope);
    const zone = atZone ? [this.expr(atZone.time_zone, scope)] : [];
    const key = typeof ast.field === 'string' ? ast.field.toLowerCase() : undefined;
    const call = (fn: 'date' | 'time' | 'datetime'): ir.Expr => ({ kind: 'call', fn, args: [value, ...zone], distinct: false });
    if (key === 'time' || key === 'datetime') return call(key);
    if (key === 'date' && atZone) return call('date');
    const weekStart = this.weekStartOf(ast.field, ast);
    const part = weekStart ? 'week' : this.datePartOf(ast.field, ast);
    return { kind: 'extract', part, expr: atZone ? call('datetime') : value, ...(weekStart && weekStart !== 'sunday' ? { weekStart } : {}) };
  }

  /** The weekday of `WEEK(<weekday>)` written as EXTRACT's part (lower case), if that is the part. */
  protected weekStartOf(field: unknown, node: unknown): string | undefined {
    const day = field && typeof field === 'object' ? (field as { Week?: Ident | null }).Week : undefined;
    if (!day) return undefined;
    const weekday = WEEKDAYS.find((name) => name === day.value.toLowerCase());
    if (!weekday) throw invalidSql('WEEK(<weekday>) takes one of SUNDAY, MONDAY … SATURDAY', positionOf(node));
    return weekday;
  }

  /** `GROUPING(key)`: which grouping set a row comes from (tied to the GROUP BY clause, so not a catalog function). */
  protected grouping(fn: AstFunction, scope: Scope): ir.Expr {
    const args = this.plainArgs(fn, 'GROUPING');
    if (args.length !== 1 || fn.over) throw invalidSql('GROUPING takes one grouping key', positionOf(fn));
    return { kind: 'grouping', expr: this.expr(args[0]!, scope), ...at(positionOf(fn.name)) };
  }

  protected builtin(fn: 'substr' | 'floor' | 'ceil' | 'trim', args: Array<AstExpr | undefined>, scope: Scope, node: unknown): ir.Expr {
    const present = args.filter((arg): arg is AstExpr => arg !== undefined);
    const position = positionOf(node);
    return { kind: 'call', fn, args: present.map((arg) => this.expr(arg, scope)), distinct: false, ...(position ? { at: position } : {}) };
  }

  protected identifier(ident: Ident): ir.Expr {
    if (ident.quote_style === undefined && ident.value.startsWith('@')) {
      const match = PARAMETER_NAME.exec(ident.value);
      if (!match?.[1]) throw invalidSql(`${ident.value} is not a valid query parameter`, ident.span?.start);
      this.parameters.add(parameterName(match[1], ident.span?.start));
      return { kind: 'param', name: match[1] };
    }
    return { kind: 'ref', path: [ident.value], ...at(ident.span?.start) };
  }

  protected value(value: AstValue, node: unknown): ir.Expr {
    const [kind, body] = variantOf<ValueVariants>(value);
    switch (kind) {
      case 'Number':
        // BigQuery has no UINT64: an integer literal past INT64's range is refused.
        if (/^\d+$/.test(body[0]) && BigInt(body[0]) >= BigInt(INT64_MIN_DIGITS)) throw invalidSql(`Invalid integer literal: ${body[0]}`, positionOf(node));
        return { kind: 'number', text: body[0] };
      case 'SingleQuotedString':
      case 'DoubleQuotedString':
      case 'TripleSingleQuotedString':
      case 'TripleDoubleQuotedString':
      case 'SingleQuotedRawStringLiteral':
      case 'DoubleQuotedRawStringLiteral':
        return { kind: 'string', value: body };
      // Bytes literals arrive as the hex of their bytes (preparse.ts).
      case 'SingleQuotedByteStringLiteral':
      case 'DoubleQuotedByteStringLiteral':
      case 'TripleSingleQuotedByteStringLiteral':
      case 'TripleDoubleQuotedByteStringLiteral':
      case 'SingleQuotedRawByteStringLiteral':
      case 'DoubleQuotedRawByteStringLiteral':
        return { kind: 'typed_literal', type: 'BYTES', value: String(body) };
      case 'Boolean':
        return { kind: 'bool', value: body };
      case 'Null':
        return { kind: 'null' };
      case 'Placeholder':
        throw invalidSql(`positional parameter ${body} is not supported; use @name`, positionOf(node));
      default:
        throw invalidSql(`${describeVariant(kind)} literals are not supported`, positionOf(node));
    }
  }

  protected typedString(ast: ExprVariants['TypedString']): ir.Expr {
    const type = this.typeName(ast.data_type, ast);
    const literal = this.value(ast.value.value, ast);
    if (typeof type !== 'string' || literal.kind !== 'string') throw invalidSql('this typed literal is not supported', positionOf(ast));
    if (type === 'JSON') return { kind: 'typed_literal', type, value: jsonLiteral(literal.value, positionOf(ast)) };
    return { kind: 'typed_literal', type, value: literal.value };
  }

  protected subquery(ast: AstQuery, scope: Scope): ir.Query {
    // A subquery sees the CTEs and, for correlation, the enclosing range variables.
    return this.query(ast, { ctes: scope.ctes, rangeVariables: scope.rangeVariables, expressionSubquery: true });
  }

  /**
   * Field access and subscripts: `t.metadata[OFFSET(0)].request`, `arr[SAFE_OFFSET(1)]`,
   * `approx_quantiles(x, 100)[OFFSET(95)]`, and a value table's positional field `t[0]`.
   */
  protected fieldAccess(ast: ExprVariants['CompoundFieldAccess'], scope: Scope): ir.Expr {
    let current = this.expr(ast.root, scope);
    const rootIsRangeVariable =
      current.kind === 'ref' && current.path.length === 1 && scope.rangeVariables.has((current.path[0] ?? '').toLowerCase());
    ast.access_chain.forEach((access, index) => {
      if ('Dot' in access) {
        current = this.dot(current, access);
        return;
      }
      const subscript = (access as AccessSubscript).Subscript.Index;
      if (!subscript) throw invalidSql('array slices are not supported', positionOf(access));
      const plainPosition = integerLiteral(subscript.index);
      if (index === 0 && rootIsRangeVariable && plainPosition !== undefined) {
        current = { kind: 'field_at', base: current, position: plainPosition };
        return;
      }
      current = this.subscript(current, subscript.index, scope);
    });
    return current;
  }

  protected dot(base: ir.Expr, access: AccessDot): ir.Expr {
    const target = access.Dot;
    if (!('Identifier' in target)) throw invalidSql('only field names may follow "."', positionOf(target));
    const name = target.Identifier.value;
    if (base.kind === 'ref') return { ...base, path: [...base.path, name] };
    return { kind: 'field', base, name };
  }

  protected subscript(base: ir.Expr, indexAst: AstExpr, scope: Scope): ir.Expr {
    let mode: ir.SubscriptMode = 'offset';
    let inner = indexAst;
    if ('Function' in indexAst) {
      const fn = indexAst.Function;
      const name = fn.name.map((part) => part.Identifier.value).join('.').toLowerCase();
      const modes: Record<string, ir.SubscriptMode> = {
        offset: 'offset',
        ordinal: 'ordinal',
        safe_offset: 'safe_offset',
        safe_ordinal: 'safe_ordinal',
      };
      const known = modes[name];
      if (known) {
        const args = this.plainArgs(fn, name);
        if (args.length !== 1 || !args[0]) throw invalidSql(`${name.toUpperCase()} takes one index`, positionOf(fn));
        mode = known;
        inner = args[0];
      }
    }
    if (base.kind === 'quantiles' && (mode === 'offset' || mode === 'ordinal')) {
      const position = integerLiteral(inner);
      const offset = position === undefined ? undefined : mode === 'offset' ? position : position - 1;
      if (offset !== undefined) {
        if (offset < 0 || offset > base.buckets) throw invalidSql(`quantile offset ${offset} is outside 0..${base.buckets}`, positionOf(inner));
        const { distinct, respectNulls } = base;
        return { kind: 'quantile', expr: base.expr, fraction: offset / base.buckets, ...(base.over ? { over: base.over } : {}), ...(distinct ? { distinct } : {}), ...(respectNulls ? { respectNulls } : {}) };
      }
    }
    return { kind: 'subscript', base, index: this.expr(inner, scope), mode, ...(inner === indexAst ? { bare: true } : {}) };
  }

  protected cast(ast: ExprVariants['Cast'], scope: Scope): ir.Expr {
    // `x::type` is Postgres syntax, but Supabase Studio sends it (`event_message::text`): a CAST.
    if (ast.kind === 'TryCast') throw invalidSql('TRY_CAST is not BigQuery syntax; use SAFE_CAST', positionOf(ast));
    const type = this.typeName(ast.data_type, ast);
    const value = this.expr(ast.expr, scope);
    const format = this.castFormat(ast.format, ast);
    if (format) return { kind: 'cast', expr: value, type, safe: ast.kind === 'SafeCast', format };
    // A literal array or struct cast to a type (what `ARRAY<T>[…]` becomes, preparse.ts) is
    // built with that type element by element, as BigQuery types a literal.
    if (ast.kind === 'Cast' && typeof type !== 'string' && (value.kind === 'array' || value.kind === 'struct')) return typedValue(value, type);
    return { kind: 'cast', expr: value, type, safe: ast.kind === 'SafeCast' };
  }

  /** CAST … FORMAT 'model' [AT TIME ZONE 'zone']: both string literals. */
  protected castFormat(format: unknown, node: unknown): { model: string; zone?: string } | undefined {
    if (format === undefined || format === null) return undefined;
    const wrapped = format as { Value?: { value: AstValue }; ValueAtTimeZone?: [{ value: AstValue }, { value: AstValue }] };
    const [model, zone] = wrapped.Value ? [wrapped.Value, undefined] : (wrapped.ValueAtTimeZone ?? []);
    const text = (value: { value: AstValue } | undefined) => {
      const literal = value ? this.value(value.value, node) : undefined;
      if (literal?.kind !== 'string') throw invalidSql('CAST … FORMAT takes its format (and AT TIME ZONE its zone) as a string literal', positionOf(node));
      return literal.value;
    };
    return { model: text(model), ...(zone ? { zone: text(zone) } : {}) };
  }

  protected structFields(fields: AstStructField[], node: unknown): ir.StructFieldType[] {
    return fields.map((field) => ({ ...(field.field_name ? { name: field.field_name.value } : {}), type: this.typeName(field.field_type, node) }));
  }

  protected typeName(type: AstDataType, node: unknown): ir.TypeName {
    const key = typeof type === 'string' ? type : Object.keys(type)[0] ?? '';
    const scalars: Record<string, ir.ScalarTypeName> = {
      Int64: 'INT64',
      Integer: 'INT64',
      Int: 'INT64',
      BigInt: 'INT64',
      Float64: 'FLOAT64',
      Float: 'FLOAT64',
      Double: 'FLOAT64',
      Numeric: 'NUMERIC',
      Decimal: 'NUMERIC',
      BigNumeric: 'BIGNUMERIC',
      String: 'STRING',
      // Postgres spellings, reached through `::` casts.
      Text: 'STRING',
      Varchar: 'STRING',
      Bytes: 'BYTES',
      Bool: 'BOOL',
      Boolean: 'BOOL',
      Datetime: 'DATETIME',
      Date: 'DATE',
      JSON: 'JSON',
      Interval: 'INTERVAL',
    };
    const scalar = scalars[key];
    if (scalar) return scalar;
    if (key === 'Timestamp' || key === 'Time') {
      const zone = typeof type === 'object' ? (type[key] as [unknown, string])[1] : 'None';
      if (zone !== 'None') throw invalidSql(`type ${key.toUpperCase()} with a time zone clause is not BigQuery syntax`, positionOf(node));
      return key === 'Timestamp' ? 'TIMESTAMP' : 'TIME';
    }
    if (key === 'Array' && typeof type === 'object') {
      const inner = type.Array as Record<string, AstDataType> | undefined;
      const element = inner && 'AngleBracket' in inner ? inner.AngleBracket : undefined;
      if (element !== undefined) return { array: this.typeName(element, node) };
    }
    if (key === 'Struct' && typeof type === 'object') {
      const [fields] = type.Struct as [AstStructField[], unknown];
      return { struct: this.structFields(fields, node) };
    }
    throw invalidSql(`type ${key || JSON.stringify(type)} is not supported`, positionOf(node));
  }

  protected interval(ast: ExprVariants['Interval'], scope: Scope): ir.Expr {
    if (ast.leading_field === undefined) throw invalidSql('INTERVAL needs a unit (INTERVAL n HOUR)', positionOf(ast));
    const unit = this.datePartOf(ast.leading_field, ast);
    const text = 'Value' in ast.value && typeof ast.value.Value.value === 'object' ? this.value(ast.value.Value.value, ast) : undefined;
    if (ast.last_field !== undefined || text?.kind === 'string') return this.intervalText(ast, unit, text);
    if (unit === 'date' || unit === 'dayofweek' || unit === 'dayofyear' || unit === 'isoweek' || unit === 'isoyear') {
      throw invalidSql(`INTERVAL unit ${unit.toUpperCase()} is not supported`, positionOf(ast));
    }
    return { kind: 'interval', value: this.expr(ast.value, scope), unit };
  }

  /**
   * `INTERVAL '1-2 3 4:5:6' YEAR TO SECOND` and `INTERVAL '10' DAY`: the text is read now
   * (interval-text.ts); a whole count of one part stays `INTERVAL n part`, what DATE_ADD takes.
   */
  protected intervalText(ast: ExprVariants['Interval'], unit: ir.DatePart, text: ir.Expr | undefined): ir.Expr {
    if (text?.kind !== 'string') throw invalidSql('an INTERVAL with a range of parts is written as a string literal', positionOf(ast));
    const last = ast.last_field !== undefined ? this.datePartOf(ast.last_field, ast) : unit;
    const parts = readIntervalText(text.value, unit, last);
    if (!parts) throw semanticError(`Invalid interval literal '${text.value}'`, positionOf(ast));
    const single = /^[+-]?\d+$/.exec(text.value.trim());
    if (last === unit && single) {
      const count = Number(text.value.trim());
      const number: ir.Expr = { kind: 'number', text: String(Math.abs(count)) };
      return { kind: 'interval', value: count < 0 ? { kind: 'negate', expr: number } : number, unit };
    }
    const literal = (value: number | bigint): ir.Expr => (value < 0 ? { kind: 'negate', expr: { kind: 'number', text: String(-value) } } : { kind: 'number', text: String(value) });
    return { kind: 'call', fn: 'interval_parts', args: [literal(parts.months), literal(parts.days), literal(parts.micros)], distinct: false };
  }

  /** Date parts arrive as strings (`"Hour"`), one-key objects (`{Week: …}`) or identifiers. */
  protected datePartOf(field: unknown, node: unknown): ir.DatePart {
    const key = typeof field === 'string' ? field : field && typeof field === 'object' ? Object.keys(field)[0] : undefined;
    if (key === 'Week' && field && typeof field === 'object' && (field as { Week?: Ident }).Week) {
      throw invalidSql('WEEK(<weekday>) is not supported; use WEEK or ISOWEEK', positionOf(node));
    }
    const part = key ? DATE_PARTS[key.toLowerCase()] : undefined;
    if (!part) throw invalidSql(`date part ${key ?? String(field)} is not supported`, positionOf(node));
    return part;
  }

  protected plainArgs(fn: AstFunction, name: string): AstExpr[] {
    if (fn.args === 'None') return [];
    if (!('List' in fn.args)) throw invalidSql(`${name}(subquery) is not supported`, positionOf(fn));
    return fn.args.List.args.map((arg: FunctionArg) => {
      if ('Unnamed' in arg && typeof arg.Unnamed === 'object' && 'Expr' in arg.Unnamed) return arg.Unnamed.Expr;
      throw invalidSql(`named or * arguments to ${name} are not supported`, positionOf(fn));
    });
  }

  protected call(fn: AstFunction, scope: Scope): ir.Expr {
    const parts = fn.name.map((part) => part.Identifier.value);
    const position = positionOf(fn.name);
    const safe = parts.length > 1 && parts[0]?.toLowerCase() === 'safe';
    const written = (safe ? parts.slice(1) : parts).join('.');
    const name = written.toLowerCase();
    if (fn.parameters !== undefined && fn.parameters !== 'None') throw invalidSql(`parametric function ${written} is not supported`, position);
    this.refuseIfPresent(fn.filter, 'FILTER (WHERE …)');
    if (fn.within_group.length > 0) throw invalidSql('WITHIN GROUP is not supported', position);

    if (name === 'array' && !safe && fn.args !== 'None' && 'Subquery' in fn.args) {
      return { kind: 'array_subquery', query: this.subquery(fn.args.Subquery, scope) };
    }
    const distinct = fn.args !== 'None' && 'List' in fn.args && fn.args.List.duplicate_treatment === 'Distinct';
    const over = fn.over ? this.window(fn.over, scope, written) : undefined;

    if (name === 'if' && !safe) {
      if (over || distinct) throw invalidSql('IF cannot take DISTINCT or OVER', position);
      const [condition, then, otherwise, ...extra] = this.plainArgs(fn, written).map((arg) => this.expr(arg, scope));
      if (!condition || !then || !otherwise || extra.length > 0) throw invalidSql('IF takes 3 arguments', position);
      return { kind: 'case', whens: [{ when: condition, then }], else: otherwise };
    }
    const modifiers = this.callModifiers(fn, name, written, scope);
    if (name === 'approx_quantiles') {
      if (modifiers.orderBy || modifiers.limit !== undefined || modifiers.having || safe) throw invalidSql(`this form of ${written} is not supported`, position);
      return this.approxQuantiles(fn, scope, over, { distinct, respectNulls: modifiers.ignoreNulls === false });
    }

    const known = lookupFunction(name);
    if (!known) throw this.unknownFunction(name, written, position);
    const { entry } = known;
    if (safe && entry.kind !== 'scalar') throw invalidSql(`the SAFE. prefix (SAFE.${written}) is only for scalar functions`, position);
    this.checkClauses(entry, written, position, { distinct, over, modifiers });
    if (entry.kind === 'window' && !over) throw invalidSql(`${written} needs an OVER clause`, position);

    const isCountStar = name === 'count' && fn.args !== 'None' && 'List' in fn.args && isOnlyWildcard(fn.args.List.args);
    const { positional, named } = isCountStar ? { positional: [], named: [] } : this.callArguments(fn, written);
    if (name === 'count' && positional.length === 0 && !isCountStar) throw invalidSql('COUNT needs an argument or *', position);
    const partsAt = datePartPositions(entry);
    const keywordsAt = enumPositions(entry);
    const args = positional.map((arg, index) => {
      if (partsAt.has(index) && isDatePartKeyword(arg)) return this.datePartArgument(arg);
      // A keyword of the set the function takes there (NORMALIZE(x, NFKC)) goes on as its name.
      const keyword = 'Identifier' in arg && arg.Identifier.quote_style === undefined ? arg.Identifier.value.toUpperCase() : undefined;
      if (keyword !== undefined && keywordsAt.get(index)?.has(keyword)) return { kind: 'string', value: keyword } satisfies ir.Expr;
      return this.expr(arg, scope);
    });
    return {
      kind: 'call',
      fn: known.name,
      args,
      distinct,
      ...(named.length > 0 ? { named: named.map((arg) => ({ name: arg.name, value: this.expr(arg.value, scope) })) } : {}),
      ...(position ? { at: position } : {}),
      ...(over ? { over } : {}),
      ...(isCountStar ? { star: true } : {}),
      ...(modifiers.orderBy ? { orderBy: modifiers.orderBy } : {}),
      ...(modifiers.limit !== undefined ? { limit: modifiers.limit } : {}),
      ...(modifiers.ignoreNulls !== undefined ? { ignoreNulls: modifiers.ignoreNulls } : {}),
      ...(modifiers.having ? { having: modifiers.having } : {}),
      ...(safe ? { safe: true } : {}),
    };
  }

  /** A function the catalog does not have: a family Sawmill leaves out, a typo of a known one, or unknown. */
  protected unknownFunction(name: string, written: string, position: Position | undefined): Error {
    const family = outOfScopeFamily(name);
    if (family) return invalidSql(`function ${written} is not supported: Sawmill does not implement BigQuery's ${family}`, position);
    // A near miss of a function we know is most likely a typo: say so in BigQuery's words.
    const suggestion = closestName(name, Object.keys(BIGQUERY_FUNCTIONS));
    if (suggestion) return semanticError(`Function not found: ${written}; Did you mean ${suggestion}?`, position);
    return invalidSql(`function ${written} is not supported`, position);
  }

  /** Each clause written in or after the call's parentheses must be one the function takes. */
  protected checkClauses(
    entry: FunctionEntry,
    written: string,
    position: Position | undefined,
    call: { distinct: boolean; over: ir.WindowSpec | undefined; modifiers: CallModifiers },
  ): void {
    const takes = (clause: Clause) => entry.clauses.has(clause);
    if (call.over && !takes('over')) throw invalidSql(`${written} is not an aggregate or window function`, position);
    if (call.distinct && !takes('distinct')) throw invalidSql(`DISTINCT is not allowed in ${written}`, position);
    const { orderBy, limit, ignoreNulls, having } = call.modifiers;
    if ((orderBy && !takes('order_by')) || (limit !== undefined && !takes('limit')) || ((orderBy || limit !== undefined) && call.over)) {
      throw invalidSql(`ORDER BY / LIMIT inside ${written}(…) is not supported`, position);
    }
    if (ignoreNulls !== undefined && !takes('null_treatment')) throw invalidSql(`IGNORE/RESPECT NULLS in ${written}(…) is not supported`, position);
    if (having && (!takes('having') || call.over)) throw invalidSql(`HAVING MAX/MIN in ${written}(…) is not supported`, position);
    const window = call.over && entry.window;
    if (window) {
      const name = written.toLowerCase();
      if (window.order === 'required' && call.over!.orderBy.length === 0) throw semanticError(`Window ORDER BY is required for analytic function ${name}`, position);
      if (window.order === 'refused' && call.over!.orderBy.length > 0) throw semanticError(`Window ORDER BY is not allowed for analytic function ${name}`, position);
      if (!window.frame && call.over!.frame) throw semanticError(`Window framing clause is not allowed for analytic function ${name}`, position);
    }
  }

  /** Positional and named (`name => value`) arguments; `*` only where the caller handled it. */
  protected callArguments(fn: AstFunction, name: string): { positional: AstExpr[]; named: Array<{ name: string; value: AstExpr }> } {
    if (fn.args === 'None') return { positional: [], named: [] };
    if (!('List' in fn.args)) throw invalidSql(`${name}(subquery) is not supported`, positionOf(fn));
    const positional: AstExpr[] = [];
    const named: Array<{ name: string; value: AstExpr }> = [];
    for (const arg of fn.args.List.args as FunctionArg[]) {
      if ('Unnamed' in arg && typeof arg.Unnamed === 'object' && 'Expr' in arg.Unnamed) {
        if (named.length > 0) throw invalidSql(`in ${name}(…), positional arguments come before named ones`, positionOf(arg));
        positional.push(arg.Unnamed.Expr);
        continue;
      }
      const namedArg = 'Named' in arg ? arg.Named : undefined;
      const value = namedArg && typeof namedArg.arg === 'object' && 'Expr' in namedArg.arg ? namedArg.arg.Expr : undefined;
      if (!namedArg || !value || namedArg.operator !== 'RightArrow') throw invalidSql(`this form of argument to ${name} is not supported`, positionOf(fn));
      const key = namedArg.name.value.toLowerCase();
      if (named.some((other) => other.name === key)) throw invalidSql(`${name} is given the argument ${key} twice`, positionOf(arg));
      named.push({ name: key, value });
    }
    return { positional, named };
  }

  /** ORDER BY, LIMIT, IGNORE/RESPECT NULLS and HAVING MAX/MIN written inside a call's parentheses (or after them). */
  protected callModifiers(fn: AstFunction, name: string, written: string, scope: Scope): CallModifiers {
    const modifiers: CallModifiers = {};
    const treatment = (value: unknown) => {
      if (value === 'IgnoreNulls' || value === 'RespectNulls') modifiers.ignoreNulls = value === 'IgnoreNulls';
      else if (value !== undefined && value !== null && value !== 'None') throw invalidSql(`this form of ${written} is not supported`, positionOf(fn.name));
    };
    treatment(fn.null_treatment);
    const clauses = fn.args !== 'None' && 'List' in fn.args ? (fn.args.List.clauses as Array<Record<string, unknown>>) : [];
    for (const clause of clauses) {
      if ('IgnoreOrRespectNulls' in clause) treatment(clause.IgnoreOrRespectNulls);
      else if ('OrderBy' in clause) modifiers.orderBy = (clause.OrderBy as AstOrderByExpr[]).map((item) => this.orderItem(item, scope, []));
      else if ('Limit' in clause) {
        const limit = integerLiteral(clause.Limit as AstExpr);
        if (limit === undefined || limit < 0) throw invalidSql(`LIMIT inside ${name.toUpperCase()}(…) takes a non-negative integer literal`, positionOf(fn.name));
        modifiers.limit = limit;
      } else if ('Having' in clause) {
        const [bound, expr] = clause.Having as [string, AstExpr];
        modifiers.having = { max: bound === 'Max', expr: this.expr(expr, scope) };
      } else throw invalidSql(`this form of ${written}(…) is not supported`, positionOf(fn.name));
    }
    return modifiers;
  }

  /** A date-part keyword (`HOUR`), or `WEEK(<weekday>)`: weeks that start on that day. */
  protected datePartArgument(ast: AstExpr): ir.Expr {
    if ('Identifier' in ast) return { kind: 'date_part', part: this.datePartOf(ast.Identifier.value, ast) };
    const fn = (ast as { Function: AstFunction }).Function;
    const [day] = this.plainArgs(fn, 'WEEK');
    const weekday = day && 'Identifier' in day ? WEEKDAYS.find((name) => name === day.Identifier.value.toLowerCase()) : undefined;
    if (!weekday || this.plainArgs(fn, 'WEEK').length !== 1) throw invalidSql('WEEK(<weekday>) takes one of SUNDAY, MONDAY … SATURDAY', positionOf(fn));
    return { kind: 'date_part', part: 'week', weekStart: weekday };
  }

  protected approxQuantiles(fn: AstFunction, scope: Scope, over: ir.WindowSpec | undefined, modifiers: { distinct: boolean; respectNulls: boolean }): ir.Expr {
    const args = this.plainArgs(fn, 'approx_quantiles');
    const [valueAst, bucketsAst] = args;
    const buckets = bucketsAst ? integerLiteral(bucketsAst) : undefined;
    if (!valueAst || args.length !== 2 || buckets === undefined || buckets < 1) {
      throw invalidSql('APPROX_QUANTILES takes a value and a positive integer literal', positionOf(fn));
    }
    const { distinct, respectNulls } = modifiers;
    return { kind: 'quantiles', expr: this.expr(valueAst, scope), buckets, ...(over ? { over } : {}), ...(distinct ? { distinct } : {}), ...(respectNulls ? { respectNulls } : {}) };
  }

  protected window(over: NonNullable<AstFunction['over']>, scope: Scope, name: string): ir.WindowSpec {
    const spec = resolveWindow('WindowSpec' in over ? over.WindowSpec : { window_name: over.NamedWindow, partition_by: [], order_by: [] }, scope.windows, name);
    const window: ir.WindowSpec = {
      partitionBy: spec.partition_by.map((expr) => this.expr(expr, scope)),
      orderBy: spec.order_by.map((item) => this.orderItem(item, scope, [])),
    };
    const frame = spec.window_frame;
    if (frame) {
      if (frame.units === 'Groups') throw invalidSql('GROUPS window frames are not supported');
      window.frame = {
        units: frame.units === 'Rows' ? 'rows' : 'range',
        start: this.frameBound(frame.start_bound, scope, 'preceding'),
        ...(frame.end_bound ? { end: this.frameBound(frame.end_bound, scope, 'following') } : {}),
      };
    }
    return window;
  }

  protected frameBound(bound: AstWindowBound, scope: Scope, _side: 'preceding' | 'following'): ir.FrameBound {
    if (bound === 'CurrentRow') return { kind: 'current_row' };
    if ('Preceding' in bound) {
      return bound.Preceding ? { kind: 'preceding', offset: this.expr(bound.Preceding, scope) } : { kind: 'unbounded_preceding' };
    }
    const following = (bound as { Following?: AstExpr }).Following;
    return following ? { kind: 'following', offset: this.expr(following, scope) } : { kind: 'unbounded_following' };
  }

  protected refuseIfPresent(value: unknown, construct: string): void {
    if (value !== undefined && value !== null && value !== 'None' && !(Array.isArray(value) && value.length === 0)) {
      throw invalidSql(`${construct} is not supported`, positionOf(value));
    }
  }
}

/** `SELECT * FROM relation [WHERE where]`. */
function selectAll(relation: ir.Relation, where?: ir.Expr): ir.Query {
  const select: ir.Select = { distinct: false, items: [{ kind: 'star', except: [] }], from: { base: relation, steps: [] }, groupBy: [], ...(where ? { where } : {}) };
  return { ctes: [], body: { kind: 'select', select }, orderBy: [] };
}

/**
 * A literal array or struct with the given type: each element and field cast to its own type,
 * struct fields renamed by the type (BigQuery matches struct fields by position). An empty array
 * keeps the cast, as it has no element to carry the type.
 */
function typedValue(value: ir.Expr, type: ir.TypeName): ir.Expr {
  if (value.kind === 'array' && typeof type === 'object' && 'array' in type && value.elements.length > 0) {
    return { kind: 'array', elements: value.elements.map((element) => typedValue(element, type.array)) };
  }
  if (value.kind === 'struct' && typeof type === 'object' && 'struct' in type && value.fields.length === type.struct.length) {
    return {
      kind: 'struct',
      fields: value.fields.map((field, index) => {
        const fieldType = type.struct[index]!;
        return { ...(fieldType.name !== undefined ? { name: fieldType.name } : {}), value: typedValue(field.value, fieldType.type) };
      }),
    };
  }
  return { kind: 'cast', expr: value, type, safe: false };
}

/**
 * `[STRUCT(1 AS a, 2 AS b), (3, 4)]`: the elements take the type of the first struct element, so
 * the anonymous fields of the others take its names, position by position.
 */
function namedLikeFirstStruct(elements: ir.Expr[]): ir.Expr[] {
  const first = elements.find((element): element is Extract<ir.Expr, { kind: 'struct' }> => element.kind === 'struct' && element.fields.some((field) => field.name !== undefined));
  if (!first) return elements;
  return elements.map((element) => {
    if (element.kind !== 'struct' || element === first || element.fields.length !== first.fields.length) return element;
    return { ...element, fields: element.fields.map((field, index) => ({ ...field, name: field.name ?? first.fields[index]!.name })) };
  }) as ir.Expr[];
}

/** A SELECT's `WINDOW w AS (…)` definitions; each may build on one defined before it. */
function namedWindows(ast: AstSelect): ReadonlyMap<string, AstWindowSpec> | undefined {
  if (ast.named_window.length === 0) return undefined;
  const windows = new Map<string, AstWindowSpec>();
  for (const [name, definition] of ast.named_window) {
    const spec = 'WindowSpec' in definition ? definition.WindowSpec : { window_name: definition.NamedWindow, partition_by: [], order_by: [] };
    windows.set(name.value.toLowerCase(), resolveWindow(spec, windows, `window ${name.value}`));
  }
  return windows;
}

/**
 * A window spec with the named window it builds on merged in: that window's PARTITION BY, its
 * ORDER BY unless this one has its own, its frame unless this one has its own.
 */
function resolveWindow(spec: AstWindowSpec, windows: ReadonlyMap<string, AstWindowSpec> | undefined, where: string): AstWindowSpec {
  if (!spec.window_name) return spec;
  const base = windows?.get(spec.window_name.value.toLowerCase());
  if (!base) throw invalidSql(`window ${spec.window_name.value} is not defined (in ${where})`, spec.window_name.span?.start);
  if (spec.partition_by.length > 0) throw invalidSql(`a window built on ${spec.window_name.value} cannot have its own PARTITION BY`);
  const frame = spec.window_frame ?? base.window_frame;
  return { partition_by: base.partition_by, order_by: spec.order_by.length > 0 ? spec.order_by : base.order_by, ...(frame ? { window_frame: frame } : {}) };
}

/** A JSON literal's text as BigQuery holds it (keys sorted, the first of duplicates kept), or BigQuery's refusal. */
function jsonLiteral(text: string, position: Position | undefined): string {
  try {
    return jsonText(parseJson(text));
  } catch (error) {
    if (error instanceof JsonSyntaxError) throw semanticError(`Invalid JSON literal: ${error.message}`, position);
    throw error;
  }
}

/** The `at` of a ref, when the parser gave a position. */
/** 2^63: the digits of INT64's least value, -9223372036854775808. */
const INT64_MIN_DIGITS = '9223372036854775808';

/** The digits of an integer literal (`Value(Number)`), else undefined. */
function integerLiteralText(ast: AstExpr): string | undefined {
  return 'Value' in ast && 'Number' in ast.Value.value && /^\d+$/.test(ast.Value.value.Number[0]) ? ast.Value.value.Number[0] : undefined;
}

function at(position: Position | undefined): { at?: Position } {
  return position && position.line > 0 ? { at: { line: position.line, column: position.column } } : {};
}

function isNoDateTimeField(field: unknown): boolean {
  return field !== null && typeof field === 'object' && (field as { DateTimeField?: unknown }).DateTimeField === 'NoDateTime';
}

function implicitColumnName(expr: ir.Expr): string | undefined {
  if (expr.kind === 'ref') return expr.path[expr.path.length - 1];
  if (expr.kind === 'field') return expr.name;
  return undefined;
}

function relationAliasOf(factor: AstTableFactor): string | undefined {
  if ('Table' in factor) {
    const table = factor.Table as TableFactorVariants['Table'];
    return table.alias?.name.value ?? table.name[table.name.length - 1]?.Identifier.value;
  }
  if ('Derived' in factor) return (factor.Derived as TableFactorVariants['Derived']).alias?.name.value;
  if ('UNNEST' in factor) {
    const unnest = factor.UNNEST as TableFactorVariants['UNNEST'];
    const first = unnest.array_exprs[0];
    if (unnest.alias) return unnest.alias.name.value;
    if (first && 'CompoundIdentifier' in first) return first.CompoundIdentifier[first.CompoundIdentifier.length - 1]?.value;
    if (first && 'Identifier' in first) return first.Identifier.value;
  }
  return undefined;
}

function integerLiteral(ast: AstExpr): number | undefined {
  if ('Value' in ast && 'Number' in ast.Value.value) {
    const number = Number(ast.Value.value.Number[0]);
    return Number.isInteger(number) ? number : undefined;
  }
  return undefined;
}

function isGroupingCall(fn: AstFunction): boolean {
  return fn.name.length === 1 && fn.name[0]!.Identifier.value.toUpperCase() === 'GROUPING';
}

function isOnlyWildcard(args: FunctionArg[]): boolean {
  const [only] = args;
  return args.length === 1 && only !== undefined && 'Unnamed' in only && only.Unnamed === 'Wildcard';
}

/** The columns of `JOIN … USING (a, b)`, or undefined for another constraint. */
function usingColumns(constraint: JoinConstraint): string[] | undefined {
  if (typeof constraint !== 'object' || constraint === null || !('Using' in constraint)) return undefined;
  return constraint.Using.map((name) => {
    if (name.length !== 1 || !name[0]) throw invalidSql('USING takes plain column names');
    return name[0].Identifier.value;
  });
}

/** An UNNEST step that reads nothing of the rows before it, as a relation of its own. */
function unnestRelation(step: Extract<ir.FromStep, { kind: 'unnest' }>): ir.Relation {
  return { kind: 'unnest', array: step.array, alias: step.alias, ...(step.offsetAlias ? { offsetAlias: step.offsetAlias } : {}), ...(step.anonymous ? { anonymous: true } : {}) };
}

function isTrueLiteral(expr: ir.Expr): boolean {
  return expr.kind === 'bool' && expr.value;
}

/** `SetOperation` → `set operation`, `MatchAgainst` → `match against`, for messages. */
function describeVariant(kind: string): string {
  return String(kind)
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase();
}
