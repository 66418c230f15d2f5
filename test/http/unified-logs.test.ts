/**
 * Supabase's unified `logs` table through `logs.all.otel` and `logs`: the queries Supabase
 * publishes for it (its logs-query guide) and the ones Studio's OTel builders send
 * (Logs.utils.otel.ts), over real sample events of each Supabase source at controlled times,
 * every row checked; and Supabase's rules for the window, `select *` and `count(*)`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
// The repository's copy of ../shared/samples/supabase (the events provisioning reads).
import { sample } from '../support/samples.ts';
import { INGEST_KEY, startTestServer, type TestServer } from '../support/server.ts';

let server: TestServer;
const now = Date.now();
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const iso = (ms: number) => new Date(ms).toISOString();
/** Every event but one lands ten minutes ago, a second apart: inside WINDOW, outside the default last minute. */
const base = now - 10 * MINUTE;
const WINDOW = { iso_timestamp_start: iso(now - 20 * MINUTE), iso_timestamp_end: iso(now + MINUTE) };

type Json = Record<string, any>;

let second = 0;
/** A real sample event of `source`, its metadata changed by `edit`. */
function event(source: string, id: string, edit: (event: Json) => void = () => undefined): Json {
  const value = sample(source);
  value.id = id;
  value.timestamp = iso(base + ++second * 1000);
  edit(value);
  return value;
}

function edge(id: string, method: string, path: string, status: number): Json {
  return event('cloudflare.logs.prod', id, (value) => {
    Object.assign(value.metadata.request, { method, path, search: path.includes('?') ? path.slice(path.indexOf('?')) : null });
    value.metadata.response.status_code = status;
    value.event_message = `${method} | ${status} | ${path}`;
  });
}
const postgres = (id: string, severity: string, message: string) =>
  event('postgres.logs', id, (value) => {
    value.metadata.parsed.error_severity = severity;
    value.event_message = message;
  });
const auth = (id: string, level: string, status: string, msg: string) =>
  event('gotrue.logs.prod', id, (value) => Object.assign(value.metadata, { level, status, msg }));
const functionLog = (id: string, level: string) => event('deno-subhosting-events', id, (value) => (value.metadata.level = level));

async function ship(source: string, events: Json[]): Promise<void> {
  const reply = await server.request('POST', `/api/logs?source_name=${encodeURIComponent(source)}`, { body: events, key: INGEST_KEY });
  assert.equal(reply.status, 200, JSON.stringify(reply.body));
}

/** Studio's call: POST with `sql` and the window in the body. */
async function otel(sql: string | undefined, window: Record<string, string> = WINDOW, endpoint = 'logs.all.otel') {
  const reply = await server.request('POST', `/api/endpoints/query/${endpoint}`, { body: { ...(sql === undefined ? {} : { sql }), ...window } });
  return reply;
}
async function rows(sql: string | undefined, window?: Record<string, string>, endpoint?: string): Promise<Json[]> {
  const reply = await otel(sql, window, endpoint);
  assert.equal(reply.status, 200, JSON.stringify(reply.body));
  return reply.body.result as Json[];
}

before(async () => {
  server = await startTestServer();
  await ship('cloudflare.logs.prod', [
    edge('edge-get', 'GET', '/rest/v1/todos?select=*', 200),
    edge('edge-post', 'POST', '/auth/v1/token', 401),
    edge('edge-fail', 'GET', '/storage/v1/object/avatars/a.png', 503),
  ]);
  await ship('postgres.logs', [
    postgres('pg-log', 'LOG', 'connection received'),
    postgres('pg-error', 'ERROR', 'deadlock detected'),
    postgres('pg-warning', 'WARNING', 'there is no transaction in progress'),
    postgres('pg-fatal', 'FATAL', 'password authentication failed'),
  ]);
  await ship('gotrue.logs.prod', [auth('auth-ok', 'info', '200', 'request completed'), auth('auth-error', 'error', '500', 'database error')]);
  await ship('deno-subhosting-events', [functionLog('fn-info', 'info'), functionLog('fn-error', 'error')]);
});
after(() => server.stop({ removeData: true }));

