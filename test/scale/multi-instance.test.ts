/**
 * Two Sawmill processes sharing one PostgreSQL catalog and one ClickHouse warehouse, as behind a
 * load balancer. ClickHouse here is chdb behind a small HTTP fixture (test/support/
 * chdb-http-server.ts), because chdb cannot listen on a port; Sawmill talks to it through
 * @clickhouse/client's ordinary HTTP path, as it would to a server.
 */

import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { freePort, spawnServer, stopServer, type ServerProcess } from '../support/process.ts';
import { postgresUnavailable, skipUnlessAvailable, startPostgres, type TestPostgres } from '../support/postgres.ts';

const skip = skipUnlessAvailable(postgresUnavailable());
const KEY = 'multi-instance-private-key-0123456789';
const SHIM = fileURLToPath(new URL('../support/chdb-http-server.ts', import.meta.url));

let dir: string;
let postgres: TestPostgres;
let clickhouse: ChildProcess;
let a: ServerProcess;
let b: ServerProcess;

async function startClickHouse(dataDir: string): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', SHIM, dataDir, String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stderr!.on('data', (chunk) => (output += chunk));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk) => String(chunk).includes('listening') && resolve());
    child.once('exit', (code) => reject(new Error(`chdb HTTP fixture exited with ${code}: ${output}`)));
  });
  return { child, url: `http://127.0.0.1:${port}` };
}

before(async () => {
  if (skip) return;
  dir = await mkdtemp(join(tmpdir(), 'sawmill-scale-'));
  postgres = await startPostgres();
  const warehouse = await startClickHouse(join(dir, 'clickhouse'));
  clickhouse = warehouse.child;
  const env = (name: string) => ({
    SAWMILL_DATA_DIR: join(dir, name),
    SAWMILL_API_KEY: KEY,
    SAWMILL_CATALOG_URL: postgres.url,
    SAWMILL_WAREHOUSE: 'clickhouse',
    SAWMILL_CLICKHOUSE_URL: warehouse.url,
    SAWMILL_CLICKHOUSE_DATABASE: 'sawmill',
  });
  // Both start at once: one provisions the deployment, the other waits and finds it done.
  [a, b] = await Promise.all([spawnServer(env('a'), await freePort()), spawnServer(env('b'), await freePort())]);
});

after(async () => {
  if (skip) return;
  for (const server of [a, b]) if (server) await stopServer(server);
  if (clickhouse) {
    clickhouse.kill('SIGTERM');
    if (clickhouse.exitCode === null) await once(clickhouse, 'exit');
  }
  await postgres?.stop();
  await rm(dir, { recursive: true, force: true });
});

