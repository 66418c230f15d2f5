/**
 * The ClickHouse SQL corpus (test/sql/clickhouse-corpus/*.chtest): cases over one small log table,
 * `app_logs`, loaded alike into chdb and DuckDB, and literal-only cases. Each case runs three
 * ways: raw on chdb (ClickHouse itself, the reference, with ClickHouse's default settings),
 * through the ch_sql front end on DuckDB, and through it on chdb (with the warehouse's settings);
 * all three must give the case's rows.
 *
 * Case format (as test/sql/corpus/*.sqltest):
 *
 *   === case name
 *   params: {"min_status": "400"}      (optional; bound as strings)
 *   unordered                          (optional: rows compared as a multiset)
 *   not raw                            (optional: ClickHouse itself cannot run it, e.g. @name)
 *   --- sql
 *   select …                           (ClickHouse SQL; every column aliased)
 *   --- rows
 *   ["column", "names"]
 *   [1, "one JSON array per row"]
 *   --- error                          (instead of rows: the front end refuses it, message substring)
 */

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance, DuckDBMapValue, type DuckDBConnection } from '@duckdb/node-api';
import { plainValue } from './fixtures.ts';
import type { TableShape } from '../../src/sql/catalog.ts';
import { scalar } from '../../src/sql/catalog.ts';

export interface ChCase {
  file: string;
  name: string;
  params: Record<string, string | null>;
  unordered: boolean;
  raw: boolean;
  sql: string;
  columns?: string[];
  rows?: unknown[][];
  error?: string;
}

const CORPUS_DIR = join(import.meta.dirname, 'clickhouse-corpus');

export function loadChCases(): ChCase[] {
  return readdirSync(CORPUS_DIR)
    .filter((name) => name.endsWith('.chtest'))
    .sort()
    .flatMap((name) => parseChCases(name, readFileSync(join(CORPUS_DIR, name), 'utf8')));
}

export function parseChCases(file: string, text: string): ChCase[] {
  const cases: ChCase[] = [];
  for (const chunk of text.split(/^=== /m).slice(1)) {
    const [header = '', ...sections] = chunk.split(/^--- /m);
    const [name = '', ...options] = header.split('\n').map((line) => line.trim());
    const current: ChCase = { file, name, params: {}, unordered: false, raw: true, sql: '' };
    for (const option of options.filter((line) => line && !line.startsWith('#'))) {
      if (option.startsWith('params:')) current.params = JSON.parse(option.slice('params:'.length)) as ChCase['params'];
      else if (option === 'unordered') current.unordered = true;
      else if (option === 'not raw') current.raw = false;
      else throw new Error(`${file}: ${name}: unknown option ${option}`);
    }
    for (const section of sections) {
      const [kind = '', ...lines] = section.split('\n');
      const body = lines.filter((line) => !line.startsWith('#')).join('\n').trim();
      if (kind.trim() === 'sql') current.sql = body;
      else if (kind.trim() === 'error') current.error = body;
      else if (kind.trim() === 'rows') {
        const [columns, ...rows] = body.split('\n').filter((line) => line.trim()).map((line) => JSON.parse(line) as unknown[]);
        current.columns = columns as string[];
        current.rows = rows;
      } else throw new Error(`${file}: ${name}: unknown section ${kind}`);
    }
    if (!current.sql) throw new Error(`${file}: ${name}: no --- sql`);
    cases.push(current);
  }
  return cases;
}

// ---- the fixture table -------------------------------------------------------------------------

interface LogRow {
  id: string;
  timestamp: string;
  event_message: string;
  level: string;
  status: number;
  duration_ms: number;
  bytes: number;
  method: string;
  path: string;
  user_agent: string;
  project: string;
  tags: string[];
  user_id: string | null;
  metadata: string;
  attributes: Record<string, string>;
}

const json = (value: unknown) => JSON.stringify(value);

