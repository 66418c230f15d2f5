/**
 * The corpus's fixture sources (fixtures.ts) in a ClickHouse warehouse on chdb, loaded through
 * the warehouse's own append path: the same schema as the DuckDB fixture, events conformed and
 * written as the service writes them.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClickHouseWarehouse } from '../../src/warehouse/clickhouse/adapter.ts';
import type { JsonValue, LogRow } from '../../src/warehouse/types.ts';
import type { TableShape } from '../../src/sql/index.ts';
import { FIXTURE_SOURCES, fieldsFromDuckdb, fixtureShape } from './fixtures.ts';

export interface ClickHouseFixture {
  warehouse: ClickHouseWarehouse;
  resolveTable(name: string): string | undefined;
  tableShape(name: string): TableShape | undefined;
  close(): Promise<void>;
}

/** A source id per fixture source, stable across runs. */
const sourceId = (index: number) => `00000000-0000-4000-8000-${String(index + 1).padStart(12, '0')}`;

export async function openClickHouseFixture(): Promise<ClickHouseFixture> {
  const directory = mkdtempSync(join(tmpdir(), 'sawmill-sql-ch-'));
  const warehouse = await ClickHouseWarehouse.open({ url: `chdb:${directory}`, database: 'corpus', schemaRefreshMs: 0 });
  const relations = new Map<string, string>();
  for (const [index, source] of FIXTURE_SOURCES.entries()) {
    const id = sourceId(index);
    await warehouse.createSource(id);
    const rows: LogRow[] = source.events.map((event) => {
      const { id: eventId, timestamp, event_message, ...fields } = withoutNulls(event) as Record<string, JsonValue>;
      return { id: String(eventId), timestamp: Date.parse(String(timestamp)) * 1000, event_message: String(event_message), fields: fields as LogRow['fields'] };
    });
    await warehouse.append([{ sourceId: id, schema: fieldsFromDuckdb(source.columns), rows }]);
    relations.set(source.name, warehouse.relation(id));
  }
  return {
    warehouse,
    resolveTable: (name) => relations.get(name),
    tableShape: fixtureShape,
    close: async () => {
      await warehouse.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** The pipeline removes nulls before storage; so does the fixture. */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.filter((item) => item !== null).map(withoutNulls);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).flatMap(([key, child]) => (child === null ? [] : [[key, withoutNulls(child)]])));
  }
  return value;
}