describe("Supabase's published logs queries", () => {
  test('recent edge requests with method, path and status, read from the typed fields', async () => {
    const result = await rows(`-- edge requests with method and path
select
  log_attributes['request.method'] as method,
  log_attributes['request.path'] as path,
  log_attributes['response.status_code'] as status
from logs
where source = 'edge_logs'
order by timestamp desc
limit 100`);
    assert.deepEqual(result, [
      { method: 'GET', path: '/storage/v1/object/avatars/a.png', status: '503' },
      { method: 'POST', path: '/auth/v1/token', status: '401' },
      { method: 'GET', path: '/rest/v1/todos?select=*', status: '200' },
    ]);
  });

  test('auth errors', async () => {
    const result = await rows(`select event_message, log_attributes['msg'] as message
from logs
where source = 'auth_logs'
  and log_attributes['level'] in ('error', 'fatal')
order by timestamp desc
limit 100`);
    assert.equal(result.length, 1);
    assert.equal(result[0]!.message, 'database error');
  });

  test('requests by status code', async () => {
    const result = await rows(`select
  toInt32OrZero(log_attributes['response.status_code']) as status,
  count() as count
from logs
where source = 'edge_logs'
group by status
order by count desc, status
limit 50`);
    assert.deepEqual(result, [
      { status: 200, count: 1 },
      { status: 401, count: 1 },
      { status: 503, count: 1 },
    ]);
  });

  test('search the raw message', async () => {
    const result = await rows(`select event_message
from logs
where source = 'postgres_logs'
  and event_message ilike '%DEADLOCK%'
order by timestamp desc
limit 100`);
    assert.deepEqual(result, [{ event_message: 'deadlock detected' }]);
  });

  test('server errors by source (toInt32OrZero over a key some sources lack)', async () => {
    const result = await rows(`select source, count() as server_errors
from logs
where toInt32OrZero(log_attributes['response.status_code']) between 500 and 599
group by source`);
    assert.deepEqual(result, [{ source: 'edge_logs', server_errors: 1 }]);
  });

  test('postgres errors grouped by severity', async () => {
    const result = await rows(`select log_attributes['parsed.error_severity'] as severity, count() as count
from logs
where source = 'postgres_logs'
  and log_attributes['parsed.error_severity'] in ('ERROR', 'FATAL', 'PANIC')
group by severity
order by severity
limit 100`);
    assert.deepEqual(result, [
      { severity: 'ERROR', count: 1 },
      { severity: 'FATAL', count: 1 },
    ]);
  });
});

