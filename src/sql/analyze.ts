/**
 * Semantic analysis: the lowered tree (ir.ts) resolved against the tables' columns, by BigQuery's
 * scoping rules, after ZetaSQL's resolver (and sqlglot's qualify + annotate_types):
 *
 * - a name path starts at a range variable of the SELECT (table alias, UNNEST alias) or of an
 *   enclosing one (correlation), else at a column of exactly one table range variable, else at a
 *   field of exactly one UNNEST element in scope (`UNNEST(m.request) AS r … WHERE path …`). A
 *   range variable shadows a column of the same name (`UNNEST(metadata) AS metadata`);
 * - GROUP BY, HAVING and ORDER BY may use SELECT-list aliases inside expressions too;
 * - every expression gets the BigQuery type known for it (columns, literals, common functions),
 *   and CTE and subquery outputs carry theirs to the queries that read them.
 *
 * The tree is rewritten so printers need not guess: every resolved path starts with its range
 * variable, an UNNEST alias that shares a name with a column is renamed, and aliases used inside
 * expressions are replaced by what they name. Errors use BigQuery's words with the position:
 * `Unrecognized name: event_mesage; Did you mean event_message? at [1:8]`.
 *
 * Where a table's columns are not known (a source without fields yet, a caller without a
 * catalog) names that could be its columns are left as written and nothing is refused.
 */

import { AppError } from '../errors.ts';
import { invalidSql } from './parse.ts';
import { childrenOf, containsWindow, groupByAll } from './analysis.ts';
import type { Position } from './ast.ts';
import { type Column, type SqlType, type TableShape, UNKNOWN, closestName, describeType, findColumn, scalar } from './catalog.ts';
import { sameType, supertype } from './functions/coercion.ts';
import { TEMPORAL_OPERATOR_OF } from './functions/families/interval.ts';
import { argumentType, functionEntry, resolveCall, type CallArgument, type FunctionName } from './functions/index.ts';
import type * as ir from './ir.ts';
import { pivotQuery, unpivotQuery } from './pivot.ts';

export interface AnalyzeOptions {
  /** The columns of a source, by the name the query wrote; undefined when unknown. */
  tableShape?(name: string): TableShape | undefined;
  /** Shapes of CTEs defined outside the query (sandboxing: the endpoint's). */
  outerCtes?: ReadonlyMap<string, TableShape>;
  /** Told the type of every expression resolved (a front end that rewrites by type after analysis). */
  typed?(expr: ir.Expr, type: SqlType): void;
}

/** A semantic error: 400 invalid_sql in BigQuery's words, ending `at [line:column]` when known. */
export function semanticError(message: string, position?: Position): AppError {
  const where = position ? ` at [${position.line}:${position.column}]` : '';
  return new AppError(400, 'invalid_sql', `${message}${where}`, position ? { line: position.line, column: position.column } : undefined);
}

interface RangeVariable {
  /** As written, lower case. */
  key: string;
  /** The name the printed query uses (the alias in the tree). */
  printed: string;
  /** The alias as written, where `printed` renamed it (an UNNEST alias that is also a column's name). */
  written?: string;
  /** A table's row (columns by name) or a value (an UNNEST element). */
  table?: TableShape;
  value?: SqlType;
  /** An UNNEST written without an alias: its struct fields are read as columns, never through its (made-up) name. */
  anonymous?: boolean;
  /** An UNNEST step without alias: its fields, read as columns, are printed through its made-up name. */
  qualifiedFields?: boolean;
  /** A FROM subquery without an alias, which gets one when a subquery reads its columns (correlation). */
  unnamed?: Extract<ir.Relation, { kind: 'subquery' }>;
}

interface Scope {
  variables: RangeVariable[];
  parent?: Scope;
  /** Columns named in JOIN … USING: one column, however many tables have it. */
  using?: Set<string>;
  /** The SELECT list a subquery of GROUP BY / HAVING / ORDER BY may name by alias (correlation). */
  aliases?: ir.SelectItem[];
}

type CteShapes = Map<string, TableShape>;

export function analyze(query: ir.Query, options: AnalyzeOptions = {}): TableShape {
  return new Analyzer(options).query(query, new Map(options.outerCtes ?? []), undefined);
}

const isAggregate = (fn: FunctionName) => functionEntry(fn).kind === 'aggregate';

class Analyzer {
  /** Each resolved ref's path from its range variable, also where the tree keeps it as written (grouping compares these). */
  private readonly qualified = new WeakMap<ir.Expr, string[]>();

  constructor(private readonly options: AnalyzeOptions) {}

  query(query: ir.Query, outerCtes: CteShapes, parent: Scope | undefined): TableShape {
    const ctes: CteShapes = new Map(outerCtes);
    for (const cte of query.ctes) ctes.set(cte.name.toLowerCase(), cte.recursive ? this.recursiveCte(cte, ctes) : this.query(cte.query, ctes, undefined));
    const { shape, scope, items } = this.setExpr(query.body, ctes, parent);
    // ORDER BY of a set operation names its output columns; only a plain SELECT's is resolved here.
    if (scope) {
      for (const item of query.orderBy) {
        const type = item.expr.kind === 'position' ? (shape.columns[item.expr.position - 1]?.type ?? UNKNOWN) : this.resolve(item.expr, scope, ctes, items);
        refuseJson(type, `ORDER BY does not support expressions of type ${describeType(type)}`, item.expr);
      }
    }
    for (const { expr } of query.orderBy) {
      if (expr.kind === 'position' && !shape.open && expr.position > shape.columns.length) throw invalidSql(`position ${expr.position} is not in the select list`);
    }
    return shape;
  }

  /** A recursive CTE has the columns of its base term, which the recursive term reads. */
  private recursiveCte(cte: ir.Cte, outer: CteShapes): TableShape {
    const ctes: CteShapes = new Map(outer);
    for (const inner of cte.query.ctes) ctes.set(inner.name.toLowerCase(), this.query(inner.query, ctes, undefined));
    const body = cte.query.body as Extract<ir.SetExpr, { kind: 'setop' }>;
    const shape = this.setExpr(body.left, ctes, undefined).shape;
    ctes.set(cte.name.toLowerCase(), shape);
    this.setExpr(body.right, ctes, undefined);
    return shape;
  }

  private setExpr(body: ir.SetExpr, ctes: CteShapes, parent: Scope | undefined): { shape: TableShape; scope?: Scope; items?: ir.SelectItem[] } {
    switch (body.kind) {
      case 'select': {
        const { shape, scope } = this.select(body.select, ctes, parent);
        return { shape, scope, items: body.select.items };
      }
      case 'nested':
        return { shape: this.query(body.query, ctes, parent) };
      case 'setop': {
        const left = this.setExpr(body.left, ctes, parent).shape;
        const right = this.setExpr(body.right, ctes, parent).shape;
        typeNullArrayColumns(body, [left, right]);
        const shape = setOperationShape(left, right);
        castToColumnTypes(body, [left, right], shape);
        return { shape };
      }
    }
  }

  private select(select: ir.Select, ctes: CteShapes, parent: Scope | undefined): { shape: TableShape; scope: Scope } {
    const scope: Scope = { variables: [], ...(parent ? { parent } : {}) };
    if (select.from) this.from(select.from, scope, ctes);
    const columns: Column[] = [];
    let open = false;
    const items: ir.SelectItem[] = [];
    for (const item of select.items) {
      if (item.kind === 'expr') {
        const type = this.resolve(item.expr, scope, ctes);
        if (select.distinct) refuseJson(type, `Column ${item.alias} of type ${describeType(type)} cannot be used in SELECT DISTINCT`, item.expr);
        columns.push({ name: item.alias, type });
        items.push(item);
        continue;
      }
      const star = this.star(item, scope, ctes, select.asStruct === true || select.groupByAll === true);
      if (star.explicit) items.push(...star.explicit);
      else items.push(item);
      if (star.columns) columns.push(...star.columns);
      else open = true;
    }
    select.items = items;
    if (select.groupByAll) {
      if (open) throw semanticError('GROUP BY ALL with SELECT * needs the names of its columns, which are not known here');
      select.groupBy = groupByAll(items);
      delete select.groupByAll;
    }
    if (select.asStruct) return { shape: { columns: [this.asStruct(select, columns)], open: false }, scope: this.rest(select, scope, ctes, columns) };
    return { shape: { columns, open }, scope: this.rest(select, scope, ctes, columns) };
  }

