import type { NestedReads, RecordFields } from '../types.ts';
import { sameType } from '../schema.ts';
import { duckdbType, quoteIdent } from './types.ts';

/**
 * A source's events live in one or more segment tables behind one view. A schema change rewrites
 * the newest segment when it is small (ALTER is a column rewrite in DuckDB) and otherwise opens a
 * new segment with the wider schema, so widening never rewrites millions of rows. The view casts
 * older segments up to the current schema.
 */

export interface Segment {
  name: string;
  fields: RecordFields;
  /** Hidden promoted columns (promotion.ts) → DuckDB type; fixed once the segment has rows. */
  hidden: ReadonlyMap<string, string>;
  rows: number;
}

export interface SourceLayout {
  view: string;
  segments: Segment[];
  /** The union of every segment's fields: what queries see. */
  fields: RecordFields;
  /** What the source's saved queries read through UNNEST chains: its promoted columns. */
  reads: NestedReads;
}

const FIXED_COLUMNS_SQL = '"id" VARCHAR, "timestamp" TIMESTAMPTZ, "event_message" VARCHAR';

export function viewName(sourceId: string): string {
  return `src_${sourceId.replaceAll('-', '').toLowerCase()}`;
}

export function segmentName(sourceId: string, sequence: number): string {
  return `${viewName(sourceId)}_${String(sequence).padStart(4, '0')}`;
}

/** Parse `src_<hex>_<nnnn>` back into its view and sequence. */
export function parseSegmentName(table: string): { view: string; sequence: number } | undefined {
  const match = /^(src_[0-9a-f]{32})_(\d{4,})$/.exec(table);
  return match ? { view: match[1]!, sequence: Number(match[2]) } : undefined;
}

export function createSegmentSql(name: string, fields: RecordFields, hidden: ReadonlyMap<string, string> = new Map()): string {
  const columns = [...fields].map(([field, type]) => `${quoteIdent(field)} ${duckdbType(type)}`);
  for (const [column, type] of hidden) columns.push(`${quoteIdent(column)} ${type}`);
  return `CREATE TABLE ${quoteIdent(name)} (${[FIXED_COLUMNS_SQL, ...columns].join(', ')})`;
}

/** Statements that widen a segment in place from `current` to `target`. */
export function alterSegmentSql(name: string, current: RecordFields, target: RecordFields): string[] {
  const statements: string[] = [];
  for (const [field, type] of target) {
    const existing = current.get(field);
    const column = quoteIdent(field);
    if (!existing) statements.push(`ALTER TABLE ${quoteIdent(name)} ADD COLUMN ${column} ${duckdbType(type)}`);
    // Nested changes go through ALTER COLUMN TYPE: unlike ADD COLUMN a.b, it replays from the WAL.
    else if (!sameType(existing, type)) statements.push(`ALTER TABLE ${quoteIdent(name)} ALTER COLUMN ${column} TYPE ${duckdbType(type)}`);
  }
  return statements;
}

export function createViewSql(layout: SourceLayout): string {
  const selects = layout.segments.map((segment) => {
    const columns = [...layout.fields].map(([field]) => `${segmentColumnSql(segment, layout.fields, field)} AS ${quoteIdent(field)}`);
    return `SELECT ${['"id"', '"timestamp"', '"event_message"', ...columns].join(', ')} FROM ${quoteIdent(segment.name)}`;
  });
  return `CREATE OR REPLACE VIEW ${quoteIdent(layout.view)} AS ${selects.join(' UNION ALL ')}`;
}

/** A field of the source as one segment gives it: its own column, cast up to `fields` where older. */
export function segmentColumnSql(segment: Segment, fields: RecordFields, field: string): string {
  const type = fields.get(field)!;
  const own = segment.fields.get(field);
  const column = quoteIdent(field);
  if (own && sameType(own, type)) return column;
  return `CAST(${own ? column : 'NULL'} AS ${duckdbType(type)})`;
}
