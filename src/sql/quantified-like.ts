/**
 * The quantified LIKE (`x [NOT] LIKE ANY|SOME|ALL patterns`) as the tree already has it, with
 * BigQuery's rules (operators reference, "Quantified LIKE operator"):
 *
 * - a list of patterns is an OR (ANY) or AND (ALL) of `x [NOT] LIKE p`, whose three-valued logic
 *   is exactly BigQuery's: TRUE or FALSE once one pattern decides, NULL where a NULL pattern or a
 *   NULL x leaves it open;
 * - for `UNNEST(array)` and a subquery the set may be empty, which decides by itself (ANY: FALSE;
 *   ALL: FALSE for an array, TRUE for a subquery; NOT LIKE ANY: TRUE; NOT LIKE ALL: TRUE for an
 *   array, FALSE for a subquery); then a NULL x is NULL, then one pattern that decides, then a
 *   NULL pattern makes it NULL. Each step is an EXISTS over the elements, which every engine
 *   evaluates per row (ClickHouse as array functions).
 */

import type * as ir from './ir.ts';

type Patterns = { list: ir.Expr[] } | { array: ir.Expr } | { query: ir.Query };

export function quantifiedLike({ value, all, negated, patterns }: { value: ir.Expr; all: boolean; negated: boolean; patterns: Patterns }): ir.Expr {
  const like = (pattern: ir.Expr): ir.Expr => ({ kind: 'like', negated, expr: structuredClone(value), pattern });
  if ('list' in patterns) {
    return patterns.list.map(like).reduce((left, right) => ({ kind: 'binary', op: all ? 'AND' : 'OR', left, right }));
  }
  // Over a subquery, its rows as an array (the subquery reads nothing of the outer row).
  const array: ir.Expr = 'array' in patterns ? patterns.array : { kind: 'array_subquery', query: patterns.query };
  const element: ir.Expr = { kind: 'ref', path: [PATTERN] };
  const anyElement = (where?: ir.Expr): ir.Expr => ({ kind: 'exists', negated: false, query: overElements(structuredClone(array), where) });
  // ANY is decided by a pattern that matches (NOT LIKE: one that does not), ALL by one that does not (NOT LIKE: one that does).
  const decidesWhenMatching = all === negated;
  const match: ir.Expr = { kind: 'like', negated: false, expr: structuredClone(value), pattern: element };
  const deciding: ir.Expr = decidesWhenMatching ? match : { kind: 'not', expr: match };
  const decided = !all;
  const whenEmpty = 'array' in patterns ? negated : all !== negated;
  return {
    kind: 'case',
    whens: [
      { when: { kind: 'not', expr: anyElement() }, then: { kind: 'bool', value: whenEmpty } },
      { when: { kind: 'is', test: 'null', negated: false, expr: structuredClone(value) }, then: { kind: 'null' } },
      { when: anyElement(deciding), then: { kind: 'bool', value: decided } },
      { when: anyElement({ kind: 'is', test: 'null', negated: false, expr: element }), then: { kind: 'null' } },
    ],
    else: { kind: 'bool', value: !decided },
  };
}

const PATTERN = '__pattern';

/** `SELECT 1 FROM UNNEST(array) AS __pattern [WHERE where]`. */
function overElements(array: ir.Expr, where: ir.Expr | undefined): ir.Query {
  const select: ir.Select = {
    distinct: false,
    items: [{ kind: 'expr', expr: { kind: 'number', text: '1' }, alias: 'f0_', aliasWritten: false }],
    from: { base: { kind: 'unnest', array, alias: PATTERN }, steps: [] },
    groupBy: [],
    ...(where ? { where: structuredClone(where) } : {}),
  };
  return { ctes: [], body: { kind: 'select', select }, orderBy: [] };
}