  /** The clauses after the select list. */
  private rest(select: ir.Select, scope: Scope, ctes: CteShapes, columns: Column[]): Scope {
    if (select.where) this.resolve(select.where, scope, ctes);
    for (const expr of select.groupBy) {
      const type = expr.kind === 'position' ? (columns[expr.position - 1]?.type ?? UNKNOWN) : this.resolve(expr, scope, ctes, select.items);
      refuseJson(type, `Grouping by expressions of type ${describeType(type)} is not allowed`, expr.kind === 'position' ? projectionAt(select, expr.position) : expr);
    }
    if (select.having) this.resolve(select.having, scope, ctes, select.items);
    if (select.qualify) this.resolve(select.qualify, scope, ctes, select.items);
    this.checkGrouping(select, scope);
    return scope;
  }

  /**
   * SELECT AS STRUCT: the select list (stars written out, one column each) becomes one struct
   * value; an anonymous column is an anonymous field.
   */
  private asStruct(select: ir.Select, columns: Column[]): Column {
    const fields = select.items.map((item, index) => {
      if (item.kind !== 'expr') throw semanticError('SELECT AS STRUCT * needs the names of its columns, which are not known here', item.at);
      return { ...(!item.aliasWritten && /^f\d+_$/.test(item.alias) ? {} : { name: item.alias }), value: item.expr, type: columns[index]!.type };
    });
    select.items = [{ kind: 'expr', expr: { kind: 'struct', fields: fields.map(({ type: _type, ...field }) => field) }, alias: '$struct', aliasWritten: false }];
    return { name: '$struct', type: { kind: 'struct', fields: fields.map((field, index) => ({ name: field.name ?? `_field_${index + 1}`, type: field.type })) } };
  }

  // ---- FROM ----------------------------------------------------------------------------------

  private from(from: ir.From, scope: Scope, ctes: CteShapes): void {
    this.relation(from.base, scope, ctes);
    for (const step of from.steps) {
      if (step.kind === 'unnest') {
        const type = this.resolve(step.array, scope, ctes);
        step.alias = this.addValue(scope, step.alias, elementOf(type), step.anonymous === true);
        if (step.anonymous) scope.variables.at(-1)!.qualifiedFields = true;
        if (step.offsetAlias) scope.variables.push({ key: step.offsetAlias.toLowerCase(), printed: step.offsetAlias, value: scalar('INT64') });
        if (step.condition) this.resolve(step.condition, scope, ctes);
        continue;
      }
      const left = scope.variables.length;
      this.relation(step.relation, scope, ctes);
      if (step.on) this.resolve(step.on, scope, ctes);
      for (const name of step.using ?? []) {
        checkUsing(name, 'left', scope.variables.slice(0, left));
        checkUsing(name, 'right', scope.variables.slice(left));
        (scope.using ??= new Set()).add(name.toLowerCase());
      }
    }
  }

  private relation(relation: ir.Relation, scope: Scope, ctes: CteShapes): void {
    switch (relation.kind) {
      case 'source': {
        const table = this.options.tableShape?.(relation.name) ?? { columns: [], open: true };
        scope.variables.push({ key: relation.alias.toLowerCase(), printed: relation.alias, table });
        return;
      }
      case 'cte': {
        const table = ctes.get(relation.name.toLowerCase()) ?? { columns: [], open: true };
        scope.variables.push({ key: relation.alias.toLowerCase(), printed: relation.alias, table });
        return;
      }
      case 'subquery': {
        // A FROM subquery sees the enclosing query's names (correlation), not this FROM's.
        const table = this.query(relation.query, ctes, scope.parent);
        // Without an alias its columns are still in scope, read unqualified.
        scope.variables.push({ key: relation.alias?.toLowerCase() ?? '', printed: relation.alias ?? '', table, ...(relation.alias ? {} : { unnamed: relation }) });
        return;
      }
      case 'pivot':
      case 'unpivot': {
        // Its query is written from the input's columns, then read like any FROM subquery.
        const probe: Scope = { variables: [], ...(scope.parent ? { parent: scope.parent } : {}) };
        this.relation(structuredClone(relation.input), probe, ctes);
        const input = probe.variables.length === 1 ? probe.variables[0]!.table : undefined;
        if (!input || input.open) throw semanticError(`${relation.kind.toUpperCase()} needs the columns of its input, which are not known here`, relation.at);
        const query = relation.kind === 'pivot' ? pivotQuery(relation, input.columns) : unpivotQuery(relation, input.columns);
        const { alias } = relation;
        for (const key of Object.keys(relation)) delete (relation as unknown as Record<string, unknown>)[key];
        Object.assign(relation, { kind: 'subquery', query, ...(alias ? { alias } : {}) });
        this.relation(relation, scope, ctes);
        return;
      }
      case 'unnest': {
        const type = this.resolve(relation.array, scope, ctes);
        const element = elementOf(type);
        relation.alias = this.addValue(scope, relation.alias, element, relation.anonymous === true);
        if (relation.anonymous && (element.kind === 'scalar' || element.kind === 'array')) relation.valueColumn = 'f0_';
        if (relation.offsetAlias) scope.variables.push({ key: relation.offsetAlias.toLowerCase(), printed: relation.offsetAlias, value: scalar('INT64') });
      }
    }
  }

  /**
   * An UNNEST alias. When a table in scope has a column of the same name, BigQuery's alias shadows
   * it, but an engine that keeps both side by side would not know which one a name means: the
   * alias is renamed (every use of it is resolved here, so all of them follow).
   */
  private addValue(scope: Scope, alias: string, type: SqlType, anonymous: boolean): string {
    if (anonymous) {
      scope.variables.push({ key: '', printed: alias, value: type, anonymous });
      return alias;
    }
    const key = alias.toLowerCase();
    const clashes = (name: string) =>
      scope.variables.some((variable) => variable.key === name.toLowerCase() || (variable.table && findColumn(variable.table.columns, name)));
    let printed = alias;
    if (clashes(alias)) {
      for (let suffix = 1; suffix < 1000 && clashes(printed); suffix++) printed = `${alias}_${suffix}`;
    }
    scope.variables.push({ key, printed, value: type, ...(printed !== alias ? { written: alias } : {}) });
    return printed;
  }

  private renamedQualifier(qualifier: string, scope: Scope): string {
    for (let at: Scope | undefined = scope; at; at = at.parent) {
      const found = at.variables.find((variable) => variable.key === qualifier.toLowerCase());
      if (found) return found.printed;
    }
    return qualifier;
  }

  /**
   * What a star stands for: its columns when known, and the explicit items that replace it where
   * an engine could not expand it as BigQuery does (UNNEST elements, a struct's fields, RENAME).
   * REPLACE expressions are resolved here; EXCEPT, REPLACE and RENAME must name its columns.
   */
  private star(item: ir.StarItem, scope: Scope, ctes: CteShapes, writeOut: boolean): { columns?: Column[]; explicit?: ir.SelectItem[] } {
    if (item.qualifier !== undefined) item.qualifier = this.renamedQualifier(item.qualifier, scope);
    const replaced = new Map((item.replace ?? []).map((entry) => [entry.name.toLowerCase(), { ...entry, type: this.resolve(entry.expr, scope, ctes) }]));
    const found = this.starSources(item, scope, ctes);
    if (!found) {
      if (item.rename) throw semanticError('RENAME needs the names of its input columns, which are not known here', item.at);
      return {};
    }
    const except = new Set(item.except.map((name) => name.toLowerCase()));
    const renames = new Map((item.rename ?? []).map(({ from, to }) => [from.toLowerCase(), to]));
    const names = new Set(found.columns.map((column) => column.name.toLowerCase()));
    for (const [list, written] of [[item.except, 'EXCEPT'], [(item.replace ?? []).map((entry) => entry.name), 'REPLACE']] as const) {
      const missing = list.find((name) => !names.has(name.toLowerCase()));
      if (missing) throw semanticError(`Column ${missing} in SELECT * ${written} list does not exist`, item.at);
    }
    const missingRename = (item.rename ?? []).find(({ from }) => !names.has(from.toLowerCase()));
    if (missingRename) throw semanticError(`Column ${missingRename.from} in RENAME does not exist`, item.at);
    const kept = found.columns.filter((column) => !except.has(column.name.toLowerCase()));
    const columns = kept.map((column) => {
      const replacement = replaced.get(column.name.toLowerCase());
      return { name: renames.get(column.name.toLowerCase()) ?? column.name, type: replacement ? replacement.type : column.type };
    });
    if (!found.explicit && !item.rename && !writeOut) return { columns };
    const explicit = kept.map((column, index): ir.SelectItem => {
      const replacement = replaced.get(column.name.toLowerCase());
      // Named like written aliases: ORDER BY may name them.
      return { kind: 'expr', expr: replacement ? replacement.expr : column.expr, alias: columns[index]!.name, aliasWritten: true };
    });
    return { columns, explicit };
  }

