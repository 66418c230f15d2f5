import type { FieldType, NestedReads, RecordFields, ScalarType } from '../types.ts';
import { duckdbType, quoteIdent } from './types.ts';

/**
 * Promoted columns: DuckDB cannot read one field out of a LIST(STRUCT) column without decoding
 * the whole list, so a source keeps, next to its nested columns, hidden top-level copies of what
 * its saved endpoints read through UNNEST chains:
 *   - a flag per record path ("metadata", "metadata.request"): TRUE when every list along the path
 *     has exactly one element, so the UNNEST chain yields exactly one row per event;
 *   - a typed column per scalar leaf under such a chain ("metadata.request.path"): the value of
 *     that single element.
 * Rows whose flags are TRUE can skip the UNNEST (rewrite.ts). Paths are lower case, dot-joined.
 * The stored columns are only a cache: a segment without one gets the same value computed from
 * its nested column in the promoted view, so older segments stay correct.
 */

/** Hidden names contain ':' and '.', which a sanitised field name never does (normalize.ts safeKey). */
const HIDDEN_PREFIX = 'sawmill:';

export const MAX_PROMOTED_RECORDS = 8;
export const MAX_PROMOTED_LEAVES = 24;

/**
 * `head` and `tail` store a string leaf split around a promoted string sibling (`base`) it contains,
 * as a URL contains its path: leaf = head || base || tail (tail NULL: leaf = head). The parts
 * compress far better than the whole (request.url: 27 -> 6 B/event); the promoted view joins them.
 */
export type HiddenColumn =
  | { kind: 'flag'; name: string; path: string }
  | { kind: 'leaf'; name: string; path: string }
  | { kind: 'head' | 'tail'; name: string; path: string; base: string };

export const flagColumn = (path: string) => `${HIDDEN_PREFIX}one:${path}`;
export const leafColumn = (path: string) => `${HIDDEN_PREFIX}leaf:${path}`;
const partColumn = (part: 'head' | 'tail', path: string, base: string) => `${HIDDEN_PREFIX}${part}:${path}|${base}`;
export const isHiddenColumn = (name: string) => name.startsWith(HIDDEN_PREFIX);

/** The hidden columns a source asks for (what its endpoints read), stored or not. */
export function wantedColumns(reads: NestedReads): HiddenColumn[] {
  return [
    ...reads.records.map((path): HiddenColumn => ({ kind: 'flag', name: flagColumn(path), path })),
    ...reads.leaves.map((path): HiddenColumn => ({ kind: 'leaf', name: leafColumn(path), path })),
  ];
}

/** A path resolved against a schema: the field names as stored (case may differ) and the leaf type. */
interface Resolved {
  names: string[];
  leaf?: ScalarType;
}

/** Resolve a record path (every step a record) or a leaf path (records, then a scalar); case-insensitive. */
function resolve(fields: RecordFields, column: HiddenColumn): Resolved | undefined {
  const parts = column.path.split('.');
  const names: string[] = [];
  let current: RecordFields = fields;
  for (const [i, part] of parts.entries()) {
    const found = [...current].find(([name]) => name.toLowerCase() === part);
    if (!found) return undefined;
    const [name, type] = found;
    names.push(name);
    const last = i === parts.length - 1;
    if (type.kind === 'record' && !(last && column.kind !== 'flag')) current = type.fields;
    else if (last && column.kind !== 'flag' && isScalar(type)) return { names, leaf: type };
    else return undefined;
  }
  return column.kind === 'flag' ? { names } : undefined;
}

const isScalar = (type: FieldType): type is ScalarType => type.kind !== 'record' && type.kind !== 'list';

/**
 * The hidden columns a segment with `fields` stores: those wanted whose path exists there, a
 * string leaf after an earlier promoted string leaf of the same record split around it.
 */
export function storedColumns(fields: RecordFields, reads: NestedReads): Map<string, string> {
  const stored = new Map<string, string>();
  const plainStrings: string[] = [];
  for (const column of wantedColumns(reads)) {
    const type = columnType(fields, column);
    if (!type) continue;
    const base = column.kind === 'leaf' && type === 'VARCHAR' ? plainStrings.find((other) => parentOf(other) === parentOf(column.path)) : undefined;
    if (base) {
      stored.set(partColumn('head', column.path, base), type);
      stored.set(partColumn('tail', column.path, base), type);
      continue;
    }
    stored.set(column.name, type);
    if (column.kind === 'leaf' && type === 'VARCHAR') plainStrings.push(column.path);
  }
  return stored;
}

const parentOf = (path: string) => path.slice(0, path.lastIndexOf('.'));

/** A string leaf stored in parts: the head and tail columns, and the path of the base leaf between them. */
export interface SplitLeaf {
  head: string;
  tail: string;
  base: string;
}

/** The leaves stored split among `hidden` columns (a segment's, or storedColumns'), by leaf path. */
export function splitLeaves(hidden: ReadonlyMap<string, string>): Map<string, SplitLeaf> {
  const splits = new Map<string, SplitLeaf>();
  for (const name of hidden.keys()) {
    const column = parseHiddenColumn(name);
    const tail = column?.kind === 'head' ? partColumn('tail', column.path, column.base) : undefined;
    if (column?.kind === 'head' && hidden.has(tail!) && hidden.has(leafColumn(column.base))) splits.set(column.path, { head: name, tail: tail!, base: column.base });
  }
  return splits;
}

