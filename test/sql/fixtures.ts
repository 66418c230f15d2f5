/**
 * Fixture sources for translator tests, stored in the warehouse layout: fixed columns, other
 * top-level fields, and every JSON object as a repeated record (STRUCT(...)[]), arrays of
 * scalars as plain lists. Events start from the Supabase samples and vary what the corpus needs:
 * several projects, multi-element record arrays, empty and NULL lists.
 */

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DuckDBConnection,
  DuckDBDateValue,
  DuckDBDecimalValue,
  DuckDBInstance,
  DuckDBListType,
  DuckDBListValue,
  DuckDBStructType,
  DuckDBStructValue,
  DuckDBTimestampTZValue,
  DuckDBTimestampValue,
  type DuckDBType,
} from '@duckdb/node-api';
import { shapeOfSource, type TableShape } from '../../src/sql/index.ts';
import { registerJsFunctions } from '../../src/warehouse/duckdb/functions/udfs.ts';
import { jsonResult } from '../../src/warehouse/json-results.ts';
import type { FieldType, RecordFields } from '../../src/warehouse/types.ts';
// The repository's copy of the Supabase sample events (the ones provisioning reads).
import { sample as supabaseSample } from '../support/samples.ts';


type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

interface FixtureSource {
  /** Name as queries write it. */
  name: string;
  /** Relation name in DuckDB. */
  relation: string;
  /** DuckDB column types after the fixed columns. */
  columns: Record<string, string>;
  events: JsonObject[];
}

const sample = (name: string): JsonObject => supabaseSample(name) as JsonObject;
const metadataOf = (event: JsonObject): JsonObject => event.metadata as JsonObject;

function edgeEvent(id: string, timestamp: string, project: string, method: string, path: string, status: number | null): JsonObject {
  const base = sample('cloudflare.logs.prod');
  const metadata = structuredClone(metadataOf(base));
  const request = metadata.request as JsonObject;
  request.method = method;
  request.path = path;
  request.url = `https://${project}.supabase.co${path}`;
  metadata.response = status === null ? [] : { ...(metadata.response as JsonObject), status_code: status };
  return { id, timestamp, event_message: `${method} | ${status ?? '-'} | ${path}`, project, metadata };
}

function relayEvent(id: string, timestamp: string, project: string, fn: string, ms: number, status: number | null): JsonObject {
  const metadata = structuredClone(metadataOf(sample('deno-relay-logs')));
  metadata.project_ref = project;
  metadata.function_id = fn;
  metadata.execution_time_ms = ms;
  metadata.response = status === null ? [] : { ...(metadata.response as JsonObject), status_code: status };
  return { id, timestamp, event_message: `POST | ${status ?? '-'} | ${fn}`, metadata };
}

function authEvent(id: string, timestamp: string, level: string, args: string[] | null, factors: Json): JsonObject {
  const metadata = structuredClone(metadataOf(sample('gotrue.logs.prod')));
  metadata.level = level;
  if (args === null) delete metadata.args;
  else metadata.args = args;
  metadata.factors = factors;
  return { id, timestamp, event_message: `auth ${level}`, metadata };
}

