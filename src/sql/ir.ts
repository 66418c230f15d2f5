/**
 * The translator's own tree: a BigQuery query after validation, with BigQuery semantics made
 * explicit (0- vs 1-based subscripts, date parts, quantiles, alias precedence, unnest chains).
 * Every engine's generator prints this tree; nothing in it is specific to one engine.
 */

import type { Position } from './ast.ts';
import type { SqlType } from './catalog.ts';
import type { FunctionName } from './functions/index.ts';

export interface Query {
  ctes: Cte[];
  body: SetExpr;
  orderBy: OrderItem[];
  limit?: Expr;
  offset?: Expr;
}

export interface Cte {
  name: string;
  query: Query;
  /**
   * WITH RECURSIVE's CTE that reads itself: its query is a UNION [ALL|DISTINCT] of a base term
   * (which gives the columns) and a recursive term (recursive-ctes.ts checked both).
   */
  recursive?: boolean;
}

export type SetExpr =
  | { kind: 'select'; select: Select }
  | { kind: 'nested'; query: Query }
  | { kind: 'setop'; op: 'union' | 'intersect' | 'except'; all: boolean; left: SetExpr; right: SetExpr };

export interface Select {
  distinct: boolean;
  items: SelectItem[];
  from?: From;
  where?: Expr;
  /** Select-list aliases are already replaced by their 1-based position (BigQuery precedence). */
  groupBy: Expr[];
  /**
   * GROUPING SETS, ROLLUP and CUBE, as the grouping sets they stand for (duplicates kept, as
   * BigQuery keeps them): each set lists positions in `groupBy`, which holds every grouping key once.
   */
  groupingSets?: number[][];
  /** GROUP BY ALL over a star: the analyzer writes the star's columns out and groups by them (and the other keys). */
  groupByAll?: boolean;
  having?: Expr;
  qualify?: Expr;
  /** `SELECT AS STRUCT` in an expression subquery: its one value is a struct of the select list (the analyzer builds it). */
  asStruct?: boolean;
}

export type SelectItem = { kind: 'expr'; expr: Expr; alias: string; aliasWritten: boolean } | StarItem;

/**
 * `*`, `alias.*` or `(expr).*`, with `EXCEPT`, `REPLACE` (and pipe syntax's RENAME). Where the
 * analyzer knows the columns and an engine could not expand them as BigQuery does (an UNNEST
 * element's fields, a struct's fields, a rename), it replaces the star by the columns it stands
 * for; what is left is printed as the engine's own star.
 */
export interface StarItem {
  kind: 'star';
  /** A range variable (`t.*`). */
  qualifier?: string;
  /** A value with fields (`(expr).*`, `struct_column.*`). */
  expr?: Expr;
  except: string[];
  /** `REPLACE (expr AS name)`: the column keeps its name and place. */
  replace?: Array<{ name: string; expr: Expr }>;
  /** Pipe `RENAME old AS new`: the column keeps its place. */
  rename?: Array<{ from: string; to: string }>;
  /** `SELECT AS VALUE expr` read as a table: a struct's fields are its columns, any other value one column. */
  asValue?: boolean;
  at?: Position;
}

/**
 * A FROM clause as BigQuery evaluates it: a base relation, then left-to-right steps. Correlated
 * UNNESTs are their own step so a generator can plan them (DuckDB: select-list unnest chains).
 */
export interface From {
  base: Relation;
  steps: FromStep[];
}

export type Relation =
  | { kind: 'source'; name: string; relation: string; alias: string }
  | { kind: 'cte'; name: string; alias: string; at?: Position }
  | { kind: 'subquery'; query: Query; alias?: string }
  | {
      kind: 'unnest';
      array: Expr;
      alias: string;
      offsetAlias?: string;
      anonymous?: boolean;
      /** An anonymous UNNEST of plain (not struct) values: its one column's name, f0_ as in BigQuery (set by the analyzer). */
      valueColumn?: string;
    }
  /**
   * `input PIVOT (agg [AS a], … FOR column IN (value [AS v], …)) [AS alias]`. The analyzer, which
   * knows the input's columns, replaces it by the grouped subquery it stands for (pivot.ts).
   */
  | { kind: 'pivot'; input: Relation; aggregates: Array<{ expr: Expr; alias?: string }>; column: Expr; values: Array<{ value: Expr; alias?: string }>; alias?: string; at?: Position }
  /**
   * `input UNPIVOT [INCLUDE|EXCLUDE NULLS] ((v1, …) FOR name IN ((c1, …) [AS label], …)) [AS alias]`,
   * replaced by the analyzer too (pivot.ts). `label` undefined: the columns' names joined by `_`.
   */
  | {
      kind: 'unpivot';
      input: Relation;
      values: string[];
      name: string;
      columns: Array<{ names: string[]; label?: string | number }>;
      includeNulls: boolean;
      alias?: string;
      at?: Position;
    };

