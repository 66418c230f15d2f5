/**
 * What the analyzer (analyze.ts) knows about the tables a query reads: BigQuery types of their
 * columns. Sources give theirs from the warehouse's schema; CTEs and subqueries from their
 * SELECT lists.
 */

import type { FieldType, RecordFields } from '../warehouse/types.ts';
import type { ScalarTypeName } from './ir.ts';

export type SqlType =
  | { kind: 'scalar'; name: ScalarTypeName }
  | { kind: 'array'; element: SqlType }
  | { kind: 'struct'; fields: Column[] }
  /** A ClickHouse Map, read by `m['key']` in ClickHouse SQL. */
  | { kind: 'map'; key: SqlType; value: SqlType }
  | { kind: 'unknown' };

export interface Column {
  name: string;
  type: SqlType;
}

export interface TableShape {
  columns: Column[];
  /** The table may have columns not listed (a source that has not received any fields yet, a shape we could not work out). */
  open: boolean;
}

export const UNKNOWN: SqlType = { kind: 'unknown' };
export const scalar = (name: ScalarTypeName): SqlType => ({ kind: 'scalar', name });

/** Every source has these whatever its events hold. */
const FIXED_COLUMNS: Column[] = [
  { name: 'id', type: scalar('STRING') },
  { name: 'timestamp', type: scalar('TIMESTAMP') },
  { name: 'event_message', type: scalar('STRING') },
];

/**
 * A source's columns as BigQuery would type them: every nested object is a repeated record
 * (ARRAY<STRUCT>), as the stored shape says (compat.md). A source that has received no fields yet
 * is open: its events' fields cannot be checked before they arrive.
 */
export function shapeOfSource(fields: RecordFields): TableShape {
  return { columns: [...FIXED_COLUMNS, ...[...fields].map(([name, type]) => ({ name, type: typeOfField(type) }))], open: fields.size === 0 };
}

function typeOfField(type: FieldType): SqlType {
  switch (type.kind) {
    case 'bool':
      return scalar('BOOL');
    case 'int':
      return scalar('INT64');
    case 'float':
      return scalar('FLOAT64');
    case 'string':
      return scalar('STRING');
    case 'timestamp':
      return scalar('TIMESTAMP');
    case 'list':
      return { kind: 'array', element: typeOfField(type.element) };
    case 'record':
      return { kind: 'array', element: { kind: 'struct', fields: [...type.fields].map(([name, field]) => ({ name, type: typeOfField(field) })) } };
  }
}

/** `STRUCT<a INT64, b ARRAY<STRING>>`, as BigQuery spells types in messages. */
export function describeType(type: SqlType): string {
  switch (type.kind) {
    case 'scalar':
      return type.name;
    case 'array':
      return `ARRAY<${describeType(type.element)}>`;
    case 'struct':
      return `STRUCT<${type.fields.map((field) => `${field.name} ${describeType(field.type)}`).join(', ')}>`;
    case 'map':
      return `MAP<${describeType(type.key)}, ${describeType(type.value)}>`;
    case 'unknown':
      return 'unknown';
  }
}

export function findColumn(columns: readonly Column[], name: string): Column | undefined {
  const lower = name.toLowerCase();
  return columns.find((column) => column.name.toLowerCase() === lower);
}

/** The closest of `candidates` to `name` (at most two edits, and a third of its length), for "Did you mean". */
export function closestName(name: string, candidates: Iterable<string>): string | undefined {
  const lower = name.toLowerCase();
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = editDistance(lower, candidate.toLowerCase());
    const allowed = Math.min(2, Math.max(1, Math.floor(name.length / 3)));
    if (distance > 0 && distance <= allowed && (!best || distance < best.distance)) best = { candidate, distance };
  }
  return best?.candidate;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}