export const FIXTURE_SOURCES: FixtureSource[] = [
  {
    name: 'cloudflare.logs.prod',
    relation: 'src_edge',
    columns: {
      project: 'VARCHAR',
      metadata:
        'STRUCT(logflare_worker STRUCT(worker_id VARCHAR)[], ' +
        'request STRUCT(method VARCHAR, path VARCHAR, url VARCHAR, cf STRUCT(country VARCHAR, asn BIGINT)[])[], ' +
        'response STRUCT(status_code BIGINT, origin_time BIGINT)[])[]',
    },
    events: [
      edgeEvent('e1', '2024-01-01T10:15:00Z', 'default', 'GET', '/rest/v1/todos', 200),
      edgeEvent('e2', '2024-01-01T10:45:00Z', 'default', 'POST', '/auth/v1/token', 400),
      edgeEvent('e3', '2024-01-01T11:05:00Z', 'default', 'GET', '/storage/v1/object/a.png', 200),
      edgeEvent('e4', '2024-01-01T11:30:00Z', 'other', 'GET', '/realtime/v1/websocket', 101),
      edgeEvent('e5', '2024-01-01T11:50:00Z', 'default', 'GET', '/rest/v1/rpc/f', null),
      { id: 'e6', timestamp: '2024-01-01T12:10:00Z', event_message: 'no metadata', project: 'default', metadata: [] },
      { id: 'e7', timestamp: '2024-01-01T12:20:00Z', event_message: 'null metadata', project: 'default', metadata: null },
    ],
  },
  {
    name: 'deno-relay-logs',
    relation: 'src_relay',
    columns: {
      metadata:
        'STRUCT(project_ref VARCHAR, function_id VARCHAR, execution_time_ms BIGINT, version VARCHAR, ' +
        'request STRUCT(method VARCHAR, pathname VARCHAR, url VARCHAR)[], ' +
        'response STRUCT(status_code BIGINT, headers STRUCT(content_type VARCHAR)[])[])[]',
    },
    events: [
      relayEvent('d1', '2024-01-01T10:05:00Z', 'default', 'fn-a', 10, 200),
      relayEvent('d2', '2024-01-01T10:20:00Z', 'default', 'fn-a', 20, 200),
      relayEvent('d3', '2024-01-01T10:40:00Z', 'default', 'fn-b', 30, 500),
      relayEvent('d4', '2024-01-01T11:10:00Z', 'default', 'fn-a', 40, 404),
      relayEvent('d5', '2024-01-01T11:20:00Z', 'default', 'fn-b', 50, 200),
      relayEvent('d6', '2024-01-01T11:25:00Z', 'other', 'fn-c', 99, 200),
      relayEvent('d7', '2024-01-01T11:40:00Z', 'default', 'fn-a', 60, null),
    ],
  },
  {
    name: 'gotrue.logs.prod',
    relation: 'src_auth',
    columns: {
      metadata: 'STRUCT(level VARCHAR, project VARCHAR, path VARCHAR, args VARCHAR[], factors STRUCT(kind VARCHAR, verified BOOLEAN)[])[]',
    },
    events: [
      authEvent('a1', '2024-01-01T09:00:00Z', 'info', ['x', 'y', 'z'], [
        { kind: 'totp', verified: true },
        { kind: 'phone', verified: false },
      ]),
      authEvent('a2', '2024-01-01T09:30:00Z', 'error', [], []),
      authEvent('a3', '2024-01-01T10:00:00Z', 'info', null, { kind: 'totp', verified: false }),
    ],
  },
];

/** BigQuery layout: every object becomes a one-element list, arrays of objects stay lists. */
export function toRepeated(value: Json): Json {
  if (Array.isArray(value)) return value.map((item) => (isObject(item) ? repeatedObject(item) : item));
  if (isObject(value)) return [repeatedObject(value)];
  return value;
}

function repeatedObject(value: JsonObject): JsonObject {
  return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, toRepeated(child)]));
}

function isObject(value: Json): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export interface Fixture {
  connection: DuckDBConnection;
  resolveTable(name: string): string | undefined;
  /** The source's columns as the service gives them to the analyzer (from its stored fields). */
  tableShape(name: string): TableShape | undefined;
  close(): void;
}

/**
 * An in-memory DuckDB with every fixture source loaded, then external access disabled, the way
 * the service runs endpoint queries.
 */
export async function openFixture(): Promise<Fixture> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  await connection.run("SET TimeZone='UTC'");
  registerJsFunctions(connection);
  const directory = mkdtempSync(join(tmpdir(), 'sawmill-sql-'));
  try {
    for (const source of FIXTURE_SOURCES) await loadSource(connection, source, directory);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
  await connection.run('SET enable_external_access = false');
  const relations = new Map(FIXTURE_SOURCES.map((source) => [source.name, source.relation]));
  return {
    connection,
    resolveTable: (name) => relations.get(name),
    tableShape: fixtureShape,
    close: () => {
      connection.closeSync();
      instance.closeSync();
    },
  };
}

