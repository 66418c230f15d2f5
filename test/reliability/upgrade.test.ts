import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { DATA_FORMAT, MARKER_FILE, SAWMILL_VERSION } from '../../src/data-format.ts';
import { Journal } from '../../src/pipeline/journal.ts';
import { planRows } from '../../src/warehouse/schema.ts';
import { stageFittingRows } from '../../src/warehouse/staged-rows.ts';
import pg from 'pg';
import { fatalMessage, freePort, spawnServer, startToExit, stopServer } from '../support/process.ts';
import { postgresUnavailable, skipUnlessAvailable, startPostgres } from '../support/postgres.ts';
import { sample } from '../support/samples.ts';
import { PRIVATE_KEY, startTestServer, type TestServer } from '../support/server.ts';
import { DuckDbWarehouse } from '../../src/warehouse/duckdb/adapter.ts';
import { schemaForRows } from '../../src/warehouse/schema.ts';

let root: string;
/** A data dir as today's code leaves it, with a source, events, an endpoint; the marker removed below. */
let made: string;

before(async () => {
  root = await mkdtemp(join(tmpdir(), 'sawmill-upgrade-'));
  made = join(root, 'made');
  const server = await startTestServer({ dataDir: made });
  const source = (await server.request('POST', '/api/sources', { body: { name: 'old.logs', retention_days: 9 } })).body;
  for (let i = 0; i < 5; i++) assert.equal((await server.request('POST', `/logs?source=${source.token}`, { body: { message: `event ${i}`, metadata: { n: i } } })).status, 200);
  assert.equal((await server.request('POST', '/api/endpoints', { body: { name: 'old.count', query: 'select count(*) as n from `old.logs`' } })).status, 201);
  await server.stop();
});
after(() => rm(root, { recursive: true, force: true }));

const copyOf = async (name: string) => {
  const dir = join(root, name);
  await cp(made, dir, { recursive: true });
  return dir;
};

test('a new data dir carries the format marker of the Sawmill that made it', async () => {
  const marker = JSON.parse(await readFile(join(made, MARKER_FILE), 'utf8'));
  assert.deepEqual(marker, { ...DATA_FORMAT, written_by: SAWMILL_VERSION });
});

/** The endpoint names a running server has. */
async function endpointNames(url: string): Promise<string[]> {
  const endpoints = (await (await fetch(`${url}/api/endpoints`, { headers: { 'x-api-key': PRIVATE_KEY } })).json()) as Array<{ name: string }>;
  return endpoints.map((endpoint) => endpoint.name).sort();
}

test('a data dir from before the marker (today’s layout without it) is migrated: marker written, everything readable', async () => {
  const dataDir = await copyOf('unmarked');
  await rm(join(dataDir, MARKER_FILE));
  // Sawmill 0.1.0 provisioned only Logflare's three built-in endpoints.
  const catalogPath = join(dataDir, 'catalog.json');
  const catalog = JSON.parse(await readFile(catalogPath, 'utf8')) as { endpoints: Array<{ name: string }> };
  catalog.endpoints = catalog.endpoints.filter((endpoint) => !['functions.combined-stats', 'service-health', 'logs.all.otel', 'logs'].includes(endpoint.name));
  await writeFile(catalogPath, JSON.stringify(catalog));
  const server = await spawnServer({ SAWMILL_DATA_DIR: dataDir, SAWMILL_API_KEY: PRIVATE_KEY, SAWMILL_LOG_LEVEL: 'info' }, await freePort());
  try {
    assert.match(server.output(), new RegExp(`data dir ${dataDir}: migrated from format 0 to 1`));
    const names = await endpointNames(server.url);
    for (const added of ['functions.combined-stats', 'service-health', 'logs.all.otel', 'logs']) assert.ok(names.includes(added), `the upgrade adds ${added}: ${names}`);
    const health = await fetch(`${server.url}/api/endpoints/query/service-health?granularity=hour`, { headers: { 'x-api-key': PRIVATE_KEY } });
    assert.equal(health.status, 200, await health.text());
    assert.deepEqual(JSON.parse(await readFile(join(dataDir, MARKER_FILE), 'utf8')), { ...DATA_FORMAT, written_by: SAWMILL_VERSION });
    const reply = await fetch(`${server.url}/api/endpoints/query/old.count`, { headers: { 'x-api-key': PRIVATE_KEY } });
    assert.deepEqual(await reply.json(), { result: [{ n: 5 }] });
    const sources = (await (await fetch(`${server.url}/api/sources`, { headers: { 'x-api-key': PRIVATE_KEY } })).json()) as Array<{ name: string; retention_days: number | null }>;
    assert.equal(sources.find((source) => source.name === 'old.logs')?.retention_days, 9);
  } finally {
    assert.equal(await stopServer(server), 0);
  }
});

