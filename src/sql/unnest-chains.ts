import { childrenOf, itemExpressions } from './analysis.ts';
import type * as ir from './ir.ts';

/**
 * UNNEST chains over a source's nested records, engine-neutral: `FROM source t CROSS JOIN
 * UNNEST(t.metadata) m CROSS JOIN UNNEST(m.request) r` and what the SELECT reads of m and r.
 * Used to tell a warehouse what saved queries read (endpoints) and by engines that can answer
 * such chains from flattened copies (DuckDB's promoted columns).
 */

export type UnnestStep = Extract<ir.FromStep, { kind: 'unnest' }>;

export interface UnnestChain {
  /** The source's alias, lower case. */
  base: string;
  /** The leading UNNEST steps, each over a field of the source or of an earlier step's alias. */
  steps: UnnestStep[];
  /** Step alias (lower case) → its record path: lower-case field names joined with '.'. */
  paths: Map<string, string>;
}

/** What a SELECT reads of its chain's aliases. */
export interface ChainUses {
  /** Leaf paths read as `alias.field` (alias being a chain alias). */
  leaves: Set<string>;
  /** Per chain alias (lower case), the fields read, lower case (field names are case-insensitive). */
  fields: Map<string, Set<string>>;
  /**
   * Something needs more than single fields of the chain's elements (a whole element, `*`, a
   * subquery that could see the aliases, a name the caller cannot place), or a field name the
   * caller says cannot be used.
   */
  blocked: boolean;
}

/** The leading chain of a SELECT over a source, if it has one; `keep(path)` can stop it early. */
export function leadingChain(select: ir.Select, keep: (path: string) => boolean = () => true): UnnestChain | undefined {
  const from = select.from;
  if (!from || from.base.kind !== 'source') return undefined;
  const base = from.base.alias.toLowerCase();
  const paths = new Map<string, string>();
  const steps: UnnestStep[] = [];
  for (const step of from.steps) {
    // WITH OFFSET and ON conditions tie rows to positions or filter elements: leave those alone.
    if (step.kind !== 'unnest' || step.offsetAlias || step.condition || step.array.kind !== 'ref' || step.array.path.length !== 2) break;
    const [head, field] = step.array.path.map((part) => part.toLowerCase()) as [string, string];
    const parent = head === base ? '' : paths.get(head);
    const alias = step.alias.toLowerCase();
    if (parent === undefined || alias === base || paths.has(alias)) break;
    const path = parent ? `${parent}.${field}` : field;
    if (!keep(path)) break;
    paths.set(alias, path);
    steps.push(step);
  }
  return steps.length > 0 ? { base, steps, paths } : undefined;
}

const SUBQUERIES = new Set<ir.Expr['kind']>(['in_subquery', 'exists', 'subquery', 'array_subquery']);

/**
 * The uses of the chain's aliases in `select` (and in `extra`, e.g. the ORDER BY of its query).
 * `isColumn(name)` says whether an unqualified first name is a column of the source; anything
 * else unqualified could be a field of an UNNEST element and blocks.
 */
export function chainUses(select: ir.Select, chain: UnnestChain, isColumn: (name: string) => boolean, extra: ir.Expr[] = []): ChainUses {
  const uses: ChainUses = { leaves: new Set(), fields: new Map([...chain.paths.keys()].map((alias) => [alias, new Set<string>()])), blocked: false };
  const links = new Set<ir.Expr>(chain.steps.map((step) => step.array));
  let known = isColumn;
  const visit = (expr: ir.Expr): void => {
    if (uses.blocked) return;
    if (SUBQUERIES.has(expr.kind)) {
      uses.blocked = true;
      return;
    }
    if (expr.kind === 'ref') {
      if (!links.has(expr)) visitRef(expr.path, chain, known, uses);
      return;
    }
    subExpressions(expr).forEach(visit);
  };
  // A star would carry the aliases' columns along.
  if (select.items.some((item) => item.kind === 'star')) uses.blocked = true;
  selectExpressions(select).forEach(visit);
  // The query's ORDER BY may also name the SELECT's output columns.
  const outputs = new Set(select.items.flatMap((item) => (item.kind === 'expr' ? [item.alias.toLowerCase()] : [])));
  known = (name) => isColumn(name) || outputs.has(name);
  extra.forEach(visit);
  return uses;
}

/**
 * Every expression of `select` outside subqueries: items, filters, groups and the FROM steps
 * from `firstStep` on (UNNEST arrays, join conditions).
 */
export function selectExpressions(select: ir.Select, firstStep = 0): ir.Expr[] {
  const exprs = select.items.flatMap(itemExpressions);
  for (const expr of [select.where, select.having, select.qualify, ...select.groupBy]) if (expr) exprs.push(expr);
  for (const step of select.from?.steps.slice(firstStep) ?? []) {
    if (step.kind === 'unnest') exprs.push(step.array, ...(step.condition ? [step.condition] : []));
    else if (step.on) exprs.push(step.on);
  }
  return exprs;
}

/** Direct sub-expressions, window specifications included. */
export function subExpressions(expr: ir.Expr): ir.Expr[] {
  const children = childrenOf(expr);
  if ((expr.kind === 'call' || expr.kind === 'quantile' || expr.kind === 'quantiles') && expr.over) {
    return [...expr.over.partitionBy, ...expr.over.orderBy.map((item) => item.expr), ...children];
  }
  return children;
}

function visitRef(path: string[], chain: UnnestChain, isColumn: (name: string) => boolean, uses: ChainUses): void {
  const head = path[0]!.toLowerCase();
  const record = chain.paths.get(head);
  if (record !== undefined) {
    if (path.length !== 2) uses.blocked = true; // the whole element, or a field of a field (a record: a list)
    else {
      uses.leaves.add(`${record}.${path[1]!.toLowerCase()}`);
      uses.fields.get(head)!.add(path[1]!.toLowerCase());
    }
    return;
  }
  if (head === chain.base) {
    if (path.length === 1) uses.blocked = true; // the whole row
    return;
  }
  if (path.length >= 1 && !isColumn(head)) uses.blocked = true;
}

/** Every SELECT of a query a rewrite can replace: the body, CTEs, nested set operands. */
export function mapSelects(query: ir.Query, f: (select: ir.Select, orderBy: ir.OrderItem[]) => ir.Select): ir.Query {
  const body = (expr: ir.SetExpr, orderBy: ir.OrderItem[]): ir.SetExpr => {
    switch (expr.kind) {
      case 'select':
        return { kind: 'select', select: f(expr.select, orderBy) };
      case 'nested':
        return { kind: 'nested', query: mapSelects(expr.query, f) };
      case 'setop':
        return { ...expr, left: body(expr.left, []), right: body(expr.right, []) };
    }
  };
  return { ...query, ctes: query.ctes.map((cte) => ({ ...cte, query: mapSelects(cte.query, f) })), body: body(query.body, query.orderBy) };
}