async function loadSource(connection: DuckDBConnection, source: FixtureSource, directory: string): Promise<void> {
  const file = join(directory, `${source.relation}.ndjson`);
  const rows = source.events.map((event) => {
    const { id, timestamp, event_message, ...fields } = event;
    const stored: JsonObject = { id: id ?? null, timestamp: timestamp ?? null, event_message: event_message ?? null };
    for (const [key, value] of Object.entries(fields)) stored[key] = toRepeated(value);
    return JSON.stringify(stored);
  });
  writeFileSync(file, rows.join('\n') + '\n');
  const columns = { id: 'VARCHAR', timestamp: 'TIMESTAMPTZ', event_message: 'VARCHAR', ...source.columns };
  const columnSpec = Object.entries(columns)
    .map(([name, type]) => `${name}: '${type}'`)
    .join(', ');
  await connection.run(
    `CREATE TABLE ${source.relation} AS SELECT * FROM read_json('${file}', format = 'newline_delimited', columns = {${columnSpec}})`,
  );
}

/** DuckDB values → plain JSON-like values comparable with the corpus's expected rows. */
export function plainValue(value: unknown, type?: DuckDBType): Json {
  if (value === null || value === undefined) return null;
  // JSON (an alias of VARCHAR) as the JSON value it holds, read as the service reads it.
  if (type?.alias === 'JSON') return JSON.parse(jsonResult(String(value)).text) as Json;
  if (type instanceof DuckDBListType && value instanceof DuckDBListValue) return value.items.map((item) => plainValue(item, type.valueType));
  if (type instanceof DuckDBStructType && value instanceof DuckDBStructValue) {
    return Object.fromEntries(Object.entries(value.entries).map(([key, child]) => [key, plainValue(child, type.entryTypes[type.entryNames.indexOf(key)])]));
  }
  if (typeof value === 'bigint') return Number(value);
  // Infinity and NaN as the endpoint's reply writes them (BigQuery's API spelling).
  if (typeof value === 'number' && !Number.isFinite(value)) return Number.isNaN(value) ? 'NaN' : value > 0 ? 'Infinity' : '-Infinity';
  if (typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean') return value;
  if (value instanceof DuckDBTimestampTZValue) return isoFromMicros(value.micros, 'Z');
  if (value instanceof DuckDBTimestampValue) return isoFromMicros(value.micros, '');
  if (value instanceof DuckDBDateValue) return value.toString();
  if (value instanceof DuckDBDecimalValue) return Number(value.toString());
  if (value instanceof DuckDBListValue) return value.items.map((value) => plainValue(value));
  if (value instanceof DuckDBStructValue) {
    return Object.fromEntries(Object.entries(value.entries).map(([key, child]) => [key, plainValue(child)]));
  }
  return String(value);
}

/** `2024-01-01T10:00:00Z`, with fractional seconds only when present. */
function isoFromMicros(micros: bigint, zone: string): string {
  const millis = Number(micros / 1000n);
  const iso = new Date(millis).toISOString().slice(0, 19);
  const fraction = Number(((micros % 1_000_000n) + 1_000_000n) % 1_000_000n);
  return `${iso}${fraction ? `.${String(fraction).padStart(6, '0').replace(/0+$/, '')}` : ''}${zone}`;
}

/** A fixture source's columns, typed as the service types a source's stored fields. */
export function fixtureShape(name: string): TableShape | undefined {
  const source = FIXTURE_SOURCES.find((candidate) => candidate.name === name);
  return source ? shapeOfSource(fieldsFromDuckdb(source.columns)) : undefined;
}

/** The fixture's DuckDB column types (`STRUCT(a VARCHAR, b BIGINT[])[]`, …) as field types. */
export function fieldsFromDuckdb(columns: Record<string, string>): RecordFields {
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