  /**
   * The columns a star reads, each with the expression that reads it, or undefined when some are
   * not known. `explicit`: whether they must be written out (an engine's own star would not
   * expand them as BigQuery does).
   */
  private starSources(item: ir.StarItem, scope: Scope, ctes: CteShapes): { columns: Array<Column & { expr: ir.Expr }>; explicit: boolean } | undefined {
    if (item.expr) {
      const type = this.resolve(item.expr, scope, ctes);
      if (type.kind === 'unknown') return undefined;
      if (type.kind !== 'struct') {
        // SELECT AS VALUE of a value without fields: one column.
        if (item.asValue) return { columns: [{ name: '$value', type, expr: item.expr }], explicit: true };
        throw semanticError(`Dot-star is not supported for type ${describeType(type)}`, item.at);
      }
      const base = item.expr;
      return { columns: type.fields.map((field) => ({ ...field, expr: base.kind === 'ref' ? { kind: 'ref', path: [...base.path, field.name] } : { kind: 'field', base, name: field.name } })), explicit: true };
    }
    let variables = item.qualifier === undefined ? scope.variables : scope.variables.filter((variable) => variable.printed === item.qualifier);
    const columns: Array<Column & { expr: ir.Expr }> = [];
    let explicit = false;
    // `outer.*` in a subquery (SELECT AS STRUCT t.* …): the outer row's columns, written out as correlated refs.
    for (let outer = scope.parent; variables.length === 0 && item.qualifier !== undefined && outer; outer = outer.parent) {
      variables = outer.variables.filter((variable) => variable.printed === item.qualifier);
      explicit = variables.length > 0;
    }
    for (const variable of variables) {
      const read = (name: string): ir.Expr => ({ kind: 'ref', path: variable.printed && (!variable.anonymous || variable.qualifiedFields) ? [variable.printed, name] : [name] });
      if (variable.table) {
        if (variable.table.open) return undefined;
        columns.push(...variable.table.columns.map((column) => ({ ...column, expr: read(column.name) })));
        continue;
      }
      const value = variable.value ?? UNKNOWN;
      if (value.kind === 'unknown') return undefined;
      if (variable.anonymous && !variable.qualifiedFields) {
        // Printed as a table of its fields (or of its one column, f0_), which the engine's star expands.
        columns.push(...(value.kind === 'struct' ? value.fields : [{ name: 'f0_', type: value }]).map((column) => ({ ...column, expr: read(column.name) })));
        continue;
      }
      // An UNNEST element: a struct's fields are columns, any other value one column named by the alias.
      explicit = true;
      if (value.kind === 'struct') columns.push(...value.fields.map((field) => ({ ...field, expr: read(field.name) })));
      else if (item.qualifier !== undefined) throw semanticError(`Dot-star is not supported for type ${describeType(value)}`, item.at);
      else columns.push({ name: variable.written ?? variable.printed, type: value, expr: { kind: 'ref', path: [variable.printed] } });
    }
    // JOIN … USING columns appear once under `*`: left to the engine's star.
    if (explicit && scope.using && item.qualifier === undefined) return undefined;
    return { columns, explicit };
  }

  // ---- names -----------------------------------------------------------------------------------

  /**
   * Resolve the names of `expr` in place and return its type. `items`: the SELECT list whose
   * aliases the expression may also use (GROUP BY, HAVING, QUALIFY, ORDER BY).
   */
  private resolve(expr: ir.Expr, scope: Scope, ctes: CteShapes, items?: ir.SelectItem[]): SqlType {
    const type = this.resolveType(expr, scope, ctes, items);
    this.options.typed?.(expr, type);
    return type;
  }

