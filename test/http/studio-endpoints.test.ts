/**
 * The two endpoints Studio asks for beyond Logflare's three: `functions.combined-stats` (the Edge
 * Functions page) and `service-health` (the Observability page), called with Studio's parameters
 * over events at controlled times, every row checked.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { INGEST_KEY, startTestServer, type TestServer } from '../support/server.ts';

let server: TestServer;
const now = Date.now();
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const iso = (ms: number) => new Date(ms).toISOString();
/** A DATETIME in UTC as the endpoints answer it (the shape Studio's charts parse). */
const datetime = (ms: number) => iso(ms).slice(0, 19);

async function ship(sourceName: string, events: object[]): Promise<void> {
  const reply = await server.request('POST', `/api/logs?source_name=${sourceName}`, { body: events, key: INGEST_KEY });
  assert.equal(reply.status, 200, JSON.stringify(reply.body));
}

/** Studio's call, as its self-hosted API route forwards it: GET, every parameter in the query string, `project` added. */
async function studio(endpoint: string, params: Record<string, string>) {
  const reply = await server.request('GET', `/api/endpoints/query/${endpoint}?${new URLSearchParams({ project: 'default', ...params })}`);
  assert.equal(reply.status, 200, JSON.stringify(reply.body));
  return reply.body.result as Array<Record<string, any>>;
}

before(async () => {
  server = await startTestServer();
});
after(() => server.stop({ removeData: true }));