export const APP_LOGS: LogRow[] = [
  { id: 'l1', timestamp: '2024-01-01 10:00:05', event_message: 'GET /rest/v1/todos 200', level: 'info', status: 200, duration_ms: 12.5, bytes: 512, method: 'GET', path: '/rest/v1/todos', user_agent: 'Mozilla/5.0', project: 'alpha', tags: ['api', 'rest'], user_id: 'u1', metadata: json({ request: { method: 'GET', headers: { 'x-client': 'js' } }, response: { status: 200 }, retries: 0, ok: true, score: 1.5, labels: ['a', 'b'] }), attributes: { region: 'eu', tier: 'free' } },
  { id: 'l2', timestamp: '2024-01-01 10:01:30', event_message: 'POST /auth/v1/token 400', level: 'warn', status: 400, duration_ms: 48.25, bytes: 128, method: 'POST', path: '/auth/v1/token', user_agent: 'curl/8.0', project: 'alpha', tags: ['auth'], user_id: null, metadata: json({ request: { method: 'POST' }, response: { status: 400 }, retries: 2, ok: false, score: -2 }), attributes: { region: 'us' } },
  { id: 'l3', timestamp: '2024-01-01 10:07:59.250', event_message: 'GET /storage/v1/object/a.png 200', level: 'info', status: 200, duration_ms: 3, bytes: 20480, method: 'GET', path: '/storage/v1/object/a.png', user_agent: 'Mozilla/5.0', project: 'beta', tags: ['storage'], user_id: 'u2', metadata: json({ request: { method: 'GET' }, response: { status: 200 } }), attributes: {} },
  { id: 'l4', timestamp: '2024-01-01 10:59:59', event_message: 'GET /realtime/v1/websocket 101', level: 'info', status: 101, duration_ms: 1500, bytes: 0, method: 'GET', path: '/realtime/v1/websocket', user_agent: 'Deno/1.40', project: 'beta', tags: [], user_id: 'u1', metadata: '', attributes: { region: 'eu' } },
  { id: 'l5', timestamp: '2024-01-01 11:00:00', event_message: 'GET /rest/v1/rpc/f 500', level: 'error', status: 500, duration_ms: 250.75, bytes: 64, method: 'GET', path: '/rest/v1/rpc/f', user_agent: 'curl/8.0', project: 'alpha', tags: ['api', 'rpc', 'rest'], user_id: null, metadata: json({ request: { method: 'GET' }, response: { status: 500 }, error: { message: 'timeout', code: '57014' } }), attributes: { region: 'us', tier: 'pro' } },
  { id: 'l6', timestamp: '2024-01-01 11:30:00', event_message: 'DELETE /rest/v1/todos?id=eq.1 204', level: 'info', status: 204, duration_ms: 8, bytes: 0, method: 'DELETE', path: '/rest/v1/todos', user_agent: 'Mozilla/5.0', project: 'gamma', tags: ['api', 'rest'], user_id: 'u3', metadata: json({ request: { method: 'DELETE' }, response: { status: 204 } }), attributes: { tier: 'pro' } },
  { id: 'l7', timestamp: '2024-01-02 09:15:00', event_message: 'héllo wörld', level: 'debug', status: 200, duration_ms: 0.5, bytes: 2, method: 'GET', path: '/héllo', user_agent: 'Mozilla/5.0', project: 'alpha', tags: ['unicode'], user_id: 'u2', metadata: json({ msg: 'héllo' }), attributes: {} },
  { id: 'l8', timestamp: '2024-01-02 23:59:59.999', event_message: 'POST /functions/v1/hello 503', level: 'error', status: 503, duration_ms: 30000, bytes: 1048576, method: 'POST', path: '/functions/v1/hello', user_agent: 'node', project: 'gamma', tags: ['fn'], user_id: 'u4', metadata: json({ request: { method: 'POST' }, response: { status: 503 }, retries: 5 }), attributes: { region: 'ap' } },
];

/** The table's columns as the analyzer sees them. */
export const APP_LOGS_SHAPE: TableShape = {
  open: false,
  columns: [
    { name: 'id', type: scalar('STRING') },
    { name: 'timestamp', type: scalar('TIMESTAMP') },
    { name: 'event_message', type: scalar('STRING') },
    { name: 'level', type: scalar('STRING') },
    { name: 'status', type: scalar('INT64') },
    { name: 'duration_ms', type: scalar('FLOAT64') },
    { name: 'bytes', type: scalar('INT64') },
    { name: 'method', type: scalar('STRING') },
    { name: 'path', type: scalar('STRING') },
    { name: 'user_agent', type: scalar('STRING') },
    { name: 'project', type: scalar('STRING') },
    { name: 'tags', type: { kind: 'array', element: scalar('STRING') } },
    { name: 'user_id', type: scalar('STRING') },
    { name: 'metadata', type: scalar('STRING') },
    { name: 'attributes', type: { kind: 'map', key: scalar('STRING'), value: scalar('STRING') } },
  ],
};

const quote = (text: string) => `'${text.replaceAll("'", "''")}'`;

export const CLICKHOUSE_TABLE_DDL = `CREATE TABLE default.app_logs (
  id String, timestamp DateTime64(6, 'UTC'), event_message String, level String, status Int32, duration_ms Float64,
  bytes Int64, method String, path String, user_agent String, project String, tags Array(String), user_id Nullable(String),
  metadata String, attributes Map(String, String)
) ENGINE = MergeTree ORDER BY timestamp`;