test('a format 1 data dir gets the logs endpoints, once: the others it has are left alone', async () => {
  const dataDir = await copyOf('format-1');
  const markerPath = join(dataDir, MARKER_FILE);
  await writeFile(markerPath, `${JSON.stringify({ ...DATA_FORMAT, format: 1, written_by: '0.2.0' })}\n`);
  const catalogPath = join(dataDir, 'catalog.json');
  const catalog = JSON.parse(await readFile(catalogPath, 'utf8')) as { endpoints: Array<{ name: string }> };
  // Deleted by its user before the upgrade: a format 1 dir had service-health, so it stays deleted.
  catalog.endpoints = catalog.endpoints.filter((endpoint) => !['service-health', 'logs.all.otel', 'logs'].includes(endpoint.name));
  await writeFile(catalogPath, JSON.stringify(catalog));
  const server = await spawnServer({ SAWMILL_DATA_DIR: dataDir, SAWMILL_API_KEY: PRIVATE_KEY, SAWMILL_LOG_LEVEL: 'info' }, await freePort());
  try {
    assert.match(server.output(), new RegExp(`data dir ${dataDir}: migrated from format 1 to 2`));
    const names = await endpointNames(server.url);
    assert.ok(names.includes('logs.all.otel') && names.includes('logs'), `the upgrade adds the logs endpoints: ${names}`);
    assert.ok(!names.includes('service-health'), `service-health was deleted before the upgrade: ${names}`);
    const reply = await fetch(`${server.url}/api/endpoints/query/logs.all.otel`, { headers: { 'x-api-key': PRIVATE_KEY } });
    assert.equal(reply.status, 200, await reply.text());
    assert.equal(JSON.parse(await readFile(markerPath, 'utf8')).format, DATA_FORMAT.format);
  } finally {
    assert.equal(await stopServer(server), 0);
  }
});

test('records a journal 1 Sawmill left unfolded are folded, and the dir is marked journal 2', async () => {
  const dataDir = await copyOf('journal-1');
  const markerPath = join(dataDir, MARKER_FILE);
  await writeFile(markerPath, `${JSON.stringify({ ...DATA_FORMAT, journal: 1, written_by: '0.2.0' })}\n`);
  // What a journal 1 Sawmill wrote: records of rows, and staged records whose header has no rows.
  const catalog = JSON.parse(await readFile(join(dataDir, 'catalog.json'), 'utf8')) as { sources: Array<{ name: string; token: string }> };
  const token = catalog.sources.find((source) => source.name === 'old.logs')!.token;
  const { journal } = await Journal.open(join(dataDir, 'journal'), 1000);
  const row = (n: number) => ({ id: `unfolded-${n}`, timestamp: Date.now() * 1000, event_message: `unfolded ${n}`, fields: { metadata: { n } } });
  const { schema } = planRows(new Map(), [row(0)], { maxFields: 1000 });
  await journal.append(token, { rows: [row(1)] });
  await journal.append(token, { rows: [], staged: stageFittingRows([row(2), row(3)], schema)! });
  await journal.close();
  const server = await spawnServer({ SAWMILL_DATA_DIR: dataDir, SAWMILL_API_KEY: PRIVATE_KEY }, await freePort());
  try {
    const reply = await fetch(`${server.url}/api/endpoints/query/old.count`, { headers: { 'x-api-key': PRIVATE_KEY } });
    assert.deepEqual(await reply.json(), { result: [{ n: 8 }] });
    assert.equal(JSON.parse(await readFile(markerPath, 'utf8')).journal, 2);
  } finally {
    assert.equal(await stopServer(server), 0);
  }
});