/** A stored head/tail pair for `leaf` in a segment's hidden columns: the SQL joining it, given the segment's columns. */
export function joinedPartsSql(hidden: ReadonlyMap<string, string>, leaf: string): string | undefined {
  const split = splitLeaves(hidden).get(leaf);
  if (!split) return undefined;
  const [head, tail, base] = [split.head, split.tail, leafColumn(split.base)].map(quoteIdent);
  return `CASE WHEN ${tail} IS NULL THEN ${head} ELSE ${head} || ${base} || ${tail} END`;
}

/** The DuckDB type of a hidden column against `fields`, undefined when its path is not there. */
export function columnType(fields: RecordFields, column: HiddenColumn): string | undefined {
  const resolved = resolve(fields, column);
  if (!resolved) return undefined;
  return resolved.leaf ? duckdbType(resolved.leaf) : 'BOOLEAN';
}

/**
 * The SQL computing a hidden column from the nested columns, each top-level one given by
 * `top(name)` (a column, or the cast the promoted view applies to it). Undefined when the path
 * is not in `fields`.
 */
export function columnSql(fields: RecordFields, column: HiddenColumn, top: (name: string) => string): string | undefined {
  const resolved = resolve(fields, column);
  if (!resolved) return undefined;
  const [head, ...rest] = resolved.names;
  const list = top(head!);
  // The first element of each list; the flags say whether it is the only one.
  const value = () => firstOf(list, rest, (field) => field);
  if (column.kind === 'leaf') return value();
  if (column.kind === 'head' || column.kind === 'tail') {
    const base = columnSql(fields, { kind: 'leaf', name: leafColumn(column.base), path: column.base }, top);
    return base && partSql(column.kind, value(), base);
  }
  const lengths = [`len(${list})`, ...rest.map((_, i) => firstOf(list, rest.slice(0, i + 1), (field) => `len(${field})`))];
  // len() of a NULL list (or of a field of a NULL element) is NULL, which must count as "no".
  return `coalesce(${lengths.map((length) => `${length} = 1`).join(' AND ')}, false)`;
}

/**
 * `last` of the field chain `names` in the first element of `list` (and of each list on the way).
 * Written with list_transform, not `list[1].name`: indexing a list of structs copies whole
 * elements (every nested field), which made a commit's INSERT 25-45% slower; this costs 1-15%.
 */
function firstOf(list: string, names: string[], last: (field: string) => string, depth = 0): string {
  const element = `x${depth}`;
  const [name, ...rest] = names;
  const field = `${element}.${quoteIdent(name!)}`;
  const inner = rest.length === 0 ? last(field) : firstOf(field, rest, last, depth + 1);
  return `list_transform(${list}, lambda ${element}: ${inner})[1]`;
}

/**
 * One part of `leaf` split around `base`. strpos, left and substr all count characters. A NULL or
 * absent base leaves the whole value in the head; an empty one, in the tail.
 */
function partSql(part: 'head' | 'tail', leaf: string, base: string): string {
  const at = `strpos(${leaf}, ${base})`;
  return part === 'head' ? `CASE WHEN ${at} > 0 THEN left(${leaf}, ${at} - 1) ELSE ${leaf} END` : `CASE WHEN ${at} > 0 THEN substr(${leaf}, ${at} + length(${base})) END`;
}

/** The hidden column a stored name stands for (the inverse of flagColumn, leafColumn, partColumn). */
export function parseHiddenColumn(name: string): HiddenColumn | undefined {
  const match = /^sawmill:(one|leaf|head|tail):([^|]+)(?:\|(.+))?$/.exec(name);
  if (!match) return undefined;
  const [, kind, path, base] = match as unknown as [string, string, string, string | undefined];
  if (kind === 'head' || kind === 'tail') return base ? { kind, name, path, base } : undefined;
  return base ? undefined : { kind: kind === 'one' ? 'flag' : 'leaf', name, path };
}

/** The SQL computing each of a segment's stored hidden columns from its nested columns. */
export function hiddenValues(fields: RecordFields, hidden: ReadonlyMap<string, string>): Array<{ name: string; sql: string }> {
  return [...hidden.keys()].flatMap((name) => {
    const column = parseHiddenColumn(name);
    const sql = column && columnSql(fields, column, quoteIdent);
    return sql ? [{ name, sql }] : [];
  });
}

/** `expr AS "name"` items computing a segment's stored hidden columns from the loaded nested columns. */
export function hiddenSelectItems(fields: RecordFields, hidden: ReadonlyMap<string, string>): string[] {
  return hiddenValues(fields, hidden).map(({ name, sql }) => `${sql} AS ${quoteIdent(name)}`);
}

/**
 * The paths to keep when a source's queries now read `asked`: those kept already first, in their
 * order (a leaf stored split keeps its base), then the new ones; lower case, within the bounds.
 */
export function keptReads(current: NestedReads, asked: NestedReads): NestedReads {
  const keep = (kept: string[], wanted: string[], max: number) => {
    const lower = new Set(wanted.map((path) => path.toLowerCase()));
    return [...new Set([...kept.filter((path) => lower.has(path)), ...lower])].slice(0, max);
  };
  return { records: keep(current.records, asked.records, MAX_PROMOTED_RECORDS), leaves: keep(current.leaves, asked.leaves, MAX_PROMOTED_LEAVES) };
}
