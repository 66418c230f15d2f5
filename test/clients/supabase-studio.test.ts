/**
 * Supabase self-hosting end to end: Vector ships Kong's access log to `cloudflare.logs.prod` with
 * the ingest key (LOGFLARE_PUBLIC_ACCESS_TOKEN), then Studio's calls are replayed with the private
 * key (LOGFLARE_PRIVATE_ACCESS_TOKEN): the logs explorer's `logs.all` query with its parameters,
 * and, once sandboxing is enabled on `logs.all` through the management API, Studio's own
 * consumer SQL over the endpoint's CTEs.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { INGEST_KEY, PRIVATE_KEY, startTestServer, type TestServer } from '../support/server.ts';

let server: TestServer;
const now = Date.now();
const edgeEvents = [
  { path: '/rest/v1/todos', method: 'GET', status: 200, agoMs: 3 * 60_000 },
  { path: '/auth/v1/token', method: 'POST', status: 200, agoMs: 2 * 60_000 },
  { path: '/storage/v1/object/avatars/1.png', method: 'GET', status: 404, agoMs: 60_000 },
].map(({ path, method, status, agoMs }) => ({
  id: randomUUID(),
  appname: 'supabase-kong',
  project: 'default',
  event_message: `172.18.0.1 - - "${method} ${path} HTTP/1.1" ${status} 42 "-" "supabase-js/2.45.0"`,
  timestamp: new Date(now - agoMs).toISOString(),
  metadata: {
    request: { method, path, protocol: 'HTTP/1.1', headers: { cf_connecting_ip: '172.18.0.1', user_agent: 'supabase-js/2.45.0' } },
    response: { status_code: status },
  },
}));

before(async () => {
  server = await startTestServer();
  // Vector's kong sink: bare JSON array, x-api-key, ?source_name=.
  const shipped = await fetch(`${server.url}/api/logs?source_name=cloudflare.logs.prod`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': INGEST_KEY },
    body: JSON.stringify(edgeEvents),
  });
  assert.equal(shipped.status, 200);
});
after(() => server.stop({ removeData: true }));

/** A Studio call: GET with query-string parameters and the private key in x-api-key. */
async function studio(path: string, params: Record<string, string>, key = PRIVATE_KEY) {
  const reply = await fetch(`${server.url}${path}?${new URLSearchParams(params)}`, {
    headers: { 'x-api-key': key, 'content-type': 'application/json; charset=utf-8' },
  });
  return { status: reply.status, body: await reply.json() };
}

const STUDIO_SQL =
  'select id, timestamp, event_message, request.method from edge_logs cross join unnest(metadata) as m cross join unnest(m.request) as request order by timestamp desc limit 100';

