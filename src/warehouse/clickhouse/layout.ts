import { createHash } from 'node:crypto';
import { mergeTypes, sameType } from '../schema.ts';
import type { FieldType, RecordFields } from '../types.ts';
import { clickhouseType, fieldTypeFromClickhouse, quoteIdent } from './types.ts';

/**
 * One MergeTree table per source (`src_<hex>_data`) behind a view (`src_<hex>`) that queries read.
 *
 * Widening a top-level column, or adding a field inside a nested record, would be a mutation in
 * ClickHouse (MODIFY COLUMN rewrites the column in every part: 1.6 s per million rows on chdb).
 * Instead a field whose type widens gets a new physical column, a "generation" named
 * `<field>__g<hash of its type>` (ADD COLUMN is metadata-only), new rows are written to the
 * newest generation only, and the view reads the newest non-empty generation, casting older
 * ones up (named tuples cast by element name, missing elements become NULL). Naming a
 * generation after its type makes concurrent widenings by several instances idempotent.
 */

export interface Generation {
  column: string;
  type: FieldType;
}

export interface FieldLayout {
  /** Oldest first; every row has a value in at most one of them. */
  generations: Generation[];
  /** What queries see: every generation's type merged. */
  type: FieldType;
}

export interface SourceLayout {
  view: string;
  table: string;
  fields: Map<string, FieldLayout>;
}

export const FIXED_COLUMN_NAMES = ['id', 'timestamp', 'event_message'] as const;
const GENERATION = /^(.+)__g([0-9a-f]{8})$/;

export function viewName(sourceId: string): string {
  return `src_${sourceId.replaceAll('-', '').toLowerCase()}`;
}

export const tableName = (view: string) => `${view}_data`;

export function parseTableName(table: string): string | undefined {
  return /^(src_[0-9a-f]{32})_data$/.exec(table)?.[1];
}

export function generationColumn(field: string, type: FieldType): string {
  return `${field}__g${createHash('sha256').update(clickhouseType(type)).digest('hex').slice(0, 8)}`;
}

/** The read types of every field, in the order fields first appeared. */
export function readFields(layout: SourceLayout): RecordFields {
  return new Map([...layout.fields].map(([name, field]) => [name, field.type]));
}

/** Rebuild a layout from the table's columns as ClickHouse lists them (in position order). */
export function layoutFromColumns(view: string, columns: ReadonlyArray<{ name: string; type: string }>): SourceLayout {
  const names = new Set(columns.map((column) => column.name));
  const fields = new Map<string, FieldLayout>();
  for (const column of columns) {
    if ((FIXED_COLUMN_NAMES as readonly string[]).includes(column.name)) continue;
    const generation = GENERATION.exec(column.name);
    const field = generation && names.has(generation[1]!) ? generation[1]! : column.name;
    const type = fieldTypeFromClickhouse(column.type);
    const existing = fields.get(field);
    if (existing) {
      existing.generations.push({ column: column.name, type });
      existing.type = mergeTypes(existing.type, type);
    } else {
      fields.set(field, { generations: [{ column: column.name, type }], type });
    }
  }
  return { view, table: tableName(view), fields };
}

/**
 * True when the table's columns are the view's, name for name and type for type (every field has
 * one generation, named after the field): queries can then read the table itself. ClickHouse
 * 26.7 reads subcolumns (`metadata.response.status_code`) only from a table, never through a
 * view or subquery, where it reads the whole column (measured with EXPLAIN: the view's
 * ReadFromMergeTree lists all of `metadata`).
 */
export function readsDirectly(layout: SourceLayout): boolean {
  for (const [name, field] of layout.fields) if (field.generations.length !== 1 || field.generations[0]!.column !== name) return false;
  return true;
}

/** The column new values of a field go to: its newest generation, when that holds the read type. */
export function writeColumn(field: FieldLayout): string | undefined {
  const newest = field.generations.at(-1);
  return newest && sameType(newest.type, field.type) ? newest.column : undefined;
}

