/**
 * WITH RECURSIVE (BigQuery's query syntax reference, "Recursive CTEs"): which CTEs of the clause
 * read themselves, whether each such CTE has the form BigQuery accepts, and an order in which
 * every CTE is defined before another reads it (the clause lets a CTE read one defined after it).
 * Refusals use ZetaSQL's words.
 *
 * A recursive CTE is `<base term> UNION ALL|DISTINCT <recursive term>`: the base term does not
 * read the CTE and gives its columns; the recursive term reads it exactly once, in a FROM clause,
 * not through an expression subquery or an inner WITH, in no query that aggregates, is DISTINCT,
 * uses a window function, ORDER BY or LIMIT, not as the right side of a LEFT JOIN, the left of a
 * RIGHT JOIN, either side of a FULL JOIN, the right side of EXCEPT or inside a DISTINCT set
 * operation.
 */

import { childrenOf, containsAggregation, containsWindow, itemExpressions } from './analysis.ts';
import { semanticError } from './analyze.ts';
import type { Position } from './ast.ts';
import type * as ir from './ir.ts';

export function orderRecursiveWith(ctes: ir.Cte[], positions: ReadonlyMap<string, Position | undefined>): ir.Cte[] {
  const clause = new Set(positions.keys());
  const reads = new Map(ctes.map((cte) => [cte.name.toLowerCase(), cteReads(cte.query, clause)]));
  for (const cte of ctes) {
    const key = cte.name.toLowerCase();
    if (!reads.get(key)!.has(key)) continue;
    checkRecursive(cte, positions.get(key));
    cte.recursive = true;
  }
  // Each CTE after those it reads (itself aside); what is left in a cycle reads another that reads it.
  const ordered: ir.Cte[] = [];
  const done = new Set<string>();
  while (ordered.length < ctes.length) {
    const next = ctes.find((cte) => {
      const key = cte.name.toLowerCase();
      return !done.has(key) && [...reads.get(key)!].every((name) => name === key || done.has(name));
    });
    if (!next) {
      const stuck = ctes.find((cte) => !done.has(cte.name.toLowerCase()))!;
      throw semanticError(`Unsupported WITH entry dependency cycle: ${ctes.filter((cte) => !done.has(cte.name.toLowerCase())).map((cte) => cte.name).join(' => ')}`, positions.get(stuck.name.toLowerCase()));
    }
    ordered.push(next);
    done.add(next.name.toLowerCase());
  }
  return ordered;
}

const FORM = 'Recursive query does not have the form <non-recursive-term> UNION [ALL|DISTINCT] <recursive-term>';

function checkRecursive(cte: ir.Cte, at: Position | undefined): void {
  const { query } = cte;
  const self = cte.name.toLowerCase();
  if (query.orderBy.length > 0) throw semanticError('A recursive query may not use ORDER BY', at);
  if (query.limit || query.offset) throw semanticError('A recursive query may not use LIMIT', at);
  const body = query.body;
  if (body.kind !== 'setop' || body.op !== 'union' || setReads(body.left, new Set([self])).size > 0) throw semanticError(FORM, at);
  const check = new TermCheck(self);
  check.set(body.right, {});
  if (check.references === 0) throw semanticError(FORM, at);
}

/** Where a part of the recursive term sits, for the rules on where the recursive reference may be. */
interface Context {
  subqueryExpression?: boolean;
  innerWith?: boolean;
  aggregating?: boolean;
  window?: boolean;
  ordered?: boolean;
  limited?: boolean;
  distinctSet?: boolean;
  exceptRight?: boolean;
  leftJoinRight?: boolean;
  rightJoinLeft?: boolean;
  fullJoin?: boolean;
}

const RULES: ReadonlyArray<[keyof Context, string]> = [
  ['innerWith', 'must not be recursively referenced from inside an inner recursive query'],
  ['subqueryExpression', 'A recursive reference from inside an expression subquery is not allowed'],
  ['aggregating', 'A subquery containing a recursive reference must not use DISTINCT, GROUP BY, or any aggregate function'],
  ['distinctSet', 'A subquery containing a recursive reference must not use INTERSECT, UNION, or EXCEPT with the DISTINCT modifier'],
  ['window', 'A subquery containing a recursive reference must not use an analytic function'],
  ['ordered', 'A subquery containing a recursive reference must not contain an ORDER BY clause'],
  ['limited', 'A query containing a recursive reference must not use a LIMIT clause'],
  ['leftJoinRight', 'A query containing a recursive reference must not be used as the right operand of a LEFT JOIN'],
  ['rightJoinLeft', 'A query containing a recursive reference must not be used as the left operand of a RIGHT JOIN'],
  ['fullJoin', 'A query containing a recursive reference must not be used as an operand of a FULL OUTER JOIN'],
  ['exceptRight', 'A subquery containing a recursive reference must not be used as the right operand of EXCEPT'],
];

class TermCheck {
  references = 0;

  constructor(private readonly self: string) {}

  query(query: ir.Query, context: Context): void {
    const inner = { ...context, ...(query.orderBy.length > 0 ? { ordered: true } : {}), ...(query.limit || query.offset ? { limited: true } : {}) };
    for (const cte of query.ctes) this.query(cte.query, { ...inner, innerWith: true });
    // A nested WITH defining the name again hides the recursive CTE below it.
    if (query.ctes.some((cte) => cte.name.toLowerCase() === this.self)) return;
    this.set(query.body, inner);
  }

