import type { SqlDialect } from '../../sql/dialect.ts';
import type * as ir from '../../sql/ir.ts';
import { chainUses, leadingChain, mapSelects, selectExpressions, subExpressions, type UnnestChain, type UnnestStep } from '../../sql/unnest-chains.ts';
import { flagColumn, leafColumn, type SplitLeaf } from './promotion.ts';
import { type LeafParts, readPartsInFilters } from './split-filters.ts';
import { duckdbDialect, markSourceTimestamps } from './sql-generator.ts';

/**
 * DuckDB's own optimisation of UNNEST chains over promoted columns (promotion.ts), run on the
 * lowered tree before printing. A SELECT whose chain aliases are read only through promoted
 * leaves (or not at all) reads, instead of `source t CROSS JOIN UNNEST(t.metadata) m …`,
 *
 *   (SELECT t.* EXCLUDE (hidden), t."sawmill:leaf:metadata.f" AS "m.f", …
 *      FROM promoted_view t WHERE <chain flags>
 *    UNION ALL
 *    SELECT t.* EXCLUDE (hidden), m.f AS "m.f", …
 *      FROM promoted_view t CROSS JOIN UNNEST(t.metadata) m … WHERE <some chain flag is false>) AS t
 *
 * The first branch holds the events whose every list along the chain has one element: the chain
 * gives exactly one row for each, equal to the promoted values, and DuckDB never decodes the
 * nested column. The rest of the SELECT reads `t."m.f"` where it read `m.f`, and substring
 * filters on a leaf stored split read its parts (split-filters.ts).
 */

export interface Promotion {
  /** The source's promoted view (promoted-view.ts), as relation SQL. */
  promotedRelation: string;
  /** Every hidden column of that view: none may reach the query's rows. */
  hidden: string[];
  /** Record paths with a flag column. */
  records: ReadonlySet<string>;
  /** Leaf paths with a promoted column. */
  leaves: ReadonlySet<string>;
  /** Promoted leaves whose parts the promoted view also shows, by path. */
  splits: ReadonlyMap<string, SplitLeaf>;
  /** The source's visible top-level columns, lower case. */
  columns: ReadonlySet<string>;
}

/** The DuckDB printer with this rewrite in front; `lookup` finds a relation's promotion. */
export function promotingDialect(lookup: (relation: string) => Promotion | undefined): SqlDialect {
  return { name: duckdbDialect.name, generate: (query, output) => duckdbDialect.generate(rewritePromoted(query, lookup), output) };
}

export function rewritePromoted(query: ir.Query, lookup: (relation: string) => Promotion | undefined): ir.Query {
  const promotionOf = (select: ir.Select) => (select.from?.base.kind === 'source' ? lookup(select.from.base.relation) : undefined);
  const rewrite = (select: ir.Select, orderBy: ir.OrderItem[]) => {
    const promotion = promotionOf(select);
    return promotion ? rewriteSelect(select, orderBy, promotion) : select;
  };
  const topN = topNThroughCte(query, promotionOf);
  // CTEs the query never reads are still bound by DuckDB: rewritten, they would only cost planning
  // time (logs.all defines eight it does not read).
  const used = readCtes(query);
  const rewritten = mapSelects({ ...query, ctes: query.ctes.filter((cte) => used.has(cte.name.toLowerCase()) && cte !== topN?.cte) }, rewrite);
  const byName = new Map(rewritten.ctes.map((cte) => [cte.name, cte]));
  if (topN) byName.set(topN.cte.name, { ...topN.cte, query: topN.query });
  return { ...rewritten, ctes: query.ctes.map((cte) => byName.get(cte.name) ?? cte) };
}

/**
 * `SELECT columns FROM cte ORDER BY keys LIMIT n` over a CTE that is a plain projection of a
 * source through an UNNEST chain whose aliases nothing reads (logs.all): the chain only repeats
 * rows, and each branch of the rewrite can keep its own top n, which DuckDB then answers from
 * the sort key alone before fetching the other columns (late materialization). DuckDB does
 * neither through a UNION ALL by itself. logs.all on DuckDB at 1M events: 48 ms as written, 430 ms
 * as a plain UNION ALL, 19 ms with the top n in each branch.
 */