describe('Supabase Studio against Sawmill', () => {
  test('logs.all with project, tier and a start time answers the edge logs, BigQuery-shaped', async () => {
    const { status, body } = await studio('/api/endpoints/query/logs.all', {
      project: 'default',
      project_tier: 'ENTERPRISE',
      iso_timestamp_start: new Date(now - 10 * 60_000).toISOString(),
      iso_timestamp_end: new Date(now + 60_000).toISOString(),
    });
    assert.equal(status, 200, JSON.stringify(body));
    const rows = body.result as Array<Record<string, any>>;
    const ours = rows.filter((row) => edgeEvents.some((event) => event.id === row.id));
    assert.equal(ours.length, 3);
    assert.deepEqual(
      ours.map((row) => row.id),
      [...edgeEvents].reverse().map((event) => event.id),
      'newest first',
    );
    const newest = ours[0]!;
    assert.match(String(newest.timestamp), /^\d{16}$/, 'timestamps are microseconds since the epoch');
    assert.equal(newest.timestamp, Date.parse(edgeEvents[2]!.timestamp) * 1000);
    assert.ok(Array.isArray(newest.metadata) && newest.metadata.length === 1, 'metadata is a one-element repeated record');
    assert.equal(newest.metadata[0].request[0].path, '/storage/v1/object/avatars/1.png');
    assert.equal(newest.metadata[0].response[0].status_code, 404);
  });

  test('a start time after the events leaves them out', async () => {
    const { status, body } = await studio('/api/endpoints/query/logs.all', {
      project: 'default',
      project_tier: 'ENTERPRISE',
      iso_timestamp_start: new Date(now - 90_000).toISOString(),
    });
    assert.equal(status, 200, JSON.stringify(body));
    const ids = (body.result as Array<{ id: string }>).map((row) => row.id);
    assert.deepEqual(ids.filter((id) => edgeEvents.some((event) => event.id === id)), [edgeEvents[2]!.id]);
  });

  test("Studio's consumer SQL runs over the endpoint's CTEs as provisioned, with no manual step", async () => {
    const { status, body } = await studio('/api/endpoints/query/logs.all', { project: 'default', project_tier: 'ENTERPRISE', sql: STUDIO_SQL });
    assert.equal(status, 200, JSON.stringify(body));
    const rows = (body.result as Array<Record<string, any>>).filter((row) => edgeEvents.some((event) => event.id === row.id));
    assert.deepEqual(
      rows.map((row) => [row.event_message, row.method]),
      [...edgeEvents].reverse().map((event) => [event.event_message, event.metadata.request.method]),
    );
    assert.deepEqual(Object.keys(rows[0]!).sort(), ['event_message', 'id', 'method', 'timestamp']);
  });

  test('sandboxed SQL may read only the CTEs, one SELECT', async () => {
    const escape = await studio('/api/endpoints/query/logs.all', { project: 'default', project_tier: 'ENTERPRISE', sql: 'select * from `postgres.logs`' });
    assert.equal(escape.status, 400, JSON.stringify(escape.body));
    const write = await studio('/api/endpoints/query/logs.all', { project: 'default', project_tier: 'ENTERPRISE', sql: 'delete from edge_logs where true' });
    assert.equal(write.status, 400, JSON.stringify(write.body));
    const two = await studio('/api/endpoints/query/logs.all', { project: 'default', project_tier: 'ENTERPRISE', sql: 'select 1; select 2' });
    assert.equal(two.status, 400, JSON.stringify(two.body));
  });

  test("Vector's ingest key cannot query", async () => {
    const { status } = await studio('/api/endpoints/query/logs.all', { project: 'default', project_tier: 'ENTERPRISE' }, INGEST_KEY);
    assert.equal(status, 403);
  });
});

/**
 * Studio's request shapes: its self-hosted API route forwards every parameter, the SQL of its logs
 * explorer included (tens of KB for a long query), in the query string of a GET; its browser calls
 * may send the same fields as a JSON body. Errors must come back non-2xx with `error.message`,
 * which the route passes on to the page.
 */
describe("Studio's request shapes", () => {
  // A real query of ~40 KB: the ids of our three events kept, several thousand others excluded by name.
  const exclusions = Array.from({ length: 3_000 }, (_, i) => `'excluded-${String(i).padStart(4, '0')}'`).join(', ');
  const bigSql = `select id, event_message from edge_logs where id not in (${exclusions}) order by timestamp desc limit 100`;
  const ours = (rows: Array<{ id: string }>) => rows.filter((row) => edgeEvents.some((event) => event.id === row.id)).map((row) => row.id);

  before(() => {
    assert.ok(bigSql.length >= 40_000, `${bigSql.length} bytes`);
  });

  test('a 40 KB sql in the query string of a GET is answered, not refused for its header size', async () => {
    const { status, body } = await studio('/api/endpoints/query/logs.all', { project: 'default', project_tier: 'ENTERPRISE', sql: bigSql });
    assert.equal(status, 200, JSON.stringify(body).slice(0, 500));
    assert.deepEqual(ours(body.result), [...edgeEvents].reverse().map((event) => event.id));
  });

  test('the same fields in a POST body', async () => {
    const reply = await fetch(`${server.url}/api/endpoints/query/logs.all`, {
      method: 'POST',
      headers: { 'x-api-key': PRIVATE_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ project: 'default', project_tier: 'ENTERPRISE', sql: bigSql }),
    });
    const body = await reply.json();
    assert.equal(reply.status, 200, JSON.stringify(body).slice(0, 500));
    assert.deepEqual(ours(body.result), [...edgeEvents].reverse().map((event) => event.id));
  });

  test('an endpoint error is non-2xx JSON with error.message, as Studio reads it', async () => {
    const bad = await studio('/api/endpoints/query/logs.all', { project: 'default', project_tier: 'ENTERPRISE', sql: `${bigSql} garbage (` });
    assert.equal(bad.status, 400);
    assert.equal(typeof bad.body.error.message, 'string');
    assert.ok(bad.body.error.message.length > 0);
    const badTime = await studio('/api/endpoints/query/service-health', { project: 'default', iso_timestamp_start: 'not a time', iso_timestamp_end: new Date().toISOString(), granularity: 'hour' });
    assert.equal(badTime.status, 400, JSON.stringify(badTime.body));
    assert.equal(typeof badTime.body.error.message, 'string');
  });
});
