import type { NestedReads, RecordFields } from '../types.ts';
import { type SourceLayout, segmentColumnSql } from './layout.ts';
import { columnSql, columnType, type HiddenColumn, joinedPartsSql, wantedColumns } from './promotion.ts';
import type { Promotion } from './rewrite.ts';
import { quoteIdent } from './types.ts';

/**
 * The second view of a source, read only by rewritten queries (rewrite.ts): the public view's
 * columns plus every promoted column the source asks for. The public view never shows them, so
 * `SELECT *`, schema listings and results stay as they were.
 *
 * Every segment answers every promoted column: its stored copy where it has one, else the value
 * computed from its nested column (segments from before a promotion, or before this layout),
 * else (the path is not in the schema at all) FALSE or NULL, which sends rows down the original
 * UNNEST chain, where the query fails to bind exactly as it would have without the rewrite.
 */

export function promotedViewName(view: string): string {
  return `${view}_promoted`;
}

export function createPromotedViewSql(layout: SourceLayout): string {
  const wanted = wantedColumns(layout.reads);
  const selects = layout.segments.map((segment) => {
    const visible = [...layout.fields].map(([field]) => `${segmentColumnSql(segment, layout.fields, field)} AS ${quoteIdent(field)}`);
    const hidden = wanted.map((column) => `${promotedColumnSql(layout, segment, column)} AS ${quoteIdent(column.name)}`);
    return `SELECT ${['"id"', '"timestamp"', '"event_message"', ...visible, ...hidden].join(', ')} FROM ${quoteIdent(segment.name)}`;
  });
  return `CREATE OR REPLACE VIEW ${quoteIdent(promotedViewName(layout.view))} AS ${selects.join(' UNION ALL ')}`;
}

function promotedColumnSql(layout: SourceLayout, segment: SourceLayout['segments'][number], column: HiddenColumn): string {
  const type = columnType(layout.fields, column);
  if (!type) return column.kind === 'flag' ? 'false' : 'CAST(NULL AS VARCHAR)';
  const stored = segment.hidden.get(column.name);
  if (stored === type) return quoteIdent(column.name);
  // Widened since (int to float or string): the same cast the public view applies to the nested field.
  if (stored) return `CAST(${quoteIdent(column.name)} AS ${type})`;
  const joined = column.kind === 'leaf' ? joinedPartsSql(segment.hidden, column.path) : undefined;
  if (joined) return joined; // parts are strings, and a string leaf never widens further
  return columnSql(layout.fields, column, (field) => segmentColumnSql(segment, layout.fields, field))!;
}

/**
 * What the rewrite may use for a source with this view, promoted reads and fields; undefined when
 * nothing is promoted. Only paths that are records, and leaves that are scalars, in the schema
 * now: a path read as a leaf may be a record (`m.request`), and one not stored yet could turn
 * out to be one. A scalar stays a scalar (types only widen to string), so this only grows.
 */
export function promotionOf(view: string, reads: NestedReads, fields: RecordFields): Promotion | undefined {
  const wanted = wantedColumns(reads);
  const usable = (kind: HiddenColumn['kind']) => wanted.filter((column) => column.kind === kind && columnType(fields, column)).map((column) => column.path);
  const records = usable('flag');
  if (records.length === 0) return undefined;
  return {
    promotedRelation: quoteIdent(promotedViewName(view)),
    hidden: wanted.map((column) => column.name),
    records: new Set(records),
    leaves: new Set(usable('leaf')),
    columns: new Set(['id', 'timestamp', 'event_message', ...[...fields.keys()].map((name) => name.toLowerCase())]),
  };
}