describe('functions.combined-stats', () => {
  const minuteStart = Math.floor(now / MINUTE) * MINUTE;
  const functionId = randomUUID();

  const invocation = (at: number, status: number, executionMs: number, fn = functionId, project = 'default') => ({
    id: randomUUID(),
    timestamp: iso(at),
    event_message: `POST | ${status} | /functions/v1/hello`,
    metadata: { project_ref: project, function_id: fn, execution_time_ms: executionMs, response: { status_code: status } },
  });
  const workerLog = (at: number, level: string, fn = functionId) => ({
    id: randomUUID(),
    timestamp: iso(at),
    event_message: `${level} from the worker`,
    metadata: { project_ref: 'default', function_id: fn, level, event_type: 'log' },
  });

  before(async () => {
    await ship('deno-relay-logs', [
      invocation(minuteStart - 5 * MINUTE + 10_000, 200, 10),
      invocation(minuteStart - 5 * MINUTE + 20_000, 302, 20),
      invocation(minuteStart - 5 * MINUTE + 30_000, 404, 30),
      invocation(minuteStart - 3 * MINUTE + 5_000, 500, 40),
      invocation(minuteStart - 20 * MINUTE, 200, 50),
      invocation(minuteStart - 5 * MINUTE, 200, 99, randomUUID()),
      invocation(minuteStart - 5 * MINUTE, 200, 99, functionId, 'another-project'),
    ]);
    await ship('deno-subhosting-events', [
      workerLog(minuteStart - 5 * MINUTE + 15_000, 'info'),
      workerLog(minuteStart - 5 * MINUTE + 25_000, 'error'),
      workerLog(minuteStart - MINUTE + 1_000, 'warning'),
      workerLog(minuteStart - MINUTE + 2_000, 'info', randomUUID()),
    ]);
  });

  const zero = {
    requests_count: 0,
    success_count: 0,
    redirect_count: 0,
    client_err_count: 0,
    server_err_count: 0,
    avg_execution_time: 0,
    max_execution_time: 0,
    log_count: 0,
    log_info_count: 0,
    log_warn_count: 0,
    log_error_count: 0,
    avg_cpu_time_used: 0,
    max_cpu_time_used: 0,
    avg_memory_used: 0,
    avg_heap_memory_used: 0,
    avg_external_memory_used: 0,
  };

  test('15min: minute buckets of one function, invocations by status class, execution times and worker logs by level', async () => {
    const rows = await studio('functions.combined-stats', { function_id: functionId, interval: '15min' });
    assert.deepEqual(rows, [
      {
        ...zero,
        timestamp: datetime(minuteStart - 5 * MINUTE),
        requests_count: 3,
        success_count: 1,
        redirect_count: 1,
        client_err_count: 1,
        avg_execution_time: 20,
        max_execution_time: 30,
        log_count: 2,
        log_info_count: 1,
        log_error_count: 1,
      },
      { ...zero, timestamp: datetime(minuteStart - 3 * MINUTE), requests_count: 1, server_err_count: 1, avg_execution_time: 40, max_execution_time: 40 },
      { ...zero, timestamp: datetime(minuteStart - MINUTE), log_count: 1, log_warn_count: 1 },
    ]);
  });

  test('1hr reaches back to the start of the previous hour; 1day buckets by hour', async () => {
    const hour = await studio('functions.combined-stats', { function_id: functionId, interval: '1hr' });
    assert.deepEqual(
      hour.map((row) => [row.timestamp, row.requests_count]).filter(([, count]) => count > 0),
      [
        [datetime(minuteStart - 20 * MINUTE), 1],
        [datetime(minuteStart - 5 * MINUTE), 3],
        [datetime(minuteStart - 3 * MINUTE), 1],
      ],
    );
    const day = await studio('functions.combined-stats', { function_id: functionId, interval: '1day' });
    assert.ok(day.every((row) => /T\d\d:00:00$/.test(row.timestamp)), JSON.stringify(day));
    const sum = (column: string) => day.reduce((total, row) => total + row[column], 0);
    assert.deepEqual([sum('requests_count'), sum('server_err_count'), sum('log_count')], [5, 1, 3]);
    assert.equal(Math.max(...day.map((row) => row.max_execution_time)), 50);
  });

  test('a function without events answers no rows', async () => {
    assert.deepEqual(await studio('functions.combined-stats', { function_id: randomUUID(), interval: '1day' }), []);
  });

  test("the 16 fields Studio's Edge Function page reads, CPU and memory from the edge runtime's worker events", async () => {
    const worker = randomUUID();
    const MB = 1024 * 1024;
    // When a worker ends, the edge runtime reports its CPU time in milliseconds and, on a Shutdown,
    // its memory in bytes (total = V8 heap + external); an UncaughtException carries CPU time only.
    const shutdown = (at: number, cpuMs: number, heap: number, external: number) => ({
      id: randomUUID(),
      timestamp: iso(at),
      event_message: 'shutdown',
      metadata: { project_ref: 'default', function_id: worker, event_type: 'Shutdown', reason: 'EarlyDrop', cpu_time_used: cpuMs, memory_used: { total: heap + external, heap, external } },
    });
    const uncaught = (at: number, cpuMs: number) => ({
      id: randomUUID(),
      timestamp: iso(at),
      event_message: 'Uncaught TypeError: x is not a function',
      metadata: { project_ref: 'default', function_id: worker, event_type: 'UncaughtException', cpu_time_used: cpuMs },
    });
    const first = minuteStart - 4 * MINUTE;
    await ship('deno-subhosting-events', [
      shutdown(first + 1_000, 40, 8 * MB, 2 * MB),
      shutdown(first + 2_000, 20, 4 * MB, 1 * MB),
      uncaught(first + 3_000, 90),
      workerLog(first + 4_000, 'info', worker),
      workerLog(minuteStart - 2 * MINUTE, 'info', worker),
    ]);
    await ship('deno-relay-logs', [invocation(first + 500, 200, 70, worker)]);

    const rows = await studio('functions.combined-stats', { function_id: worker, interval: '15min' });
    assert.deepEqual(rows, [
      {
        ...zero,
        timestamp: datetime(first),
        requests_count: 1,
        success_count: 1,
        avg_execution_time: 70,
        max_execution_time: 70,
        // Every event of the function's logs counts as a log line, as before.
        log_count: 4,
        log_info_count: 1,
        avg_cpu_time_used: (40 + 20 + 90) / 3,
        max_cpu_time_used: 90,
        avg_memory_used: 7.5,
        avg_heap_memory_used: 6,
        avg_external_memory_used: 1.5,
      },
      // A bucket with logs but no worker that ended: 0, as Studio's charts expect.
      { ...zero, timestamp: datetime(minuteStart - 2 * MINUTE), log_count: 1, log_info_count: 1 },
    ]);
    const studioFields = [
      'requests_count', 'log_count', 'log_info_count', 'log_warn_count', 'log_error_count', 'success_count', 'redirect_count', 'client_err_count',
      'server_err_count', 'avg_cpu_time_used', 'avg_memory_used', 'avg_execution_time', 'max_execution_time', 'avg_heap_memory_used',
      'avg_external_memory_used', 'max_cpu_time_used',
    ];
    assert.deepEqual(Object.keys(rows[0]!).sort(), ['timestamp', ...studioFields].sort());
  });
});

