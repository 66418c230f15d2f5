/**
 * The corpus's fixture sources (fixtures.ts) in a ClickHouse warehouse on chdb, loaded through
 * the warehouse's own append path: the same schema as the DuckDB fixture, events conformed and
 * written as the service writes them.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClickHouseWarehouse } from '../../src/warehouse/clickhouse/adapter.ts';
import type { FieldType, JsonValue, LogRow, RecordFields } from '../../src/warehouse/types.ts';
import { FIXTURE_SOURCES } from './fixtures.ts';

export interface ClickHouseFixture {
  warehouse: ClickHouseWarehouse;
  resolveTable(name: string): string | undefined;
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

/** The fixture's DuckDB column types (`STRUCT(a VARCHAR, b BIGINT[])[]`, …) as field types. */
function fieldsFromDuckdb(columns: Record<string, string>): RecordFields {
  return new Map(Object.entries(columns).map(([name, type]) => [name, parseDuckdbType(type)]));
}

function parseDuckdbType(text: string): FieldType {
  const type = text.trim();
  if (type.endsWith('[]')) {
    const element = parseDuckdbType(type.slice(0, -2));
    if (element.kind === 'record') return element;
    if (element.kind === 'list') throw new Error(`nested list in fixture type ${text}`);
    return { kind: 'list', element };
  }
  if (type.startsWith('STRUCT(')) {
    const fields = new Map<string, FieldType>();
    for (const part of splitTopLevel(type.slice('STRUCT('.length, -1))) {
      const space = part.trim().indexOf(' ');
      fields.set(part.trim().slice(0, space), parseDuckdbType(part.trim().slice(space + 1)));
    }
    return { kind: 'record', fields };
  }
  const scalars: Record<string, FieldType> = { VARCHAR: { kind: 'string' }, BIGINT: { kind: 'int' }, DOUBLE: { kind: 'float' }, BOOLEAN: { kind: 'bool' } };
  const scalar = scalars[type];
  if (!scalar) throw new Error(`unknown fixture type ${text}`);
  return scalar;
}

function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let index = 0; index < text.length; index++) {
    if (text[index] === '(') depth++;
    else if (text[index] === ')') depth--;
    else if (text[index] === ',' && depth === 0) {
      parts.push(text.slice(start, index));
      start = index + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}