describe("Studio's OTel query builders (Logs.utils.otel.ts)", () => {
  const edgeColumns = `id, timestamp, event_message, log_attributes['identifier'] AS identifier, log_attributes['request.method'] AS method, log_attributes['request.path'] AS path, log_attributes['request.search'] AS search, log_attributes['response.status_code'] AS status_code`;

  test('the preview query, with the status and search filters', async () => {
    const result = await rows(`-- Logs Preview Query (otel) [edge_logs]
SELECT ${edgeColumns}
FROM logs
WHERE source = 'edge_logs' AND toInt32OrZero(log_attributes['response.status_code']) BETWEEN 400 AND 499 AND event_message ILIKE '%AUTH%'
ORDER BY timestamp DESC
LIMIT 100`);
    assert.deepEqual(
      result.map(({ timestamp: _timestamp, ...row }) => row),
      [{ id: 'edge-post', event_message: 'POST | 401 | /auth/v1/token', identifier: '', method: 'POST', path: '/auth/v1/token', search: '', status_code: '401' }],
    );
  });

  test('the count query', async () => {
    assert.deepEqual(await rows(`-- Logs Count Query (otel) [postgres_logs]
SELECT count() AS count FROM logs WHERE source = 'postgres_logs' AND log_attributes['parsed.error_severity'] NOT IN ('ERROR', 'FATAL', 'PANIC')`), [{ count: 2 }]);
  });

  test('the single log query: the whole log_attributes map of one event', async () => {
    const [row] = await rows(`-- Single Log Query (otel)
SELECT id, timestamp, event_message, source, severity_text, log_attributes
FROM logs
WHERE id = 'pg-error'
LIMIT 1`);
    assert.deepEqual([row!.id, row!.source, row!.severity_text], ['pg-error', 'postgres_logs', 'ERROR']);
    const present = Object.fromEntries(Object.entries(row!.log_attributes as Json).filter(([, value]) => value !== null));
    const parsed = sample('postgres.logs').metadata.parsed;
    assert.equal(present['parsed.error_severity'], 'ERROR');
    assert.equal(present['parsed.user_name'], parsed.user_name);
    assert.equal(present['host'], sample('postgres.logs').metadata.host);
    assert.equal(present.project, 'default');
    // Keys only other sources have are there, NULL: the map is one record type across sources.
    assert.equal((row!.log_attributes as Json)['request.method'], null);
    assert.ok(!('metadata.host' in present) && !('id' in present) && !('event_message' in present), Object.keys(present).join());
  });

  test('the chart query: ok, error and warning counts per minute by each source\'s severity rule', async () => {
    const chart = (source: string, error: string, warning: string) => `-- Logs Chart Query (otel) [${source}]
SELECT
  toStartOfMinute(timestamp) AS timestamp,
  countIf(NOT ((${error}) OR (${warning}))) AS ok_count,
  countIf(${error}) AS error_count,
  countIf(${warning}) AS warning_count
FROM logs
WHERE source = '${source}'
GROUP BY timestamp
ORDER BY timestamp ASC`;
    const status = `toInt32OrZero(log_attributes['response.status_code'])`;
    const counts = async (sql: string) => (await rows(sql)).map(({ timestamp: _timestamp, ...row }) => row);
    const minutes = (result: Json[]) => result.length;
    const edge = await rows(chart('edge_logs', `${status} >= 500`, `${status} BETWEEN 400 AND 499`));
    assert.equal(minutes(edge), new Set([1, 2, 3].map((n) => Math.floor((base + n * 1000) / MINUTE))).size);
    const total = (result: Json[], column: string) => result.reduce((sum, row) => sum + Number(row[column]), 0);
    assert.deepEqual([total(edge, 'ok_count'), total(edge, 'error_count'), total(edge, 'warning_count')], [1, 1, 1]);
    const postgres = await counts(chart('postgres_logs', `log_attributes['parsed.error_severity'] IN ('ERROR', 'FATAL', 'PANIC')`, `log_attributes['parsed.error_severity'] = 'WARNING'`));
    assert.deepEqual([total(postgres, 'ok_count'), total(postgres, 'error_count'), total(postgres, 'warning_count')], [1, 2, 1]);
    const auth = await counts(
      chart('auth_logs', `log_attributes['level'] IN ('error', 'fatal') OR toInt32OrZero(log_attributes['status']) >= 500`, `log_attributes['level'] = 'warning' OR toInt32OrZero(log_attributes['status']) BETWEEN 400 AND 499`),
    );
    assert.deepEqual([total(auth, 'ok_count'), total(auth, 'error_count'), total(auth, 'warning_count')], [1, 1, 0]);
    const functions = await counts(chart('function_logs', `log_attributes['level'] IN ('error', 'fatal')`, `log_attributes['level'] = 'warning'`));
    assert.deepEqual([total(functions, 'ok_count'), total(functions, 'error_count'), total(functions, 'warning_count')], [1, 1, 0]);
  });
});

