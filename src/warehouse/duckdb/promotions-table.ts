import type { DuckDBConnection } from '@duckdb/node-api';
import type { NestedReads } from '../types.ts';

/**
 * Where the promoted paths of each source (promotion.ts) live in the database file, so that a
 * restart keeps promoting them. Not a segment name (layout.ts), so discovery passes it by.
 */
export const PROMOTIONS_TABLE = 'sawmill_promotions';

const quote = (text: string) => `'${text.replaceAll("'", "''")}'`;

/** Statements replacing a source's stored paths with `reads`. */
export function saveReadsSql(view: string, reads: NestedReads): string[] {
  const rows = [...reads.records.map((path) => ['record', path]), ...reads.leaves.map((path) => ['leaf', path])];
  const insert = rows.length > 0 ? [`INSERT INTO ${PROMOTIONS_TABLE} VALUES ${rows.map(([kind, path]) => `(${quote(view)}, ${quote(kind!)}, ${quote(path!)})`).join(', ')}`] : [];
  return [`DELETE FROM ${PROMOTIONS_TABLE} WHERE view = ${quote(view)}`, ...insert];
}

export async function loadReads(connection: DuckDBConnection): Promise<Map<string, NestedReads>> {
  const result = await connection.runAndReadAll(`SELECT view, kind, path FROM ${PROMOTIONS_TABLE} ORDER BY rowid`);
  const reads = new Map<string, NestedReads>();
  for (const [view, kind, path] of result.getRows()) {
    const entry = reads.get(String(view)) ?? { records: [], leaves: [] };
    (kind === 'record' ? entry.records : entry.leaves).push(String(path));
    reads.set(String(view), entry);
  }
  return reads;
}
