import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { startTestServer, type TestServer } from '../support/server.ts';
import { sample } from '../support/samples.ts';

let server: TestServer;
let tokens: Record<string, string>;
const now = Date.now();
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const iso = (ms: number) => new Date(ms).toISOString();

async function ingest(sourceName: string, events: object[]): Promise<void> {
  const reply = await server.request('POST', `/logs?source=${tokens[sourceName]}`, { body: events });
  assert.equal(reply.status, 200, JSON.stringify(reply.body));
  assert.equal(reply.body.accepted, events.length);
}

async function query(endpoint: string, params: Record<string, string>) {
  const reply = await server.request('GET', `/api/endpoints/query/${endpoint}?${new URLSearchParams(params)}`);
  assert.equal(reply.status, 200, JSON.stringify(reply.body));
  return reply.body.result as Record<string, any>[];
}

function edgeEvent(project: string, at: number, path = '/rest/v1/items', id: string = randomUUID()) {
  const base = sample('cloudflare.logs.prod');
  const request = { ...base.metadata.request, path, url: `https://${project}.supabase.co${path}` };
  return { ...base, id, project, timestamp: iso(at), event_message: `${project} ${path} ${iso(at)}`, metadata: { ...base.metadata, request } };
}

function relayEvent(project: string, at: number, executionMs: number, status: number, functionId = 'fn-a') {
  const base = sample('deno-relay-logs');
  return {
    ...base,
    id: randomUUID(),
    timestamp: iso(at),
    metadata: { ...base.metadata, project_ref: project, function_id: functionId, execution_time_ms: executionMs, response: { ...base.metadata.response, status_code: status } },
  };
}

before(async () => {
  server = await startTestServer();
  tokens = Object.fromEntries((await server.request('GET', '/api/sources')).body.map((s: any) => [s.name, s.token]));
});
after(() => server.stop({ removeData: true }));

describe('logs.all', () => {
  const ages = { hour: now - HOUR, days3: now - 3 * DAY, days30: now - 30 * DAY, days100: now - 100 * DAY };

  before(async () => {
    await ingest('cloudflare.logs.prod', [
      ...Object.entries(ages).map(([age, at]) => edgeEvent('tiers', at, `/rest/v1/${age}`, `tiers-${age}`)),
      edgeEvent('someone-else', now - HOUR, '/rest/v1/other', 'other-project'),
    ]);
  });

  const idsFor = async (params: Record<string, string>) => (await query('logs.all', { project: 'tiers', ...params })).map((row) => row.id);

  test('retention follows the project tier; unknown tiers behave as FREE', async () => {
    assert.deepEqual(await idsFor({ project_tier: 'FREE' }), ['tiers-hour']);
    assert.deepEqual(await idsFor({ project_tier: 'PRO' }), ['tiers-hour', 'tiers-days3']);
    assert.deepEqual(await idsFor({ project_tier: 'PAYG' }), ['tiers-hour', 'tiers-days3', 'tiers-days30']);
    assert.deepEqual(await idsFor({ project_tier: 'ENTERPRISE' }), ['tiers-hour', 'tiers-days3', 'tiers-days30']);
    assert.deepEqual(await idsFor({ project_tier: 'GOLD' }), ['tiers-hour']);
  });

  test('rows of other projects never appear', async () => {
    const rows = await query('logs.all', { project: 'someone-else', project_tier: 'ENTERPRISE' });
    assert.deepEqual(rows.map((row) => row.id), ['other-project']);
  });

  test('iso_timestamp_start is exclusive, iso_timestamp_end inclusive, empty means unbounded', async () => {
    const at3 = iso(ages.days3);
    assert.deepEqual(await idsFor({ project_tier: 'ENTERPRISE', iso_timestamp_start: at3 }), ['tiers-hour']);
    assert.deepEqual(await idsFor({ project_tier: 'ENTERPRISE', iso_timestamp_end: at3 }), ['tiers-days3', 'tiers-days30']);
    assert.deepEqual(await idsFor({ project_tier: 'ENTERPRISE', iso_timestamp_start: '', iso_timestamp_end: '' }), ['tiers-hour', 'tiers-days3', 'tiers-days30']);
  });

  test('columns, wire shapes, newest first, at most 100 rows', async () => {
    await ingest('cloudflare.logs.prod', Array.from({ length: 150 }, (_, i) => edgeEvent('busy', now - (i + 1) * 1000)));
    const rows = await query('logs.all', { project: 'busy', project_tier: 'PRO' });
    assert.equal(rows.length, 100);
    assert.deepEqual(Object.keys(rows[0]!).sort(), ['event_message', 'id', 'metadata', 'timestamp']);
    assert.equal(rows[0]!.timestamp, (now - 1000) * 1000, 'TIMESTAMP as integer microseconds');
    assert.ok(rows.every((row, i) => i === 0 || rows[i - 1]!.timestamp > row.timestamp));
    assert.ok(Array.isArray(rows[0]!.metadata) && rows[0]!.metadata[0].request[0].path === '/rest/v1/items');
  });

  test('an invalid timestamp parameter is a 400 with a message', async () => {
    const reply = await server.request('GET', '/api/endpoints/query/logs.all?project=tiers&project_tier=FREE&iso_timestamp_start=yesterday');
    assert.equal(reply.status, 400);
    assert.equal(typeof reply.body.error.message, 'string');
  });
});