test('a data dir from a newer Sawmill is refused in one log line, and left as it was', async () => {
  const dataDir = await copyOf('newer');
  const newer = `${JSON.stringify({ format: DATA_FORMAT.format + 1, journal: DATA_FORMAT.journal, catalog: DATA_FORMAT.catalog, written_by: '9.0.0' })}\n`;
  await writeFile(join(dataDir, MARKER_FILE), newer);
  const run = await startToExit({ PORT: String(await freePort()), SAWMILL_DATA_DIR: dataDir, SAWMILL_API_KEY: PRIVATE_KEY });
  assert.equal(run.code, 1);
  assert.equal(
    fatalMessage(run),
    `data dir ${dataDir} was written by Sawmill 9.0.0 (format ${DATA_FORMAT.format + 1}); this Sawmill ${SAWMILL_VERSION} reads format ${DATA_FORMAT.format}, journal ${DATA_FORMAT.journal}, catalog ${DATA_FORMAT.catalog} and older: run that version or newer, or restore a backup taken before the upgrade`,
  );
  assert.equal(await readFile(join(dataDir, MARKER_FILE), 'utf8'), newer);
});

test('a catalog of a version this Sawmill does not know is refused in one log line', async () => {
  const dataDir = await copyOf('catalog');
  const path = join(dataDir, 'catalog.json');
  await writeFile(path, JSON.stringify({ ...JSON.parse(await readFile(path, 'utf8')), version: 2 }));
  const run = await startToExit({ PORT: String(await freePort()), SAWMILL_DATA_DIR: dataDir, SAWMILL_API_KEY: PRIVATE_KEY });
  assert.equal(run.code, 1);
  assert.equal(fatalMessage(run), `${path} has version 2; this Sawmill reads version 1: run the Sawmill that wrote it, or restore a backup`);
  assert.ok(existsSync(join(dataDir, 'sawmill.duckdb')));
});

test('a built-in endpoint deleted after the upgrade stays deleted across restarts', async () => {
  const dataDir = await copyOf('deleted-builtin');
  let server = await spawnServer({ SAWMILL_DATA_DIR: dataDir, SAWMILL_API_KEY: PRIVATE_KEY }, await freePort());
  const endpoints = (await (await fetch(`${server.url}/api/endpoints`, { headers: { 'x-api-key': PRIVATE_KEY } })).json()) as Array<{ name: string; token: string }>;
  const token = endpoints.find((endpoint) => endpoint.name === 'service-health')!.token;
  const deleted = await fetch(`${server.url}/api/endpoints/${token}`, { method: 'DELETE', headers: { 'x-api-key': PRIVATE_KEY } });
  assert.ok(deleted.status === 204 || deleted.status === 200, `deleted: ${deleted.status}`);
  assert.equal(await stopServer(server), 0);
  server = await spawnServer({ SAWMILL_DATA_DIR: dataDir, SAWMILL_API_KEY: PRIVATE_KEY }, await freePort());
  try {
    assert.ok(!(await endpointNames(server.url)).includes('service-health'));
  } finally {
    assert.equal(await stopServer(server), 0);
  }
});