describe('the columns', () => {
  test("source and source_name are Studio's names; severity_text and project follow Logflare's rules", async () => {
    const result = await rows(`select id, source, source_name, severity_text, severity_number, project
from logs
order by id
limit 100`);
    const byId = Object.fromEntries(result.map(({ id, ...row }) => [id, row]));
    const row = (source: string, severity_text: string, severity_number: number, project = 'default') => ({ source, source_name: source, severity_text, severity_number, project });
    assert.deepEqual(byId, {
      // edge logs have no level: INFO
      'edge-get': row('edge_logs', 'INFO', 9),
      'edge-post': row('edge_logs', 'INFO', 9),
      'edge-fail': row('edge_logs', 'INFO', 9),
      // metadata.parsed.error_severity
      'pg-log': row('postgres_logs', 'LOG', 9),
      'pg-error': row('postgres_logs', 'ERROR', 17),
      'pg-warning': row('postgres_logs', 'WARNING', 13),
      'pg-fatal': row('postgres_logs', 'FATAL', 21),
      // metadata.level, upper-cased
      'auth-ok': row('auth_logs', 'INFO', 9),
      'auth-error': row('auth_logs', 'ERROR', 17),
      // the project from metadata.project_ref
      'fn-info': row('function_logs', 'INFO', 9),
      'fn-error': row('function_logs', 'ERROR', 17),
    });
  });

  test('source_name filters as source does; a key a source lacks reads as an empty string, not NULL', async () => {
    const result = await rows(`select id, log_attributes['response.status_code'] as status, log_attributes['no.such.key'] as missing
from logs
where source_name = 'edge_logs' and log_attributes['response.status_code'] != '200'
order by id`);
    assert.deepEqual(result, [
      { id: 'edge-fail', status: '503', missing: '' },
      { id: 'edge-post', status: '401', missing: '' },
    ]);
    const acrossSources = await rows(`select id, log_attributes['level'] as level from logs where source in ('auth_logs', 'edge_logs') order by id`);
    assert.deepEqual(acrossSources, [
      { id: 'auth-error', level: 'error' },
      { id: 'auth-ok', level: 'info' },
      { id: 'edge-fail', level: '' },
      { id: 'edge-get', level: '' },
      { id: 'edge-post', level: '' },
    ]);
  });

  test('keys are the dotted path without metadata; numbers and booleans as text; a top-level field wins over metadata', async () => {
    const [row] = await rows(`select
  log_attributes['request.cf.asn'] as asn,
  log_attributes['request.cf.botManagement.staticResource'] as static_resource,
  log_attributes['project'] as project,
  log_attributes['metadata.request.method'] as with_root
from logs
where id = 'edge-get'`);
    const cf = sample('cloudflare.logs.prod').metadata.request.cf;
    assert.deepEqual(row, { asn: String(cf.asn), static_resource: String(cf.botManagement.staticResource), project: 'default', with_root: '' });
  });
});