  private resolveType(expr: ir.Expr, scope: Scope, ctes: CteShapes, items?: ir.SelectItem[]): SqlType {
    const recurse = (child: ir.Expr) => this.resolve(child, scope, ctes, items);
    const inner: Scope = items ? { ...scope, aliases: items } : scope;
    switch (expr.kind) {
      case 'ref':
        return this.ref(expr, scope, items);
      case 'number':
        return scalar(/^\d+$/.test(expr.text) ? 'INT64' : 'FLOAT64');
      case 'string':
      case 'param':
        return scalar('STRING');
      case 'bool':
        return scalar('BOOL');
      case 'null':
      case 'date_part':
      case 'position':
        return UNKNOWN;
      case 'typed_literal':
        return scalar(expr.type);
      case 'binary': {
        const left = recurse(expr.left);
        const right = recurse(expr.right);
        const comparison = COMPARISON_NAMES[expr.op];
        if (comparison) for (const type of [left, right]) refuseJson(type, `${comparison} is not defined for arguments of type ${describeType(type)}`, expr);
        if (isScalar(left, 'FLOAT64') || isScalar(right, 'FLOAT64')) expr.floating = true;
        if (comparison) [expr.left, expr.right] = literalsAsTimes([expr.left, expr.right], [left, right]) as [ir.Expr, ir.Expr];
        if ((expr.op === '=' || expr.op === '!=') && left.kind === 'struct' && right.kind === 'struct') expr.structs = left;
        return this.temporalOperator(expr, left, right) ?? binaryType(expr.op, left, right);
      }
      case 'not':
      case 'is':
        recurse(expr.expr);
        return scalar('BOOL');
      case 'negate': {
        const type = recurse(expr.expr);
        if (!isScalar(type, 'INTERVAL')) return type;
        expr.temporal = this.operator('-', 'interval_negate', [expr.expr], [type]).call;
        return type;
      }
      case 'distinct_from':
        for (const side of [expr.left, expr.right]) {
          const type = recurse(side);
          refuseJson(type, `Grouping is not defined for arguments of type ${describeType(type)}`, expr);
        }
        return scalar('BOOL');
      case 'like':
        recurse(expr.expr);
        recurse(expr.pattern);
        return scalar('BOOL');
      case 'between': {
        const types = [expr.expr, expr.low, expr.high].map((side) => {
          const type = recurse(side);
          refuseJson(type, `BETWEEN is not defined for arguments of type ${describeType(type)}`, expr);
          if (isScalar(type, 'FLOAT64')) expr.floating = true;
          return type;
        });
        [expr.expr, expr.low, expr.high] = literalsAsTimes([expr.expr, expr.low, expr.high], types) as [ir.Expr, ir.Expr, ir.Expr];
        return scalar('BOOL');
      }
      case 'in_list': {
        const types = [expr.expr, ...expr.list].map((side) => {
          const type = recurse(side);
          refuseJson(type, `IN is not defined for arguments of type ${describeType(type)}`, expr);
          return type;
        });
        [expr.expr, ...expr.list] = literalsAsTimes([expr.expr, ...expr.list], types) as [ir.Expr, ...ir.Expr[]];
        return scalar('BOOL');
      }
      case 'in_unnest': {
        const type = recurse(expr.expr);
        recurse(expr.array);
        refuseJson(type, `IN is not defined for arguments of type ${describeType(type)}`, expr);
        if (type.kind === 'struct') expr.structs = type;
        return scalar('BOOL');
      }
      case 'in_subquery': {
        const type = recurse(expr.expr);
        this.query(expr.query, ctes, inner);
        refuseJson(type, `Cannot execute IN subquery with uncomparable types ${describeType(type)} and ${describeType(type)}`, expr);
        return scalar('BOOL');
      }
      case 'exists':
        this.query(expr.query, ctes, inner);
        return scalar('BOOL');
      case 'subquery': {
        const type = this.query(expr.query, ctes, inner).columns[0]?.type ?? UNKNOWN;
        const value = this.valueOfFromless(expr.query);
        if (value) replaceNode(expr, value);
        return type;
      }
      case 'array_subquery': {
        const element = this.query(expr.query, ctes, inner).columns[0]?.type ?? UNKNOWN;
        return { kind: 'array', element };
      }
      case 'case': {
        if (expr.operand) recurse(expr.operand);
        let type: SqlType = UNKNOWN;
        for (const when of expr.whens) {
          recurse(when.when);
          type = known(type, recurse(when.then));
        }
        if (expr.else) type = known(type, recurse(expr.else));
        // A NULL branch of an ARRAY CASE is that ARRAY's NULL (ClickHouse has no untyped NULL array).
        if (arrayTypeName(type)) {
          for (const when of expr.whens) when.then = typedNull(when.then, type);
          expr.else = typedNull(expr.else ?? { kind: 'null' }, type);
        }
        return type;
      }
      case 'cast': {
        const from = recurse(expr.expr);
        if (from.kind === 'scalar') expr.from = from.name;
        if (expr.format) checkCastFormat(expr, from);
        return typeOfName(expr.type);
      }
      case 'extract':
        return this.extract(expr, recurse(expr.expr));
      case 'interval':
        recurse(expr.value);
        return scalar('INTERVAL');
      case 'array': {
        const types = expr.elements.map((item) => recurse(item));
        expr.elements = literalsAsTimes(expr.elements, types);
        const typed = types.reduce<SqlType>((found, type, index) => (expr.elements[index]!.kind === 'string' ? found : known(found, type)), UNKNOWN);
        const element = typed.kind === 'unknown' ? types.reduce(known, UNKNOWN) : typed;
        if (element.kind === 'array') throw semanticError(`Cannot construct array with element type ${describeType(element)} because nested arrays are not supported`, firstPosition(expr));
        return { kind: 'array', element };
      }
      case 'struct':
        return { kind: 'struct', fields: expr.fields.map((field, index) => ({ name: field.name ?? `_field_${index + 1}`, type: recurse(field.value) })) };
      case 'field': {
        const base = recurse(expr.base);
        if (isJson(base)) return this.jsonSubscript(expr, expr.base, { kind: 'string', value: expr.name }, scalar('STRING'));
        expr.name = declaredField(base, expr.name);
        return fieldType(base, expr.name, undefined);
      }
      case 'field_at': {
        const base = recurse(expr.base);
        if (isJson(base)) return this.jsonSubscript(expr, expr.base, { kind: 'number', text: String(expr.position) }, scalar('INT64'));
        return base.kind === 'struct' ? (base.fields[expr.position]?.type ?? UNKNOWN) : UNKNOWN;
      }
      case 'subscript': {
        const base = recurse(expr.base);
        const index = recurse(expr.index);
        if (isJson(base)) return this.jsonSubscriptOf(expr, index);
        return base.kind === 'array' ? base.element : UNKNOWN;
      }
      case 'map_subscript': {
        const base = recurse(expr.base);
        recurse(expr.key);
        if (base.kind === 'map') {
          if (base.value.kind === 'scalar') expr.valueType = base.value.name;
          return base.value;
        }
        if (base.kind !== 'unknown') throw semanticError(`m['key'] reads a Map; this value has type ${describeType(base)}`, expr.at);
        return UNKNOWN;
      }
      case 'call': {
        const args = expr.args.map((arg) => ({ expr: arg, type: argumentType(arg, recurse(arg)) }));
        const named = new Map((expr.named ?? []).map(({ name, value }) => [name, { expr: value, type: argumentType(value, recurse(value)) }]));
        const orderTypes = (expr.orderBy ?? []).map((item) => recurse(item.expr));
        if (expr.having) recurse(expr.having.expr);
        if (expr.over) this.window(expr.over, recurse);
        const result = this.call(expr, args, named);
        if (expr.resolved && orderTypes.length > 0) expr.resolved.orderBy = orderTypes;
        return result;
      }
      case 'quantile': {
        const type = recurse(expr.expr);
        expr.valueType = type;
        if (expr.over) this.window(expr.over, recurse);
        return type;
      }
      case 'quantiles': {
        const element = recurse(expr.expr);
        expr.valueType = element;
        if (expr.over) this.window(expr.over, recurse);
        return { kind: 'array', element };
      }
      case 'grouping':
        recurse(expr.expr);
        return scalar('INT64');
    }
  }

  /**
   * A call resolved against its catalog entry: the cheapest signature its arguments fit, with
   * BigQuery's coercions made explicit in the tree (a string literal becomes a TIMESTAMP literal,
   * a parameter is cast), so printers render what was decided here. A call that fits none is
   * refused in BigQuery's words.
   */
  private call(expr: Extract<ir.Expr, { kind: 'call' }>, args: CallArgument[], named: Map<string, CallArgument>): SqlType {
    for (const arg of args) {
      if (expr.distinct) refuseJson(arg.type.type, `Aggregate functions with DISTINCT cannot be used with arguments of type ${describeType(arg.type.type)}`, expr);
      if (ORDERING_FUNCTIONS.has(expr.fn)) refuseJson(arg.type.type, `${expr.fn.toUpperCase()} is not defined for arguments of type ${describeType(arg.type.type)}`, expr);
    }
    const entry = functionEntry(expr.fn);
    const resolution = resolveCall(expr.fn, entry, args, named);
    if (!resolution.ok) throw semanticError(resolution.message, expr.at);
    const { call } = resolution;
    expr.args = expr.args.map((arg, index) => coerced(arg, args[index]!.type.type, call.args[index]!));
    for (const arg of expr.named ?? []) arg.value = coerced(arg.value, named.get(arg.name)!.type.type, call.named[arg.name]!);
    const given = args.map((arg) => arg.type.type);
    const problem = entry.check?.(expr.args, call.args, Object.fromEntries((expr.named ?? []).map((arg) => [arg.name, arg.value])), given);
    if (problem && !(problem.evaluation && expr.safe)) throw semanticError(problem.message, expr.at);
    expr.resolved = call;
    return call.result;
  }

  /**
   * `a + b` and the like where an operand is a DATE, DATETIME, TIME, TIMESTAMP or INTERVAL: resolved
   * against the operator's catalog entry (functions/families/interval.ts), with BigQuery's
   * coercions written into the operands; undefined for other operands.
   */
  private temporalOperator(expr: Extract<ir.Expr, { kind: 'binary' }>, left: SqlType, right: SqlType): SqlType | undefined {
    const fn = TEMPORAL_OPERATOR_OF[expr.op as keyof typeof TEMPORAL_OPERATOR_OF];
    if (!fn || !(isTemporal(left) || isTemporal(right) || expr.left.kind === 'interval' || expr.right.kind === 'interval')) return undefined;
    const { call, args } = this.operator(expr.op, fn, [expr.left, expr.right], [left, right]);
    [expr.left, expr.right] = args as [ir.Expr, ir.Expr];
    expr.temporal = call;
    return call.result;
  }

  private operator(op: string, fn: FunctionName, operands: ir.Expr[], types: SqlType[]): { call: ir.ResolvedCall; args: ir.Expr[] } {
    const args = operands.map((operand, index) => ({ expr: operand, type: argumentType(operand, types[index]!) }));
    const resolution = resolveCall(fn, functionEntry(fn), args, new Map());
    if (!resolution.ok) {
      const given = args.map((arg) => (arg.type.literal === 'null' ? 'NULL' : describeType(arg.type.type))).join(', ');
      throw semanticError(`No matching signature for operator ${op} for argument types: ${given}`, refPosition(operands));
    }
    const call = resolution.call;
    return { call, args: operands.map((operand, index) => coerced(operand, types[index]!, call.args[index]!)) };
  }