export function clickHouseInsert(): string {
  const values = APP_LOGS.map((row) => {
    const map = `map(${Object.entries(row.attributes).flatMap(([key, value]) => [quote(key), quote(value)]).join(', ')})`;
    return `(${[quote(row.id), quote(row.timestamp), quote(row.event_message), quote(row.level), row.status, row.duration_ms, row.bytes, quote(row.method), quote(row.path), quote(row.user_agent), quote(row.project), `[${row.tags.map(quote).join(', ')}]`, row.user_id === null ? 'NULL' : quote(row.user_id), quote(row.metadata), map].join(', ')})`;
  });
  return `INSERT INTO default.app_logs VALUES ${values.join(', ')}`;
}

export async function openDuckDbLogs(): Promise<{ connection: DuckDBConnection; close(): void }> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  await connection.run("SET TimeZone='UTC'");
  await connection.run(`CREATE TABLE app_logs (id VARCHAR, timestamp TIMESTAMPTZ, event_message VARCHAR, level VARCHAR, status BIGINT, duration_ms DOUBLE,
    bytes BIGINT, method VARCHAR, path VARCHAR, user_agent VARCHAR, project VARCHAR, tags VARCHAR[], user_id VARCHAR, metadata VARCHAR, attributes MAP(VARCHAR, VARCHAR))`);
  for (const row of APP_LOGS) {
    const map = `MAP {${Object.entries(row.attributes).map(([key, value]) => `${quote(key)}: ${quote(value)}`).join(', ')}}`;
    const tags = row.tags.length > 0 ? `[${row.tags.map(quote).join(', ')}]` : 'CAST([] AS VARCHAR[])';
    const values = [quote(row.id), `TIMESTAMPTZ ${quote(`${row.timestamp}+00`)}`, quote(row.event_message), quote(row.level), row.status, row.duration_ms, row.bytes, quote(row.method), quote(row.path), quote(row.user_agent), quote(row.project), tags, row.user_id === null ? 'NULL' : quote(row.user_id), quote(row.metadata), Object.keys(row.attributes).length > 0 ? map : 'CAST(MAP {} AS MAP(VARCHAR, VARCHAR))'];
    await connection.run(`INSERT INTO app_logs VALUES (${values.join(', ')})`);
  }
  await connection.run('SET enable_external_access = false');
  return {
    connection,
    close: () => {
      connection.closeSync();
      instance.closeSync();
    },
  };
}

/** A DuckDB value as the corpus writes it: a MAP as an object of its entries, as ClickHouse's JSON writes a Map. */
export function duckValue(value: unknown): unknown {
  if (value instanceof DuckDBMapValue) return Object.fromEntries(value.entries.map((entry) => [String(entry.key), duckValue(entry.value)]));
  return plainValue(value);
}

// ---- comparing rows ------------------------------------------------------------------------------

/**
 * Values as the three runs can agree on them: a time without its zone mark (all times are UTC; a
 * ClickHouse DateTime without an explicit zone is written without it), numbers within 1e-9.
 */
export function normalized(value: unknown): unknown {
  if (typeof value === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(value)) return value.slice(0, -1);
  if (Array.isArray(value)) return value.map(normalized);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, normalized(child)]));
  return value;
}

function sameValue(actual: unknown, expected: unknown): boolean {
  if (typeof actual === 'number' && typeof expected === 'number') return Math.abs(actual - expected) <= 1e-9 * Math.max(1, Math.abs(expected));
  if (Array.isArray(actual) && Array.isArray(expected)) return actual.length === expected.length && actual.every((item, index) => sameValue(item, expected[index]));
  if (actual && expected && typeof actual === 'object' && typeof expected === 'object') {
    const keys = Object.keys(expected);
    return keys.length === Object.keys(actual).length && keys.every((key) => sameValue((actual as Record<string, unknown>)[key], (expected as Record<string, unknown>)[key]));
  }
  return actual === expected;
}

/** Undefined when `actual` is the case's result, else what differs. */
export function differenceFrom(testCase: ChCase, actual: { columns: string[]; rows: unknown[][] }): string | undefined {
  const expectedColumns = testCase.columns ?? [];
  if (JSON.stringify(actual.columns) !== JSON.stringify(expectedColumns)) return `columns ${JSON.stringify(actual.columns)}, expected ${JSON.stringify(expectedColumns)}`;
  const rows = actual.rows.map((row) => row.map(normalized));
  const expected = (testCase.rows ?? []).map((row) => row.map(normalized));
  const order = (list: unknown[][]) => (testCase.unordered ? [...list].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1)) : list);
  const [got, want] = [order(rows), order(expected)];
  if (got.length !== want.length || !got.every((row, index) => sameValue(row, want[index]))) {
    return `rows ${JSON.stringify(rows).slice(0, 600)}, expected ${JSON.stringify(expected).slice(0, 600)}`;
  }
  return undefined;
}
