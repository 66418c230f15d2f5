/**
 * ClickHouse's part of the printer (src/sql/printer.ts prints what the engines share).
 *
 * Types: BigQuery TIMESTAMP is DateTime64(6, 'UTC') and DATETIME a DateTime64 without that
 * explicit zone (results.ts tells them apart by it), DATE is Date32, INT64 Int64 (counts and
 * lengths are cast from ClickHouse's unsigned results). Parameters are bound server-side as
 * `{name:Nullable(String)}`, never spliced.
 *
 * UNNEST: `CROSS JOIN UNNEST(a) AS m` is `ARRAY JOIN a AS m` (rows with an empty array are
 * dropped, as in BigQuery); `LEFT JOIN UNNEST(a) AS m ON TRUE` is `LEFT ARRAY JOIN`, which keeps
 * them with a default element, so a hidden `arrayEnumerate` column (0 for the kept row) answers
 * `m IS NULL`. ClickHouse evaluates WHERE below ARRAY JOIN where it can (PREWHERE on the table),
 * so no select-list rewrite is needed here. A chain of UNNESTs over a source column joins only
 * the leaf subcolumns the query reads, not whole records (array-join.ts). A subquery that reads
 * only an UNNEST of an outer array (correlated) becomes array functions (arrayCount, arrayReduce,
 * arrayExists, arrayMap).
 *
 * Settings the output relies on (set by the adapter on every statement): session_timezone=UTC,
 * prefer_column_name_to_alias=1 (a select alias never shadows a column in WHERE, as in
 * BigQuery), join_use_nulls=1, aggregate_functions_null_for_empty=1, cast_keep_nullable=1,
 * cast_string_to_date_time_mode=best_effort, formatdatetime_parsedatetime_m_is_month_name=0
 * (%M is minutes, as in BigQuery), enable_positional_arguments=1, enable_unaligned_array_join=1
 * (see array-join.ts).
 */

import { childrenOf, conjunctsOf, containsAggregation, containsWindow, isBooleanShaped, itemExpressions, namesUsedBy } from '../../sql/analysis.ts';
import type { SqlDialect } from '../../sql/dialect.ts';
import type { SqlType, TableShape } from '../../sql/catalog.ts';
import type { FunctionName } from '../../sql/functions/index.ts';
import type * as ir from '../../sql/ir.ts';
import { invalidSql } from '../../sql/parse.ts';
import { quantilePosition } from '../../sql/quantile-rank.ts';
import { type ExprOf, type JoinStep, type PlannedFrom, SqlPrinter, isNonZeroNumber, printedNumber, starExpandsUnnestElements, structFieldName, type UnnestRelation, type UnnestStep } from '../../sql/printer.ts';
import { offsetsColumn, planArrayJoins } from './array-join.ts';
import { extractPart, instantOf, TIME_ZONE_MARK } from './functions/calendar.ts';
import { castSql } from './functions/casts.ts';
import type { TimeLiteral } from '../../sql/time-literals.ts';
import { CLICKHOUSE_FUNCTIONS, SAFE_FUNCTIONS } from './functions/index.ts';
import { intervalLiteral, intervalText } from './functions/interval.ts';
import { raiseWhere } from './functions/shared.ts';
import { selectExpressions } from '../../sql/unnest-chains.ts';
import { JSON_MARKER } from './results.ts';

export function quoteIdentifier(name: string): string {
  return `\`${name.replaceAll('\\', '\\\\').replaceAll('`', '\\`')}\``;
}