export interface TableOptions {
  database: string;
  retentionDays: number | null;
}

const qualified = (database: string, name: string) => `${quoteIdent(database)}.${quoteIdent(name)}`;

/**
 * Logs at scale: a day per partition (retention drops whole parts), sorted by time so a time
 * range reads only its granules, ZSTD on every column, Delta on the timestamps, and a TTL from
 * the source's retention.
 */
export function createTableSql(layout: SourceLayout, options: TableOptions): string {
  const columns = [
    '`id` String CODEC(ZSTD(1))',
    "`timestamp` DateTime64(6, 'UTC') CODEC(Delta(8), ZSTD(1))",
    '`event_message` String CODEC(ZSTD(1))',
  ];
  return (
    `CREATE TABLE IF NOT EXISTS ${qualified(options.database, layout.table)} (${columns.join(', ')}) ` +
    `ENGINE = MergeTree PARTITION BY toDate(timestamp) ORDER BY timestamp ` +
    `${ttlClause(options.retentionDays)}` +
    `SETTINGS index_granularity = 8192, ttl_only_drop_parts = 1, non_replicated_deduplication_window = 1000`
  );
}

function ttlClause(retentionDays: number | null): string {
  return retentionDays === null ? '' : `TTL toDateTime(timestamp) + toIntervalDay(${Math.floor(retentionDays)}) `;
}

export function retentionSql(layout: SourceLayout, database: string, retentionDays: number | null): string {
  const table = qualified(database, layout.table);
  return retentionDays === null ? `ALTER TABLE ${table} REMOVE TTL` : `ALTER TABLE ${table} MODIFY ${ttlClause(retentionDays)}`;
}

export function addColumnSql(layout: SourceLayout, database: string, column: string, type: FieldType): string {
  return `ALTER TABLE ${qualified(database, layout.table)} ADD COLUMN IF NOT EXISTS ${quoteIdent(column)} ${clickhouseType(type)} CODEC(ZSTD(1))`;
}

/**
 * The DDL that lets `layout` hold `target` (a superset of its read types): a new column for a new
 * field, a new generation for a field whose type widens. Returns the column statements only.
 */
export function wideningSql(layout: SourceLayout, database: string, target: RecordFields): string[] {
  const statements: string[] = [];
  for (const [name, type] of target) {
    const field = layout.fields.get(name);
    if (!field) {
      statements.push(addColumnSql(layout, database, name, type));
      continue;
    }
    const wanted = mergeTypes(field.type, type);
    if (sameType(wanted, field.type) && writeColumn(field)) continue;
    statements.push(addColumnSql(layout, database, generationColumn(name, wanted), wanted));
  }
  return statements;
}

export function createViewSql(layout: SourceLayout, database: string): string {
  const columns = ['`id`', '`timestamp`', '`event_message`'];
  for (const [name, field] of layout.fields) columns.push(`${readExpression(field)} AS ${quoteIdent(name)}`);
  return `CREATE OR REPLACE VIEW ${qualified(database, layout.view)} AS SELECT ${columns.join(', ')} FROM ${qualified(database, layout.table)}`;
}

function readExpression(field: FieldLayout): string {
  const target = clickhouseType(field.type);
  const cast = (generation: Generation) =>
    sameType(generation.type, field.type) ? quoteIdent(generation.column) : `CAST(${quoteIdent(generation.column)} AS ${target})`;
  const newestFirst = [...field.generations].reverse();
  if (newestFirst.length === 1) return cast(newestFirst[0]!);
  if (field.type.kind === 'record' || field.type.kind === 'list') {
    // Arrays cannot be NULL: the generation a row was written to is the one that is not empty.
    return newestFirst.slice(0, -1).reduceRight((otherwise, generation) => `if(notEmpty(${quoteIdent(generation.column)}), ${cast(generation)}, ${otherwise})`, cast(newestFirst.at(-1)!));
  }
  return `coalesce(${newestFirst.map(cast).join(', ')})`;
}