describe('functions.invocation-stats', () => {
  const hourStart = Math.floor(now / HOUR) * HOUR;

  before(async () => {
    // 100 invocations one hour-bucket back, execution times 1..100 ms, every 10th an error.
    const events = Array.from({ length: 100 }, (_, i) => relayEvent('fnproj', hourStart - HOUR + 1000 + i * 1000, i + 1, i % 10 === 9 ? 500 : 200));
    events.push(relayEvent('fnproj', hourStart - 2 * HOUR + 5000, 7, 404, 'fn-b'));
    events.push(relayEvent('fnproj', hourStart - 2 * DAY, 9, 200));
    events.push(relayEvent('other', hourStart - HOUR + 5000, 9, 200));
    await ingest('deno-relay-logs', events);
  });

  test('1day: hourly buckets over the last day with min, max, avg, percentiles and errors', async () => {
    const rows = await query('functions.invocation-stats', { project: 'fnproj', interval: '1day' });
    assert.deepEqual(rows.map((row) => row.timestamp), [(hourStart - 2 * HOUR) * 1000, (hourStart - HOUR) * 1000]);
    const main = rows[1]!;
    assert.deepEqual([main.count, main.error_count, main.min_execution_time, main.max_execution_time], [100, 10, 1, 100]);
    assert.equal(main.avg_execution_time, 50.5);
    assert.ok(Math.abs(main.p95_execution_time - 95) <= 2, `p95 ${main.p95_execution_time}`);
    assert.ok(Math.abs(main.p99_execution_time - 99) <= 2, `p99 ${main.p99_execution_time}`);
    assert.deepEqual(Object.keys(main).sort(), ['avg_execution_time', 'count', 'error_count', 'max_execution_time', 'min_execution_time', 'p95_execution_time', 'p99_execution_time', 'timestamp']);
  });

  test('function_id filters, empty means all', async () => {
    const only = await query('functions.invocation-stats', { project: 'fnproj', interval: '1day', function_id: 'fn-b' });
    assert.deepEqual(only.map((row) => [row.count, row.error_count]), [[1, 1]]);
    const all = await query('functions.invocation-stats', { project: 'fnproj', interval: '1day', function_id: '' });
    assert.equal(all.reduce((sum, row) => sum + row.count, 0), 101);
  });

  test('7day buckets by day and reaches back a week; unknown intervals behave as 1day', async () => {
    const week = await query('functions.invocation-stats', { project: 'fnproj', interval: '7day' });
    assert.equal(week.reduce((sum, row) => sum + row.count, 0), 102);
    assert.ok(week.every((row) => row.timestamp % (DAY * 1000) === 0), 'day-aligned buckets');
    const other = await query('functions.invocation-stats', { project: 'fnproj', interval: 'fortnight' });
    assert.deepEqual(other, await query('functions.invocation-stats', { project: 'fnproj', interval: '1day' }));
  });

  test('short intervals bucket by minute or second', async () => {
    await ingest('deno-relay-logs', [relayEvent('fresh', now - 30_000, 3, 200), relayEvent('fresh', now - 30_000, 5, 503)]);
    const seconds = await query('functions.invocation-stats', { project: 'fresh', interval: '5min' });
    assert.deepEqual(seconds.map((row) => [row.timestamp, row.count, row.error_count]), [[Math.floor((now - 30_000) / 1000) * 1_000_000, 2, 1]]);
    const minutes = await query('functions.invocation-stats', { project: 'fresh', interval: '15min' });
    assert.deepEqual(minutes.map((row) => row.timestamp), [Math.floor((now - 30_000) / MINUTE) * MINUTE * 1000]);
  });
});

