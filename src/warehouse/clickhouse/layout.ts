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

/** What Sawmill inserts into and reads: the MergeTree table, or on a cluster the Distributed one. */
export const tableName = (view: string) => `${view}_data`;
/** On a cluster: the ReplicatedMergeTree table on every shard that the Distributed table spreads over. */
export const localTableName = (view: string) => `${view}_local`;

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
  /** SAWMILL_CLICKHOUSE_CLUSTER: every statement runs ON CLUSTER, tables are replicated and distributed. */
  cluster?: string | undefined;
}

const qualified = (database: string, name: string) => `${quoteIdent(database)}.${quoteIdent(name)}`;
const onCluster = (cluster: string | undefined) => (cluster ? ` ON CLUSTER ${quoteIdent(cluster)}` : '');
const FIXED_COLUMNS = [
  '`id` String CODEC(ZSTD(1))',
  "`timestamp` DateTime64(6, 'UTC') CODEC(Delta(8), ZSTD(1))",
  '`event_message` String CODEC(ZSTD(1))',
];
/** Logs at scale: a day per partition (retention drops whole parts), sorted by time. */
const STORAGE = 'PARTITION BY toDate(timestamp) ORDER BY timestamp';

export function createDatabaseSql(database: string, cluster: string | undefined): string {
  return `CREATE DATABASE IF NOT EXISTS ${quoteIdent(database)}${onCluster(cluster)}`;
}

/**
 * The tables of a new source: a MergeTree table, or on a cluster a ReplicatedMergeTree table per
 * shard (`_local`, replicas found through the `{shard}`/`{replica}` macros) and a Distributed
 * table over it under the name Sawmill inserts into and reads, sharded by event id. ZSTD on every
 * column, Delta on the timestamps, and a TTL from the source's retention.
 */
export function createTableSql(layout: SourceLayout, options: TableOptions): string[] {
  const { database, cluster } = options;
  const columns = FIXED_COLUMNS.join(', ');
  const ttl = ttlClause(options.retentionDays);
  if (!cluster) {
    return [
      `CREATE TABLE IF NOT EXISTS ${qualified(database, layout.table)} (${columns}) ENGINE = MergeTree ${STORAGE} ${ttl}` +
        'SETTINGS index_granularity = 8192, ttl_only_drop_parts = 1, non_replicated_deduplication_window = 1000',
    ];
  }
  const local = localTableName(layout.view);
  const replicaPath = quoteString(`/clickhouse/tables/{shard}/${database}/${local}`);
  return [
    `CREATE TABLE IF NOT EXISTS ${qualified(database, local)}${onCluster(cluster)} (${columns}) ` +
      `ENGINE = ReplicatedMergeTree(${replicaPath}, '{replica}') ${STORAGE} ${ttl}` +
      'SETTINGS index_granularity = 8192, ttl_only_drop_parts = 1',
    `CREATE TABLE IF NOT EXISTS ${qualified(database, layout.table)}${onCluster(cluster)} AS ${qualified(database, local)} ` +
      `ENGINE = Distributed(${quoteIdent(cluster)}, ${quoteIdent(database)}, ${quoteIdent(local)}, cityHash64(id))`,
  ];
}

const quoteString = (value: string) => `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;

function ttlClause(retentionDays: number | null): string {
  return retentionDays === null ? '' : `TTL toDateTime(timestamp) + toIntervalDay(${Math.floor(retentionDays)}) `;
}

/** The table that holds the rows (and so the TTL): the local one on a cluster. */
const storageTable = (layout: SourceLayout, cluster: string | undefined) => (cluster ? localTableName(layout.view) : layout.table);

export function retentionSql(layout: SourceLayout, options: Omit<TableOptions, 'retentionDays'>, retentionDays: number | null): string {
  const table = `${qualified(options.database, storageTable(layout, options.cluster))}${onCluster(options.cluster)}`;
  return retentionDays === null ? `ALTER TABLE ${table} REMOVE TTL` : `ALTER TABLE ${table} MODIFY ${ttlClause(retentionDays).trim()}`;
}

/** A new column: on a cluster first on the local tables, then on the Distributed one (which stores no data, so no codec). */
export function addColumnSql(layout: SourceLayout, options: Omit<TableOptions, 'retentionDays'>, column: string, type: FieldType): string[] {
  const { database, cluster } = options;
  const definition = `${quoteIdent(column)} ${clickhouseType(type)}`;
  const add = (table: string, codec: string) => `ALTER TABLE ${qualified(database, table)}${onCluster(cluster)} ADD COLUMN IF NOT EXISTS ${definition}${codec}`;
  if (!cluster) return [add(layout.table, ' CODEC(ZSTD(1))')];
  return [add(localTableName(layout.view), ' CODEC(ZSTD(1))'), add(layout.table, '')];
}

/**
 * The DDL that lets `layout` hold `target` (a superset of its read types): a new column for a new
 * field, a new generation for a field whose type widens. Returns the column statements only.
 */
export function wideningSql(layout: SourceLayout, options: Omit<TableOptions, 'retentionDays'>, target: RecordFields): string[] {
  const statements: string[] = [];
  for (const [name, type] of target) {
    const field = layout.fields.get(name);
    if (!field) {
      statements.push(...addColumnSql(layout, options, name, type));
      continue;
    }
    const wanted = mergeTypes(field.type, type);
    if (sameType(wanted, field.type) && writeColumn(field)) continue;
    statements.push(...addColumnSql(layout, options, generationColumn(name, wanted), wanted));
  }
  return statements;
}

export function createViewSql(layout: SourceLayout, options: Omit<TableOptions, 'retentionDays'>): string {
  const columns = ['`id`', '`timestamp`', '`event_message`'];
  for (const [name, field] of layout.fields) columns.push(`${readExpression(field)} AS ${quoteIdent(name)}`);
  const { database, cluster } = options;
  return `CREATE OR REPLACE VIEW ${qualified(database, layout.view)}${onCluster(cluster)} AS SELECT ${columns.join(', ')} FROM ${qualified(database, layout.table)}`;
}

/** View first (it reads the table), then the Distributed table, then the replicated data (SYNC frees its replica path for a re-create). */
export function dropSourceSql(view: string, options: Omit<TableOptions, 'retentionDays'>): string[] {
  const { database, cluster } = options;
  const drop = (kind: string, name: string, sync = '') => `DROP ${kind} IF EXISTS ${qualified(database, name)}${onCluster(cluster)}${sync}`;
  const statements = [drop('VIEW', view), drop('TABLE', tableName(view))];
  if (cluster) statements.push(drop('TABLE', localTableName(view), ' SYNC'));
  return statements;
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
