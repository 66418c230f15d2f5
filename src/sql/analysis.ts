/**
 * Questions about the tree that every engine's planner asks: which conjuncts of a WHERE clause
 * can be evaluated where, and what names an expression reads.
 */

import { functionEntry, type FunctionName } from './functions/index.ts';
import type * as ir from './ir.ts';

/** The expressions a select item computes: its own, or a star's REPLACE expressions. */
export function itemExpressions(item: ir.SelectItem): ir.Expr[] {
  return item.kind === 'expr' ? [item.expr] : (item.replace ?? []).map((entry) => entry.expr);
}

/** `a AND b AND c` → [a, b, c]. */
export function conjunctsOf(expr: ir.Expr | undefined): ir.Expr[] {
  if (!expr) return [];
  if (expr.kind === 'binary' && expr.op === 'AND') return [...conjunctsOf(expr.left), ...conjunctsOf(expr.right)];
  return [expr];
}

export function andAll(exprs: ir.Expr[]): ir.Expr | undefined {
  return exprs.reduce<ir.Expr | undefined>((all, next) => (all ? { kind: 'binary', op: 'AND', left: all, right: next } : next), undefined);
}

interface NameUse {
  /** First parts of every name path, as written (`t` of `t.timestamp`, `project` of `project`). */
  heads: Array<{ head: string; qualified: boolean }>;
  /** Contains something that must not move between query levels (subquery, aggregate, window). */
  pinned: boolean;
}

/** The names an expression reads, and whether it may be evaluated in another query level. */
export function namesUsedBy(expr: ir.Expr): NameUse {
  const use: NameUse = { heads: [], pinned: false };
  visit(expr, use);
  return use;
}

function visit(expr: ir.Expr, use: NameUse): void {
  switch (expr.kind) {
    case 'ref':
      use.heads.push({ head: expr.path[0] ?? '', qualified: expr.path.length > 1 });
      return;
    case 'in_subquery':
    case 'exists':
    case 'subquery':
    case 'array_subquery':
    case 'quantile':
    case 'quantiles':
    case 'position':
    case 'grouping':
      use.pinned = true;
      return;
    case 'call':
      if (expr.over || !isScalarCall(expr)) use.pinned = true;
      childrenOf(expr).forEach((arg) => visit(arg, use));
      return;
    default:
      for (const child of childrenOf(expr)) visit(child, use);
  }
}

function isScalarCall(expr: Extract<ir.Expr, { kind: 'call' }>): boolean {
  return functionEntry(expr.fn).kind === 'scalar';
}

/** Whether an expression aggregates or is a window function at its own level (not in a subquery). */
export function aggregatesOrWindows(expr: ir.Expr): boolean {
  if (expr.kind === 'quantile' || expr.kind === 'quantiles' || expr.kind === 'grouping') return true;
  if (expr.kind === 'call' && (expr.over || !isScalarCall(expr))) return true;
  return childrenOf(expr).some(aggregatesOrWindows);
}

/** Whether an expression aggregates at its own level (an aggregate call without OVER, a quantile, GROUPING). */
export function containsAggregation(expr: ir.Expr): boolean {
  if (expr.kind === 'grouping' || ((expr.kind === 'quantile' || expr.kind === 'quantiles') && !expr.over)) return true;
  if (expr.kind === 'call' && !expr.over && functionEntry(expr.fn).kind === 'aggregate') return true;
  return childrenOf(expr).some(containsAggregation);
}

/** Whether an expression calls a window function (OVER) at its own level. */
export function containsWindow(expr: ir.Expr): boolean {
  if ((expr.kind === 'call' || expr.kind === 'quantile' || expr.kind === 'quantiles') && expr.over) return true;
  return childrenOf(expr).some(containsWindow);
}