test('a format 2 data dir gets logs.all and usage.api-counts sandboxable, once, unless a user changed them', async () => {
  const dataDir = await copyOf('format-2');
  const markerPath = join(dataDir, MARKER_FILE);
  await writeFile(markerPath, `${JSON.stringify({ ...DATA_FORMAT, format: 2, written_by: '0.2.0' })}\n`);
  // As a format 2 Sawmill provisioned them: not sandboxable. usage.api-counts was untouched since;
  // logs.all had its cache changed by its user (so its flag may have been chosen too).
  const catalogPath = join(dataDir, 'catalog.json');
  const catalog = JSON.parse(await readFile(catalogPath, 'utf8')) as { endpoints: Array<{ name: string; sandboxable: boolean; cache_duration_seconds: number; inserted_at: string; updated_at: string }> };
  for (const endpoint of catalog.endpoints) {
    if (endpoint.name === 'logs.all' || endpoint.name === 'usage.api-counts') endpoint.sandboxable = false;
  }
  const untouched = JSON.parse(JSON.stringify(catalog)) as typeof catalog;
  const logsAll = catalog.endpoints.find((endpoint) => endpoint.name === 'logs.all')!;
  logsAll.cache_duration_seconds = 60;
  logsAll.updated_at = new Date(Date.parse(logsAll.inserted_at) + 60_000).toISOString();
  await writeFile(catalogPath, JSON.stringify(catalog));
  const sandboxable = async (url: string) => {
    const endpoints = (await (await fetch(`${url}/api/endpoints`, { headers: { 'x-api-key': PRIVATE_KEY } })).json()) as Array<{ name: string; sandboxable: boolean }>;
    return Object.fromEntries(endpoints.filter((endpoint) => endpoint.name !== 'old.count').map((endpoint) => [endpoint.name, endpoint.sandboxable]));
  };

  let server = await spawnServer({ SAWMILL_DATA_DIR: dataDir, SAWMILL_API_KEY: PRIVATE_KEY, SAWMILL_LOG_LEVEL: 'info' }, await freePort());
  try {
    assert.match(server.output(), new RegExp(`data dir ${dataDir}: migrated from format 2 to 3`));
    assert.match(server.output(), new RegExp(`data dir ${dataDir}: built-in endpoint usage\\.api-counts made sandboxable`));
    assert.match(server.output(), new RegExp(`data dir ${dataDir}: built-in endpoint logs\\.all was changed after it was provisioned and is left not sandboxable; Studio's Logs Explorer needs it sandboxable \\(docs/supabase\\.md\\)`));
    assert.deepEqual(await sandboxable(server.url), {
      'functions.combined-stats': false,
      'functions.invocation-stats': false,
      logs: true,
      'logs.all': false,
      'logs.all.otel': true,
      'service-health': false,
      'usage.api-counts': true,
    });
  } finally {
    assert.equal(await stopServer(server), 0);
  }

  // The same dir untouched by its user: both become sandboxable, and a user's later choice stands across restarts.
  await writeFile(markerPath, `${JSON.stringify({ ...DATA_FORMAT, format: 2, written_by: '0.2.0' })}\n`);
  await writeFile(catalogPath, JSON.stringify(untouched));
  server = await spawnServer({ SAWMILL_DATA_DIR: dataDir, SAWMILL_API_KEY: PRIVATE_KEY, SAWMILL_LOG_LEVEL: 'info' }, await freePort());
  try {
    assert.match(server.output(), new RegExp(`built-in endpoint logs\\.all made sandboxable`));
    const flags = await sandboxable(server.url);
    assert.deepEqual([flags['logs.all'], flags['usage.api-counts']], [true, true]);
    const token = (await (await fetch(`${server.url}/api/endpoints`, { headers: { 'x-api-key': PRIVATE_KEY } })).json()).find((endpoint: { name: string }) => endpoint.name === 'logs.all').token;
    const off = await fetch(`${server.url}/api/endpoints/${token}`, { method: 'PATCH', headers: { 'x-api-key': PRIVATE_KEY, 'content-type': 'application/json' }, body: JSON.stringify({ sandboxable: false }) });
    assert.equal(off.status, 204);
  } finally {
    assert.equal(await stopServer(server), 0);
  }
  server = await spawnServer({ SAWMILL_DATA_DIR: dataDir, SAWMILL_API_KEY: PRIVATE_KEY }, await freePort());
  try {
    assert.equal((await sandboxable(server.url))['logs.all'], false);
  } finally {
    assert.equal(await stopServer(server), 0);
  }
});

