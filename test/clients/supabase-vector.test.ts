/**
 * Vector exactly as Supabase's analytics overlay configures it today (docker/volumes/logs/vector.yml):
 * a `docker_logs` source, a remap setting `project = "default"`, `event_message` (the line) and
 * `appname` (the container) and dropping Docker's fields, a router by container name, one remap
 * per service, and seven `http` sinks posting JSON arrays to
 * `http://analytics:4000/api/logs?source_name=<source>` with `x-api-key: LOGFLARE_PUBLIC_ACCESS_TOKEN`.
 *
 * Each event below is what those transforms leave for one container line (Vector's own timestamp
 * format, nested objects as the VRL paths build them, `metadata.context[0]` an array for storage),
 * sent to its sink's URI; then Studio's endpoints must count them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { INGEST_KEY, startTestServer, type TestServer } from '../support/server.ts';

let server: TestServer;
const now = Date.now();
/** RFC 3339 with nanoseconds, as Vector writes timestamps. */
const vectorTime = (ms: number) => new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1456789Z');
const at = now - 10 * 60_000;

/** The sinks of vector.yml: source name by sink, and the events its inputs produce. */
const sinks: Record<string, { source: string; events: object[] }> = {
  logflare_kong: {
    source: 'cloudflare.logs.prod',
    events: [
      // kong_logs: parse_nginx_log(.event_message, "combined")
      ...[
        ['GET', '/rest/v1/todos?select=*', 200],
        ['POST', '/auth/v1/token?grant_type=password', 400],
        ['GET', '/storage/v1/object/public/avatars/a.png', 404],
        ['POST', '/functions/v1/hello', 500],
      ].map(([method, path, status]) => ({
        appname: 'supabase-kong',
        project: 'default',
        timestamp: vectorTime(at),
        event_message: `172.18.0.1 - - [24/Nov/2026:10:00:00 +0000] "${method} ${path} HTTP/1.1" ${status} 37 "-" "supabase-js/2.45.0"`,
        metadata: {
          request: { headers: { referer: null, user_agent: 'supabase-js/2.45.0', cf_connecting_ip: '172.18.0.1' }, method, path, protocol: 'HTTP/1.1' },
          response: { status_code: status },
        },
      })),
      // kong_err: parse_nginx_log(.event_message, "error"), request split into method, path, protocol
      {
        appname: 'supabase-kong',
        project: 'default',
        timestamp: vectorTime(at),
        severity: 'error',
        event_message: '2026/11/24 10:00:00 [error] 1234#0: *5 connect() failed (111: Connection refused), client: 172.18.0.1, server: kong, request: "GET /rest/v1/ HTTP/1.1", host: "localhost:8000"',
        metadata: { request: { method: 'GET', path: '/rest/v1/', protocol: 'HTTP/1.1', host: 'localhost:8000', headers: { cf_connecting_ip: '172.18.0.1' } }, response: { status_code: 200 } },
      },
    ],
  },
  logflare_auth: {
    source: 'gotrue.logs.prod',
    events: [
      // auth_logs: .metadata.timestamp = parsed.time, then merge(.metadata, parsed)
      { level: 'info', msg: 'request completed', status: 200, duration: 1234567 },
      { level: 'info', msg: 'request completed', status: 400, duration: 345678, error: 'invalid_grant' },
      { level: 'error', msg: 'failed to send email', component: 'mailer' },
    ].map((parsed) => {
      const fields = { component: 'api', method: 'POST', path: '/token', referer: 'http://localhost:3000', remote_addr: '172.18.0.1', request_id: 'req-1', time: new Date(at).toISOString().slice(0, 19) + 'Z', ...parsed };
      return { appname: 'supabase-auth', project: 'default', timestamp: vectorTime(at), event_message: JSON.stringify(fields), metadata: { timestamp: fields.time, ...fields } };
    }),
  },
  logflare_rest: {
    source: 'postgREST.logs.prod',
    events: [
      // rest_logs: "<time>: <msg>" split, .metadata.host = .project
      { appname: 'supabase-rest', project: 'default', timestamp: vectorTime(at), event_message: 'Schema cache loaded', metadata: { host: 'default' } },
    ],
  },
  logflare_realtime: {
    source: 'realtime.logs.prod',
    events: [
      // realtime_logs: project moved into metadata, external_id copied from it, level parsed
      { appname: 'realtime-dev.supabase-realtime', timestamp: vectorTime(at), event_message: 'Billing metrics: [:realtime, :rate_counter, :channel, :events]', metadata: { project: 'default', external_id: 'default', level: 'info' } },
      { appname: 'realtime-dev.supabase-realtime', timestamp: vectorTime(at), event_message: 'Tenant not found', metadata: { project: 'default', external_id: 'default', level: 'error' } },
    ],
  },
  logflare_functions: {
    source: 'deno-relay-logs',
    events: [
      // functions_logs: .metadata.project_ref = del(.project)
      { appname: 'supabase-edge-functions', timestamp: vectorTime(at), event_message: 'serving the request with /home/deno/functions/hello', metadata: { project_ref: 'default' } },
    ],
  },
  logflare_storage: {
    source: 'storage.logs.prod.2',
    events: [
      // storage_logs: project and tenantId in metadata, pino's JSON parsed, context[0] host and pid
      {
        appname: 'supabase-storage',
        timestamp: vectorTime(at),
        event_message: 'Server listening at http://0.0.0.0:5000',
        metadata: { project: 'default', tenantId: 'default', level: 'info', timestamp: new Date(at).toISOString(), context: [{ host: 'a1b2c3', pid: 1 }] },
      },
    ],
  },
  logflare_db: {
    source: 'postgres.logs',
    events: [
      // db_logs: metadata.host, metadata.parsed.timestamp, error_severity from the line (LOG when none)
      ...[
        ['2026-11-24 10:00:00.000 UTC [1] LOG:  checkpoint starting: time', 'LOG'],
        ['2026-11-24 10:00:00.000 UTC [9] WARNING:  no privileges were granted', 'WARNING'],
        ['2026-11-24 10:00:00.000 UTC [9] ERROR:  relation "nope" does not exist', 'ERROR'],
      ].map(([line, severity]) => ({
        appname: 'supabase-db',
        project: 'default',
        timestamp: vectorTime(at),
        event_message: line,
        metadata: { host: 'db-default', parsed: { timestamp: vectorTime(at), error_severity: severity } },
      })),
    ],
  },
};