describe('usage.api-counts', () => {
  before(async () => {
    const at = now - 10 * MINUTE;
    await ingest('cloudflare.logs.prod', [
      edgeEvent('usageproj', at, '/rest/v1/things'),
      edgeEvent('usageproj', at, '/rest/v1/other'),
      edgeEvent('usageproj', at, '/storage/v1/object'),
      edgeEvent('usageproj', at, '/auth/v1/user'),
      edgeEvent('usageproj', at, '/realtime/v1/websocket'),
      edgeEvent('usageproj', now - 3 * DAY, '/rest/v1/old'),
      edgeEvent('elsewhere', at, '/rest/v1/things'),
    ]);
  });

  const totals = (rows: Record<string, any>[]) =>
    ['total_rest_requests', 'total_storage_requests', 'total_auth_requests', 'total_realtime_requests'].map((column) => rows.reduce((sum, row) => sum + row[column], 0));

  test('hourly, minutely and daily windows and buckets', async () => {
    const hourly = await query('usage.api-counts', { project: 'usageproj', interval: 'hourly' });
    assert.deepEqual(totals(hourly), [2, 1, 1, 1]);
    assert.ok(hourly.every((row) => /^\d{4}-\d\d-\d\dT\d\d:00:00$/.test(row.timestamp)), JSON.stringify(hourly));
    const minutely = await query('usage.api-counts', { project: 'usageproj', interval: 'minutely' });
    assert.deepEqual(minutely.map((row) => row.timestamp), [iso(Math.floor((now - 10 * MINUTE) / MINUTE) * MINUTE).replace('.000Z', '')]);
    const daily = await query('usage.api-counts', { project: 'usageproj', interval: 'daily' });
    assert.deepEqual(totals(daily), [3, 1, 1, 1]);
    assert.deepEqual(Object.keys(daily[0]!).sort(), ['timestamp', 'total_auth_requests', 'total_realtime_requests', 'total_rest_requests', 'total_storage_requests']);
  });

  test('an unknown interval returns no rows', async () => {
    assert.deepEqual(await query('usage.api-counts', { project: 'usageproj', interval: 'weekly' }), []);
  });
});