const postgresSkip = skipUnlessAvailable(postgresUnavailable());

test('a shared PostgreSQL catalog provisioned before gets logs.all and usage.api-counts sandboxable, once', { skip: postgresSkip }, async () => {
  const database = await startPostgres();
  const client = new pg.Client({ connectionString: database.url });
  // Stopped in finally too: a server left running after a failed assertion kept the test process from ending.
  let server: TestServer | undefined;
  try {
    server = await startTestServer({ catalogUrl: database.url });
    await server.stop({ removeData: true });
    server = undefined;
    // As an older Sawmill left the deployment: both not sandboxable, and no flag for this upgrade.
    await client.connect();
    await client.query(`UPDATE sawmill_endpoints SET record = jsonb_set(record, '{sandboxable}', 'false') WHERE name IN ('logs.all', 'usage.api-counts')`);
    await client.query(`DELETE FROM sawmill_flags WHERE name = 'supabase-endpoints-sandboxable'`);
    const sandboxable = async () => {
      const endpoints = (await server!.request('GET', '/api/endpoints')).body as Array<{ name: string; sandboxable: boolean }>;
      return ['logs.all', 'usage.api-counts', 'functions.invocation-stats'].map((name) => endpoints.find((endpoint) => endpoint.name === name)?.sandboxable);
    };
    server = await startTestServer({ catalogUrl: database.url });
    assert.deepEqual(await sandboxable(), [true, true, false]);
    // A later choice of its user stands: the upgrade ran once.
    const token = ((await server.request('GET', '/api/endpoints')).body as Array<{ name: string; token: string }>).find((endpoint) => endpoint.name === 'logs.all')!.token;
    assert.equal((await server.request('PATCH', `/api/endpoints/${token}`, { body: { sandboxable: false } })).status, 204);
    await server.stop({ removeData: true });
    server = undefined;
    server = await startTestServer({ catalogUrl: database.url });
    assert.deepEqual(await sandboxable(), [false, true, false]);
  } finally {
    await server?.stop({ removeData: true }).catch(() => undefined);
    await client.end().catch(() => undefined);
    await database.stop();
  }
});