function topNThroughCte(query: ir.Query, promotionOf: (select: ir.Select) => Promotion | undefined): { cte: ir.Cte; query: ir.Query } | undefined {
  const outer = query.body.kind === 'select' ? query.body.select : undefined;
  const limit = rowCount(query.limit);
  const offset = query.offset ? rowCount(query.offset) : 0;
  if (!outer || limit === undefined || offset === undefined || query.orderBy.length === 0 || !isPlainProjection(outer)) return undefined;
  const base = outer.from?.base;
  // The body reads only this CTE, with no subquery: no other reader of the CTE is ever run.
  if (base?.kind !== 'cte' || outer.from!.steps.length > 0) return undefined;
  const cte = query.ctes.find((c) => c.name.toLowerCase() === base.name.toLowerCase());
  const inner = cte && cte.query.body.kind === 'select' && cte.query.orderBy.length === 0 && !cte.query.limit ? cte.query.body.select : undefined;
  const promotion = inner && isPlainProjection(inner) ? promotionOf(inner) : undefined;
  if (!cte || !inner || !promotion) return undefined;
  // Each key, a column of the CTE, as the CTE's own expression for it.
  const keys: ir.OrderItem[] = [];
  for (const item of query.orderBy) {
    const named = item.expr.kind === 'position' ? outer.items[item.expr.position - 1] : { kind: 'expr' as const, expr: item.expr };
    const column = named?.kind === 'expr' && named.expr.kind === 'ref' ? cteColumn(named.expr.path, base.alias) : undefined;
    const source = inner.items.find((i) => i.kind === 'expr' && i.alias.toLowerCase() === column);
    if (!source || source.kind !== 'expr') return undefined;
    keys.push({ ...item, expr: source.expr });
  }
  const rewritten = rewriteTopN(inner, keys, limit + offset, promotion);
  return rewritten && { cte, query: rewritten };
}

/** The CTE column a ref names, as `column` or `alias.column`, lower case. */
function cteColumn(path: string[], alias: string): string | undefined {
  if (path.length === 1) return path[0]!.toLowerCase();
  return path.length === 2 && path[0]!.toLowerCase() === alias.toLowerCase() ? path[1]!.toLowerCase() : undefined;
}

/** A SELECT of plain column references, without DISTINCT, filters on groups or aggregates. */
function isPlainProjection(select: ir.Select): boolean {
  return !select.distinct && select.groupBy.length === 0 && !select.having && !select.qualify && select.items.every((item) => item.kind === 'expr' && item.expr.kind === 'ref');
}

function rowCount(expr: ir.Expr | undefined): number | undefined {
  return expr?.kind === 'number' && /^\d+$/.test(expr.text) ? Number(expr.text) : undefined;
}

/** Names (lower case) of the top-level CTEs read from the body's FROM clauses, directly or through other CTEs. */
function readCtes(query: ir.Query): Set<string> {
  const used = new Set<string>();
  const fromRelation = (relation: ir.Relation): void => {
    if (relation.kind === 'cte' && !used.has(relation.name.toLowerCase())) {
      used.add(relation.name.toLowerCase());
      const cte = query.ctes.find((c) => c.name.toLowerCase() === relation.name.toLowerCase());
      if (cte) fromQuery(cte.query);
    } else if (relation.kind === 'subquery') fromQuery(relation.query);
  };
  const fromSetExpr = (body: ir.SetExpr): void => {
    if (body.kind === 'nested') fromQuery(body.query);
    else if (body.kind === 'setop') [body.left, body.right].forEach(fromSetExpr);
    else if (body.select.from) {
      fromRelation(body.select.from.base);
      for (const step of body.select.from.steps) if (step.kind === 'join') fromRelation(step.relation);
    }
  };
  const fromQuery = (inner: ir.Query): void => {
    inner.ctes.forEach((cte) => fromQuery(cte.query));
    fromSetExpr(inner.body);
  };
  fromSetExpr(query.body);
  return used;
}

function rewriteSelect(select: ir.Select, orderBy: ir.OrderItem[], promotion: Promotion): ir.Select {
  const chain = leadingChain(select, (path) => promotion.records.has(path));
  if (!chain) return select;
  const uses = chainUses(select, chain, (name) => promotion.columns.has(name), orderBy.map((item) => item.expr));
  if (uses.blocked || [...uses.leaves].some((leaf) => !promotion.leaves.has(leaf))) return select;
  // Nothing read through the chain: the UNNEST only repeats rows, and costs little. The UNION ALL
  // would cost more, unless each branch can keep its own top n (topNThroughCte).
  if (uses.leaves.size === 0) return select;
  // The aliases become columns of the derived table: they must not collide with the source's.
  if ([...chain.paths.keys()].some((alias) => promotion.columns.has(alias))) return select;
  const from = select.from!;
  const base = from.base as Extract<ir.Relation, { kind: 'source' }>;
  // Refs to the source's timestamp keep the printer's fast forms: it is still the TIMESTAMPTZ column.
  markSourceTimestamps(select, orderBy.map((item) => item.expr));
  const union = branches(chain, uses.fields, base, promotion);
  readPartsInFilters([...selectExpressions(select, chain.steps.length), ...orderBy.map((item) => item.expr)], (expr) => partsRead(expr, chain, base.alias, promotion));
  readFlatColumns(select, orderBy, chain, base.alias);
  return { ...select, from: { base: { kind: 'subquery', query: union, alias: base.alias }, steps: from.steps.slice(chain.steps.length) } };
}