  /** EXTRACT(part FROM x): the parts BigQuery extracts from x's type, in its words when it does not. */
  private extract(expr: Extract<ir.Expr, { kind: 'extract' }>, type: SqlType): SqlType {
    if (expr.expr.kind === 'string') throw semanticError('EXTRACT does not support literal STRING arguments');
    // A query parameter (a string) is read as the TIMESTAMP it names.
    if (expr.expr.kind === 'param') expr.expr = coerced(expr.expr, type, scalar('TIMESTAMP'));
    const from = expr.expr.kind === 'param' ? 'TIMESTAMP' : type.kind === 'scalar' ? type.name : undefined;
    if (from) expr.from = from;
    const allowed = from ? EXTRACT_PARTS[from] : undefined;
    if (from && !allowed) throw semanticError(`EXTRACT does not support arguments of type ${from}`);
    if (allowed && !allowed.has(expr.part)) {
      const part = expr.weekStart ? `WEEK(${expr.weekStart.toUpperCase()})` : expr.part.toUpperCase();
      throw semanticError(`EXTRACT from ${from} does not support the ${part} date part`);
    }
    return scalar(expr.part === 'date' ? 'DATE' : 'INT64');
  }

  private window(over: ir.WindowSpec, recurse: (expr: ir.Expr) => SqlType): void {
    for (const expr of over.partitionBy) {
      const type = recurse(expr);
      refuseJson(type, `Partitioning by expressions of type ${describeType(type)} is not allowed`, expr);
    }
    for (const item of over.orderBy) {
      const type = recurse(item.expr);
      refuseJson(type, `Ordering by expressions of type ${describeType(type)} is not allowed`, item.expr);
    }
    for (const bound of [over.frame?.start, over.frame?.end]) {
      if (bound && (bound.kind === 'preceding' || bound.kind === 'following')) recurse(bound.offset);
    }
  }

  private ref(expr: Extract<ir.Expr, { kind: 'ref' }>, scope: Scope, items: ir.SelectItem[] | undefined): SqlType {
    const [head, ...fields] = expr.path;
    if (head === undefined) return UNKNOWN;
    const found = lookup(head, scope);
    if (found.kind === 'variable') {
      const { variable } = found;
      expr.path = [variable.printed, ...fields];
      this.qualified.set(expr, expr.path);
      if (variable.value) return this.fields(variable.value, expr, 1);
      if (!variable.table || variable.table.open) return UNKNOWN;
      const [first] = fields;
      if (first === undefined) return this.rowValue(expr, variable.printed, variable.table.columns);
      const column = findColumn(variable.table.columns, first);
      if (!column) {
        const suggestion = closestName(first, variable.table.columns.map((candidate) => candidate.name));
        throw semanticError(`Name ${first} not found inside ${head}${suggestion ? `; Did you mean ${suggestion}?` : ''}`, expr.at);
      }
      expr.path[1] = column.name;
      return this.fields(column.type, expr, 2);
    }
    if (found.kind === 'column') {
      // A field of an UNNEST element read without its alias: the alias is made explicit.
      if (found.variable.value && (!found.variable.anonymous || found.variable.qualifiedFields)) expr.path = [found.variable.printed, ...expr.path];
      // A column of an enclosing query, qualified: an engine could take it for a name of the
      // subquery's own (DuckDB binds select-list aliases, and an unnamed UNNEST's column).
      else if (found.correlated && found.variable.table) expr.path = [this.nameOf(found.variable), ...expr.path];
      const at = expr.path.length - fields.length - 1;
      expr.path[at] = found.column.name;
      this.qualified.set(expr, [found.variable.printed, found.column.name, ...fields]);
      return this.fields(found.column.type, expr, at + 1);
    }
    // A SELECT-list alias, where the clause may read them: replaced by what it names.
    const aliased = items ? selectAlias(items, head) : undefined;
    if (aliased) {
      replaceNode(expr, fields.reduce<ir.Expr>((base, name) => ({ kind: 'field', base, name }), structuredClone(aliased)));
      return UNKNOWN;
    }
    if (found.kind === 'ambiguous') throw semanticError(`Column name ${head} is ambiguous`, expr.at);
    if (found.kind === 'open') return UNKNOWN;
    // An enclosing clause's alias, read from a subquery: left for the engine, which correlates it.
    for (let level: Scope | undefined = scope; level; level = level.parent) {
      if (level.aliases && selectAlias(level.aliases, head)) return UNKNOWN;
    }
    const suggestion = closestName(head, namesInScope(scope, items));
    throw semanticError(`Unrecognized name: ${head}${suggestion ? `; Did you mean ${suggestion}?` : ''}`, expr.at);
  }

  /**
   * A table's range variable used as a value (`ARRAY_AGG(t)`, `TO_JSON(t)`): the struct of its
   * row's columns, written out as one so every engine builds the same value (ClickHouse has no
   * value for a table alias; DuckDB's would hold columns a plan added).
   */
  private rowValue(expr: Extract<ir.Expr, { kind: 'ref' }>, range: string, columns: Column[]): SqlType {
    const fields = columns.map((column) => {
      const ref: ir.Expr = { kind: 'ref', path: [range, column.name], ...(expr.at ? { at: expr.at } : {}) };
      this.qualified.set(ref, [range, column.name]);
      return { name: column.name, value: ref };
    });
    replaceNode(expr, { kind: 'struct', fields });
    return { kind: 'struct', fields: columns };
  }

  /**
   * `(SELECT expr)` with no FROM (nor anything that acts on rows) is one row holding `expr`: the
   * expression itself, once its names are resolved. Inlined, a correlated one is a plain
   * expression: ClickHouse cannot evaluate a correlated scalar subquery, nor one in GROUP BY or
   * ORDER BY. Not with an aggregate or window function (over the one row, not the outer query's),
   * nor with a name left for the engine to resolve (an enclosing clause's alias).
   */
  private valueOfFromless(query: ir.Query): ir.Expr | undefined {
    if (query.ctes.length > 0 || query.orderBy.length > 0 || query.limit || query.offset || query.body.kind !== 'select') return undefined;
    const select = query.body.select;
    const [item, ...others] = select.items;
    if (others.length > 0 || item?.kind !== 'expr' || select.from || select.where || select.groupBy.length > 0 || select.having || select.qualify || select.asStruct) return undefined;
    const resolved = (expr: ir.Expr): boolean => (expr.kind !== 'ref' || this.qualified.has(expr)) && childrenOf(expr).every(resolved);
    return containsAggregate(item.expr) || containsWindow(item.expr) || !resolved(item.expr) ? undefined : item.expr;
  }

  private correlatedSubqueries = 0;

  /** A range variable's printed name, giving an unnamed FROM subquery one. */
  private nameOf(variable: RangeVariable): string {
    if (!variable.printed && variable.unnamed) {
      variable.printed = `__correlated_${++this.correlatedSubqueries}`;
      variable.unnamed.alias = variable.printed;
    }
    return variable.printed;
  }

  /**
   * The type at the end of the ref's path (from index `from`) from `type`, refusing a field the
   * type does not have. Each field is written as it is declared: BigQuery's names are not
   * case-sensitive, ClickHouse's are. Where a value on the way is JSON, the rest of the path reads
   * its members (`payload.user.id`): the ref ends there and each member becomes a json_subscript call.
   */
  private fields(type: SqlType, expr: Extract<ir.Expr, { kind: 'ref' }>, from: number): SqlType {
    const path = expr.path;
    let current = type;
    for (let index = from; index < path.length; index++) {
      if (isJson(current)) return this.jsonMembers(expr, path.length - index);
      // As in BigQuery: a repeated record's fields are read from its elements, through UNNEST.
      if (current.kind === 'array' && current.element.kind === 'struct' && expr.at) {
        const alias = path[index - 1]!.charAt(0).toLowerCase();
        throw semanticError(
          `Cannot access field ${path[index]} on a value with type ${describeType(current)}; UNNEST the array to read its elements' fields: CROSS JOIN UNNEST(${path.slice(0, index).join('.')}) AS ${alias}, then ${alias}.${path[index]}`,
          expr.at,
        );
      }
      path[index] = declaredField(current, path[index]!);
      current = fieldType(current, path[index]!, expr.at);
    }
    return current;
  }

