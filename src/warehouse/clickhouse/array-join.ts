/**
 * ARRAY JOIN of only the subcolumns a query reads.
 *
 * `CROSS JOIN UNNEST(t.metadata) AS m CROSS JOIN UNNEST(m.response) AS r` printed as ARRAY JOINs
 * of the record arrays reads every field of every record and copies it per output row. ClickHouse
 * stores each element of an `Array(Tuple(...))` as its own subcolumn (`metadata.response.status_code`
 * is an `Array(Array(Nullable(Int64)))` of its own), so the chain is printed instead as ARRAY JOINs
 * of the leaf subcolumns the query names, one array per leaf, zipped level by level:
 *
 *   ARRAY JOIN t.metadata.response.status_code AS a1, t.metadata.response.origin_time AS b1
 *   ARRAY JOIN a1 AS a2, b1 AS b2                         -- r.status_code is a2, r.origin_time b2
 *
 * Leaves of one record array have the same length on every row, so the zipped join yields the
 * rows the record join did (empty arrays dropped, or kept by LEFT ARRAY JOIN with the elements'
 * defaults, which are what a default record's fields were). Measured on chdb 26.7 (200k edge
 * events, Q1 of bench/clickhouse.ts): 247 ms → 74 ms reading the table.
 *
 * ClickHouse 26.7 fails a zipped ARRAY JOIN of two arrays that came from subcolumns of one array
 * ("Not found column __array_join_exp_N"); `enable_unaligned_array_join=1` (set by the adapter)
 * takes the code path that works, and changes nothing here because the zipped arrays are aligned.
 *
 * An alias keeps the record form (its whole element) when the query needs the element itself:
 * `r`, `r.*`, `r[0]`, `r IS NULL`, a mention inside a subquery (conservative: names are not
 * resolved there), or no field read at all. Its children then keep the record form too.
 */

import { childrenOf, itemExpressions } from '../../sql/analysis.ts';
import type * as ir from '../../sql/ir.ts';
import { quoteIdentifier } from './sql-generator.ts';

type UnnestStep = Extract<ir.FromStep, { kind: 'unnest' }>;

export interface ArrayJoinPlan {
  /** The ARRAY JOIN clause of a step, when it is not printed as a record join. */
  clauses: Map<UnnestStep, string>;
  /** Per pruned alias (lower case), the column a field path (`a.b`) reads. */
  leaves: Map<string, Map<string, string>>;
}

interface AliasUse {
  whole: boolean;
  paths: Map<string, string[]>;
}

interface ChainNode {
  step: UnnestStep;
  alias: string;
  parent?: ChainNode;
  /** A source column (`t`.`metadata`) for the first level. */
  root?: string;
  /** Field path from the parent's element to this array. */
  fields: string[];
  pruned: boolean;
  /** ARRAY JOIN items of this step (`expr AS alias`), and the first array for offsets. */
  items: string[];
  firstArray?: string;
}

/**
 * Plan the UNNEST steps of one SELECT. `tail` is what else reads the SELECT's names (its query's
 * ORDER BY). Steps not in the plan's clauses are printed as record joins.
 */
export function planArrayJoins(select: ir.Select, tail: ir.OrderItem[]): ArrayJoinPlan {
  const plan: ArrayJoinPlan = { clauses: new Map(), leaves: new Map() };
  const from = select.from;
  if (!from) return plan;
  const steps = from.steps.filter((step): step is UnnestStep => step.kind === 'unnest');
  if (steps.length === 0) return plan;
  const aliases = new Set(steps.map((step) => step.alias.toLowerCase()));
  const uses = collectUses(select, tail, aliases);
  const nodes = chainNodes(from, steps, aliases, uses);
  if (nodes.length === 0) return plan;
  const names = new AliasNames();
  // Every leaf first: a level's clause lists the leaves of all the levels below it.
  const wholeArrays = new Map<ChainNode, string>();
  for (const node of nodes) {
    if (!node.pruned) {
      wholeArrays.set(node, addLeaf(node.parent!, node.fields, names));
      continue;
    }
    const leaves = new Map<string, string>();
    for (const path of uses.get(node.alias)!.paths.values()) leaves.set(path.join('.'), addLeaf(node, path, names));
    plan.leaves.set(node.alias, leaves);
  }
  for (const node of nodes) {
    plan.clauses.set(node.step, node.pruned ? prunedClause(node) : wholeChildClause(node, wholeArrays.get(node)!));
  }
  return plan;
}