describe('endpoint API', () => {
  test('by UUID as well as by name, on /endpoints/query too', async () => {
    const list = (await server.request('GET', '/api/endpoints')).body as any[];
    assert.deepEqual(list.map((endpoint) => endpoint.name).sort(), ['functions.combined-stats', 'functions.invocation-stats', 'logs', 'logs.all', 'logs.all.otel', 'service-health', 'usage.api-counts']);
    const logsAll = list.find((endpoint) => endpoint.name === 'logs.all');
    assert.deepEqual([logsAll.max_limit, logsAll.cache_duration_seconds, logsAll.language], [1000, 0, 'bq_sql']);
    const stats = list.find((endpoint) => endpoint.name === 'functions.invocation-stats');
    assert.deepEqual([stats.cache_duration_seconds, stats.proactive_requerying_seconds], [900, 300]);
    // The contract's decision of 2026-11-28, as Logflare's Supabase seed: Studio sends its SQL to logs.all.
    const sandboxable = Object.fromEntries(list.filter((endpoint) => ['logs.all', 'usage.api-counts', 'functions.invocation-stats'].includes(endpoint.name)).map((endpoint) => [endpoint.name, endpoint.sandboxable]));
    assert.deepEqual(sandboxable, { 'logs.all': true, 'usage.api-counts': true, 'functions.invocation-stats': false });
    const byToken = await server.request('GET', `/api/endpoints/query/${logsAll.token}?project=tiers&project_tier=FREE`);
    const legacy = await server.request('GET', `/endpoints/query/logs.all?project=tiers&project_tier=FREE`);
    assert.deepEqual([byToken.status, legacy.status], [200, 200]);
    assert.deepEqual(byToken.body, legacy.body);
  });

  test('a query that names what the sources lack is refused at save time: 422 with the position, nothing saved', async () => {
    const typo = await server.request('POST', '/api/endpoints', { body: { name: 'typo', query: 'select event_mesage from `postgres.logs`' } });
    assert.equal(typo.status, 422);
    assert.deepEqual(typo.body, {
      errors: { query: ['Unrecognized name: event_mesage; Did you mean event_message? at [1:8]'] },
      line: 1,
      column: 8,
    });
    const field = 'select p.user_nam from `postgres.logs` cross join unnest(metadata) as m cross join unnest(m.parsed) as p';
    const fieldTypo = await server.request('POST', '/api/endpoints', { body: { name: 'typo', query: field } });
    assert.equal(fieldTypo.status, 422);
    assert.match(fieldTypo.body.errors.query[0], /^Field name user_nam does not exist in STRUCT<.*>; Did you mean user_name\? at \[1:8\]$/);
    const list = (await server.request('GET', '/api/endpoints')).body as Array<{ name: string }>;
    assert.ok(!list.some((endpoint) => endpoint.name === 'typo'));

    const good = await server.request('POST', '/api/endpoints', { body: { name: 'typo-fixed', query: 'select event_message from `postgres.logs`' } });
    assert.equal(good.status, 201);
    const update = await server.request('PATCH', `/api/endpoints/${good.body.token}`, { body: { query: 'select evnt_message from `postgres.logs`' } });
    assert.equal(update.status, 422);
    assert.deepEqual([update.body.line, update.body.column], [1, 8]);
  });

  test('a user endpoint: created, validated, capped at max_limit, cached, and its cache dropped on change', async () => {
    const bad = await server.request('POST', '/api/endpoints', { body: { name: 'bad', query: 'select * from nowhere' } });
    assert.equal(bad.status, 422);
    assert.match(JSON.stringify(bad.body.errors.query), /nowhere/);

    const query = 'select event_message from `postgres.logs` where event_message like @prefix order by event_message';
    const created = await server.request('POST', '/api/endpoints', { body: { name: 'cached', query, max_limit: 2, cache_duration_seconds: 600 } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    await ingest('postgres.logs', ['c1', 'c2', 'c3'].map((message) => ({ message })));
    const first = await server.request('GET', '/api/endpoints/query/cached?prefix=c%25');
    assert.deepEqual(first.body.result, [{ event_message: 'c1' }, { event_message: 'c2' }]);

    await ingest('postgres.logs', [{ message: 'c0' }]);
    const cached = await server.request('GET', '/api/endpoints/query/cached?prefix=c%25');
    assert.deepEqual(cached.body.result, first.body.result, 'served from cache');

    const patched = await server.request('PATCH', `/api/endpoints/${created.body.token}`, { body: { max_limit: 3 } });
    assert.equal(patched.status, 204);
    const fresh = await server.request('GET', '/api/endpoints/query/cached?prefix=c%25');
    assert.deepEqual(fresh.body.result, [{ event_message: 'c0' }, { event_message: 'c1' }, { event_message: 'c2' }]);
  });

  test('warming re-runs cached queries in the background', async () => {
    const query = 'select count(*) as n from `pgbouncer.logs.prod` where event_message = @marker';
    const created = await server.request('POST', '/api/endpoints', { body: { name: 'warm', query, cache_duration_seconds: 600, proactive_requerying_seconds: 1 } });
    assert.equal(created.status, 201);
    const before = await query_('warm', { marker: 'warm-me' });
    assert.deepEqual(before, [{ n: 0 }]);
    await ingest('pgbouncer.logs.prod', [{ message: 'warm-me' }]);
    await new Promise((resolve) => setTimeout(resolve, 2500));
    assert.deepEqual(await query_('warm', { marker: 'warm-me' }), [{ n: 1 }]);
  });

  test('parameters are bound, never spliced', async () => {
    const rows = await query('logs.all', { project: "tiers' or '1'='1", project_tier: 'ENTERPRISE' });
    assert.deepEqual(rows, []);
  });

  test('404 for an unknown endpoint, 401 without a key, 403 for an ingest key', async () => {
    const unknown = await server.request('GET', '/api/endpoints/query/nope');
    const anonymous = await server.request('GET', '/api/endpoints/query/logs.all', { key: null });
    const ingestOnly = await server.request('GET', '/api/endpoints/query/logs.all', { key: 'test-ingest-key-0123456789' });
    assert.deepEqual([unknown.status, anonymous.status, ingestOnly.status], [404, 401, 403]);
    assert.equal(typeof ingestOnly.body.error.message, 'string');
  });
});

const query_ = query;