  /** The last `count` names of the ref's path as JSON members of the rest. */
  private jsonMembers(expr: Extract<ir.Expr, { kind: 'ref' }>, count: number): SqlType {
    const members = expr.path.slice(expr.path.length - count);
    const base: ir.Expr = { kind: 'ref', path: expr.path.slice(0, expr.path.length - count), ...(expr.at ? { at: expr.at } : {}) };
    const qualified = this.qualified.get(expr);
    if (qualified) this.qualified.set(base, qualified.slice(0, qualified.length - count));
    let node: ir.Expr = base;
    for (const name of members) {
      const member: ir.Expr = { kind: 'call', fn: 'json_subscript', args: [], distinct: false };
      this.jsonSubscript(member, node, { kind: 'string', value: name }, scalar('STRING'));
      node = member;
    }
    replaceNode(expr, node);
    return scalar('JSON');
  }

  /** `json[key]` or `json[index]` (and `json.key`), made the json_subscript call `target` becomes. */
  private jsonSubscript(target: ir.Expr, base: ir.Expr, key: ir.Expr, keyType: SqlType): SqlType {
    const at = firstPosition(base);
    const call: Extract<ir.Expr, { kind: 'call' }> = { kind: 'call', fn: 'json_subscript', args: [base, key], distinct: false, ...(at ? { at } : {}) };
    const type = this.call(call, [{ expr: base, type: { type: scalar('JSON') } }, { expr: key, type: argumentType(key, keyType) }], new Map());
    replaceNode(target, call);
    return type;
  }

  /** BigQuery reads JSON with a bare subscript, `json[0]` or `json['key']`: a STRING key or an INT64 index. */
  private jsonSubscriptOf(expr: Extract<ir.Expr, { kind: 'subscript' }>, index: SqlType): SqlType {
    const written = expr.bare ? undefined : `${expr.mode.toUpperCase()}(INT64)`;
    const fits = index.kind === 'unknown' || (index.kind === 'scalar' && (index.name === 'STRING' || index.name === 'INT64'));
    if (written || !fits) throw semanticError(`Subscript access using [${written ?? describeType(index)}] is not supported on values of type JSON`, firstPosition(expr.index));
    return this.jsonSubscript(expr, expr.base, expr.index, index);
  }

  // ---- grouping --------------------------------------------------------------------------------

  /** A comparable key for an expression: refs by their qualified paths, names compared without case. */
  private keyOf(expr: ir.Expr | undefined): string {
    return JSON.stringify(expr, (key, value: unknown) => {
      if (key === 'at') return undefined;
      const qualified = value && typeof value === 'object' ? this.qualified.get(value as ir.Expr) : undefined;
      if (qualified) return { kind: 'ref', path: qualified.map((part) => part.toLowerCase()) };
      return typeof value === 'string' && key !== 'value' && key !== 'text' ? value.toLowerCase() : value;
    });
  }

  /**
   * In a grouped SELECT every select-list expression must be grouped or aggregated
   * (`SELECT list expression references column val which is neither grouped nor aggregated`).
   * Checked only where every table's columns are known, so every path is resolved.
   */
  private checkGrouping(select: ir.Select, scope: Scope): void {
    const items = select.items.filter((item): item is Extract<ir.SelectItem, { kind: 'expr' }> => item.kind === 'expr');
    const aggregated = items.some((item) => containsAggregate(item.expr)) || (select.having !== undefined && containsAggregate(select.having));
    if (select.groupBy.length === 0 && !aggregated) return;
    if (scope.variables.some((variable) => variable.table?.open)) return;
    const positions = new Set(select.groupBy.flatMap((expr) => (expr.kind === 'position' ? [expr.position] : [])));
    const keyOf = (expr: ir.Expr | undefined) => this.keyOf(expr);
    const keys = new Set(select.groupBy.map((expr) => (expr.kind === 'position' ? keyOf(projectionAt(select, expr.position)) : keyOf(expr))));
    for (const grouping of [...items.map((item) => item.expr), select.having, select.qualify].flatMap((expr) => (expr ? groupingCalls(expr) : []))) {
      const key = keyOf(grouping.expr);
      const position = select.items.findIndex((item) => item.kind === 'expr' && keyOf(item.expr) === key) + 1;
      if (!keys.has(key) && !positions.has(position)) throw semanticError('GROUPING must have an argument that exists within the group-by expression list', grouping.at);
    }
    select.items.forEach((item, index) => {
      if (item.kind !== 'expr' || positions.has(index + 1)) return;
      const stray = ungroupedRef(item.expr, keys, keyOf, (ref) => this.qualified.get(ref) ?? ref.path);
      if (stray) {
        const name = stray.path[stray.path.length - 1] ?? '';
        throw semanticError(`SELECT list expression references column ${name} which is neither grouped nor aggregated`, stray.at);
      }
    });
  }
}

// ---- lookup ------------------------------------------------------------------------------------

type Found =
  | { kind: 'variable'; variable: RangeVariable }
  /** `correlated`: found in an enclosing query's scope. */
  | { kind: 'column'; variable: RangeVariable; column: Column; correlated: boolean }
  | { kind: 'ambiguous' }
  | { kind: 'open' }
  | { kind: 'none' };

/** BigQuery's order: range variables, then columns of the tables, then fields of UNNEST elements; then the enclosing query. */
function lookup(name: string, scope: Scope): Found {
  const key = name.toLowerCase();
  let open = false;
  for (let level: Scope | undefined = scope; level; level = level.parent) {
    const variable = level.variables.find((candidate) => candidate.key === key);
    if (variable) return { kind: 'variable', variable };
    const columns = level.variables.flatMap((candidate) => {
      const column = candidate.table ? findColumn(candidate.table.columns, name) : undefined;
      return column ? [{ variable: candidate, column }] : [];
    });
    if (columns.length > 1 && !level.using?.has(key)) return { kind: 'ambiguous' };
    if (columns[0]) return { kind: 'column', ...columns[0], correlated: level !== scope };
    if (level.variables.some((candidate) => candidate.table?.open)) open = true;
    const fields = level.variables.flatMap((candidate) => {
      const struct = candidate.value ? structOf(candidate.value) : undefined;
      const column = struct ? findColumn(struct.fields, name) : undefined;
      return column ? [{ variable: candidate, column }] : [];
    });
    if (fields.length > 1) return { kind: 'ambiguous' };
    if (fields[0]) return { kind: 'column', ...fields[0], correlated: level !== scope };
    if (level.variables.some((candidate) => candidate.value?.kind === 'unknown')) open = true;
    // Names the enclosing query may hold are looked up there only when nothing here could hold them.
    if (open) return { kind: 'open' };
  }
  return { kind: 'none' };
}

/**
 * A column of `JOIN … USING (name)` must be on each side, as a table's column, an UNNEST's value
 * (its alias, or WITH OFFSET's) or a field of an UNNEST without alias; not checked where a side's
 * names are not known.
 */
function checkUsing(name: string, side: 'left' | 'right', variables: RangeVariable[]): void {
  const key = name.toLowerCase();
  for (const variable of variables) {
    if (variable.key === key && variable.value) {
      // An UNNEST alias renamed because another name in the FROM clause is the same (`UNNEST(x) a JOIN UNNEST(y) a`): the engine would not find it.
      if (variable.printed.toLowerCase() !== key) throw semanticError(`USING (${name}) of an UNNEST alias that another name of the FROM clause repeats is not supported`);
      return;
    }
    if (variable.table && findColumn(variable.table.columns, name)) return;
    const struct = variable.anonymous && variable.value ? structOf(variable.value) : undefined;
    if (struct && findColumn(struct.fields, name)) return;
  }
  if (variables.some((variable) => variable.table?.open || variable.value?.kind === 'unknown')) return;
  const alias = variables.find((variable) => variable.key === key && variable.table);
  if (alias) throw semanticError(`Name ${name} in USING clause is a table alias, not a column name, on ${side} side of join`);
  throw semanticError(`Column ${name} in USING clause not found on ${side} side of join`);
}

function namesInScope(scope: Scope, items: ir.SelectItem[] | undefined): string[] {
  const names: string[] = [];
  for (let level: Scope | undefined = scope; level; level = level.parent) {
    for (const variable of level.variables) {
      if (variable.printed) names.push(variable.printed);
      names.push(...(variable.table?.columns ?? []).map((column) => column.name));
      const struct = variable.value ? structOf(variable.value) : undefined;
      names.push(...(struct?.fields ?? []).map((field) => field.name));
    }
  }
  for (const item of items ?? []) if (item.kind === 'expr') names.push(item.alias);
  return names;
}