describe('logs in any endpoint', () => {
  test('a saved BigQuery SQL or ClickHouse SQL endpoint reads logs too, unbounded by a window', async () => {
    const run = async (language: string, query: string) => {
      const created = await server.request('POST', '/api/endpoints', { body: { name: `edge-methods-${language}`, language, query } });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const reply = await server.request('GET', `/api/endpoints/query/edge-methods-${language}`);
      assert.equal(reply.status, 200, JSON.stringify(reply.body));
      return reply.body.result;
    };
    const expected = [{ method: 'GET', n: 2 }, { method: 'POST', n: 1 }];
    const where = `where source = 'edge_logs' and id in ('edge-get', 'edge-post', 'edge-fail') group by method order by method`;
    assert.deepEqual(await run('bq_sql', `select log_attributes['request.method'] as method, count(*) as n from logs ${where}`), expected);
    assert.deepEqual(await run('ch_sql', `select log_attributes['request.method'] as method, count() as n from logs ${where}`), expected);
  });

  test("select * shows the table's columns (not the map, not the columns made for a key)", async () => {
    const created = await server.request('POST', '/api/endpoints', {
      body: { name: 'edge-star', language: 'ch_sql', query: `select *, log_attributes['request.method'] as method from logs where id = 'edge-get'` },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const reply = await server.request('GET', '/api/endpoints/query/edge-star');
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    const [row] = reply.body.result;
    assert.deepEqual(Object.keys(row).sort(), ['event_message', 'id', 'method', 'project', 'severity_number', 'severity_text', 'source', 'source_name', 'timestamp']);
    assert.equal(row.method, 'GET');
  });
});

describe("the endpoints' rules", () => {
  test('without sql: the recent edge logs; logs answers as logs.all.otel does', async () => {
    const ids = (result: Json[]) => result.map((row) => row.id);
    assert.deepEqual(ids(await rows(undefined)), ['edge-fail', 'edge-post', 'edge-get']);
    assert.deepEqual(ids(await rows(undefined, WINDOW, 'logs')), ['edge-fail', 'edge-post', 'edge-get']);
  });

  test('with neither bound only the last minute; the bounds are inclusive', async () => {
    await ship('cloudflare.logs.prod', [{ ...edge('edge-now', 'GET', '/rest/v1/now', 200), timestamp: iso(Date.now() - 5_000) }]);
    assert.deepEqual(await rows(`select id from logs`, {}), [{ id: 'edge-now' }]);
    const first = iso(base + 1000);
    assert.deepEqual(await rows(`select id from logs where source = 'edge_logs'`, { iso_timestamp_start: first, iso_timestamp_end: first }), [{ id: 'edge-get' }]);
  });

  test('a window over 24 hours is refused with a message', async () => {
    const reply = await otel('select id from logs', { iso_timestamp_start: iso(now - 25 * HOUR), iso_timestamp_end: iso(now) });
    assert.equal(reply.status, 400);
    assert.match(reply.body.error.message, /longer than 24 hours/);
    assert.equal((await otel('select id from logs', { iso_timestamp_start: iso(now - 24 * HOUR), iso_timestamp_end: iso(now) })).status, 200);
    const bad = await otel('select id from logs', { iso_timestamp_start: 'yesterday', iso_timestamp_end: iso(now) });
    assert.equal(bad.status, 400);
    assert.match(bad.body.error.message, /iso_timestamp_start must be an ISO 8601 timestamp/);
  });

  test('select * and count(*) are refused; count(id) and a string holding count(*) are not', async () => {
    for (const sql of ['select * from logs', 'select l.* from logs as l', 'select count(*) as n from logs', "select COUNT( * ) from logs where source = 'edge_logs'"]) {
      const reply = await otel(sql);
      assert.equal(reply.status, 400, sql);
      assert.match(reply.body.error.message, /select \* is not allowed|count\(\*\) is not allowed/, sql);
    }
    const beforeNow = { ...WINDOW, iso_timestamp_end: iso(base + MINUTE) };
    assert.deepEqual(await rows(`select count(id) as n from logs where event_message != 'count(*)' and source = 'edge_logs'`, beforeNow), [{ n: 3 }]);
  });

  test('the map is read by a literal key or selected whole: other uses are refused with a message', async () => {
    for (const [sql, message] of [
      [`select id from logs where has(log_attributes, 'level')`, /selected whole/],
      [`select log_attributes[concat('request.', 'method')] as m from logs`, /string literal key/],
      [`select arrayJoin(mapKeys(log_attributes)) as key from logs`, /mapKeys/],
    ] as const) {
      const reply = await otel(sql);
      assert.equal(reply.status, 400, sql);
      assert.match(reply.body.error.message, message, sql);
    }
  });

  test('the logs table is the only one', async () => {
    const other = await otel('select id from `cloudflare.logs.prod`');
    assert.equal(other.status, 400);
    assert.match(other.body.error.message, /cloudflare\.logs\.prod/);
  });
});