/**
 * `select ORDER BY keys LIMIT n` where `select` reads nothing through its chain: each branch gets
 * the WHERE, the keys and the limit, and the query keeps them to merge the branches.
 */
function rewriteTopN(select: ir.Select, keys: ir.OrderItem[], limit: number, promotion: Promotion): ir.Query | undefined {
  const chain = leadingChain(select, (path) => promotion.records.has(path));
  if (!chain || chain.steps.length !== select.from!.steps.length) return undefined;
  const uses = chainUses(select, chain, (name) => promotion.columns.has(name), keys.map((item) => item.expr));
  if (uses.blocked || uses.leaves.size > 0) return undefined;
  const base = select.from!.base as Extract<ir.Relation, { kind: 'source' }>;
  markSourceTimestamps(select, keys.map((item) => item.expr));
  const count: ir.Expr = { kind: 'number', text: String(limit) };
  const union = branches(chain, uses.fields, base, promotion, { where: select.where, orderBy: keys, limit: count });
  const merged: ir.Select = { ...select, from: { base: { kind: 'subquery', query: union, alias: base.alias }, steps: [] }, where: undefined };
  return { ctes: [], body: { kind: 'select', select: merged }, orderBy: keys, limit: count };
}

/** What each branch also applies when it keeps its own top n. */
interface BranchTopN {
  where?: ir.Expr;
  orderBy: ir.OrderItem[];
  limit: ir.Expr;
}

function branches(
  chain: UnnestChain,
  fields: Map<string, Set<string>>,
  base: Extract<ir.Relation, { kind: 'source' }>,
  promotion: Promotion,
  topN?: BranchTopN,
): ir.Query {
  const hidden = promotion.hidden;
  const source: ir.Relation = { kind: 'source', name: base.name, relation: promotion.promotedRelation, alias: base.alias };
  const flags = chainFlags(chain).map((path): ir.Expr => ({ kind: 'ref', path: [base.alias, flagColumn(path)] }));
  // Aliases read nowhere need no column: their step only decides how many rows an event gives.
  const read = chain.steps.filter((step) => fields.get(step.alias.toLowerCase())!.size > 0);
  const leafPath = (step: UnnestStep, field: string) => `${chain.paths.get(step.alias.toLowerCase())}.${field.toLowerCase()}`;
  const column = (alias: string, expr: ir.Expr): ir.SelectItem => ({ kind: 'expr', alias, aliasWritten: true, expr });
  // A split leaf's parts go along too; DuckDB drops the columns of the branches nothing reads.
  const items = (value: (step: UnnestStep, field: string) => ir.Expr, parts: (step: UnnestStep, field: string, split: SplitLeaf) => ir.Expr[]): ir.SelectItem[] => [
    { kind: 'star', qualifier: base.alias, except: hidden },
    ...read.flatMap((step) =>
      [...fields.get(step.alias.toLowerCase())!].flatMap((field) => {
        const split = promotion.splits.get(leafPath(step, field));
        const partItems = split ? parts(step, field, split).map((expr, i) => column(partColumn(flatColumn(step.alias, field), PARTS[i]!), expr)) : [];
        return [column(flatColumn(step.alias, field), value(step, field)), ...partItems];
      }),
    ),
  ];
  const ref = (name: string): ir.Expr => ({ kind: 'ref', path: [base.alias, name] });
  const leafRef = (step: UnnestStep, field: string) => ref(leafColumn(leafPath(step, field)));
  const storedParts = (_step: UnnestStep, _field: string, split: SplitLeaf) => [ref(split.head), ref(leafColumn(split.base)), ref(split.tail)];
  // Elements the chain unnests hold the whole value: all of it in the head.
  const wholeInHead = (step: UnnestStep, field: string): ir.Expr[] => [{ kind: 'ref', path: [step.alias, field] }, { kind: 'null' }, { kind: 'null' }];
  const branch = (select: ir.Select): ir.SetExpr => {
    if (!topN) return { kind: 'select', select };
    const where = topN.where ? and([select.where!, topN.where]) : select.where;
    return { kind: 'nested', query: { ctes: [], body: { kind: 'select', select: { ...select, where } }, orderBy: topN.orderBy, limit: topN.limit } };
  };
  const fast = branch({ distinct: false, items: items(leafRef, storedParts), from: { base: source, steps: [] }, where: and(flags), groupBy: [] });
  // The other rows, split so that each branch's condition is a test of single flag columns
  // (f1 AND f2 IS NOT TRUE): DuckDB pushes those into the scan and decodes the nested column only
  // for the rows that match. IS NOT TRUE is spelled `= false OR IS NULL`, which DuckDB checks
  // against column statistics: a branch over a segment whose flags are all TRUE is dropped from
  // the plan (the paths endpoint at 10M spent 50 ms on each such branch, for no rows).
  const notSingle = (flag: ir.Expr): ir.Expr => ({
    kind: 'binary',
    op: 'OR',
    left: { kind: 'binary', op: '=', left: flag, right: { kind: 'bool', value: false } },
    right: { kind: 'is', expr: flag, test: 'null', negated: false },
  });
  const originals = flags.map((flag, i): ir.SetExpr =>
    branch({
      distinct: false,
      items: items((step, field) => ({ kind: 'ref', path: [step.alias, field] }), wholeInHead),
      from: { base: source, steps: chain.steps },
      where: and([...flags.slice(0, i), notSingle(flag)]),
      groupBy: [],
    }),
  );
  const body = originals.reduce((left, right): ir.SetExpr => ({ kind: 'setop', op: 'union', all: true, left, right }), fast);
  return { ctes: [], body, orderBy: [] };
}