function selectAlias(items: ir.SelectItem[], name: string): ir.Expr | undefined {
  const key = name.toLowerCase();
  const item = items.find((candidate) => candidate.kind === 'expr' && candidate.aliasWritten && candidate.alias.toLowerCase() === key);
  return item?.kind === 'expr' ? item.expr : undefined;
}

/** Make `target` the node `source` is (a ref turned into the expression an alias names). */
function replaceNode(target: ir.Expr, source: ir.Expr): void {
  for (const key of Object.keys(target)) delete (target as unknown as Record<string, unknown>)[key];
  Object.assign(target, source);
}

// ---- types -------------------------------------------------------------------------------------

/** A repeated record reads as its element: BigQuery refuses `array.field`, the stored shape (compat.md) allows it. */
function structOf(type: SqlType): Extract<SqlType, { kind: 'struct' }> | undefined {
  if (type.kind === 'struct') return type;
  if (type.kind === 'array' && type.element.kind === 'struct') return type.element;
  return undefined;
}

/** A field's name as its struct declares it (`name` itself when not found). */
function declaredField(type: SqlType, name: string): string {
  const struct = structOf(type);
  return (struct && findColumn(struct.fields, name)?.name) ?? name;
}

function fieldType(type: SqlType, name: string, at: Position | undefined): SqlType {
  const struct = structOf(type);
  if (!struct) {
    if (type.kind === 'unknown' || at === undefined) return UNKNOWN;
    throw semanticError(`Cannot access field ${name} on a value with type ${describeType(type)}`, at);
  }
  const field = findColumn(struct.fields, name);
  if (field) return type.kind === 'array' ? { kind: 'array', element: field.type } : field.type;
  if (at === undefined) return UNKNOWN;
  const suggestion = closestName(name, struct.fields.map((candidate) => candidate.name));
  throw semanticError(`Field name ${name} does not exist in ${describeType(struct)}${suggestion ? `; Did you mean ${suggestion}?` : ''}`, at);
}

function isJson(type: SqlType): boolean {
  return type.kind === 'scalar' && type.name === 'JSON';
}

/** Whether a value of this type holds JSON, which BigQuery neither compares, groups nor orders. */
function containsJson(type: SqlType): boolean {
  if (type.kind === 'array') return containsJson(type.element);
  if (type.kind === 'struct') return type.fields.some((field) => containsJson(field.type));
  return isJson(type);
}

/** BigQuery's refusal of JSON where values are compared, grouped or ordered, at `expr`'s position. */
function refuseJson(type: SqlType, message: string, expr: ir.Expr | undefined): void {
  if (containsJson(type)) throw semanticError(message, expr && firstPosition(expr));
}

/** Where the first name or call of `expr` was written, if known. */
function firstPosition(expr: ir.Expr): Position | undefined {
  if ((expr.kind === 'ref' || expr.kind === 'call' || expr.kind === 'map_subscript') && expr.at) return expr.at;
  for (const child of childrenOf(expr)) {
    const found = firstPosition(child);
    if (found) return found;
  }
  return undefined;
}

/** BigQuery's names of the comparison operators in its refusals. */
const COMPARISON_NAMES: Partial<Record<ir.BinaryOperator, string>> = { '=': 'Equality', '!=': 'Inequality', '<': 'Less than', '<=': 'Less than', '>': 'Greater than', '>=': 'Greater than' };

/** Functions that order their arguments' values. */
const ORDERING_FUNCTIONS: ReadonlySet<FunctionName> = new Set<FunctionName>(['min', 'max', 'greatest', 'least']);

function elementOf(type: SqlType): SqlType {
  return type.kind === 'array' ? type.element : UNKNOWN;
}

function known(current: SqlType, next: SqlType): SqlType {
  return current.kind === 'unknown' ? next : current;
}

function typeOfName(type: ir.TypeName): SqlType {
  if (typeof type === 'string') return scalar(type);
  if ('array' in type) return { kind: 'array', element: typeOfName(type.array) };
  return { kind: 'struct', fields: type.struct.map((field, index) => ({ name: field.name ?? `_field_${index + 1}`, type: typeOfName(field.type) })) };
}

const FORMATTED_TO_STRING: ReadonlySet<ir.ScalarTypeName> = new Set(['BYTES', 'DATE', 'DATETIME', 'TIME', 'TIMESTAMP', 'INT64', 'NUMERIC', 'BIGNUMERIC', 'FLOAT64']);

/** The casts that take FORMAT (BigQuery's "Format clause for CAST"), and AT TIME ZONE only with a TIMESTAMP. */
function checkCastFormat(expr: Extract<ir.Expr, { kind: 'cast' }>, from: SqlType): void {
  const to = typeof expr.type === 'string' ? expr.type : undefined;
  const source = from.kind === 'scalar' ? from.name : from.kind === 'unknown' ? undefined : describeType(from);
  const allowed =
    to === 'STRING' ? source === undefined || FORMATTED_TO_STRING.has(source as ir.ScalarTypeName) : to !== undefined && ['BYTES', 'DATE', 'DATETIME', 'TIME', 'TIMESTAMP'].includes(to) && (source === undefined || source === 'STRING');
  if (!allowed) throw semanticError(`FORMAT is not allowed in a CAST from ${source ?? 'this value'} to ${to ?? describeType(typeOfName(expr.type))}`);
  if (expr.format?.zone !== undefined && !((to === 'STRING' && source === 'TIMESTAMP') || (to === 'TIMESTAMP' && source !== 'TIMESTAMP'))) {
    throw semanticError('AT TIME ZONE in a CAST … FORMAT is only allowed for a TIMESTAMP');
  }
}

const TEMPORAL_TYPES: ReadonlySet<ir.ScalarTypeName> = new Set(['DATE', 'DATETIME', 'TIME', 'TIMESTAMP', 'INTERVAL']);

/**
 * Values compared or gathered together (`=`, BETWEEN, IN, an array's elements): BigQuery reads a
 * string literal among DATE, DATETIME, TIME or TIMESTAMP values as one of that type
 * (TIME '10:00:00' BETWEEN '09:00:00' AND '11:00:00'), so it becomes a literal of it here.
 */
function literalsAsTimes(exprs: readonly ir.Expr[], types: readonly SqlType[]): ir.Expr[] {
  const time = types.find((type, index) => exprs[index]!.kind !== 'string' && type.kind === 'scalar' && TEMPORAL_TYPES.has(type.name) && type.name !== 'INTERVAL');
  if (time?.kind !== 'scalar') return [...exprs];
  return exprs.map((expr) => (expr.kind === 'string' ? { kind: 'typed_literal', type: time.name, value: expr.value } : expr));
}
const isTemporal = (type: SqlType) => type.kind === 'scalar' && TEMPORAL_TYPES.has(type.name);
const isScalar = (type: SqlType, name: ir.ScalarTypeName) => type.kind === 'scalar' && type.name === name;

/** The first position written in an operator's operands, for its messages. */
function refPosition(operands: readonly ir.Expr[]): Position | undefined {
  for (const operand of operands) if ((operand.kind === 'ref' || operand.kind === 'call') && operand.at) return operand.at;
  return undefined;
}

const CLOCK_PARTS: ir.DatePart[] = ['microsecond', 'millisecond', 'second', 'minute', 'hour'];
const CALENDAR_PARTS: ir.DatePart[] = ['day', 'dayofweek', 'dayofyear', 'week', 'isoweek', 'month', 'quarter', 'year', 'isoyear'];

/** The parts EXTRACT takes from each type (DATE, TIME and DATETIME are the functions of those names, lower.ts). */
const EXTRACT_PARTS: Partial<Record<ir.ScalarTypeName, ReadonlySet<ir.DatePart>>> = {
  DATE: new Set(CALENDAR_PARTS),
  TIME: new Set(CLOCK_PARTS),
  DATETIME: new Set([...CLOCK_PARTS, ...CALENDAR_PARTS, 'date']),
  TIMESTAMP: new Set([...CLOCK_PARTS, ...CALENDAR_PARTS, 'date']),
  INTERVAL: new Set<ir.DatePart>(['year', 'month', 'day', 'hour', 'minute', 'second', 'millisecond', 'microsecond']),
};

