import type { NestedReads, RecordFields } from '../types.ts';
import { type SourceLayout, segmentColumnSql } from './layout.ts';
import { columnSql, columnType, type HiddenColumn, joinedPartsSql, leafColumn, type SplitLeaf, splitLeaves, storedColumns, wantedColumns } from './promotion.ts';
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
 *
 * A leaf the newest segments store split also shows its parts, so that a filter can read them
 * without joining them (rewrite.ts); a segment that stores it whole has it all in the head.
 */

export function promotedViewName(view: string): string {
  return `${view}_promoted`;
}

export function createPromotedViewSql(layout: SourceLayout): string {
  const wanted = wantedColumns(layout.reads);
  const splits = splitsOf(layout.reads, layout.fields);
  const selects = layout.segments.map((segment) => {
    const visible = [...layout.fields].map(([field]) => `${segmentColumnSql(segment, layout.fields, field)} AS ${quoteIdent(field)}`);
    const hidden = wanted.map((column) => `${promotedColumnSql(layout, segment, column)} AS ${quoteIdent(column.name)}`);
    const parts = [...splits].flatMap(([leaf, split]) => {
      const stored = segment.hidden.has(split.head) && segment.hidden.has(split.tail);
      const whole = promotedColumnSql(layout, segment, { kind: 'leaf', name: leafColumn(leaf), path: leaf });
      return [`${stored ? quoteIdent(split.head) : whole} AS ${quoteIdent(split.head)}`, `${stored ? quoteIdent(split.tail) : 'CAST(NULL AS VARCHAR)'} AS ${quoteIdent(split.tail)}`];
    });
    return `SELECT ${['"id"', '"timestamp"', '"event_message"', ...visible, ...hidden, ...parts].join(', ')} FROM ${quoteIdent(segment.name)}`;
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
  const leaves = new Set(usable('leaf'));
  const splits = splitsOf(reads, fields);
  return {
    promotedRelation: quoteIdent(promotedViewName(view)),
    hidden: [...wanted.map((column) => column.name), ...[...splits.values()].flatMap((split) => [split.head, split.tail])],
    records: new Set(records),
    leaves,
    splits: new Map([...splits].filter(([leaf, split]) => leaves.has(leaf) && leaves.has(split.base))),
    columns: new Set(['id', 'timestamp', 'event_message', ...[...fields.keys()].map((name) => name.toLowerCase())]),
  };
}

/** The leaves a segment created now would store split. */
function splitsOf(reads: NestedReads, fields: RecordFields): Map<string, SplitLeaf> {
  return splitLeaves(storedColumns(fields, reads));
}