describe('service-health', () => {
  // Three hours back, hour-aligned: events at base+10min and base+70min, explicit windows around them.
  const base = Math.floor(now / HOUR) * HOUR - 3 * HOUR;
  const first = base + 10 * MINUTE;
  const second = base + 70 * MINUTE;
  const event = (at: number, fields: object) => ({ id: randomUUID(), timestamp: iso(at), event_message: 'x', ...fields });

  before(async () => {
    const edge = (at: number, status: number, project = 'default') => event(at, { project, metadata: { request: { method: 'GET', path: '/rest/v1/t' }, response: { status_code: status } } });
    await ship('cloudflare.logs.prod', [edge(first, 200), edge(first, 404), edge(first, 503), edge(second, 200), edge(first, 500, 'another-project'), edge(base - HOUR, 500)]);
    const severity = (level: string) => event(first, { project: 'default', metadata: { host: 'db-default', parsed: { error_severity: level } } });
    await ship('postgres.logs', [severity('LOG'), severity('WARNING'), severity('ERROR'), severity('FATAL')]);
    const auth = (metadata: object) => event(first, { project: 'default', metadata });
    await ship('gotrue.logs.prod', [auth({ level: 'info', status: '200' }), auth({ level: 'info', status: '401' }), auth({ level: 'error' }), auth({ level: 'warning' })]);
    const relay = (status: number) => event(first, { metadata: { project_ref: 'default', function_id: 'f', response: { status_code: status } } });
    await ship('deno-relay-logs', [relay(200), relay(500)]);
    const functionLog = (level: string) => event(first, { metadata: { project_ref: 'default', function_id: 'f', level } });
    await ship('deno-subhosting-events', [functionLog('info'), functionLog('warning'), functionLog('error')]);
    await ship('realtime.logs.prod', [event(first, { metadata: { project: 'default', external_id: 'default', level: 'error' } }), event(first, { metadata: { project: 'default', level: 'info' } })]);
    await ship('storage.logs.prod.2', [event(first, { metadata: { project: 'default', tenantId: 'default', level: 'warn' } })]);
    await ship('postgREST.logs.prod', [event(first, { project: 'default', metadata: { host: 'default' } }), event(second, { project: 'default' })]);
  });

  const counts = (ok: number, warning: number, error: number) => ({ ok, warning, error, total: ok + warning + error });
  const quiet = {
    postgres_logs: counts(0, 0, 0),
    auth_logs: counts(0, 0, 0),
    function_edge_logs: counts(0, 0, 0),
    storage_logs: counts(0, 0, 0),
    realtime_logs: counts(0, 0, 0),
    postgrest_logs: counts(0, 0, 0),
    edge_logs: counts(0, 0, 0),
    supavisor_logs: counts(0, 0, 0),
    function_logs: counts(0, 0, 0),
    etl_replication_logs: counts(0, 0, 0),
  };
  const busyHour = {
    ...quiet,
    postgres_logs: counts(1, 1, 2),
    auth_logs: counts(1, 1, 2),
    function_edge_logs: counts(1, 0, 1),
    storage_logs: counts(0, 1, 0),
    realtime_logs: counts(1, 0, 1),
    postgrest_logs: counts(1, 0, 0),
    edge_logs: counts(1, 1, 1),
    function_logs: counts(1, 1, 1),
  };

  test('hour: one row per hour with events, every service Studio lists, ok/warning/error/total each', async () => {
    const rows = await studio('service-health', { iso_timestamp_start: iso(base), iso_timestamp_end: iso(base + 2 * HOUR), granularity: 'hour' });
    assert.deepEqual(rows, [
      { timestamp: datetime(base), ...busyHour },
      { timestamp: datetime(base + HOUR), ...quiet, edge_logs: counts(1, 0, 0), postgrest_logs: counts(1, 0, 0) },
    ]);
  });

  test('minute and day granularities, and the window bounds', async () => {
    const minutes = await studio('service-health', { iso_timestamp_start: iso(base), iso_timestamp_end: iso(base + 2 * HOUR), granularity: 'minute' });
    assert.deepEqual(minutes.map((row) => row.timestamp), [datetime(first), datetime(second)]);
    const days = await studio('service-health', { iso_timestamp_start: iso(base), iso_timestamp_end: iso(base + 2 * HOUR), granularity: 'day' });
    assert.ok(days.every((row) => row.timestamp.endsWith('T00:00:00')), JSON.stringify(days));
    assert.equal(days.reduce((total, row) => total + row.edge_logs.total, 0), 4);
    const firstOnly = await studio('service-health', { iso_timestamp_start: iso(base), iso_timestamp_end: iso(base + HOUR), granularity: 'hour' });
    assert.deepEqual(firstOnly, [{ timestamp: datetime(base), ...busyHour }]);
    const earlier = await studio('service-health', { iso_timestamp_start: iso(base - 2 * HOUR), iso_timestamp_end: iso(base - 1), granularity: 'hour' });
    assert.deepEqual(earlier, [{ timestamp: datetime(base - HOUR), ...quiet, edge_logs: counts(0, 0, 1) }]);
  });

  test('another project sees only its own events', async () => {
    const rows = await studio('service-health', { project: 'another-project', iso_timestamp_start: iso(base), iso_timestamp_end: iso(base + 2 * HOUR), granularity: 'hour' });
    assert.deepEqual(rows, [{ timestamp: datetime(base), ...quiet, edge_logs: counts(0, 0, 1) }]);
  });
});
