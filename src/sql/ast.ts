/**
 * The parts of @guanmingchiu/sqlparser-ts's syntax tree that the translator reads.
 *
 * The parser hands back plain objects mirroring the Rust enums: a variant with data is an object
 * with exactly one key (`{ Identifier: {...} }`), a variant without data is a string (`'None'`).
 * Only the variants we translate are typed here; `variantOf` lets the lowering switch on the
 * key, and any key not listed lands in a default branch that refuses the construct by name.
 */

export interface Position {
  line: number;
  column: number;
}
export interface Span {
  start: Position;
  end: Position;
}

export interface Ident {
  value: string;
  quote_style?: string;
  span?: Span;
}

export interface ObjectNamePart {
  Identifier: Ident;
}

export interface TableAlias {
  name: Ident;
  columns: unknown[];
}

export interface ValueVariants {
  Number: [string, boolean];
  SingleQuotedString: string;
  DoubleQuotedString: string;
  TripleSingleQuotedString: string;
  TripleDoubleQuotedString: string;
  SingleQuotedRawStringLiteral: string;
  DoubleQuotedRawStringLiteral: string;
  SingleQuotedByteStringLiteral: string;
  DoubleQuotedByteStringLiteral: string;
  TripleSingleQuotedByteStringLiteral: string;
  TripleDoubleQuotedByteStringLiteral: string;
  SingleQuotedRawByteStringLiteral: string;
  DoubleQuotedRawByteStringLiteral: string;
  Boolean: boolean;
  Null: null;
  Placeholder: string;
}
export type AstValue = OneOf<ValueVariants>;

export interface FunctionArgList {
  duplicate_treatment?: 'Distinct' | 'All';
  args: FunctionArg[];
  clauses: unknown[];
}
export type FunctionArg =
  | { Unnamed: FunctionArgExpr }
  | { Named: { name: Ident; arg: FunctionArgExpr; operator: string } }
  | { ExprNamed: unknown };
export type FunctionArgExpr = { Expr: AstExpr } | 'Wildcard' | { QualifiedWildcard: unknown };

export interface AstFunction {
  name: ObjectNamePart[];
  args: 'None' | { List: FunctionArgList } | { Subquery: AstQuery };
  over?: { WindowSpec: AstWindowSpec } | { NamedWindow: Ident };
  filter?: AstExpr;
  null_treatment?: unknown;
  within_group: unknown[];
  parameters?: unknown;
}

export interface AstOrderByExpr {
  expr: AstExpr;
  options: { asc?: boolean; nulls_first?: boolean };
  with_fill?: unknown;
}

export type AstWindowBound = 'CurrentRow' | { Preceding?: AstExpr } | { Following?: AstExpr };
export interface AstWindowSpec {
  window_name?: Ident;
  partition_by: AstExpr[];
  order_by: AstOrderByExpr[];
  window_frame?: { units: 'Rows' | 'Range' | 'Groups'; start_bound: AstWindowBound; end_bound?: AstWindowBound };
}

/** BigQuery type names as the parser spells them: unit variants are strings, others one-key objects. */
export type AstDataType = string | Record<string, unknown>;

export interface AccessDot {
  Dot: AstExpr;
}
export interface AccessSubscript {
  Subscript: { Index?: { index: AstExpr }; Slice?: unknown };
}

export interface CaseWhen {
  condition: AstExpr;
  result: AstExpr;
}

