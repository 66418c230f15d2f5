/**
 * LQL → a BigQuery-dialect query over one source, for the same translator endpoints go through.
 * Field names are checked against the source's schema before they are written into the SQL (they
 * cannot be parameters); every value the user typed is bound as an `@p<n>` parameter.
 */

import { fieldName } from '../warehouse/schema.ts';
import type { FieldType, RecordFields } from '../warehouse/types.ts';
import { candidatePaths, isLevelPath, isNumeric, lqlError, type Clause, type LqlExpr, type LqlQuery } from './lql.ts';

/** The table name the generated SQL reads; the caller resolves it to the source's relation. */
export const SOURCE_TABLE = 'explored_source';

const FIXED: RecordFields = new Map<string, FieldType>([
  ['id', { kind: 'string' }],
  ['timestamp', { kind: 'timestamp' }],
  ['event_message', { kind: 'string' }],
]);

export interface TimeWindow {
  /** Inclusive lower bound, microseconds since the epoch. */
  fromMicros?: number | undefined;
  /** Exclusive upper bound, microseconds since the epoch. */
  toMicros?: number | undefined;
}

export interface CompiledFilter {
  /** `cross join unnest(...)` clauses, in dependency order. */
  joins: string[];
  /** Conditions joined with AND; empty means every row. */
  conditions: string[];
  params: Record<string, string>;
}

const quote = (name: string) => `\`${name}\``;

/** BigQuery's type for a parameter compared with a column of each kind. */
const SQL_TYPES = { int: 'int64', float: 'float64', bool: 'bool', timestamp: 'timestamp' } as const;

/** A field path checked against the schema: the records it goes through and its leaf. */
interface Resolved {
  /** Stored names of the records on the way, outermost first. */
  records: string[];
  leaf: string;
  type: FieldType;
  display: string;
}

/** How a saved query (an LQL endpoint) differs from the explorer's, which binds every value it is given. */
export interface FilterOptions {
  /** The SQL for a value written in the query (the explorer binds it as a parameter instead). */
  literal?: (value: string) => string;
  /** The caller's parameter a value names (`@name` in an endpoint), as `@name`, or undefined. */
  parameter?: (value: string) => string | undefined;
  /** Whether conditions ANDed at the top may join records in; joined rows repeat an event. Default true. */
  joins?: boolean;
}

class Builder {
  readonly joins: string[] = [];
  readonly conditions: string[] = [];
  readonly params: Record<string, string> = {};
  private readonly aliases = new Map<string, string>();
  private existsAliases = 0;

  constructor(
    private readonly schema: RecordFields,
    private readonly options: FilterOptions = {},
  ) {}

  param(value: string): string {
    if (this.options.literal) return this.options.literal(value);
    const name = `p${Object.keys(this.params).length}`;
    this.params[name] = value;
    return `@${name}`;
  }

  /** A value as written, or the caller's parameter it names. */
  value(value: string): string {
    return this.options.parameter?.(value) ?? this.param(value);
  }

  /** Check a path against the schema (names match in any case); throws the reason it does not resolve. */
  resolve(path: string[]): Resolved {
    let fields = new Map([...FIXED, ...this.schema]) as RecordFields;
    const resolved: string[] = [];
    for (const [index, segment] of path.entries()) {
      const name = fieldName(fields, segment);
      const type = fields.get(name);
      resolved.push(name);
      const display = displayPath(resolved);
      if (!type) {
        const known = [...fields.keys()].slice(0, 20).join(', ');
        throw lqlError(`unknown field ${display}${known ? `; fields here: ${known}` : ''}`);
      }
      if (index === path.length - 1) {
        if (type.kind === 'record') {
          throw lqlError(`${display} is a record; name one of its fields, e.g. ${display}.${[...type.fields.keys()][0] ?? 'field'}`);
        }
        return { records: resolved.slice(0, -1), leaf: name, type, display };
      }
      if (type.kind !== 'record') throw lqlError(`${display} is not a record, so it has no field ${path[index + 1]}`);
      fields = type.fields;
    }
    throw lqlError('empty field path');
  }

  /**
   * The column in the main query, adding one UNNEST join per record on the way. The same record
   * prefix shares one alias, so clauses on one element agree.
   */
  joinedColumn(field: Resolved): string {
    let owner = 't';
    for (const [index, name] of field.records.entries()) {
      const key = field.records.slice(0, index + 1).join('.').toLowerCase();
      let alias = this.aliases.get(key);
      if (!alias) {
        alias = `u${this.aliases.size}`;
        this.aliases.set(key, alias);
        this.joins.push(`cross join unnest(${owner}.${quote(name)}) as ${alias}`);
      }
      owner = alias;
    }
    return `${owner}.${quote(field.leaf)}`;
  }