export type FromStep =
  | {
      kind: 'unnest';
      array: Expr;
      alias: string;
      offsetAlias?: string;
      /**
       * Written without an alias (`FROM UNNEST([STRUCT(1 AS a)])`): `alias` is made up, and the
       * element's struct fields are columns of the FROM clause, as BigQuery reads a value table.
       */
      anonymous?: boolean;
      /** LEFT JOIN UNNEST … ON TRUE: keep the outer row, with NULL, when the array is empty or NULL. */
      keepEmpty: boolean;
      /** Conditions of `JOIN UNNEST(...) ON cond`; they filter like WHERE. */
      condition?: Expr;
    }
  | { kind: 'join'; type: 'inner' | 'left' | 'right' | 'full' | 'cross'; relation: Relation; on?: Expr; using?: string[] };

export interface OrderItem {
  expr: Expr;
  descending: boolean;
  /** Resolved to BigQuery's default when not written: NULLS FIRST ascending, NULLS LAST descending. */
  nullsFirst: boolean;
}

export type DatePart =
  | 'microsecond'
  | 'millisecond'
  | 'second'
  | 'minute'
  | 'hour'
  | 'day'
  | 'dayofweek'
  | 'dayofyear'
  | 'week'
  | 'isoweek'
  | 'month'
  | 'quarter'
  | 'year'
  | 'isoyear'
  | 'date';

export type ScalarTypeName =
  | 'INT64'
  | 'FLOAT64'
  | 'NUMERIC'
  | 'BIGNUMERIC'
  | 'STRING'
  | 'BYTES'
  | 'BOOL'
  | 'TIMESTAMP'
  | 'DATETIME'
  | 'DATE'
  | 'TIME'
  | 'JSON'
  | 'INTERVAL';
export type TypeName = ScalarTypeName | { array: TypeName } | { struct: StructFieldType[] };
/** A STRUCT<…> field; BigQuery allows fields without a name (`STRUCT<INT64, STRING>`). */
export interface StructFieldType {
  name?: string;
  type: TypeName;
}

export type BinaryOperator =
  | '+'
  | '-'
  | '*'
  | '/'
  | '%'
  | '||'
  | '='
  | '!='
  | '<'
  | '<='
  | '>'
  | '>='
  | 'AND'
  | 'OR'
  | '&'
  | '|'
  | '^';

/** How an array subscript counts and what happens out of range. */
export type SubscriptMode = 'offset' | 'ordinal' | 'safe_offset' | 'safe_ordinal';

export interface WindowSpec {
  partitionBy: Expr[];
  orderBy: OrderItem[];
  frame?: { units: 'rows' | 'range'; start: FrameBound; end?: FrameBound };
}
export type FrameBound =
  | { kind: 'unbounded_preceding' }
  | { kind: 'unbounded_following' }
  | { kind: 'current_row' }
  | { kind: 'preceding'; offset: Expr }
  | { kind: 'following'; offset: Expr };

/** A call as the analyzer resolved it: the signature matched, the types its arguments take there, its result. */
export interface ResolvedCall {
  signature: number;
  args: SqlType[];
  named: Record<string, SqlType>;
  result: SqlType;
  /** The types of an aggregate's ORDER BY keys. */
  orderBy?: SqlType[];
}