  set(set: ir.SetExpr, context: Context): void {
    if (set.kind === 'nested') return this.query(set.query, context);
    if (set.kind === 'setop') {
      const inner = set.all ? context : { ...context, distinctSet: true };
      this.set(set.left, inner);
      this.set(set.right, set.op === 'except' ? { ...inner, exceptRight: true } : inner);
      return;
    }
    const { select } = set;
    const exprs = [...select.items.flatMap(itemExpressions), select.where, select.having, select.qualify, ...select.groupBy].filter((expr): expr is ir.Expr => expr !== undefined);
    const inner: Context = {
      ...context,
      ...(select.distinct || select.groupBy.length > 0 || exprs.some(containsAggregation) ? { aggregating: true } : {}),
      ...(exprs.some(containsWindow) ? { window: true } : {}),
    };
    if (select.from) this.from(select.from, inner);
    for (const expr of exprs) this.expr(expr, inner);
  }

  private from(from: ir.From, context: Context): void {
    const relations: Array<{ relation: ir.Relation | undefined; step?: ir.FromStep; context: Context }> = [{ relation: from.base, context: { ...context } }];
    for (const step of from.steps) {
      const entry = { relation: step.kind === 'join' ? step.relation : undefined, step, context: { ...context } };
      if (step.kind === 'join') {
        if (step.type === 'left') entry.context.leftJoinRight = true;
        if (step.type === 'full') entry.context.fullJoin = true;
        for (const before of relations) {
          if (step.type === 'right') before.context.rightJoinLeft = true;
          if (step.type === 'full') before.context.fullJoin = true;
        }
      }
      relations.push(entry);
    }
    for (const { relation, step, context: where } of relations) {
      if (relation) this.relation(relation, where);
      if (step?.kind === 'unnest') this.expr(step.array, context);
      if (step?.kind === 'unnest' && step.condition) this.expr(step.condition, context);
      if (step?.kind === 'join' && step.on) this.expr(step.on, context);
    }
  }

  private relation(written: ir.Relation, context: Context): void {
    // What PIVOT aggregates and UNPIVOT rotates, the recursion reads like a table it aggregates.
    const relation = pivotInput(written);
    if (relation !== written) context = { ...context, aggregating: context.aggregating || written.kind === 'pivot' };
    if (relation.kind === 'subquery') return this.query(relation.query, context);
    if (relation.kind === 'unnest') return this.expr(relation.array, context);
    if (relation.kind !== 'cte' || relation.name.toLowerCase() !== this.self) return;
    const broken = RULES.find(([flag]) => context[flag]);
    if (broken) throw semanticError(broken[0] === 'innerWith' ? `Table '${relation.name}' ${broken[1]}` : broken[1], relation.at);
    if (++this.references > 1) throw semanticError(`Multiple recursive references to table '${relation.name}' are not allowed`, relation.at);
  }

  private expr(expr: ir.Expr, context: Context): void {
    if (expr.kind === 'subquery' || expr.kind === 'array_subquery' || expr.kind === 'exists' || expr.kind === 'in_subquery') {
      this.query(expr.query, { ...context, subqueryExpression: true });
    }
    for (const child of childrenOf(expr)) this.expr(child, context);
  }
}

/** The names of `names` a query reads as tables, anywhere in it (nested WITHs that define a name again hide it). */
function cteReads(query: ir.Query, names: ReadonlySet<string>): Set<string> {
  const hidden = new Set(query.ctes.map((cte) => cte.name.toLowerCase()));
  const visible = new Set([...names].filter((name) => !hidden.has(name)));
  const found = new Set<string>();
  for (const cte of query.ctes) for (const name of cteReads(cte.query, visible)) found.add(name);
  for (const name of setReads(query.body, visible)) found.add(name);
  for (const item of query.orderBy) for (const name of exprReads(item.expr, visible)) found.add(name);
  return found;
}

function setReads(set: ir.SetExpr, names: ReadonlySet<string>): Set<string> {
  if (set.kind === 'nested') return cteReads(set.query, names);
  if (set.kind === 'setop') return new Set([...setReads(set.left, names), ...setReads(set.right, names)]);
  const found = new Set<string>();
  const { select } = set;
  const relations = select.from ? [select.from.base, ...select.from.steps.flatMap((step) => (step.kind === 'join' ? [step.relation] : []))] : [];
  for (const written of relations) {
    const relation = pivotInput(written);
    if (relation.kind === 'cte' && names.has(relation.name.toLowerCase())) found.add(relation.name.toLowerCase());
    if (relation.kind === 'subquery') for (const name of cteReads(relation.query, names)) found.add(name);
  }
  const exprs = [...select.items.flatMap(itemExpressions), select.where, select.having, select.qualify, ...select.groupBy];
  for (const step of select.from?.steps ?? []) exprs.push(step.kind === 'unnest' ? step.array : step.on);
  if (select.from?.base.kind === 'unnest') exprs.push(select.from.base.array);
  for (const expr of exprs) if (expr) for (const name of exprReads(expr, names)) found.add(name);
  return found;
}

function exprReads(expr: ir.Expr, names: ReadonlySet<string>): Set<string> {
  const found = new Set<string>();
  if (expr.kind === 'subquery' || expr.kind === 'array_subquery' || expr.kind === 'exists' || expr.kind === 'in_subquery') {
    for (const name of cteReads(expr.query, names)) found.add(name);
  }
  for (const child of childrenOf(expr)) for (const name of exprReads(child, names)) found.add(name);
  return found;
}

/** The relation a PIVOT or UNPIVOT reads (through nested ones), or the relation itself. */
function pivotInput(relation: ir.Relation): ir.Relation {
  return relation.kind === 'pivot' || relation.kind === 'unpivot' ? pivotInput(relation.input) : relation;
}