export interface ExprVariants {
  Identifier: Ident;
  CompoundIdentifier: Ident[];
  CompoundFieldAccess: { root: AstExpr; access_chain: Array<AccessDot | AccessSubscript> };
  Value: { value: AstValue; span?: Span };
  TypedString: { data_type: AstDataType; value: { value: AstValue } };
  BinaryOp: { left: AstExpr; op: string; right: AstExpr };
  UnaryOp: { op: string; expr: AstExpr };
  Nested: AstExpr;
  IsNull: AstExpr;
  IsNotNull: AstExpr;
  IsTrue: AstExpr;
  IsNotTrue: AstExpr;
  IsFalse: AstExpr;
  IsNotFalse: AstExpr;
  IsDistinctFrom: [AstExpr, AstExpr];
  IsNotDistinctFrom: [AstExpr, AstExpr];
  Like: { negated: boolean; any: boolean; expr: AstExpr; pattern: AstExpr; escape_char?: unknown };
  Between: { expr: AstExpr; negated: boolean; low: AstExpr; high: AstExpr };
  InList: { expr: AstExpr; list: AstExpr[]; negated: boolean };
  InSubquery: { expr: AstExpr; subquery: AstQuery; negated: boolean };
  InUnnest: { expr: AstExpr; array_expr: AstExpr; negated: boolean };
  Exists: { subquery: AstQuery; negated: boolean };
  Subquery: AstQuery;
  Case: { operand?: AstExpr; conditions: CaseWhen[]; else_result?: AstExpr };
  Cast: { kind: 'Cast' | 'SafeCast' | 'TryCast' | 'DoubleColon'; expr: AstExpr; data_type: AstDataType; format?: unknown };
  Extract: { field: unknown; syntax: string; expr: AstExpr };
  AtTimeZone: { timestamp: AstExpr; time_zone: AstExpr };
  Function: AstFunction;
  Interval: { value: AstExpr; leading_field?: unknown; last_field?: unknown; leading_precision?: unknown };
  Array: { elem: AstExpr[]; named: boolean };
  Struct: { values: AstExpr[]; fields: AstStructField[] };
  Tuple: AstExpr[];
  Named: { expr: AstExpr; name: Ident };
  Substring: { expr: AstExpr; substring_from?: AstExpr; substring_for?: AstExpr };
  Floor: { expr: AstExpr; field: unknown };
  Ceil: { expr: AstExpr; field: unknown };
  Trim: { expr: AstExpr; trim_where?: unknown; trim_what?: unknown; trim_characters?: AstExpr[] };
}
export type AstExpr = OneOf<ExprVariants>;

/** A field of `STRUCT<a INT64, STRING>`: in a type and in a typed constructor. */
export interface AstStructField {
  field_name?: Ident;
  field_type: AstDataType;
}

export interface AstUnnest {
  alias?: TableAlias;
  array_exprs: AstExpr[];
  with_offset: boolean;
  with_offset_alias?: Ident;
  with_ordinality: boolean;
}
export interface AstTable {
  name: ObjectNamePart[];
  alias?: TableAlias;
  args?: unknown;
  sample?: unknown;
  version?: unknown;
  with_hints: unknown[];
  partitions: unknown[];
  index_hints: unknown[];
  with_ordinality: boolean;
}
export interface TableFactorVariants {
  Table: AstTable;
  Derived: { lateral: boolean; subquery: AstQuery; alias?: TableAlias };
  UNNEST: AstUnnest;
  Pivot: {
    table: AstTableFactor;
    aggregate_functions: Array<{ expr: AstExpr; alias?: Ident }>;
    value_column: AstExpr[];
    value_source: { List: Array<{ expr: AstExpr; alias?: Ident }> } | Record<string, unknown>;
    default_on_null?: unknown;
    alias?: TableAlias;
  };
  Unpivot: {
    table: AstTableFactor;
    value: AstExpr;
    name: Ident;
    columns: Array<{ expr: AstExpr; alias?: Ident }>;
    null_inclusion?: 'IncludeNulls' | 'ExcludeNulls';
    alias?: TableAlias;
  };
}
export type AstTableFactor = OneOf<TableFactorVariants>;

export type JoinConstraint = { On: AstExpr } | { Using: ObjectNamePart[][] } | 'Natural' | 'None';
export interface JoinOperatorVariants {
  CrossJoin: unknown;
  Join: JoinConstraint;
  Inner: JoinConstraint;
  Left: JoinConstraint;
  LeftOuter: JoinConstraint;
  Right: JoinConstraint;
  RightOuter: JoinConstraint;
  FullOuter: JoinConstraint;
}
export interface AstJoin {
  relation: AstTableFactor;
  join_operator: OneOf<JoinOperatorVariants>;
}
export interface AstTableWithJoins {
  relation: AstTableFactor;
  joins: AstJoin[];
}