async function call(server: ServerProcess, method: string, path: string, body?: unknown) {
  const reply = await fetch(server.url + path, {
    method,
    headers: { 'x-api-key': KEY, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await reply.text();
  return { status: reply.status, body: text ? JSON.parse(text) : undefined };
}

/** The other instance follows the catalog within milliseconds (LISTEN/NOTIFY): poll briefly. */
async function eventually<T>(probe: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test('the deployment is provisioned once and both instances see the same catalog', { skip }, async () => {
  const [fromA, fromB] = await Promise.all([call(a, 'GET', '/api/sources'), call(b, 'GET', '/api/sources')]);
  assert.equal(fromA.body.length, 9);
  assert.deepEqual(fromB.body, fromA.body);
  const endpoints = (await call(b, 'GET', '/api/endpoints')).body.map((endpoint: any) => endpoint.name).sort();
  assert.deepEqual(endpoints, ['functions.combined-stats', 'functions.invocation-stats', 'logs', 'logs.all', 'logs.all.otel', 'service-health', 'usage.api-counts']);
});

test('events ingested through one instance are queried through the other', { skip }, async () => {
  const sources = (await call(a, 'GET', '/api/sources')).body as any[];
  const edge = sources.find((source) => source.name === 'cloudflare.logs.prod');
  const now = Date.now();
  const events = Array.from({ length: 20 }, (_, i) => ({
    id: `mi-${i}`,
    message: `edge event ${i}`,
    timestamp: new Date(now - (i + 1) * 1000).toISOString(),
    project: 'scale',
    metadata: { request: { path: `/rest/v1/t${i}`, method: 'GET' }, response: { status_code: 200 } },
  }));
  const ingested = await call(a, 'POST', `/logs?source=${edge.token}`, { batch: events });
  assert.deepEqual([ingested.status, ingested.body.accepted], [200, 20]);
  const rows = (await call(b, 'GET', '/api/endpoints/query/logs.all?project=scale&project_tier=PRO')).body.result;
  assert.equal(rows.length, 20);
  assert.equal(rows[0].id, 'mi-0');
  assert.equal(rows[0].timestamp, (now - 1000) * 1000, 'TIMESTAMP as integer microseconds');
  assert.equal(rows[0].metadata[0].request[0].path, '/rest/v1/t0');
});

test('a source created on one instance takes events on the other, and widening is shared', { skip }, async () => {
  const created = await call(a, 'POST', '/api/sources', { name: 'made-on-a', retention_days: 3 });
  assert.equal(created.status, 201);
  const token = created.body.token;
  const first = await eventually(() => call(b, 'POST', `/logs?source=${token}`, { message: 'from b', metadata: { n: 1 } }), (reply) => reply.status === 200, 'the source on b');
  assert.equal(first.body.accepted, 1);
  // Each instance widens the same table with a field the other has not seen.
  assert.equal((await call(a, 'POST', `/logs?source=${token}`, { message: 'from a', metadata: { a_only: 'x' } })).status, 200);
  assert.equal((await call(b, 'POST', `/logs?source=${token}`, { message: 'from b again', metadata: { n: 'two', b_only: true } })).status, 200);
  const query = 'select event_message, m.n, m.a_only, m.b_only from `made-on-a` t cross join unnest(t.metadata) m order by event_message';
  assert.equal((await call(b, 'POST', '/api/endpoints', { name: 'made.rows', query })).status, 201);
  const rows = await eventually(() => call(a, 'GET', '/api/endpoints/query/made.rows'), (reply) => reply.status === 200, 'the endpoint on a');
  assert.deepEqual(rows.body.result, [
    { event_message: 'from a', n: null, a_only: 'x', b_only: null },
    { event_message: 'from b', n: '1', a_only: null, b_only: null },
    { event_message: 'from b again', n: 'two', a_only: null, b_only: true },
  ]);
});

test('an endpoint changed on one instance is honoured by the other, cache included', { skip }, async () => {
  const query = 'select count(*) as n from `postgres.logs` where event_message like @prefix';
  const created = await call(a, 'POST', '/api/endpoints', { name: 'counted', query, cache_duration_seconds: 600 });
  assert.equal(created.status, 201);
  const sources = (await call(a, 'GET', '/api/sources')).body as any[];
  const logs = sources.find((source) => source.name === 'postgres.logs');
  const ask = () => call(b, 'GET', '/api/endpoints/query/counted?prefix=mi%25');
  const first = await eventually(ask, (reply) => reply.status === 200, 'the endpoint on b');
  assert.deepEqual(first.body.result, [{ n: 0 }]);

  await call(a, 'POST', `/logs?source=${logs.token}`, { batch: [{ message: 'mi one' }, { message: 'mi two' }] });
  assert.deepEqual((await ask()).body.result, [{ n: 0 }], 'b serves its cached result');

  const patched = await call(a, 'PATCH', `/api/endpoints/${created.body.token}`, { query: 'select count(*) as total from `postgres.logs` where event_message like @prefix' });
  assert.equal(patched.status, 204);
  const fresh = await eventually(ask, (reply) => reply.body?.result?.[0]?.total !== undefined, 'the new query on b');
  assert.deepEqual(fresh.body.result, [{ total: 2 }], 'the change on a reached b, and b dropped its cache');

  assert.equal((await call(a, 'DELETE', `/api/endpoints/${created.body.token}`)).status, 204);
  await eventually(ask, (reply) => reply.status === 404, 'the delete on b');
});