/** The chain of steps that can read subcolumns: rooted in a source column, through pruned parents. */
function chainNodes(from: ir.From, steps: UnnestStep[], aliases: Set<string>, uses: Map<string, AliasUse>): ChainNode[] {
  const sources = new Set<string>();
  if (from.base.kind === 'source') sources.add(from.base.alias.toLowerCase());
  for (const step of from.steps) if (step.kind === 'join' && step.relation.kind === 'source') sources.add(step.relation.alias.toLowerCase());
  const onlySource = from.base.kind === 'source' && from.steps.every((step) => step.kind === 'unnest');
  const parentOf = (step: UnnestStep) => (step.array.kind === 'ref' && step.array.path.length >= 2 ? step.array.path[0]!.toLowerCase() : undefined);
  const nodes: ChainNode[] = [];
  const byAlias = new Map<string, ChainNode>();
  for (const step of steps) {
    const alias = step.alias.toLowerCase();
    const use = uses.get(alias)!;
    const hasChildren = steps.some((other) => parentOf(other) === alias);
    const pruned = !use.whole && (use.paths.size > 0 || hasChildren);
    const array = step.array;
    if (array.kind !== 'ref') continue;
    const [head, ...rest] = array.path;
    const parent = byAlias.get(head!.toLowerCase());
    let node: ChainNode | undefined;
    if (parent?.pruned && rest.length > 0) {
      node = { step, alias, parent, fields: rest, pruned, items: [] };
    } else if (isSourceColumn(array.path, sources, onlySource, aliases)) {
      if (!pruned) continue;
      node = { step, alias, root: array.path.map(quoteIdentifier).join('.'), fields: [], pruned, items: [] };
    }
    if (!node) continue;
    nodes.push(node);
    byAlias.set(alias, node);
  }
  return nodes;
}

function isSourceColumn(path: string[], sources: Set<string>, onlySource: boolean, aliases: Set<string>): boolean {
  if (path.length === 2) return sources.has(path[0]!.toLowerCase());
  return path.length === 1 && onlySource && !aliases.has(path[0]!.toLowerCase());
}

/** Fresh, readable column names for the joined subcolumns. */
class AliasNames {
  private readonly taken = new Set<string>();
  name(parts: string[]): string {
    const base = `__${parts.join('_').replace(/[^A-Za-z0-9_]/g, '_')}`;
    let name = base;
    for (let index = 2; this.taken.has(name); index++) name = `${base}_${index}`;
    this.taken.add(name);
    return quoteIdentifier(name);
  }
}

/**
 * Join the subcolumn `path` under `owner`'s element at every level from the chain's root down to
 * `owner`; returns the column holding it at `owner`'s level.
 */
function addLeaf(owner: ChainNode, path: string[], names: AliasNames): string {
  const chain: ChainNode[] = [];
  for (let node: ChainNode | undefined = owner; node; node = node.parent) chain.unshift(node);
  const fullPath = [...chain.slice(1).flatMap((node) => node.fields), ...path];
  let expression = `${chain[0]!.root!}.${fullPath.map(quoteIdentifier).join('.')}`;
  for (const node of chain) {
    const alias = names.name(node === owner ? [owner.alias, ...path] : [owner.alias, ...path, 'in', node.alias]);
    node.items.push(`${expression} AS ${alias}`);
    node.firstArray ??= expression;
    expression = alias;
  }
  return expression;
}

/** An UNNEST's 0-based offsets, NULL for the element LEFT ARRAY JOIN makes up for an empty array (as BigQuery's LEFT JOIN gives). */
export function offsetsColumn(array: string, step: UnnestStep): string {
  const offsets = `range(length(${array}))`;
  return `${step.keepEmpty ? `arrayMap(offset -> toNullable(offset), ${offsets})` : offsets} AS ${quoteIdentifier(step.offsetAlias!)}`;
}

function prunedClause(node: ChainNode): string {
  const items = [...node.items];
  const step = node.step;
  if (step.offsetAlias) items.push(offsetsColumn(node.firstArray!, step));
  return ` ${step.keepEmpty ? 'LEFT ' : ''}ARRAY JOIN ${items.join(', ')}`;
}

/** A child whose element is used whole, under a pruned parent: its array is one of the parent's leaves. */
function wholeChildClause(node: ChainNode, array: string): string {
  const step = node.step;
  const items = [`${array} AS ${quoteIdentifier(step.alias)}`];
  if (step.offsetAlias) items.push(offsetsColumn(array, step));
  if (step.keepEmpty) items.push(`arrayEnumerate(${array}) AS ${quoteIdentifier(`__present_${node.alias}`)}`);
  return ` ${step.keepEmpty ? 'LEFT ' : ''}ARRAY JOIN ${items.join(', ')}`;
}