/** Direct sub-expressions (not descending into subqueries). */
export function childrenOf(expr: ir.Expr): ir.Expr[] {
  switch (expr.kind) {
    case 'binary':
    case 'distinct_from':
      return [expr.left, expr.right];
    case 'not':
    case 'negate':
    case 'is':
    case 'cast':
    case 'extract':
      return [expr.expr];
    case 'like':
      return [expr.expr, expr.pattern];
    case 'between':
      return [expr.expr, expr.low, expr.high];
    case 'in_list':
      return [expr.expr, ...expr.list];
    case 'in_unnest':
      return [expr.expr, expr.array];
    case 'in_subquery':
      return [expr.expr];
    case 'case':
      return [
        ...(expr.operand ? [expr.operand] : []),
        ...expr.whens.flatMap((when) => [when.when, when.then]),
        ...(expr.else ? [expr.else] : []),
      ];
    case 'interval':
      return [expr.value];
    case 'array':
      return expr.elements;
    case 'struct':
      return expr.fields.map((field) => field.value);
    case 'field':
    case 'field_at':
      return [expr.base];
    case 'subscript':
      return [expr.base, expr.index];
    case 'map_subscript':
      return [expr.base, expr.key];
    case 'call':
      return [...expr.args, ...(expr.named ?? []).map((arg) => arg.value), ...(expr.having ? [expr.having.expr] : [])];
    case 'quantile':
    case 'quantiles':
    case 'grouping':
      return [expr.expr];
    default:
      return [];
  }
}

/**
 * For a FROM of `base` followed by a chain of UNNESTs, the deepest chain level each conjunct
 * needs: level 0 reads only the base row, level k also reads the k-th UNNEST alias (or its
 * offset). Conjuncts that read anything else, or that are pinned, are returned as `remaining`.
 * `levelNames[k]` lists the names level k introduces (lower case).
 */
export function assignConjunctsToLevels(
  conjuncts: ir.Expr[],
  levelNames: ReadonlyArray<ReadonlySet<string>>,
): { perLevel: ir.Expr[][]; remaining: ir.Expr[] } {
  const perLevel = levelNames.map((): ir.Expr[] => []);
  const remaining: ir.Expr[] = [];
  for (const conjunct of conjuncts) {
    const level = levelOf(conjunct, levelNames);
    if (level === undefined) remaining.push(conjunct);
    else perLevel[level]?.push(conjunct);
  }
  return { perLevel, remaining };
}

function levelOf(conjunct: ir.Expr, levelNames: ReadonlyArray<ReadonlySet<string>>): number | undefined {
  const use = namesUsedBy(conjunct);
  if (use.pinned) return undefined;
  let level = 0;
  for (const { head, qualified } of use.heads) {
    const key = head.toLowerCase();
    const found = levelNames.findIndex((names) => names.has(key));
    if (found >= 0) level = Math.max(level, found);
    // An unknown qualifier (outer query, struct column) is not ours to move.
    else if (qualified) return undefined;
    // An unqualified unknown name is a column of the base row.
  }
  return level;
}

const CONDITION_FUNCTIONS: ReadonlySet<FunctionName> = new Set(['regexp_contains', 'starts_with', 'ends_with', 'logical_and', 'logical_or']);

/** Whether an expression is a condition: a BOOL in the tree, a UInt8 0 or 1 in ClickHouse. */
export function isBooleanShaped(expr: ir.Expr): boolean {
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
      return CONDITION_FUNCTIONS.has(expr.fn) || (expr.resolved?.result.kind === 'scalar' && expr.resolved.result.name === 'BOOL');
    default:
      return false;
  }
}

/**
 * GROUP BY ALL: the select items that neither aggregate nor are window functions, by position.
 * Constants are not grouping keys, unless nothing else is: then they still make the SELECT one
 * that groups (`SELECT 'a' FROM t GROUP BY ALL` gives one row). Stars are written out first.
 */
export function groupByAll(items: ir.SelectItem[]): ir.Expr[] {
  const keys: number[] = [];
  const constants: number[] = [];
  let aggregates = false;
  items.forEach((item, index) => {
    if (item.kind === 'star') return;
    if (aggregatesOrWindows(item.expr)) aggregates = true;
    else (readsAnything(item.expr) ? keys : constants).push(index + 1);
  });
  const positions = keys.length > 0 || aggregates ? keys : constants;
  return positions.map((position) => ({ kind: 'position', position }));
}

/** Whether an expression reads a column or runs a subquery (which may read one). */
function readsAnything(expr: ir.Expr): boolean {
  const use = namesUsedBy(expr);
  return use.heads.length > 0 || use.pinned;
}