  /** A condition on a field inside records that some element meets, without joining rows in. */
  existsCondition(field: Resolved, condition: (column: string) => string): string {
    if (field.records.length === 0) return condition(`t.${quote(field.leaf)}`);
    let owner = 't';
    const unnests = field.records.map((name) => {
      const alias = `e${this.existsAliases++}`;
      const unnest = `unnest(${owner}.${quote(name)}) as ${alias}`;
      owner = alias;
      return unnest;
    });
    return `exists(select 1 from ${unnests.join(' cross join ')} where ${condition(`${owner}.${quote(field.leaf)}`)})`;
  }

  /** A typed parameter for a value compared with a column of `type`. */
  typedValue(value: string, type: FieldType, display: string): string {
    const scalar = type.kind === 'list' ? type.element : type;
    const parameter = this.options.parameter?.(value);
    if (parameter !== undefined) return scalar.kind === 'string' || scalar.kind === 'record' ? parameter : `cast(${parameter} as ${SQL_TYPES[scalar.kind]})`;
    switch (scalar.kind) {
      case 'int':
      case 'float':
        if (!isNumeric(value)) throw lqlError(`${display} holds numbers; "${value}" is not one`);
        return /^-?\d+$/.test(value) && scalar.kind === 'int' ? `cast(${this.param(value)} as int64)` : `cast(${this.param(value)} as float64)`;
      case 'bool':
        if (!/^(true|false)$/i.test(value)) throw lqlError(`${display} holds true or false; "${value}" is neither`);
        return `cast(${this.param(value.toLowerCase())} as bool)`;
      case 'timestamp': {
        const micros = isNumeric(value) ? Number(value) : Date.parse(value) * 1000;
        if (!Number.isFinite(micros)) throw lqlError(`${display} holds times; "${value}" is not an ISO 8601 time`);
        return `timestamp_micros(cast(${this.param(String(Math.trunc(micros)))} as int64))`;
      }
      case 'string':
        return this.param(value);
      case 'record':
        throw lqlError(`${display} is a record`);
    }
  }

  /**
   * Conditions ANDed at the top of the query join records in (the plain, fast form); inside OR
   * and NOT, and for a field found in more than one place, each condition stands alone (EXISTS),
   * so one branch's missing record does not drop the row for another branch.
   */
  add(expr: LqlExpr): void {
    const joined = this.options.joins !== false;
    for (const item of expr.kind === 'and' ? expr.items : [expr]) this.conditions.push(this.expression(item, joined));
  }

  private expression(expr: LqlExpr, joined: boolean): string {
    switch (expr.kind) {
      case 'clause': {
        const condition = this.clause(expr.clause, joined);
        return expr.clause.negated ? negation(condition) : condition;
      }
      case 'not':
        return negation(this.expression(expr.item, false));
      case 'and':
      case 'or':
        return expr.items.map((item) => `(${this.expression(item, false)})`).join(` ${expr.kind} `);
    }
  }

  private clause(clause: Clause, joined: boolean): string {
    if (clause.kind === 'text') return `strpos(lower(t.event_message), lower(${this.value(clause.text)})) > 0`;
    const fields = this.candidates(clause.path);
    if (fields.length === 1 && joined) return this.fieldCondition(clause, fields[0]!, this.joinedColumn(fields[0]!));
    // A place where the value cannot apply (a number field for text) is left out, unless none is left.
    const conditions: string[] = [];
    let firstError: unknown;
    for (const field of fields) {
      try {
        conditions.push(this.existsCondition(field, (column) => this.fieldCondition(clause, field, column)));
      } catch (error) {
        firstError ??= error;
      }
    }
    if (conditions.length === 0) throw firstError;
    return conditions.length === 1 ? conditions[0]! : conditions.map((condition) => `(${condition})`).join(' or ');
  }

  /** Every place in the schema a clause's path may mean; the first one's reason when there is none. */
  private candidates(path: string[]): Resolved[] {
    const found: Resolved[] = [];
    const errors: Error[] = [];
    for (const candidate of candidatePaths(path)) {
      try {
        found.push(this.resolve(candidate));
      } catch (error) {
        errors.push(error as Error);
      }
    }
    if (found.length > 0) return found;
    const [first, ...others] = errors;
    if (others.length === 0 || !/^unknown field/.test(first!.message)) throw first;
    const looked = candidatePaths(path).slice(1).map(displayPath).join(', ');
    throw lqlError(first!.message.replace(/^(unknown field [^;\s]+)/, `$1 (nor ${looked})`));
  }