export type Expr =
  /**
   * A name path: first part is a range variable or a column, the rest are struct fields. After
   * analysis (analyze.ts) a path that names a column or field of a range variable starts with
   * that range variable. `at`: where it was written, for error messages.
   */
  | { kind: 'ref'; path: string[]; at?: Position }
  | { kind: 'number'; text: string }
  | { kind: 'string'; value: string }
  | { kind: 'bool'; value: boolean }
  | { kind: 'null' }
  /** `TIMESTAMP '…'`, `DATE '…'`, `DATETIME '…'` literals. */
  | { kind: 'typed_literal'; type: ScalarTypeName; value: string }
  /** `@name`: always bound as a string or NULL. */
  | { kind: 'param'; name: string }
  /**
   * `temporal`: set by the analyzer when an operand is a DATE, DATETIME, TIME, TIMESTAMP or
   * INTERVAL: the operator resolved against its catalog entry (functions/families/interval.ts),
   * which each engine renders instead of its own operator.
   */
  | {
      kind: 'binary';
      op: BinaryOperator;
      left: Expr;
      right: Expr;
      temporal?: ResolvedCall;
      /** Set by the analyzer when an operand is a FLOAT64: engines that order NaN or let a quotient overflow to infinity, unlike BigQuery, check for it. */
      floating?: boolean;
      /** `=` and `!=` of two STRUCTs: the left one's type (set by the analyzer). BigQuery compares them field by field, by position; a NULL field makes it NULL. */
      structs?: SqlType;
    }
  | { kind: 'not'; expr: Expr }
  | { kind: 'negate'; expr: Expr; temporal?: ResolvedCall }
  | { kind: 'is'; expr: Expr; test: 'null' | 'true' | 'false'; negated: boolean }
  | { kind: 'distinct_from'; left: Expr; right: Expr; negated: boolean }
  | { kind: 'like'; expr: Expr; pattern: Expr; negated: boolean }
  /** `floating`: an operand is a FLOAT64 (set by the analyzer), so NaN may take part: BigQuery orders it with nothing. */
  | { kind: 'between'; expr: Expr; low: Expr; high: Expr; negated: boolean; floating?: boolean }
  | { kind: 'in_list'; expr: Expr; list: Expr[]; negated: boolean }
  | { kind: 'in_subquery'; expr: Expr; query: Query; negated: boolean }
  /** `structs`: the value's type when it is a STRUCT (set by the analyzer), compared with each element as `=` compares structs. */
  | { kind: 'in_unnest'; expr: Expr; array: Expr; negated: boolean; structs?: SqlType }
  | { kind: 'exists'; query: Query; negated: boolean }
  | { kind: 'subquery'; query: Query }
  | { kind: 'array_subquery'; query: Query }
  | { kind: 'case'; operand?: Expr; whens: Array<{ when: Expr; then: Expr }>; else?: Expr }
  /**
   * `from`: the BigQuery type of `expr`, when the analyzer knows it (an engine may convert
   * differently per source type). `format`: CAST … FORMAT's model (a literal) and its AT TIME
   * ZONE zone, read by each engine through cast-formats.ts.
   */
  | { kind: 'cast'; expr: Expr; type: TypeName; safe: boolean; from?: ScalarTypeName; format?: { model: string; zone?: string } }
  /**
   * EXTRACT(part FROM x): `weekStart` for WEEK(<weekday>) (lower case); `from`: the type of `x`,
   * set by the analyzer.
   */
  | { kind: 'extract'; part: DatePart; expr: Expr; weekStart?: string; from?: ScalarTypeName }
  | { kind: 'interval'; value: Expr; unit: DatePart }
  /** A bare date-part keyword passed to a function (`timestamp_trunc(ts, HOUR)`). */
  /** `WEEK(MONDAY)`: weeks starting on that day (lower case). */
  | { kind: 'date_part'; part: DatePart; weekStart?: string }
  | { kind: 'array'; elements: Expr[] }
  | { kind: 'struct'; fields: Array<{ name?: string; value: Expr }> }
  | { kind: 'field'; base: Expr; name: string }
  /** `bare`: written `[i]`, not `[OFFSET(i)]` (JSON takes only the bare form). */
  | { kind: 'subscript'; base: Expr; index: Expr; mode: SubscriptMode; bare?: boolean }
  /** `t[0]` on a value table's row (a range variable): the struct field at that 0-based position. */
  | { kind: 'field_at'; base: Expr; position: number }
  | {
      kind: 'call';
      fn: FunctionName;
      args: Expr[];
      distinct: boolean;
      over?: WindowSpec;
      star?: boolean;
      /** `ARRAY_AGG(x ORDER BY y LIMIT n)`: only the aggregates that build arrays and strings take these. */
      orderBy?: OrderItem[];
      limit?: number;
      /** `IGNORE NULLS` (true) or `RESPECT NULLS` (false) as written (ARRAY_AGG, FIRST_VALUE, PERCENTILE_CONT …). */
      ignoreNulls?: boolean;
      /** `SAFE.fn(…)`: NULL instead of an error. */
      safe?: boolean;
      /** `ANY_VALUE(x HAVING MAX y)`: aggregate only the rows where `expr` is largest (smallest). */
      having?: { max: boolean; expr: Expr };
      /** Named arguments (`wide_number_mode => 'round'`), in the order written. */
      named?: Array<{ name: string; value: Expr }>;
      /** Where the function's name was written, for messages. */
      at?: Position;
      /**
       * Set by the analyzer: the catalog signature the call matched, and the types its arguments
       * take there (coercions already made explicit in `args`) and its result.
       */
      resolved?: ResolvedCall;
    }
  /** `approx_quantiles(x, n)[OFFSET(k)]`: the k/n quantile as a scalar aggregate. */
  | ({ kind: 'quantile'; expr: Expr; fraction: number; over?: WindowSpec } & QuantileModifiers)
  /** `approx_quantiles(x, n)`: the n+1 boundaries, minimum and maximum included. */
  | ({ kind: 'quantiles'; expr: Expr; buckets: number; over?: WindowSpec } & QuantileModifiers)
  /**
   * `m['key']` (ClickHouse SQL): the value of a Map column under a key, the value type's default
   * ('' or 0) when the key is absent, as ClickHouse answers. Only a Map may be read this way (the
   * analyzer refuses it on any other known type). `valueType`: the map's value type, which the
   * analyzer sets (a printer needs it for the default).
   */
  | { kind: 'map_subscript'; base: Expr; key: Expr; valueType?: ScalarTypeName; at?: Position }
  /** `GROUPING(key)`: 1 where the row's grouping set leaves `key` out (a NULL placeholder), else 0. */
  | { kind: 'grouping'; expr: Expr; at?: Position }
  /** A select-list alias used in GROUP BY / ORDER BY, as its 1-based position. */
  | { kind: 'position'; position: number };

/** `APPROX_QUANTILES(DISTINCT x, n RESPECT NULLS)`, and the type of x once analyzed. */
export interface QuantileModifiers {
  distinct?: boolean;
  /** NULLs are values, ordered first (BigQuery skips them unless asked). */
  respectNulls?: boolean;
  /** Set by the analyzer. */
  valueType?: SqlType;
}