/** ClickHouse string literals read backslash escapes, so backslashes are doubled. */
export function quoteString(value: string): string {
  return `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}

const presenceColumn = (alias: string) => quoteIdentifier(`__present_${alias}`);

/** What the expressions of the SELECT being printed need to know about its ARRAY JOINs. */
interface SelectScope {
  /** LEFT ARRAY JOIN aliases (lower case): their elements are defaults, not NULL, for an empty array. */
  keptEmpty: Set<string>;
  /** UNNEST aliases read as subcolumns: alias → field path → column. */
  subcolumns: Map<string, Map<string, string>>;
  /** The ARRAY JOIN clause of a step printed as subcolumns (array-join.ts). */
  arrayJoins?: Map<UnnestStep, string>;
  /** Its FROM clause's range variables (lower case), which a subquery may read. */
  ranges: ReadonlySet<string>;
}

const isAlwaysTrue = (on: ir.Expr | undefined) => !on || (on.kind === 'bool' && on.value);
const isTextLiteral = (expr: ir.Expr) => expr.kind === 'param' || expr.kind === 'string';

/** `(SELECT … FROM UNNEST(arr) AS x [WITH OFFSET AS o] [WHERE c])`, printed for array functions. */
interface UnnestOnly {
  /** The lambda's parameters: the element's alias, and the offset's when there is one. */
  names: string[];
  /** The arrays the lambda reads, in the parameters' order (elements, then their offsets). */
  arrays: string[];
  /** The same arrays, kept only where WHERE holds. */
  filtered: string[];
  select: ir.Select;
}

/**
 * `fn((x, o) -> body, arrays…)` once per array, that array first: arrayFilter and arraySort return
 * their first array, so each array of a shape is filtered or sorted as the lambda says in turn.
 */
function eachFirst(fn: string, names: string[], arrays: string[], body: string): string[] {
  const rotate = <T>(items: T[], index: number) => [...items.slice(index), ...items.slice(0, index)];
  return arrays.map((_, index) => `${fn}((${rotate(names, index).join(', ')}) -> ${body}, ${rotate(arrays, index).join(', ')})`);
}

const containsAggregate = (expr: ir.Expr) => namesUsedBy(expr).pinned;

/** Whether an expression reads an unqualified name other than `except`. */
const readsBareNames = (exprs: ir.Expr[], except: string | undefined) =>
  exprs.some((expr) => namesUsedBy(expr).heads.some(({ head, qualified }) => !qualified && head !== except));

const ARRAY_REDUCERS: Partial<Record<FunctionName, string>> = {
  sum: 'sum',
  avg: 'avg',
  min: 'min',
  max: 'max',
  any_value: 'any',
  logical_and: 'min',
  logical_or: 'max',
};

const TYPE_NAMES: Record<ir.ScalarTypeName, string | undefined> = {
  INT64: 'Int64',
  FLOAT64: 'Float64',
  NUMERIC: 'Decimal(38, 9)',
  BIGNUMERIC: 'Decimal(76, 38)',
  STRING: 'String',
  BYTES: 'String',
  BOOL: 'Bool',
  TIMESTAMP: "DateTime64(6, 'UTC')",
  DATETIME: 'DateTime64(6)',
  DATE: 'Date32',
  TIME: "DateTime64(6, 'Etc/UTC')",
  JSON: 'String',
  INTERVAL: 'Tuple(Int64, Int64, Int64)',
};

class ClickHousePrinter extends SqlPrinter {
  protected override readonly functions = CLICKHOUSE_FUNCTIONS;
  protected override readonly fieldFunctions = { byName: 'tupleElement', byPosition: 'tupleElement' };
  protected override readonly engineName = 'ClickHouse';

  /** ClickHouse cannot catch an error: SAFE. only where the rendering checks for every error itself. */
  protected override safeCall(printed: string, expr: ExprOf<'call'>): string {
    if (!SAFE_FUNCTIONS.has(expr.fn)) throw invalidSql(`SAFE.${expr.fn.toUpperCase()} is not supported on ClickHouse`, expr.at);
    return printed;
  }
  /** Per SELECT being printed, innermost last. */
  private readonly scopes: SelectScope[] = [];

  private anonymousSubqueries = 0;

  /** `subcolumnArrayJoins`: UNNEST chains join the leaf subcolumns they read (array-join.ts), not whole records. */
  constructor(private readonly subcolumnArrayJoins: boolean) {
    super({ identifier: quoteIdentifier, string: quoteString });
  }

  override print(query: ir.Query, output?: TableShape): string {
    this.anonymousSubqueries = 0;
    return super.print(query, output);
  }

  /** ClickHouse needs a name for every subquery joined; BigQuery lets them go without one. */
  protected override relation(relation: ir.Relation): string {
    if (relation.kind !== 'subquery' || relation.alias !== undefined) return super.relation(relation);
    return `(${this.query(relation.query)}) AS ${quoteIdentifier(`__subquery_${++this.anonymousSubqueries}`)}`;
  }

  protected override queryBody(query: ir.Query): string[] {
    // ORDER BY names the SELECT's UNNEST aliases too, so a SELECT prints its query's tail itself.
    if (query.body.kind === 'select') return [this.select(query.body.select, query)];
    const tail = this.tail(query);
    // ClickHouse applies ORDER BY / LIMIT after a UNION to its last SELECT only, and reads none
    // after a parenthesized query: wrap it.
    const body = this.setExpr(query.body);
    if (tail.length > 0) return [`SELECT * FROM (${body})`, ...tail];
    // Nor does it read a parenthesized query right after WITH (a UNION whose left side is a UNION).
    if (query.ctes.length > 0 && body.startsWith('(')) return [`SELECT * FROM (${body})`];
    return [body];
  }

  protected override cteQuery(cte: ir.Cte): string {
    if (cte.recursive && cte.query.body.kind === 'setop' && !cte.query.body.all) throw invalidSql('WITH RECURSIVE … UNION DISTINCT is not supported on ClickHouse (UNION ALL is)');
    return super.cteQuery(cte);
  }

  protected override setOperator(op: 'union' | 'intersect' | 'except', all: boolean): string {
    return `${op.toUpperCase()} ${all ? 'ALL' : 'DISTINCT'}`;
  }

  protected override select(select: ir.Select, owner?: ir.Query): string {
    refuseCorrelatedKeys(select, owner?.orderBy ?? []);
    const arrayJoins = this.subcolumnArrayJoins ? planArrayJoins(select, owner?.orderBy ?? []) : undefined;
    const ranges = select.from ? fromAliases(select.from, select.from.steps.length) : new Set<string>();
    this.scopes.push({ keptEmpty: new Set(), subcolumns: arrayJoins?.leaves ?? new Map(), arrayJoins: arrayJoins?.clauses, ranges });
    try {
      return super.select(select, owner);
    } finally {
      this.scopes.pop();
    }
  }

  protected override expr(expr: ir.Expr): string {
    if (expr.kind === 'subquery' || expr.kind === 'array_subquery' || expr.kind === 'exists' || expr.kind === 'in_subquery') {
      const read = setOperationReading(expr.query, new Set(this.scopes.flatMap((scope) => [...scope.ranges])));
      if (read) throw invalidSql('on ClickHouse, a subquery with a UNION, INTERSECT or EXCEPT that reads the outer row is not supported', read.at);
    }
    return super.expr(expr);
  }

  /**
   * ClickHouse comparisons and logical operators return UInt8; BigQuery returns BOOL, so
   * boolean-shaped expressions are cast to Bool where they leave a SELECT.
   */
  protected override selectedValue(expr: ir.Expr): string {
    const printed = this.expr(expr);
    return isBooleanShaped(expr) ? `CAST(${printed} AS Nullable(Bool))` : printed;
  }

  // ---- FROM: ARRAY JOIN ----------------------------------------------------------------------

  protected override from(select: ir.Select, from: ir.From): PlannedFrom {
    const scope = this.scopes.at(-1);
    if (!scope) throw new Error('a FROM clause is printed within its SELECT');
    let sql = this.relation(from.base);
    // Conditions of `JOIN UNNEST(…) ON cond` filter like WHERE.
    const where = [...conjunctsOf(select.where)];
    const hidden: string[] = [];
    for (const [index, step] of from.steps.entries()) {
      if (step.kind === 'join') {
        sql += this.join(step);
        continue;
      }
      const planned = scope.arrayJoins?.get(step);
      if (planned) sql += planned;
      else if (containsSubquery(step.array) && readsAny(step.array, fromAliases(from, index))) {
        // ClickHouse runs a correlated subquery in a SELECT list, not in ARRAY JOIN: the array is a
        // column of the first table, computed beside its columns.
        const alias = from.base.alias;
        if (index > 0 || from.base.kind === 'unnest' || alias === undefined) throw invalidSql('on ClickHouse, an UNNEST of a subquery (or LATERAL, or LEFT JOIN UNNEST … ON a condition) is not supported except right after the first table of its FROM clause');
        if (!decorrelatable(step.array)) throw invalidSql('on ClickHouse, a LATERAL subquery (or an UNNEST of a subquery) may not aggregate, use DISTINCT, a window function, ORDER BY, LIMIT or a subquery of its own');
        const column = `__lateral_${step.alias}`;
        hidden.push(column);
        sql = `(SELECT *, ${this.expr(step.array)} AS ${quoteIdentifier(column)} FROM ${sql}) AS ${quoteIdentifier(alias)}`;
        sql += this.arrayJoin({ ...step, array: { kind: 'ref', path: [column] } });
      } else sql += this.arrayJoin(step);
      if (step.keepEmpty) scope.keptEmpty.add(step.alias.toLowerCase());
      where.push(...conjunctsOf(step.condition));
    }
    const hiddenColumns = hidden.length > 0 ? new Map([[from.base.alias!.toLowerCase(), hidden]]) : undefined;
    return { sql, where, ambiguousStar: starExpandsUnnestElements(from), ...(hiddenColumns ? { hiddenColumns } : {}) };
  }

  /** One UNNEST step as ARRAY JOIN; several arrays in one ARRAY JOIN are zipped, row by row. */
  private arrayJoin(step: UnnestStep): string {
    const array = this.unnestedArray(step.array);
    // Nullable elements: the element LEFT ARRAY JOIN makes up for an empty array is then NULL, and
    // so are its fields (an array field is []), as in BigQuery. Elements are never arrays (BigQuery has no arrays of arrays).
    const elements = step.keepEmpty ? `arrayMap(element -> toNullable(element), ${array})` : array;
    const columns = [`${elements} AS ${quoteIdentifier(step.alias)}`];
    if (step.offsetAlias) columns.push(offsetsColumn(array, step));
    if (step.keepEmpty) columns.push(`arrayEnumerate(${array}) AS ${presenceColumn(step.alias.toLowerCase())}`);
    return ` ${step.keepEmpty ? 'LEFT ' : ''}ARRAY JOIN ${columns.join(', ')}`;
  }

  protected override join(step: JoinStep): string {
    // ClickHouse has no ON TRUE: an inner join on it is a cross join, an outer one joins ON 1 = 1.
    if (step.type === 'inner' && !step.using && isAlwaysTrue(step.on)) return super.join({ ...step, type: 'cross' });
    return super.join(step);
  }

  protected override joinType(type: Exclude<JoinStep['type'], 'cross'>): string {
    return type === 'full' ? 'FULL OUTER' : super.joinType(type);
  }

  protected override joinCondition(on: ir.Expr | undefined): string {
    return !on || isAlwaysTrue(on) ? '1 = 1' : this.expr(on);
  }

  /**
   * The array an UNNEST reads. An empty array, or one of only NULLs, is an ARRAY<INT64> in BigQuery;
   * as ClickHouse's Array(Nothing) its elements would fit few functions (no context coerces it here).
   */
  private unnestedArray(array: ir.Expr): string {
    const printed = this.expr(array);
    const untyped = array.kind === 'array' && array.elements.every((element) => element.kind === 'null');
    return untyped ? `CAST(${printed} AS Array(Nullable(Int64)))` : printed;
  }

  protected override unnestRelation(relation: UnnestRelation): string {
    // UNNEST as the whole FROM: its elements as a one-column table named by the alias, or for an
    // UNNEST without alias of a literal array of structs, one column per field.
    const array = this.unnestedArray(relation.array);
    const fields = relation.anonymous ? literalStructFields(relation.array) : undefined;
    const elements = fields
      ? fields.map((name) => `tupleElement(${quoteIdentifier(relation.alias)}, ${quoteString(name)}) AS ${quoteIdentifier(name)}`)
      : [relation.valueColumn ? `${quoteIdentifier(relation.alias)} AS ${quoteIdentifier(relation.valueColumn)}` : quoteIdentifier(relation.alias)];
    const columns = [...elements, ...(relation.offsetAlias ? [quoteIdentifier(relation.offsetAlias)] : [])];
    const joined = [`${array} AS ${quoteIdentifier(relation.alias)}`, ...(relation.offsetAlias ? [`range(length(${array})) AS ${quoteIdentifier(relation.offsetAlias)}`] : [])];
    return `(SELECT ${columns.join(', ')} FROM system.one ARRAY JOIN ${joined.join(', ')}) AS ${quoteIdentifier(`__unnest_${relation.alias}`)}`;
  }

  // ---- subqueries over an UNNEST ---------------------------------------------------------------

  /**
   * `(SELECT … FROM UNNEST(arr) AS x [WITH OFFSET AS o] [WHERE c])` with nothing else: usually
   * correlated with the outer row (ClickHouse cannot correlate a FROM), so it is computed with
   * array functions, whose lambdas take the element and its offset. `ordered`: the caller prints
   * the query's ORDER BY, LIMIT and OFFSET itself.
   */
  private unnestOnly(query: ir.Query, ordered = false): UnnestOnly | undefined {
    if (query.ctes.length > 0 || query.body.kind !== 'select') return undefined;
    if (!ordered && (query.orderBy.length > 0 || query.limit || query.offset)) return undefined;
    const select = query.body.select;
    const base = select.from?.base;
    if (!base || base.kind !== 'unnest' || select.from!.steps.length > 0) return undefined;
    if (select.distinct || select.groupBy.length > 0 || select.having || select.qualify || select.items.length !== 1) return undefined;
    // An UNNEST of structs without alias reads their fields as bare names, which a lambda over the elements would not have.
    if (base.anonymous && !base.valueColumn && readsBareNames([...select.items.flatMap(itemExpressions), ...(select.where ? [select.where] : []), ...query.orderBy.map((key) => key.expr)], base.offsetAlias)) return undefined;
    const array = this.expr(base.array);
    const names = [base.alias, ...(base.offsetAlias ? [base.offsetAlias] : [])].map(quoteIdentifier);
    const arrays = [array, ...(base.offsetAlias ? [`range(length(${array}))`] : [])];
    const filtered = select.where ? eachFirst('arrayFilter', names, arrays, this.expr(select.where)) : arrays;
    return { names, arrays, filtered, select };
  }

  /** `fn((x[, o]) -> body, arrays…)` over the shape's (filtered) arrays. */
  private overElements(fn: string, shape: UnnestOnly, body: string, arrays = shape.filtered): string {
    return `${fn}((${shape.names.join(', ')}) -> ${body}, ${arrays.join(', ')})`;
  }

  protected override scalarSubquery(query: ir.Query): string {
    const shape = this.unnestOnly(query);
    const item = shape?.select.items[0];
    if (shape && item?.kind === 'expr' && item.expr.kind === 'call' && !item.expr.over && !item.expr.distinct) {
      const call = item.expr;
      if (call.fn === 'count') {
        if (call.star || call.args.length === 0) return `toInt64(length(${shape.filtered[0]}))`;
        return `toInt64(${this.overElements('arrayCount', shape, `isNotNull(${this.expr(call.args[0]!)})`)})`;
      }
      if (call.fn === 'countif') return `toInt64(${this.overElements('arrayCount', shape, this.expr(call.args[0]!))})`;
      const reducer = ARRAY_REDUCERS[call.fn];
      if (reducer && call.args.length === 1) {
        const reduced = `arrayReduce('${reducer}OrNull', ${this.overElements('arrayMap', shape, this.expr(call.args[0]!))})`;
        // min/max of conditions are numbers (UInt8): LOGICAL_AND/OR answer a BOOL.
        return call.fn === 'logical_and' || call.fn === 'logical_or' ? `CAST(${reduced} AS Nullable(Bool))` : reduced;
      }
    }
    // ClickHouse decorrelates a correlated subquery into a join, where a row with nothing to count gets NULL; BigQuery counts 0.
    if (countsWithoutGroups(query)) return `coalesce(${super.scalarSubquery(query)}, 0)`;
    return super.scalarSubquery(query);
  }

  /**
   * ARRAY(SELECT … FROM UNNEST(arr) AS x … [ORDER BY …] [LIMIT n [OFFSET m]]): the elements are
   * sorted by arraySort (each key's NULLs placed by a flag before it), when every key goes the same
   * way (arrayReverseSort for descending ones), then mapped and sliced. Any other subquery is
   * run on its own and its rows gathered.
   */
  protected override arraySubquery(query: ir.Query): string {
    const shape = this.unnestOnly(query, true);
    const item = shape?.select.items[0];
    const sorted = shape && item?.kind === 'expr' ? this.sortedElements(shape, item.expr, query.orderBy) : undefined;
    if (shape && sorted && item?.kind === 'expr' && !containsAggregate(item.expr)) {
      const values = this.overElements('arrayMap', shape, this.expr(item.expr), sorted);
      if (!query.limit && !query.offset) return values;
      const start = query.offset ? `toInt64(${this.expr(query.offset)}) + 1` : '1';
      return `arraySlice(${values}, ${start}${query.limit ? `, toInt64(${this.expr(query.limit)})` : ''})`;
    }
    // groupArray skips NULLs; wrapped in a tuple each row's value is kept, NULL too, as BigQuery keeps it.
    return `(SELECT arrayMap(__r -> __r.1, groupArray(tuple(*))) FROM (${this.query(query)}))`;
  }

  /** The shape's arrays in ORDER BY's order, or undefined when its keys go different ways. */
  private sortedElements(shape: UnnestOnly, item: ir.Expr, orderBy: ir.OrderItem[]): string[] | undefined {
    if (orderBy.length === 0) return shape.filtered;
    const descending = orderBy[0]!.descending;
    if (orderBy.some((key) => key.descending !== descending)) return undefined;
    const keys = orderBy.map((key) => {
      const value = this.expr(key.expr.kind === 'position' ? item : key.expr);
      // Ascending, a false flag comes first; arrayReverseSort puts a true one first.
      return `${key.nullsFirst === descending ? 'isNull' : 'isNotNull'}(${value}), ${value}`;
    });
    return eachFirst(descending ? 'arrayReverseSort' : 'arraySort', shape.names, shape.filtered, `(${keys.join(', ')})`);
  }

  protected override exists(query: ir.Query, negated: boolean): string {
    const shape = this.unnestOnly(query);
    if (!shape) return super.exists(query, negated);
    const test = this.overElements('arrayExists', shape, shape.select.where ? this.expr(shape.select.where) : '1', shape.arrays);
    return negated ? `(NOT ${test})` : `(${test})`;
  }

  // ---- expressions ---------------------------------------------------------------------------

  protected override type(type: ir.TypeName): string {
    if (typeof type === 'object' && 'array' in type) return `Array(${this.nullableType(type.array)})`;
    if (typeof type === 'object') {
      return `Tuple(${type.struct.map((field, index) => `${quoteIdentifier(structFieldName(field.name, index))} ${this.nullableType(field.type)}`).join(', ')})`;
    }
    const name = TYPE_NAMES[type];
    if (!name) throw invalidSql(`type ${type} is not supported on ClickHouse`);
    return name;
  }

  private nullableType(type: ir.TypeName): string {
    return typeof type === 'string' ? `Nullable(${this.type(type)})` : this.type(type);
  }

  protected override param(name: string): string {
    return `{${name}:Nullable(String)}`;
  }

  protected override ref(path: string[]): string {
    const subcolumn = path.length > 1 ? this.scopes.at(-1)?.subcolumns.get(path[0]!.toLowerCase())?.get(path.slice(1).join('.')) : undefined;
    return subcolumn ?? super.ref(path);
  }

  protected override bool(value: boolean): string {
    return value ? 'true' : 'false';
  }

  protected override base64(value: string): string {
    return `base64Encode(${value})`;
  }

  /**
   * JSON is text in a String here: a JSON output value (also in an array or a struct) is wrapped
   * in a one-element tuple named for it, which results.ts reads back as JSON. An INTERVAL goes out
   * as BigQuery's text of it.
   */
  protected override outputValue(column: string, type: SqlType): string | undefined {
    if (containsJson(type)) return markJson(column, type);
    // An INTERVAL goes out as BigQuery's text of it.
    if (type.kind === 'scalar' && type.name === 'INTERVAL') return intervalText(column);
    return super.outputValue(column, type);
  }

  protected override printTimeLiteral(literal: TimeLiteral): string {
    switch (literal.type) {
      case 'DATE':
        return `toDate32(${quoteString(literal.text)})`;
      case 'DATETIME':
        return `toDateTime64(${quoteString(literal.text)}, 6)`;
      case 'TIME':
        return `toDateTime64(${quoteString(`1970-01-01 ${literal.text}`)}, 6, '${TIME_ZONE_MARK}')`;
      case 'TIMESTAMP':
        if ('utc' in literal) return `toDateTime64(${quoteString(literal.utc)}, 6, 'UTC')`;
        return instantOf(`toDateTime64(${quoteString(literal.wall)}, 6)`, { kind: 'name', name: literal.zone });
    }
  }


  protected override operator(op: ir.BinaryOperator, left: string, right: string, source?: ExprOf<'binary'>): string {
    if (source?.structs && (op === '=' || op === '!=')) {
      const equal = structEquality(left, right, source.structs);
      return op === '=' ? equal : `(NOT ${equal})`;
    }
    switch (op) {
      case '^':
        return `bitXor(${left}, ${right})`;
      case '&':
        return `bitAnd(${left}, ${right})`;
      case '|':
        return `bitOr(${left}, ${right})`;
      case '/':
        // BigQuery's division by zero is an error; ClickHouse gives ±inf or nan. throwIf carries
        // the whole condition: `if` does not keep ClickHouse from evaluating it for every row.
        return source?.floating ? withoutOverflow(left, right, this.division(left, right)) : this.division(left, right);
      default:
        return super.operator(op, left, right);
    }
  }

  private division(left: string, right: string): string {
    if (isNonZeroNumber(right)) return super.operator('/', left, right);
    return `(${left} / if(${right} = 0 AND ${left} IS NOT NULL, throwIf(${right} = 0 AND ${left} IS NOT NULL, 'division by zero'), ${right}))`;
  }

  /**
   * BigQuery coerces a string (a parameter, always a string, or a literal) compared with a
   * TIMESTAMP, number or BOOL to that type. ClickHouse only parses plain `YYYY-MM-DD hh:mm:ss`
   * there, so the string is cast to the other side's type, taken from the query at analysis time
   * (toTypeName is a constant). assumeNotNull keeps a bad value an error instead of NULL.
   */
  protected override comparand(side: ir.Expr, other: ir.Expr, otherSql?: string): string {
    const printed = this.expr(side);
    if (!isTextLiteral(side) || isTextLiteral(other) || other.kind === 'null' || namesUsedBy(other).pinned) return printed;
    if (['number', 'bool', 'typed_literal'].includes(other.kind)) return printed;
    const target = `toTypeName(assumeNotNull(${otherSql ?? this.expr(other)}))`;
    return `if(isNull(${printed}), NULL, CAST(assumeNotNull(${printed}), ${target}))`;
  }

  protected override is(expr: ExprOf<'is'>): string {
    const inner = expr.expr;
    // An element of LEFT ARRAY JOIN over an empty array is a default value, not NULL.
    if (expr.test === 'null' && inner.kind === 'ref' && inner.path.length === 1) {
      const alias = inner.path[0]!.toLowerCase();
      if (this.scopes.at(-1)?.keptEmpty.has(alias)) return `(${presenceColumn(alias)} ${expr.negated ? '!=' : '='} 0)`;
    }
    if (expr.test === 'null') return super.is(expr);
    const test = `coalesce(${this.expr(inner)} = ${expr.test === 'true' ? 'true' : 'false'}, false)`;
    return expr.negated ? `(NOT ${test})` : `(${test})`;
  }

  protected override distinctFrom(expr: ExprOf<'distinct_from'>): string {
    return `(${expr.negated ? 'isNotDistinctFrom' : 'isDistinctFrom'}(${this.expr(expr.left)}, ${this.expr(expr.right)}))`;
  }

  /**
   * FALSE for an empty list, NULL when x is NULL or when x is absent from a list holding NULLs.
   */
  protected override inUnnest(value: string, list: string, structs?: SqlType): string {
    if (structs) {
      // Each element compared as `=` compares structs: TRUE if one is equal, else NULL if one comparison is.
      const tests = `arrayMap(__e -> ${structEquality(value, '__e', structs)}, ${list})`;
      return `multiIf(empty(${list}), false, isNull(${value}), NULL, has(${tests}, true), true, has(${tests}, NULL) OR has(${list}, NULL), NULL, false)`;
    }
    return `multiIf(empty(${list}), false, isNull(${value}), NULL, has(${list}, ${value}), true, has(${list}, NULL), NULL, false)`;
  }

  /**
   * ClickHouse's IN skips a NULL element and answers FALSE where BigQuery's is NULL (`1 IN (2,
   * NULL)`, and so `1 NOT IN (2, NULL)` was TRUE). A list of literals other than NULL is left to
   * ClickHouse's IN, which gives NULL for a NULL value already; another list is checked for NULLs
   * when nothing matched.
   */
  protected override inList(expr: ExprOf<'in_list'>): string {
    if (expr.list.every((item) => NON_NULL_LITERALS.has(item.kind))) return super.inList(expr);
    const value = this.expr(expr.expr);
    const list = expr.list.map((item) => this.expr(item));
    const nulls = [value, ...list.filter((_, index) => !NON_NULL_LITERALS.has(expr.list[index]!.kind))].map((side) => `isNull(${side})`).join(' OR ');
    const test = `if(${value} IN (${list.join(', ')}), true, if(${nulls}, NULL, false))`;
    return expr.negated ? `(NOT ${test})` : test;
  }

  /**
   * `CASE x WHEN v …` compares with `=`, so a NULL x or v matches nothing; ClickHouse's simple CASE
   * (caseWithExpression) matches NULL with NULL. Each WHEN becomes the comparison (ClickHouse
   * computes the repeated operand once).
   */
  protected override caseExpr(expr: ExprOf<'case'>): string {
    const { operand, ...searched } = expr;
    if (!operand) return super.caseExpr(expr);
    return super.caseExpr({ ...searched, whens: expr.whens.map(({ when, then }) => ({ when: { kind: 'binary', op: '=', left: operand, right: when }, then })) });
  }

  /**
   * CAST fails on a bad value, SAFE_CAST gives NULL. ClickHouse turns a failed cast of a Nullable
   * value into NULL, so the value is unwrapped first to keep the error.
   */
  protected override cast(expr: ExprOf<'cast'>): string {
    const type = this.type(expr.type);
    // ClickHouse arrays cannot be NULL: a NULL ARRAY is the empty one, as BigQuery's results give it.
    if (expr.expr.kind === 'null' && typeof expr.type === 'object' && 'array' in expr.type) return `CAST([] AS ${type})`;
    if (expr.expr.kind === 'null') return `CAST(NULL AS ${typeof expr.type === 'string' ? `Nullable(${type})` : type})`;
    // A string literal as a date or time is read when the query is translated.
    if (expr.expr.kind === 'string' && !expr.format && typeof expr.type === 'string' && ['DATE', 'DATETIME', 'TIME', 'TIMESTAMP'].includes(expr.type)) {
      const literal = castSql(expr, { value: '', printTimeLiteral: (time) => this.printTimeLiteral(time) });
      if (literal !== undefined) return literal;
    }
    const value = this.expr(expr.expr);
    if (typeof expr.type !== 'string') return `CAST(${value} AS ${type})`;
    // Date and time text, TIME, INTERVAL text, hexadecimal INT64 text, FORMAT: BigQuery's rules (functions/casts.ts).
    const special = castSql(expr, { value, printTimeLiteral: (literal) => this.printTimeLiteral(literal) });
    if (special !== undefined) return special;
    // A TIMESTAMP's wall clock in UTC: CAST to a DateTime64 without zone keeps the value's 'UTC',
    // which results read as a TIMESTAMP again.
    if (expr.type === 'DATETIME' && expr.from === 'TIMESTAMP') return `toDateTime64(toString(${value}, 'UTC'), 6)`;
    if (expr.type === 'INT64' && expr.from && ROUNDED_TO_INT64[expr.from]) return int64FromNumber(value, expr.from, expr.safe);
    if (expr.safe) return `accurateCastOrNull(${value}, ${quoteString(type)})`;
    return `if(isNull(${value}), NULL, CAST(assumeNotNull(${value}) AS ${type}))`;
  }

  protected override struct(expr: ExprOf<'struct'>): string {
    const values = expr.fields.map((field) => this.expr(field.value));
    // Named tuple: element types come from the values, at analysis time. A bare column goes through
    // identity(): with enable_named_columns_in_function_tuple, tuple() over bare columns names its
    // elements after them, and the CAST would then match elements by those names (STRUCT(x AS ok)
    // read 0), where it must match them by position. Other values stay as they are, so a struct
    // of literals remains a constant (IN needs one).
    const unnamed = values.map((value, index) => (expr.fields[index]!.value.kind === 'ref' ? `identity(${value})` : value));
    const tuple = `tuple(${unnamed.join(', ')})`;
    const elements = expr.fields.map((field, index) => `${quoteString(`${quoteIdentifier(structFieldName(field.name, index))} `)}, toTypeName(${values[index]})`);
    return `CAST(${tuple}, concat('Tuple(', ${elements.join(", ', ', ")}, ')'))`;
  }

  protected override extract(expr: ExprOf<'extract'>): string {
    return extractPart(this.expr(expr.expr), expr.from, expr.part, expr.weekStart);
  }

  /** An INTERVAL value: (months, days, microseconds); date functions read `INTERVAL n part` from the tree themselves. */
  protected override interval(expr: ExprOf<'interval'>): string {
    return intervalLiteral(this.expr(expr.value), expr.unit);
  }


  /**
   * OFFSET is 0-based, ORDINAL 1-based, and both raise an error out of range; the SAFE_ forms
   * return NULL, and a NULL index gives NULL in every form. ClickHouse arrays are 1-based, give the
   * element type's default out of range (arrayElementOrNull gives NULL) and count negative indexes
   * from the end, so every form is guarded. `if` is short-circuited, so throwIf runs only for a bad
   * index; its condition is the index's check again, because a throwIf whose arguments do not read
   * both the array and the index is evaluated once for the block (or, in a lambda, for the outer
   * row), whatever the `if` says.
   */
  protected override subscript(expr: ExprOf<'subscript'>): string {
    const list = this.expr(expr.base);
    const index = `toInt64(${this.expr(expr.index)})`;
    const zeroBased = expr.mode === 'offset' || expr.mode === 'safe_offset';
    const position = zeroBased ? `(${index} + 1)` : index;
    const inRange = `${position} BETWEEN 1 AND length(${list})`;
    if (expr.mode === 'safe_offset' || expr.mode === 'safe_ordinal') {
      return `arrayElementOrNull(${list}, if(${inRange}, ${position}, 0))`;
    }
    const name = zeroBased ? 'OFFSET' : 'ORDINAL';
    const valid = `isNull(${position}) OR ${inRange}`;
    return `arrayElement(${list}, if(${valid}, ${position}, throwIf(NOT (${valid}), 'Array index is out of bounds (${name})')))`;
  }

  /**
   * A frame that ends before it starts (ROWS BETWEEN 2 FOLLOWING AND 1 FOLLOWING) is empty for
   * every row in BigQuery; ClickHouse refuses it. It becomes a frame past any partition's end
   * (ClickHouse takes offsets below 2^31), empty as well.
   */
  protected override over(over: ir.WindowSpec | undefined, wholePartition = false): string {
    if (!over?.frame || wholePartition || !endsBeforeStart(over.frame)) return super.over(over, wholePartition);
    const beyond: ir.FrameBound = { kind: 'following', offset: { kind: 'number', text: String(2 ** 31 - 2) } };
    return super.over({ ...over, frame: { units: 'rows', start: beyond, end: beyond } });
  }

  protected override callWindow(expr: ExprOf<'call'>): string {
    // lagInFrame/leadInFrame respect the frame; BigQuery's LAG/LEAD see the whole partition.
    return this.over(expr.over, expr.fn === 'lag' || expr.fn === 'lead');
  }

  protected override groupingCall(key: string): string {
    return `toInt64(grouping(${key}))`;
  }

  /**
   * APPROX_QUANTILES picks values of the input, as BigQuery does (ClickHouse's quantile
   * interpolates between them). Numbers and times go through a Greenwald-Khanna sketch (bounded
   * memory, rank within 1/10,000 of the count, exact on small inputs, at the position DuckDB's
   * quantile_disc picks); other types, and RESPECT NULLS, through the sorted values.
   */
  protected override quantile(expr: ExprOf<'quantile'>): string {
    if (!sketched(expr)) {
      const sorted = this.sortedValues(expr);
      return `if(empty(${sorted}), NULL, arrayElement(${sorted}, ${quantilePosition(`length(${sorted})`, expr.fraction, (a, b) => `intDiv(${a}, ${b})`)}))`;
    }
    const value = `if(count(${this.expr(expr.expr)})${this.over(expr.over)} = 0, NULL, ${this.gk(expr, 'quantileGK', [expr.fraction])})`;
    return isBool(expr) ? `CAST(${value} AS Nullable(Bool))` : value;
  }

  private gk(expr: ExprOf<'quantile'> | ExprOf<'quantiles'>, name: string, fractions: number[]): string {
    return `${name}${expr.distinct ? 'Distinct' : ''}(${GK_ACCURACY}, ${fractions.join(', ')})(${this.expr(expr.expr)})${this.over(expr.over)}`;
  }

  /** The values sorted (NULLs first, as values, under RESPECT NULLS; groupArray skips them unless in a tuple). */
  private sortedValues(expr: ExprOf<'quantile'> | ExprOf<'quantiles'>): string {
    const value = this.expr(expr.expr);
    const collect = expr.distinct ? 'groupUniqArray' : 'groupArray';
    // Over a value typed Nullable(Nothing) (UNNEST([NULL, NULL])) groupArray is NULL.
    if (!expr.respectNulls) return `arraySort(ifNull(${collect}(${value})${this.over(expr.over)}, []))`;
    return `arraySort(__v -> (isNotNull(__v), __v), arrayMap(__t -> __t.1, ${collect}(tuple(${value}))${this.over(expr.over)}))`;
  }

  /** ClickHouse's own map subscript: an absent key gives the value type's default. */
  protected override mapSubscript(expr: ExprOf<'map_subscript'>): string {
    return `${this.expr(expr.base)}[${this.expr(expr.key)}]`;
  }

  protected override quantiles(expr: ExprOf<'quantiles'>): string {
    const fractions = Array.from({ length: expr.buckets + 1 }, (_, index) => index / expr.buckets);
    if (!sketched(expr)) {
      const sorted = this.sortedValues(expr);
      const positions = fractions.map((fraction) => `arrayElement(${sorted}, ${quantilePosition(`length(${sorted})`, fraction, (a, b) => `intDiv(${a}, ${b})`)})`);
      return `if(empty(${sorted}), [], [${positions.join(', ')}])`;
    }
    const values = `if(count(${this.expr(expr.expr)})${this.over(expr.over)} = 0, [], ${this.gk(expr, 'quantilesGK', fractions)})`;
    return isBool(expr) ? `CAST(${values} AS Array(Nullable(Bool)))` : values;
  }
}

/** Literals that are never NULL. */
const NON_NULL_LITERALS: ReadonlySet<ir.Expr['kind']> = new Set(['number', 'string', 'bool', 'typed_literal']);

/**
 * Two STRUCTs (tuples) of type `type` compared as BigQuery does: field by field, by position, so a
 * NULL field makes the comparison NULL unless another field differs (ClickHouse finds a NULL
 * element of a tuple unequal to anything, a NULL tuple equal to nothing).
 */
function structEquality(left: string, right: string, type: SqlType): string {
  if (type.kind !== 'struct') return `(${left} = ${right})`;
  if (type.fields.length === 0) return `(${left} IS NOT NULL AND ${right} IS NOT NULL OR NULL)`;
  const fields = type.fields.map((field, index) => structEquality(`tupleElement(${left}, ${index + 1})`, `tupleElement(${right}, ${index + 1})`, field.type));
  return `(${fields.join(' AND ')})`;
}

/**
 * A FLOAT64 quotient of finite values beyond FLOAT64's range is BigQuery's error; ClickHouse makes
 * it infinite. throwIf gives 0 when it does not raise. A divisor written as a number of at least 1
 * cannot overflow anything.
 */
function withoutOverflow(left: string, right: string, quotient: string): string {
  const divisor = printedNumber(right);
  if (divisor !== undefined && Math.abs(divisor) >= 1) return quotient;
  return `(${quotient} + throwIf(isInfinite(${quotient}) AND isFinite(${left}), 'double overflow'))`;
}

function containsJson(type: SqlType): boolean {
  if (type.kind === 'array') return containsJson(type.element);
  if (type.kind === 'struct') return type.fields.some((field) => containsJson(field.type));
  return type.kind === 'scalar' && type.name === 'JSON';
}

/** `value` with each JSON in it wrapped as results.ts reads JSON (JSON_MARKER). */
function markJson(value: string, type: SqlType, depth = 0): string {
  // identity(): tuple() of a bare column names its element after it, and CAST would match that name.
  if (type.kind === 'scalar') return `CAST(tuple(identity(${value})), 'Tuple(${JSON_MARKER} Nullable(String))')`;
  if (type.kind === 'array') {
    const element = `__json_element${depth}`;
    return `arrayMap(${element} -> ${markJson(element, type.element, depth + 1)}, ${value})`;
  }
  if (type.kind !== 'struct') return value;
  const fields = type.fields.map((field, index) => {
    const read = `tupleElement(${value}, ${index + 1})`;
    return containsJson(field.type) ? markJson(read, field.type, depth + 1) : read;
  });
  const names = type.fields.map((field, index) => `${quoteString(`${quoteIdentifier(field.name)} `)}, toTypeName(${fields[index]})`);
  return `CAST(tuple(${fields.map((field) => `identity(${field})`).join(', ')}), concat('Tuple(', ${names.join(", ', ', ")}, ')'))`;
}

/**
 * A number BigQuery casts to INT64 is rounded half away from zero (ClickHouse truncates, and
 * rounds floats half to even): a FLOAT64 by its fraction, read exactly as |x| - floor(|x|); a
 * NUMERIC by round(), which rounds decimals that way.
 */
const ROUNDED_TO_INT64: Partial<Record<ir.ScalarTypeName, (value: string) => string>> = {
  FLOAT64: (value) => `(sign(${value}) * if(abs(${value}) - floor(abs(${value})) >= 0.5, ceil(abs(${value})), floor(abs(${value}))))`,
  NUMERIC: (value) => `round(${value})`,
  BIGNUMERIC: (value) => `round(${value})`,
};

/** CAST(number AS INT64): rounded, and BigQuery's error (NULL under SAFE_CAST) outside INT64, infinity and NaN included (ClickHouse wraps around). */
function int64FromNumber(value: string, from: ir.ScalarTypeName, safe: boolean): string {
  const rounded = ROUNDED_TO_INT64[from]!(value);
  // 2^63 is exact as a FLOAT64, 2^63 - 1 is not; NaN compares false.
  const inRange = from === 'FLOAT64' ? `${rounded} >= -9223372036854775808. AND ${rounded} < 9223372036854775808.` : `${rounded} BETWEEN -9223372036854775808 AND 9223372036854775807`;
  const outside = `isNotNull(${value}) AND NOT (${inRange})`;
  return `if(${outside}, ${safe ? 'NULL' : raiseWhere(outside, 'int64 out of range')}, toInt64(${rounded}))`;
}

/** Whether a frame's bounds, written as numbers, end before they start. */
function endsBeforeStart(frame: NonNullable<ir.WindowSpec['frame']>): boolean {
  const position = (bound: ir.FrameBound | undefined): number | undefined => {
    switch (bound?.kind) {
      case 'current_row':
        return 0;
      case 'preceding':
        return bound.offset.kind === 'number' ? -Number(bound.offset.text) : undefined;
      case 'following':
        return bound.offset.kind === 'number' ? Number(bound.offset.text) : undefined;
      default:
        return undefined;
    }
  };
  const [start, end] = [position(frame.start), position(frame.end)];
  return start !== undefined && end !== undefined && start > end;
}

/** quantileGK's accuracy: a rank error of at most count / 10,000. */
const GK_ACCURACY = 10_000;
/** The types quantileGK takes (BOOL comes back as a number). */
const SKETCHED_TYPES: ReadonlySet<string> = new Set(['INT64', 'FLOAT64', 'NUMERIC', 'BIGNUMERIC', 'TIMESTAMP', 'DATETIME', 'BOOL']);

const sketched = (expr: ExprOf<'quantile'> | ExprOf<'quantiles'>) =>
  !expr.respectNulls && expr.valueType?.kind === 'scalar' && SKETCHED_TYPES.has(expr.valueType.name);
const isBool = (expr: ExprOf<'quantile'> | ExprOf<'quantiles'>) => expr.valueType?.kind === 'scalar' && expr.valueType.name === 'BOOL';

/**
 * Whether ClickHouse's decorrelation answers the subqueries of `expr` as BigQuery would: row by
 * row filters and projections. It answers an aggregate over no rows with no row, and refuses
 * LIMIT and ORDER BY.
 */
function decorrelatable(expr: ir.Expr): boolean {
  const query = (q: ir.Query): boolean => q.orderBy.length === 0 && !q.limit && !q.offset && q.ctes.every((cte) => query(cte.query)) && set(q.body);
  const set = (body: ir.SetExpr): boolean => {
    if (body.kind === 'nested') return query(body.query);
    if (body.kind === 'setop') return set(body.left) && set(body.right);
    const { select } = body;
    const exprs = [...select.items.flatMap(itemExpressions), select.where, select.having, select.qualify].filter((e): e is ir.Expr => e !== undefined);
    if (select.distinct || select.groupBy.length > 0 || exprs.some((e) => containsAggregation(e) || containsWindow(e) || containsSubquery(e))) return false;
    const relations = select.from ? [select.from.base, ...select.from.steps.flatMap((step) => (step.kind === 'join' ? [step.relation] : []))] : [];
    return relations.every((relation) => relation.kind !== 'subquery' || query(relation.query));
  };
  if (expr.kind === 'subquery' || expr.kind === 'array_subquery' || expr.kind === 'exists' || expr.kind === 'in_subquery') return query(expr.query);
  return childrenOf(expr).every(decorrelatable);
}

/** `(SELECT COUNT(…) FROM … [WHERE …])`: one row, whose count is 0 where nothing matched. */
function countsWithoutGroups(query: ir.Query): boolean {
  if (query.body.kind !== 'select') return false;
  const { select } = query.body;
  const [item, ...more] = select.items;
  const counted = item?.kind === 'expr' && item.expr.kind === 'call' && !item.expr.over && (item.expr.fn === 'count' || item.expr.fn === 'countif');
  return counted && more.length === 0 && select.groupBy.length === 0 && !select.having;
}

/** The range variables (lower case) of a FROM clause before its step `index`. */
function fromAliases(from: ir.From, index: number): Set<string> {
  const aliases = [from.base.alias, ...from.steps.slice(0, index).map((step) => (step.kind === 'join' ? step.relation.alias : step.alias))];
  return new Set(aliases.flatMap((alias) => (alias ? [alias.toLowerCase()] : [])));
}

/** Whether `expr`, subqueries included, reads one of `aliases` (the analyzer qualifies a correlated name by its range variable). */
function readsAny(expr: ir.Expr, aliases: ReadonlySet<string>): boolean {
  return readOf(expr, aliases) !== undefined;
}

/** The first name in `expr`, subqueries included, that reads one of `aliases`. */
function readOf(expr: ir.Expr, aliases: ReadonlySet<string>): ExprOf<'ref'> | undefined {
  if (expr.kind === 'ref') return aliases.has(expr.path[0]!.toLowerCase()) ? expr : undefined;
  return readInSubquery(expr, aliases) ?? first(childrenOf(expr), (child) => readOf(child, aliases));
}

/** The first name that reads one of `aliases` inside the subquery `expr` is, if it is one. */
function readInSubquery(expr: ir.Expr, aliases: ReadonlySet<string>): ExprOf<'ref'> | undefined {
  const inQuery = (q: ir.Query): ExprOf<'ref'> | undefined => first(q.ctes, (cte) => inQuery(cte.query)) ?? inSet(q.body) ?? first(q.orderBy, (item) => readOf(item.expr, aliases));
  const inSet = (body: ir.SetExpr): ExprOf<'ref'> | undefined => {
    if (body.kind === 'nested') return inQuery(body.query);
    if (body.kind === 'setop') return inSet(body.left) ?? inSet(body.right);
    const relations = body.select.from ? [body.select.from.base, ...body.select.from.steps.flatMap((step) => (step.kind === 'join' ? [step.relation] : []))] : [];
    return first(selectExpressions(body.select), (e) => readOf(e, aliases)) ?? first(relations, (r) => (r.kind === 'subquery' ? inQuery(r.query) : r.kind === 'unnest' ? readOf(r.array, aliases) : undefined));
  };
  return expr.kind === 'subquery' || expr.kind === 'array_subquery' || expr.kind === 'exists' || expr.kind === 'in_subquery' ? inQuery(expr.query) : undefined;
}

/** The first name that reads one of `aliases` from inside a subquery of `expr` (not `expr`'s own names). */
function correlatedRead(expr: ir.Expr, aliases: ReadonlySet<string>): ExprOf<'ref'> | undefined {
  return readInSubquery(expr, aliases) ?? first(childrenOf(expr), (child) => correlatedRead(child, aliases));
}

/**
 * A name of `outer` read in a branch of a UNION, INTERSECT or EXCEPT of `query` (its body, its
 * CTEs or its FROM subqueries): ClickHouse's planner fails on such a correlated subquery
 * ("Different number of columns in UNION_ALL elements"). A branch's own range variables are not
 * the outer row's.
 */
function setOperationReading(query: ir.Query, outer: ReadonlySet<string>): ExprOf<'ref'> | undefined {
  const inBranch = (body: ir.SetExpr): ExprOf<'ref'> | undefined => {
    if (body.kind === 'setop') return inBranch(body.left) ?? inBranch(body.right);
    if (body.kind === 'nested') return inBranch(body.query.body);
    const own = body.select.from ? fromAliases(body.select.from, body.select.from.steps.length) : new Set<string>();
    const reachable = new Set([...outer].filter((alias) => !own.has(alias)));
    return first(selectExpressions(body.select), (expr) => readOf(expr, reachable));
  };
  const inBody = (body: ir.SetExpr): ExprOf<'ref'> | undefined => {
    if (body.kind === 'setop') return inBranch(body);
    if (body.kind === 'nested') return inQuery(body.query);
    const relations = body.select.from ? [body.select.from.base, ...body.select.from.steps.flatMap((step) => (step.kind === 'join' ? [step.relation] : []))] : [];
    return first(relations, (relation) => (relation.kind === 'subquery' ? inQuery(relation.query) : undefined));
  };
  const inQuery = (q: ir.Query): ExprOf<'ref'> | undefined => first(q.ctes, (cte) => inQuery(cte.query)) ?? inBody(q.body);
  return outer.size > 0 ? inQuery(query) : undefined;
}

function first<T, R>(items: readonly T[], found: (item: T) => R | undefined): R | undefined {
  for (const item of items) {
    const result = found(item);
    if (result !== undefined) return result;
  }
  return undefined;
}

/**
 * ClickHouse evaluates a subquery that reads the outer row in a select list or WHERE, not as a
 * grouping or ordering key ("Correlated subqueries in aggregation keys / ORDER BY are not
 * supported"): refused when the query is saved, at the name it reads, rather than at every run.
 */
function refuseCorrelatedKeys(select: ir.Select, orderBy: readonly ir.OrderItem[]): void {
  if (!select.from) return;
  const aliases = fromAliases(select.from, select.from.steps.length);
  const keys: Array<[string, ir.Expr]> = [...select.groupBy.map((expr): [string, ir.Expr] => ['GROUP BY', expr]), ...orderBy.map((item): [string, ir.Expr] => ['ORDER BY', item.expr])];
  for (const [clause, key] of keys) {
    const read = correlatedRead(key, aliases);
    if (read) throw invalidSql(`on ClickHouse, a subquery that reads the outer row in ${clause} is not supported: select it as a column of a subquery in FROM and use that column`, read.at);
  }
}

function containsSubquery(expr: ir.Expr): boolean {
  return expr.kind === 'subquery' || expr.kind === 'array_subquery' || expr.kind === 'exists' || expr.kind === 'in_subquery' || childrenOf(expr).some(containsSubquery);
}

/** The field names of an array literal whose elements are structs with every field named. */
function literalStructFields(array: ir.Expr): string[] | undefined {
  const first = array.kind === 'array' ? array.elements[0] : undefined;
  if (first?.kind !== 'struct' || first.fields.some((field) => field.name === undefined)) return undefined;
  return first.fields.map((field) => field.name!);
}

const subcolumnPrinter = new ClickHousePrinter(true);
const wholeRecordPrinter = new ClickHousePrinter(false);

export const clickhouseDialect: SqlDialect = {
  name: 'clickhouse',
  generate: (query, output) => subcolumnPrinter.print(query, output),
};

/**
 * The printer as it was before subcolumn ARRAY JOINs (array-join.ts): every UNNEST joins whole
 * records. Kept for measuring the difference (bench/clickhouse.ts) and for comparing rows.
 */
export const wholeRecordDialect: SqlDialect = {
  name: 'clickhouse',
  generate: (query, output) => wholeRecordPrinter.print(query, output),
};