// ---- what a SELECT reads of each UNNEST alias ------------------------------------------------

function collectUses(select: ir.Select, tail: ir.OrderItem[], aliases: Set<string>): Map<string, AliasUse> {
  const uses = new Map<string, AliasUse>([...aliases].map((alias) => [alias, { whole: false, paths: new Map() }]));
  const collector = new UseCollector(uses);
  for (const item of select.items) {
    if (item.kind === 'star') collector.qualifier(item.qualifier);
    for (const expr of itemExpressions(item)) collector.expr(expr, false);
  }
  const from = select.from!;
  collector.relation(from.base);
  for (const step of from.steps) {
    if (step.kind === 'join') {
      collector.relation(step.relation);
      if (step.on) collector.expr(step.on, false);
      continue;
    }
    // `unnest(m.response)` is the chain's structure, not a read of m's fields.
    const structural = step.array.kind === 'ref' && step.array.path.length >= 2 && aliases.has(step.array.path[0]!.toLowerCase());
    if (!structural) collector.expr(step.array, false);
    if (step.condition) collector.expr(step.condition, false);
  }
  for (const expr of [select.where, ...select.groupBy, select.having, select.qualify]) if (expr) collector.expr(expr, false);
  for (const item of tail) collector.expr(item.expr, false);
  return uses;
}

class UseCollector {
  constructor(private readonly uses: Map<string, AliasUse>) {}

  qualifier(name: string | undefined): void {
    const use = name === undefined ? undefined : this.uses.get(name.toLowerCase());
    if (use) use.whole = true;
  }

  expr(expr: ir.Expr, inSubquery: boolean): void {
    switch (expr.kind) {
      case 'ref': {
        const use = this.uses.get(expr.path[0]!.toLowerCase());
        if (!use) return;
        if (inSubquery || expr.path.length === 1) use.whole = true;
        else use.paths.set(expr.path.slice(1).join('.'), expr.path.slice(1));
        return;
      }
      case 'in_subquery':
        this.expr(expr.expr, inSubquery);
        this.query(expr.query);
        return;
      case 'exists':
      case 'subquery':
      case 'array_subquery':
        this.query(expr.query);
        return;
      case 'call':
      case 'quantile':
      case 'quantiles':
        for (const child of childrenOf(expr)) this.expr(child, inSubquery);
        if (expr.over) this.window(expr.over, inSubquery);
        return;
      default:
        for (const child of childrenOf(expr)) this.expr(child, inSubquery);
    }
  }

  private window(over: ir.WindowSpec, inSubquery: boolean): void {
    for (const expr of over.partitionBy) this.expr(expr, inSubquery);
    for (const item of over.orderBy) this.expr(item.expr, inSubquery);
    for (const bound of [over.frame?.start, over.frame?.end]) if (bound && 'offset' in bound) this.expr(bound.offset, inSubquery);
  }

  /** Any mention of an alias inside a subquery keeps that alias whole. */
  query(query: ir.Query): void {
    for (const cte of query.ctes) this.query(cte.query);
    this.setExpr(query.body);
    for (const item of query.orderBy) this.expr(item.expr, true);
    if (query.limit) this.expr(query.limit, true);
    if (query.offset) this.expr(query.offset, true);
  }

  private setExpr(body: ir.SetExpr): void {
    if (body.kind === 'nested') return this.query(body.query);
    if (body.kind === 'setop') {
      this.setExpr(body.left);
      this.setExpr(body.right);
      return;
    }
    const select = body.select;
    for (const item of select.items) {
      if (item.kind === 'star') this.qualifier(item.qualifier);
      for (const expr of itemExpressions(item)) this.expr(expr, true);
    }
    if (select.from) {
      this.relation(select.from.base);
      for (const step of select.from.steps) {
        if (step.kind === 'join') {
          this.relation(step.relation);
          if (step.on) this.expr(step.on, true);
        } else {
          this.expr(step.array, true);
          if (step.condition) this.expr(step.condition, true);
        }
      }
    }
    for (const expr of [select.where, ...select.groupBy, select.having, select.qualify]) if (expr) this.expr(expr, true);
  }

  relation(relation: ir.Relation): void {
    if (relation.kind === 'subquery') this.query(relation.query);
    else if (relation.kind === 'unnest') this.expr(relation.array, true);
  }
}
