/**
 * PIVOT and UNPIVOT (BigQuery's query syntax reference, "PIVOT operator", "UNPIVOT operator") as
 * the queries they stand for, written by the analyzer once it knows the input's columns, so every
 * engine prints a plain GROUP BY or UNNEST. Refusals use ZetaSQL's words.
 *
 * `input PIVOT (agg(x) [AS a] … FOR col IN (v1 [AS n1], …))` groups the input by every column
 * neither the aggregates nor `col` read, and for each value, then each aggregate, computes the
 * aggregate over the rows whose `col` is that value: its arguments read NULL elsewhere, which an
 * aggregate ignores (ARRAY_AGG keeps NULLs, so it takes IGNORE NULLS here). A column is named
 * `a_n1`, or `n1` for the only aggregate without an alias, n1 made from the value when not given.
 *
 * `input UNPIVOT ((v…) FOR name IN ((c…) [AS 'label'], …))` keeps the other columns and gives one
 * row per column set (CROSS JOIN UNNEST of an array of structs), without the rows whose values are
 * all NULL unless INCLUDE NULLS.
 */

import { childrenOf } from './analysis.ts';
import { semanticError } from './analyze.ts';
import { type Column, describeType } from './catalog.ts';
import { sameType } from './functions/coercion.ts';
import { functionEntry } from './functions/index.ts';
import type * as ir from './ir.ts';

type Pivot = Extract<ir.Relation, { kind: 'pivot' }>;
type Unpivot = Extract<ir.Relation, { kind: 'unpivot' }>;

export function pivotQuery(pivot: Pivot, input: Column[]): ir.Query {
  const read = reader(pivot.input);
  const used = new Set<string>();
  for (const expr of [pivot.column, ...pivot.aggregates.map((aggregate) => aggregate.expr)]) columnsRead(expr, pivot.input.alias, used);
  const keys = input.filter((column) => !used.has(column.name.toLowerCase()));
  const only = pivot.aggregates.length === 1;
  const items: ir.SelectItem[] = keys.map((column) => ({ kind: 'expr', expr: read(column.name), alias: column.name, aliasWritten: true }));
  for (const value of pivot.values) {
    const name = value.alias ?? pivotValueName(value.value, pivot.at);
    for (const aggregate of pivot.aggregates) {
      if (!aggregate.alias && !only) throw semanticError('PIVOT expression must specify an alias unless it is the only pivot expression in the PIVOT clause', pivot.at);
      const matches: ir.Expr = value.value.kind === 'null' ? { kind: 'is', test: 'null', negated: false, expr: structuredClone(pivot.column) } : { kind: 'binary', op: '=', left: structuredClone(pivot.column), right: structuredClone(value.value) };
      items.push({ kind: 'expr', expr: onlyWhere(aggregate.expr, matches, pivot.at), alias: aggregate.alias ? `${aggregate.alias}_${name}` : name, aliasWritten: true });
    }
  }
  const select: ir.Select = { distinct: false, items, from: { base: pivot.input, steps: [] }, groupBy: keys.map((_, index) => ({ kind: 'position', position: index + 1 })) };
  return { ctes: [], body: { kind: 'select', select }, orderBy: [] };
}

/** The aggregate call `expr` over the rows where `matches` holds: its arguments are NULL elsewhere. */
function onlyWhere(expr: ir.Expr, matches: ir.Expr, at: Pivot['at']): ir.Expr {
  if (expr.kind !== 'call' || expr.over || functionEntry(expr.fn).kind !== 'aggregate') throw semanticError('PIVOT expression must be an aggregate function call', at);
  if (expr.having) throw semanticError('PIVOT expression cannot use aggregate filtering HAVING MAX/MIN', at);
  if (expr.fn === 'array_agg' && !expr.ignoreNulls) throw semanticError('ARRAY_AGG in PIVOT needs IGNORE NULLS (it keeps the NULLs of the rows a pivot column leaves out)', at);
  const call = structuredClone(expr);
  const when = (value: ir.Expr): ir.Expr => ({ kind: 'case', whens: [{ when: structuredClone(matches), then: value }] });
  if (call.star) {
    delete call.star;
    call.args = [when({ kind: 'number', text: '1' })];
  } else call.args = call.args.map((arg) => (arg.kind === 'date_part' ? arg : when(arg)));
  return call;
}