before(async () => {
  server = await startTestServer();
});
after(() => server.stop({ removeData: true }));

async function studio(endpoint: string, params: Record<string, string>) {
  const reply = await server.request('GET', `/api/endpoints/query/${endpoint}?${new URLSearchParams({ project: 'default', ...params })}`);
  assert.equal(reply.status, 200, JSON.stringify(reply.body));
  return reply.body.result as Array<Record<string, any>>;
}

describe("vector.yml's sinks, then Studio", () => {
  before(async () => {
    for (const [sink, { source, events }] of Object.entries(sinks)) {
      const reply = await fetch(`${server.url}/api/logs?source_name=${source}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': INGEST_KEY, 'user-agent': 'Vector/0.53.0 (x86_64-unknown-linux-musl)' },
        body: JSON.stringify(events),
      });
      const text = await reply.text();
      assert.equal(reply.status, 200, `${sink}: ${text}`);
      assert.deepEqual(JSON.parse(text), { message: 'Logged!', accepted: events.length, rejected: 0 }, sink);
    }
  });

  test("service-health counts every service's events by Studio's rules", async () => {
    const rows = await studio('service-health', { iso_timestamp_start: new Date(at - 60_000).toISOString(), iso_timestamp_end: new Date(now).toISOString(), granularity: 'hour' });
    const totals = (service: string) =>
      rows.reduce((sum, row) => ({ ok: sum.ok + row[service].ok, warning: sum.warning + row[service].warning, error: sum.error + row[service].error }), { ok: 0, warning: 0, error: 0 });
    assert.deepEqual(totals('edge_logs'), { ok: 2, warning: 2, error: 1 }, 'kong: 200 and the error log line ok, 400 and 404 warnings, 500 an error');
    assert.deepEqual(totals('auth_logs'), { ok: 1, warning: 0, error: 2 }, 'auth: status 400 and level error');
    assert.deepEqual(totals('postgres_logs'), { ok: 1, warning: 1, error: 1 });
    assert.deepEqual(totals('postgrest_logs'), { ok: 1, warning: 0, error: 0 });
    assert.deepEqual(totals('realtime_logs'), { ok: 1, warning: 0, error: 1 });
    assert.deepEqual(totals('storage_logs'), { ok: 1, warning: 0, error: 0 });
    assert.deepEqual(totals('function_edge_logs'), { ok: 1, warning: 0, error: 0 }, 'the edge runtime container, no status');
  });

  test("logs.all shows Kong's lines", async () => {
    const rows = await studio('logs.all', { project_tier: 'ENTERPRISE', iso_timestamp_start: new Date(at - 60_000).toISOString() });
    assert.equal(rows.length, 5);
    assert.deepEqual(rows.map((row) => row.metadata[0].request[0].path).sort(), ['/auth/v1/token?grant_type=password', '/functions/v1/hello', '/rest/v1/', '/rest/v1/todos?select=*', '/storage/v1/object/public/avatars/a.png']);
  });

  test("usage.api-counts, Logflare's query, selects by the request URL, which Vector's Kong lines lack", async () => {
    assert.deepEqual(await studio('usage.api-counts', { interval: 'hourly' }), []);
  });
});
