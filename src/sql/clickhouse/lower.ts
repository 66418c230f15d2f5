/**
 * Lowering ClickHouse SQL into the translator's tree (ir.ts): the clauses ClickHouse SQL shares
 * with BigQuery SQL (WITH, SELECT, FROM, JOIN, WHERE, GROUP BY, ORDER BY, LIMIT) come from the
 * BigQuery lowering; what differs is here: query parameters (`{name:Type}` and `@name`), ClickHouse
 * functions (functions.ts), 1-based array subscripts and map subscripts, LIMIT n BY, arrayJoin,
 * and ClickHouse's alias rules (an alias may be used anywhere in the SELECT, and wins over a
 * column of the same name).
 */

import type { AstExpr, AstFunction, AstValue, ExprVariants, Position } from '../ast.ts';
import { positionOf, variantOf } from '../ast.ts';
import type * as ir from '../ir.ts';
import { Lowering, type LowerOptions, type Scope } from '../lower.ts';
import { invalidSql } from '../parse.ts';
import { lowerClickHouseCall, parameterCast, type CallLowering } from './functions.ts';
import { positionKey, type TypedParameter } from './parse.ts';

export class ClickHouseLowering extends Lowering {
  constructor(
    options: LowerOptions,
    private readonly typedParameters: ReadonlyMap<string, TypedParameter>,
  ) {
    super(options);
  }

  // ---- parameters ----------------------------------------------------------------------------

  protected override value(value: AstValue, node: unknown): ir.Expr {
    if (typeof value === 'object' && value !== null && 'Placeholder' in value) return this.parameter(value.Placeholder as string, positionOf(node));
    return super.value(value, node);
  }

  /** `@name`, or `{name:Type}` (which parse.ts left as `@name` at the same position): the value cast to Type. */
  private parameter(written: string, at: Position | undefined): ir.Expr {
    const match = /^@([A-Za-z_][A-Za-z0-9_]*)$/.exec(written);
    if (!match?.[1]) throw invalidSql(`${written} is not a query parameter; write {name:Type} or @name`, at);
    this.parameters.add(match[1]);
    const param: ir.Expr = { kind: 'param', name: match[1] };
    const typed = at ? this.typedParameters.get(positionKey(at)) : undefined;
    return typed ? parameterCast(param, typed) : param;
  }

  // ---- expressions ---------------------------------------------------------------------------

  override expr(ast: AstExpr, scope: Scope): ir.Expr {
    const [kind, body] = variantOf<ExprVariants & { ILike: ExprVariants['Like'] }>(ast as never);
    if (kind === 'ILike') {
      const like = body as ExprVariants['Like'];
      if (like.any) throw invalidSql('ILIKE ANY is not supported', positionOf(like));
      this.refuseIfPresent(like.escape_char, 'ILIKE … ESCAPE');
      const lower = (expr: ir.Expr): ir.Expr => ({ kind: 'call', fn: 'lower', args: [expr], distinct: false });
      return { kind: 'like', negated: like.negated, expr: lower(this.expr(like.expr, scope)), pattern: lower(this.expr(like.pattern, scope)) };
    }
    return super.expr(ast, scope);
  }

  protected override call(fn: AstFunction, scope: Scope): ir.Expr {
    const lowering: CallLowering = {
      expr: (ast) => this.expr(ast, scope),
      args: (name) => this.plainArgs(fn, name),
      window: (name) => (fn.over ? this.window(fn.over, scope, name) : undefined),
    };
    return lowerClickHouseCall(fn, lowering);
  }
}