test('a format 3 data dir: functions.combined-stats gets its query with CPU time and memory, the function logs their fields; a changed one is kept', async () => {
  const dataDir = await copyOf('format-3');
  const markerPath = join(dataDir, MARKER_FILE);
  const catalogPath = join(dataDir, 'catalog.json');
  // As a format 3 Sawmill left it: the function logs' storage with the sample log line's fields
  // only, and functions.combined-stats with an older query (any other text stands for it).
  const functionLogs = (JSON.parse(await readFile(catalogPath, 'utf8')) as { sources: Array<{ name: string; token: string }> }).sources.find((source) => source.name === 'deno-subhosting-events')!.token;
  const warehouse = await DuckDbWarehouse.open({ path: join(dataDir, 'sawmill.duckdb'), stagingDir: join(dataDir, 'staging'), memoryLimit: '256MB' });
  await warehouse.dropSource(functionLogs);
  await warehouse.createSource(functionLogs);
  const { id: _id, timestamp: _timestamp, event_message: _message, ...fields } = sample('deno-subhosting-events');
  await warehouse.append([{ sourceId: functionLogs, schema: schemaForRows(new Map(), [{ fields }]), rows: [] }]);
  assert.ok(!JSON.stringify([...warehouse.schema(functionLogs)]).includes('cpu_time_used'));
  await warehouse.close();
  const OLD_QUERY = 'select timestamp, event_message from `deno-relay-logs` limit 1';
  const setOldQuery = async (changedByUser: boolean) => {
    const catalog = JSON.parse(await readFile(catalogPath, 'utf8')) as { endpoints: Array<{ name: string; query: string; inserted_at: string; updated_at: string }> };
    const endpoint = catalog.endpoints.find((candidate) => candidate.name === 'functions.combined-stats')!;
    endpoint.query = OLD_QUERY;
    endpoint.updated_at = changedByUser ? new Date(Date.parse(endpoint.inserted_at) + 60_000).toISOString() : endpoint.inserted_at;
    await writeFile(catalogPath, JSON.stringify(catalog));
    await writeFile(markerPath, `${JSON.stringify({ ...DATA_FORMAT, format: 3, written_by: '0.2.0' })}\n`);
  };
  const runAndReadQuery = async (url: string) => {
    const reply = await fetch(`${url}/api/endpoints/query/functions.combined-stats?project=default&interval=1day&function_id=f`, { headers: { 'x-api-key': PRIVATE_KEY } });
    assert.equal(reply.status, 200);
    return { query: ((await (await fetch(`${url}/api/endpoints`, { headers: { 'x-api-key': PRIVATE_KEY } })).json()) as Array<{ name: string; query: string }>).find((endpoint) => endpoint.name === 'functions.combined-stats')!.query };
  };

  await setOldQuery(true);
  let server = await spawnServer({ SAWMILL_DATA_DIR: dataDir, SAWMILL_API_KEY: PRIVATE_KEY, SAWMILL_LOG_LEVEL: 'info' }, await freePort());
  try {
    assert.match(server.output(), new RegExp(`data dir ${dataDir}: built-in endpoint functions\\.combined-stats was changed after it was provisioned and keeps its query`));
    assert.equal((await runAndReadQuery(server.url)).query, OLD_QUERY);
  } finally {
    assert.equal(await stopServer(server), 0);
  }

  await setOldQuery(false);
  server = await spawnServer({ SAWMILL_DATA_DIR: dataDir, SAWMILL_API_KEY: PRIVATE_KEY, SAWMILL_LOG_LEVEL: 'info' }, await freePort());
  try {
    assert.match(server.output(), new RegExp(`data dir ${dataDir}: built-in endpoint functions\\.combined-stats has its new query`));
    assert.match((await runAndReadQuery(server.url)).query, /avg_external_memory_used/);
    // A worker's end, as the edge runtime reports it, lands in typed fields the endpoint reads.
    const at = new Date(Date.now() - 60_000).toISOString();
    const shutdown = { timestamp: at, event_message: 'shutdown', metadata: { project_ref: 'default', function_id: 'f', event_type: 'Shutdown', reason: 'WallClockTime', cpu_time_used: 12, memory_used: { total: 3 * 1048576, heap: 2 * 1048576, external: 1048576 } } };
    const shipped = await fetch(`${server.url}/api/logs?source_name=deno-subhosting-events`, { method: 'POST', headers: { 'x-api-key': PRIVATE_KEY, 'content-type': 'application/json' }, body: JSON.stringify([shutdown]) });
    assert.equal(shipped.status, 200);
    const rows = (await (await fetch(`${server.url}/api/endpoints/query/functions.combined-stats?project=default&interval=1day&function_id=f`, { headers: { 'x-api-key': PRIVATE_KEY } })).json()) as { result: Array<Record<string, number>> };
    assert.deepEqual(
      rows.result.map((row) => [row.max_cpu_time_used, row.avg_memory_used, row.avg_heap_memory_used, row.avg_external_memory_used]),
      [[12, 3, 2, 1]],
    );
  } finally {
    assert.equal(await stopServer(server), 0);
  }
});