/** A pivot column's name made from its value, by ZetaSQL's rules. */
function pivotValueName(value: ir.Expr, at: Pivot['at']): string {
  const negative = value.kind === 'negate' && value.expr.kind === 'number';
  const number = value.kind === 'number' ? value.text : negative ? (value.expr as { text: string }).text : undefined;
  if (number !== undefined) return `${negative ? 'minus_' : '_'}${number.replace('.', '_point_')}`;
  if (value.kind === 'string') return value.value;
  if (value.kind === 'bool') return value.value ? 'TRUE' : 'FALSE';
  if (value.kind === 'null') return 'NULL';
  if (value.kind === 'typed_literal' && value.type === 'DATE') return `_${value.value.replace(/-/g, '_')}`;
  throw semanticError('Generating an implicit alias for this PIVOT value is not supported; please provide an explicit alias', at);
}

export function unpivotQuery(unpivot: Unpivot, input: Column[]): ir.Query {
  const read = reader(unpivot.input);
  const find = (name: string) => input.find((column) => column.name.toLowerCase() === name.toLowerCase());
  const rotated = new Set<string>();
  const types: Column['type'][] = [];
  for (const set of unpivot.columns) {
    set.names.forEach((name, index) => {
      const column = find(name);
      if (!column) throw semanticError(`Unrecognized name: ${name}`, unpivot.at);
      if (rotated.has(column.name.toLowerCase()) && set.names.filter((other) => other.toLowerCase() === name.toLowerCase()).length > 1) throw semanticError('Column names in UNPIVOT IN clause cannot be repeated', unpivot.at);
      rotated.add(column.name.toLowerCase());
      const expected = types[index];
      if (!expected) types[index] = column.type;
      else if (expected.kind !== 'unknown' && column.type.kind !== 'unknown' && !sameType(expected, column.type)) {
        throw semanticError(`The datatype of column does not match with other datatypes in the IN clause. Expected ${describeType(expected)}, Found ${describeType(column.type)}`, unpivot.at);
      }
    });
  }
  const element = '__unpivot';
  const rows: ir.Expr = {
    kind: 'array',
    elements: unpivot.columns.map((set) => ({
      kind: 'struct',
      fields: [
        ...set.names.map((name, index) => ({ name: `v${index}`, value: read(find(name)!.name) })),
        { name: 'label', value: { kind: 'string', value: set.label !== undefined ? String(set.label) : set.names.join('_') } },
      ],
    })),
  };
  const field = (name: string): ir.Expr => ({ kind: 'ref', path: [element, name] });
  const kept = input.filter((column) => !rotated.has(column.name.toLowerCase()));
  const items: ir.SelectItem[] = [
    ...kept.map((column): ir.SelectItem => ({ kind: 'expr', expr: read(column.name), alias: column.name, aliasWritten: true })),
    ...unpivot.values.map((name, index): ir.SelectItem => ({ kind: 'expr', expr: field(`v${index}`), alias: name, aliasWritten: true })),
    { kind: 'expr', expr: field('label'), alias: unpivot.name, aliasWritten: true },
  ];
  const allNull = unpivot.values.map((_, index): ir.Expr => ({ kind: 'is', test: 'null', negated: false, expr: field(`v${index}`) })).reduce((left, right) => ({ kind: 'binary', op: 'AND', left, right }));
  const select: ir.Select = {
    distinct: false,
    items,
    from: { base: unpivot.input, steps: [{ kind: 'unnest', array: rows, alias: element, keepEmpty: false }] },
    groupBy: [],
    ...(unpivot.includeNulls ? {} : { where: { kind: 'not', expr: allNull } }),
  };
  return { ctes: [], body: { kind: 'select', select }, orderBy: [] };
}

/** How the written query reads a column of the input: through its alias, or bare without one. */
function reader(input: ir.Relation): (name: string) => ir.Expr {
  const alias = input.alias;
  return (name) => ({ kind: 'ref', path: alias ? [alias, name] : [name] });
}

/** The input's columns an expression reads (lower case), outside subqueries. */
function columnsRead(expr: ir.Expr, alias: string | undefined, into: Set<string>): void {
  if (expr.kind === 'ref') {
    const [head, next] = expr.path;
    into.add((alias && head?.toLowerCase() === alias.toLowerCase() && next ? next : head ?? '').toLowerCase());
    return;
  }
  for (const child of childrenOf(expr)) columnsRead(child, alias, into);
  if (expr.kind === 'call') for (const item of expr.orderBy ?? []) columnsRead(item.expr, alias, into);
}