/**
 * The column of the branches holding `alias.field`. Flat columns rather than one struct per alias:
 * DuckDB does not reduce `struct_extract(struct_pack(...))`, so a filter on one field built the
 * whole struct for every row (api-counts at 1M: 61 -> 50-56 ms). A '.' never occurs in a field name.
 */
const flatColumn = (alias: string, field: string) => `${alias.toLowerCase()}.${field.toLowerCase()}`;

const PARTS = ['head', 'base', 'tail'] as const;
const partColumn = (column: string, part: (typeof PARTS)[number]) => `${column}|${part}`;

/** The parts of a split leaf `expr` reads through the chain, as columns of the derived `table`. */
function partsRead(expr: ir.Expr, chain: UnnestChain, table: string, promotion: Promotion): LeafParts | undefined {
  if (expr.kind !== 'ref' || expr.path.length !== 2) return undefined;
  const [alias, field] = expr.path as [string, string];
  const record = chain.paths.get(alias.toLowerCase());
  if (record === undefined || !promotion.splits.has(`${record}.${field.toLowerCase()}`)) return undefined;
  const part = (name: (typeof PARTS)[number]) => (): ir.Expr => ({ kind: 'ref', path: [table, partColumn(flatColumn(alias, field), name)] });
  return { head: part('head'), base: part('base'), tail: part('tail') };
}

/**
 * Point the SELECT's (and its query's ORDER BY's) reads of `alias.field` through the chain at the
 * flat columns of the derived `table`. In place: the lowered tree is this translation's own, and
 * the printer knows some refs by identity (markSourceTimestamps). chainUses has checked that the
 * chain is read only so.
 */
function readFlatColumns(select: ir.Select, orderBy: ir.OrderItem[], chain: UnnestChain, table: string): void {
  const visit = (expr: ir.Expr): void => {
    if (expr.kind !== 'ref') return subExpressions(expr).forEach(visit);
    const [alias, field] = expr.path;
    if (expr.path.length === 2 && chain.paths.has(alias!.toLowerCase())) expr.path = [table, flatColumn(alias!, field!)];
  };
  [...selectExpressions(select, chain.steps.length), ...orderBy.map((item) => item.expr)].forEach(visit);
}

/** The record paths whose flags decide the chain: a deeper path's flag implies its parents'. */
function chainFlags(chain: UnnestChain): string[] {
  const paths = [...chain.paths.values()];
  return paths.filter((path) => !paths.some((other) => other.startsWith(`${path}.`)));
}

function and(exprs: ir.Expr[]): ir.Expr {
  return exprs.reduce((all, next) => ({ kind: 'binary', op: 'AND', left: all, right: next }));
}