export interface SelectItemVariants {
  UnnamedExpr: AstExpr;
  ExprWithAlias: { expr: AstExpr; alias: Ident };
  Wildcard: AstWildcardOptions;
  QualifiedWildcard: [{ ObjectName: ObjectNamePart[] } | Record<string, unknown>, AstWildcardOptions];
}
export type AstSelectItem = OneOf<SelectItemVariants>;
export interface AstWildcardOptions {
  opt_except?: { first_element: Ident; additional_elements: Ident[] };
  opt_exclude?: unknown;
  opt_rename?: unknown;
  opt_replace?: { items: Array<{ expr: AstExpr; column_name: Ident }> };
  opt_ilike?: unknown;
}

export interface AstSelect {
  distinct?: 'Distinct' | 'All' | { On: unknown };
  top?: unknown;
  into?: unknown;
  projection: AstSelectItem[];
  from: AstTableWithJoins[];
  lateral_views: unknown[];
  prewhere?: unknown;
  selection?: AstExpr;
  group_by: { Expressions: [AstExpr[], unknown[]] } | { All: unknown[] };
  cluster_by: unknown[];
  distribute_by: unknown[];
  sort_by: unknown[];
  having?: AstExpr;
  named_window: Array<[Ident, { WindowSpec: AstWindowSpec } | { NamedWindow: Ident }]>;
  qualify?: AstExpr;
  connect_by?: unknown;
  value_table_mode?: 'AsStruct' | 'AsValue' | 'DistinctAsStruct' | 'DistinctAsValue' | Record<string, unknown>;
}

export interface SetExprVariants {
  Select: AstSelect;
  Query: AstQuery;
  SetOperation: { op: 'Union' | 'Except' | 'Intersect' | string; set_quantifier: string; left: AstSetExpr; right: AstSetExpr };
}
export type AstSetExpr = OneOf<SetExprVariants>;

export interface AstCte {
  alias: TableAlias;
  query: AstQuery;
  materialized?: unknown;
}

export interface AstQuery {
  with?: { recursive: boolean; cte_tables: AstCte[] };
  body: AstSetExpr;
  order_by?: { kind: { Expressions: AstOrderByExpr[] } | Record<string, unknown>; interpolate?: unknown };
  limit_clause?: { LimitOffset: { limit?: AstExpr; offset?: { value: AstExpr; rows: unknown }; limit_by: unknown[] } } | Record<string, unknown>;
  fetch?: unknown;
  locks: unknown[];
  for_clause?: unknown;
  settings?: unknown;
  format_clause?: unknown;
  pipe_operators: unknown[];
}

/** A statement as parsed; only `Query` is ever translated. */
export type AstStatement = { Query: AstQuery } | Record<string, unknown>;

/** One-key object per variant of V. */
export type OneOf<V> = { [K in keyof V]: { [P in K]: V[P] } }[keyof V];
/** `[key, value]` pairs of V, which TypeScript narrows together when destructured. */
export type EntryOf<V> = { [K in keyof V]: [K, V[K]] }[keyof V];

/**
 * The variant name and its data. The cast is the one place the untyped parser output meets our
 * types; callers must handle unknown keys in a default branch.
 */
export function variantOf<V>(node: OneOf<V>): EntryOf<V> {
  // Unit variants (`'Null'`, `'CurrentRow'`) arrive as bare strings.
  if (typeof node === 'string') return [node, undefined] as unknown as EntryOf<V>;
  const key = Object.keys(node as object)[0];
  return [key, (node as Record<string, unknown>)[key as string]] as EntryOf<V>;
}

/** The first source position found inside a node, for error messages. */
export function positionOf(node: unknown, depth = 0): Position | undefined {
  if (node === null || typeof node !== 'object' || depth > 6) return undefined;
  const span = (node as { span?: Span }).span;
  if (span && typeof span.start?.line === 'number' && span.start.line > 0) return span.start;
  for (const child of Object.values(node as Record<string, unknown>)) {
    const found = positionOf(child, depth + 1);
    if (found) return found;
  }
  return undefined;
}
