/**
 * LQL → a BigQuery-dialect query over one source, for the same translator endpoints go through.
 * Field names are checked against the source's schema before they are written into the SQL (they
 * cannot be parameters); every value the user typed is bound as an `@p<n>` parameter.
 */

import { fieldName } from '../warehouse/schema.ts';
import type { FieldType, RecordFields } from '../warehouse/types.ts';
import { isNumeric, lqlError, type Clause, type LqlQuery } from './lql.ts';

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

class Builder {
  readonly joins: string[] = [];
  readonly conditions: string[] = [];
  readonly params: Record<string, string> = {};
  private readonly aliases = new Map<string, string>();

  constructor(private readonly schema: RecordFields) {}

  param(value: string): string {
    const name = `p${Object.keys(this.params).length}`;
    this.params[name] = value;
    return `@${name}`;
  }

  /**
   * Resolve a path to a column expression and its type, adding one UNNEST per record on the
   * way. The same record prefix shares one alias, so clauses on one element agree.
   */
  column(path: string[]): { sql: string; type: FieldType; display: string } {
    let fields = new Map([...FIXED, ...this.schema]) as RecordFields;
    let owner = 't';
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
      const last = index === path.length - 1;
      if (last) {
        if (type.kind === 'record') {
          throw lqlError(`${display} is a record; name one of its fields, e.g. ${display}.${[...type.fields.keys()][0] ?? 'field'}`);
        }
        return { sql: `${owner}.${quote(name)}`, type, display };
      }
      if (type.kind !== 'record') throw lqlError(`${display} is not a record, so it has no field ${path[index + 1]}`);
      const key = resolved.join('.').toLowerCase();
      let alias = this.aliases.get(key);
      if (!alias) {
        alias = `u${this.aliases.size}`;
        this.aliases.set(key, alias);
        this.joins.push(`cross join unnest(${owner}.${quote(name)}) as ${alias}`);
      }
      owner = alias;
      fields = type.fields;
    }
    throw lqlError('empty field path');
  }

  /** A typed parameter for a value compared with a column of `type`. */
  typedValue(value: string, type: FieldType, display: string): string {
    const scalar = type.kind === 'list' ? type.element : type;
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

  add(clause: Clause): void {
    const condition = this.condition(clause);
    this.conditions.push(clause.negated ? `not (${condition})` : condition);
  }

  private condition(clause: Clause): string {
    if (clause.kind === 'text') return `strpos(lower(t.event_message), lower(${this.param(clause.text)})) > 0`;
    const { sql, type, display } = this.column(clause.path);
    if (clause.kind === 'null') return `${sql} is null`;
    if (clause.kind === 'regex') {
      const text = type.kind === 'string' ? sql : `cast(${sql} as string)`;
      if (type.kind === 'list') throw lqlError(`${display} is a list; match it with ${display}:value`);
      return `regexp_contains(${text}, ${this.param(clause.pattern)})`;
    }
    if (type.kind === 'list') {
      if (clause.kind !== 'compare' || clause.op !== '=') throw lqlError(`${display} is a list; only ${display}:value (membership) applies`);
      return `${this.typedValue(clause.value, type, display)} in unnest(${sql})`;
    }
    if (clause.kind === 'range') {
      if (type.kind !== 'int' && type.kind !== 'float') throw lqlError(`${display} does not hold numbers, so ${clause.low}..${clause.high} does not apply`);
      return `${sql} between ${this.typedValue(clause.low, type, display)} and ${this.typedValue(clause.high, type, display)}`;
    }
    return `${sql} ${clause.op} ${this.typedValue(clause.value, type, display)}`;
  }
}

/** `metadata.x` shows as Logflare's `m.x` in messages. */
const displayPath = (path: string[]) => (path[0] === 'metadata' ? ['m', ...path.slice(1)] : path).join('.');

export function compileFilter(query: LqlQuery, schema: RecordFields, window: TimeWindow = {}): CompiledFilter {
  const builder = new Builder(schema);
  if (window.fromMicros !== undefined) builder.conditions.push(`t.timestamp >= timestamp_micros(cast(${builder.param(String(window.fromMicros))} as int64))`);
  if (window.toMicros !== undefined) builder.conditions.push(`t.timestamp < timestamp_micros(cast(${builder.param(String(window.toMicros))} as int64))`);
  for (const clause of query.clauses) builder.add(clause);
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