  private fieldCondition(clause: Exclude<Clause, { kind: 'text' }>, field: Resolved, sql: string): string {
    const { type, display } = field;
    if (clause.kind === 'null') return `${sql} is null`;
    if (clause.kind === 'regex') {
      const text = type.kind === 'string' ? sql : `cast(${sql} as string)`;
      if (type.kind === 'list') throw lqlError(`${display} is a list; match it with ${display}:value`);
      return `regexp_contains(${text}, ${this.value(clause.pattern)})`;
    }
    if (type.kind === 'list') {
      if (clause.kind !== 'compare' || clause.op !== '=') throw lqlError(`${display} is a list; only ${display}:value (membership) applies`);
      return `${this.typedValue(clause.value, type, display)} in unnest(${sql})`;
    }
    if (clause.kind === 'range') {
      if (type.kind !== 'int' && type.kind !== 'float') throw lqlError(`${display} does not hold numbers, so ${clause.low}..${clause.high} does not apply`);
      return `${sql} between ${this.typedValue(clause.low, type, display)} and ${this.typedValue(clause.high, type, display)}`;
    }
    // Levels are written ERROR by OpenTelemetry and error by most loggers: the same to a reader.
    if (isLevelPath(clause.path) && type.kind === 'string' && clause.op === '=') return `lower(${sql}) = lower(${this.value(clause.value)})`;
    return `${sql} ${clause.op} ${this.typedValue(clause.value, type, display)}`;
  }
}

/** An event without the field is not an event with that value: NULL counts as false, then negated. */
const negation = (condition: string) => `not coalesce(${condition}, false)`;

/** `metadata.x` shows as Logflare's `m.x` in messages. */
const displayPath = (path: string[]) => (path[0] === 'metadata' ? ['m', ...path.slice(1)] : path).join('.');

export function compileFilter(query: LqlQuery, schema: RecordFields, window: TimeWindow = {}, options: FilterOptions = {}): CompiledFilter {
  const builder = new Builder(schema, options);
  if (window.fromMicros !== undefined) builder.conditions.push(`t.timestamp >= timestamp_micros(cast(${builder.param(String(window.fromMicros))} as int64))`);
  if (window.toMicros !== undefined) builder.conditions.push(`t.timestamp < timestamp_micros(cast(${builder.param(String(window.toMicros))} as int64))`);
  if (query.expr) builder.add(query.expr);
  return { joins: builder.joins, conditions: builder.conditions, params: builder.params };
}

function fromWhere(filter: CompiledFilter, extra: string[] = []): string {
  const conditions = [...filter.conditions, ...extra];
  return [`from ${quote(SOURCE_TABLE)} t`, ...filter.joins, conditions.length ? `where ${conditions.map((c) => `(${c})`).join(' and ')}` : '']
    .filter(Boolean)
    .join('\n');
}

/** Where a page ends: the next page starts strictly after this event in (timestamp, id) order. */
export interface Cursor {
  timestampMicros: number;
  id: string;
}

export const encodeCursor = (cursor: Cursor) => `${cursor.timestampMicros}_${cursor.id}`;

export function decodeCursor(text: string): Cursor {
  const match = /^(\d{1,17})_(.{1,200})$/s.exec(text);
  if (!match) throw lqlError('before must be a cursor returned as next_before');
  return { timestampMicros: Number(match[1]), id: match[2]! };
}

/** Newest first; `limit` rows from just before `before`. */
export function eventsQuery(query: LqlQuery, schema: RecordFields, window: TimeWindow, page: { limit: number; before?: Cursor | undefined }) {
  const filter = compileFilter(query, schema, window);
  const params = { ...filter.params, page_limit: String(page.limit) };
  const extra: string[] = [];
  if (page.before) {
    Object.assign(params, { before_ts: String(page.before.timestampMicros), before_id: page.before.id });
    const at = 'timestamp_micros(cast(@before_ts as int64))';
    extra.push(`t.timestamp < ${at} or (t.timestamp = ${at} and t.id < @before_id)`);
  }
  const sql = `select t.*\n${fromWhere(filter, extra)}\norder by t.timestamp desc, t.id desc\nlimit cast(@page_limit as int64)`;
  return { sql, params };
}

/** Events per bucket of `bucketMicros`, counted once each even when UNNEST repeats them. */
export function volumeQuery(query: LqlQuery, schema: RecordFields, window: TimeWindow, bucketMicros: number) {
  const filter = compileFilter(query, schema, window);
  const width = 'cast(@bucket_micros as int64)';
  const sql =
    `select div(unix_micros(t.timestamp), ${width}) * ${width} as bucket, count(distinct t.id) as events\n` +
    `${fromWhere(filter)}\ngroup by bucket\norder by bucket`;
  return { sql, params: { ...filter.params, bucket_micros: String(bucketMicros) } };
}

/** How many events a source holds and the newest event time. */
export function statsQuery() {
  return {
    sql: `select count(*) as events, max(t.timestamp) as last_event from ${quote(SOURCE_TABLE)} t`,
    params: {},
  };
}