const COMPARISON_OR_LOGIC: ReadonlySet<ir.BinaryOperator> = new Set(['=', '!=', '<', '<=', '>', '>=', 'AND', 'OR']);

function binaryType(op: ir.BinaryOperator, left: SqlType, right: SqlType): SqlType {
  if (COMPARISON_OR_LOGIC.has(op)) return scalar('BOOL');
  if (op === '||') return left.kind === 'array' ? left : right.kind === 'array' ? right : left.kind === 'unknown' || right.kind === 'unknown' ? UNKNOWN : scalar('STRING');
  if (op === '/') return scalar('FLOAT64');
  const names = [left, right].map((type) => (type.kind === 'scalar' ? type.name : undefined));
  if (names.includes('FLOAT64')) return scalar('FLOAT64');
  if (names[0] === 'INT64' && names[1] === 'INT64') return scalar('INT64');
  if (op === '+' || op === '-') return names[0] === 'TIMESTAMP' ? scalar('TIMESTAMP') : left.kind === 'scalar' && names[0] !== 'INT64' ? left : UNKNOWN;
  return UNKNOWN;
}

const NUMERIC_TYPES: ReadonlySet<ir.ScalarTypeName> = new Set(['INT64', 'FLOAT64', 'NUMERIC', 'BIGNUMERIC']);

/**
 * `expr`, of type `from`, as the type `to` a signature takes: unchanged when it already is (or
 * either is unknown), a typed literal for a string literal, else an explicit CAST. Number
 * literals stay as they are: every engine reads them as any numeric type.
 */
function coerced(expr: ir.Expr, from: SqlType, to: SqlType): ir.Expr {
  if (to.kind !== 'scalar' || from.kind === 'unknown' || sameType(from, to) || expr.kind === 'null') return expr;
  const numberLiteral = expr.kind === 'number' || (expr.kind === 'negate' && expr.expr.kind === 'number');
  if (numberLiteral && NUMERIC_TYPES.has(to.name)) return expr;
  if (expr.kind === 'string') return { kind: 'typed_literal', type: to.name, value: expr.value };
  return { kind: 'cast', expr, type: to.name, safe: false, ...(from.kind === 'scalar' ? { from: from.name } : {}) };
}

/** An ARRAY type as the tree writes types, if all of it is known. */
function arrayTypeName(type: SqlType): ir.TypeName | undefined {
  const name = (of: SqlType): ir.TypeName | undefined => {
    if (of.kind === 'scalar') return of.name;
    if (of.kind === 'array') {
      const element = name(of.element);
      return element === undefined ? undefined : { array: element };
    }
    if (of.kind !== 'struct') return undefined;
    const fields = of.fields.map((field) => ({ name: field.name, type: name(field.type) }));
    return fields.every((field) => field.type !== undefined) ? { struct: fields as ir.StructFieldType[] } : undefined;
  };
  return type.kind === 'array' ? name(type) : undefined;
}

/** The NULL literal as a NULL of `type` (an ARRAY), other expressions as they are. */
function typedNull(expr: ir.Expr, type: SqlType): ir.Expr {
  const name = arrayTypeName(type);
  return expr.kind === 'null' && name ? { kind: 'cast', expr, type: name, safe: false } : expr;
}

/** In a set operation, a column that is NULL in one SELECT and an ARRAY in another takes that ARRAY's type. */
function typeNullArrayColumns(body: Extract<ir.SetExpr, { kind: 'setop' }>, shapes: TableShape[]): void {
  const width = Math.max(...shapes.map((shape) => shape.columns.length));
  for (let index = 0; index < width; index++) {
    const type = shapes.map((shape) => shape.columns[index]?.type).find((candidate) => candidate && arrayTypeName(candidate));
    if (!type) continue;
    const visit = (side: ir.SetExpr): void => {
      if (side.kind === 'setop') [side.left, side.right].forEach(visit);
      const item = side.kind === 'select' ? side.select.items[index] : undefined;
      if (item?.kind === 'expr') item.expr = typedNull(item.expr, type);
    };
    visit(body);
  }
}

/**
 * In a set operation, a side's column whose scalar type is not the column's (the supertype) is
 * cast to it, so every engine unites values of one type: ClickHouse finds no common type for a
 * UInt64 literal and a Float64 and makes a Variant, which it then cannot order or compare.
 */
function castToColumnTypes(body: Extract<ir.SetExpr, { kind: 'setop' }>, sides: TableShape[], result: TableShape): void {
  result.columns.forEach((column, index) => {
    if (column.type.kind !== 'scalar') return;
    const to = column.type.name;
    [body.left, body.right].forEach((side, sideIndex) => {
      const from = sides[sideIndex]!.columns[index]?.type;
      if (from?.kind !== 'scalar' || from.name === to) return;
      const visit = (part: ir.SetExpr): void => {
        if (part.kind === 'setop') [part.left, part.right].forEach(visit);
        if (part.kind !== 'select' || part.select.items.some((item) => item.kind !== 'expr')) return;
        const item = part.select.items[index];
        if (item?.kind === 'expr') item.expr = { kind: 'cast', expr: item.expr, type: to, safe: false, from: from.name };
      };
      visit(side);
    });
  });
}

// ---- grouping helpers --------------------------------------------------------------------------

function containsAggregate(expr: ir.Expr): boolean {
  if (expr.kind === 'grouping') return true;
  if ((expr.kind === 'call' && isAggregate(expr.fn) && !expr.over) || ((expr.kind === 'quantile' || expr.kind === 'quantiles') && !expr.over)) return true;
  return childrenOf(expr).some(containsAggregate);
}

/** The GROUPING(…) calls of an expression, outside subqueries. */
function groupingCalls(expr: ir.Expr): Array<Extract<ir.Expr, { kind: 'grouping' }>> {
  return expr.kind === 'grouping' ? [expr] : childrenOf(expr).flatMap(groupingCalls);
}

function projectionAt(select: ir.Select, position: number): ir.Expr | undefined {
  const item = select.items[position - 1];
  return item?.kind === 'expr' ? item.expr : undefined;
}


/** The first ref of `expr` outside aggregates that is not grouped (nor inside a grouped expression). */
function ungroupedRef(
  expr: ir.Expr,
  keys: ReadonlySet<string>,
  keyOf: (expr: ir.Expr) => string,
  pathOf: (ref: Extract<ir.Expr, { kind: 'ref' }>) => string[],
): Extract<ir.Expr, { kind: 'ref' }> | undefined {
  if (keys.has(keyOf(expr))) return undefined;
  if (expr.kind === 'ref') {
    const path = pathOf(expr);
    for (let length = path.length - 1; length >= 1; length--) {
      if (keys.has(keyOf({ kind: 'ref', path: path.slice(0, length).map((part) => part.toLowerCase()) }))) return undefined;
    }
    return expr;
  }
  if ((expr.kind === 'call' || expr.kind === 'quantile' || expr.kind === 'quantiles') && (expr.over || (expr.kind === 'call' ? isAggregate(expr.fn) : true))) return undefined;
  if (expr.kind === 'grouping') return undefined;
  if (expr.kind === 'subquery' || expr.kind === 'array_subquery' || expr.kind === 'exists' || expr.kind === 'in_subquery') return undefined;
  for (const child of childrenOf(expr)) {
    const found = ungroupedRef(child, keys, keyOf, pathOf);
    if (found) return found;
  }
  return undefined;
}

/**
 * A set operation's columns: the left side's names, each of the supertype of both sides' types
 * (`SELECT 1 AS x UNION ALL SELECT 2.5` is FLOAT64, as BigQuery and both engines make it).
 */
function setOperationShape(left: TableShape, right: TableShape): TableShape {
  if (left.open || right.open || left.columns.length !== right.columns.length) return left;
  return {
    ...left,
    columns: left.columns.map((column, index) => {
      const type = supertype([{ type: column.type }, { type: right.columns[index]!.type }]);
      return type === undefined || type.kind === 'unknown' ? column : { ...column, type };
    }),
  };
}
