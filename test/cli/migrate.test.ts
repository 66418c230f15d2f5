/**
 * `sawmill migrate-to-clickhouse` on a real DuckDB data dir, written by the service as users run
 * it (a child process, stopped or killed as they stop it), into chdb; then the same data dir served
 * from ClickHouse answers with the same events.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { PAGE_EVENTS } from '../../src/cli/migrate.ts';
import { freePort, runCli, spawnServer, stopServer, type ServerProcess } from '../support/process.ts';
import { PRIVATE_KEY, startTestServer, type TestServer } from '../support/server.ts';

const KEY = PRIVATE_KEY;


async function call(server: { url: string }, method: string, path: string, body?: unknown) {
  const reply = await fetch(server.url + path, { method, headers: { 'x-api-key': KEY, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await reply.text();
  assert.ok(reply.ok, `${method} ${path}: ${reply.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();

describe('sawmill migrate-to-clickhouse', () => {
  let root: string;
  let dataDir: string;
  let chdbDir: string;
  let target: TestServer | undefined;
  const tokens: Record<string, string> = {};
  let migrated: { code: number | null; stdout: string; stderr: string };
  let again: { code: number | null; stdout: string; stderr: string };

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'sawmill-migrate-'));
    dataDir = join(root, 'data');
    chdbDir = join(root, 'chdb');
    const env = { SAWMILL_DATA_DIR: dataDir, SAWMILL_API_KEY: KEY };

    // A DuckDB data dir as the service writes it, and stops.
    const first = await spawnServer(env, await freePort());
    try {
      tokens['app.web'] = (await call(first, 'POST', '/api/sources', { name: 'app.web', retention_days: 30 })).token;
      tokens['app.jobs'] = (await call(first, 'POST', '/api/sources', { name: 'app.jobs' })).token;
      // More than a page of events in one request and without times: they share one time.
      const sameTime = Array.from({ length: PAGE_EVENTS + 2_000 }, (_, i) => ({ message: `burst ${i}`, metadata: { n: i } }));
      await call(first, 'POST', `/logs?source=${tokens['app.web']}`, sameTime);
      const nested = Array.from({ length: 3_000 }, (_, i) => ({
        message: `request ${i}`,
        timestamp: minutesAgo(3_000 - i),
        metadata: { request: { path: `/rest/v1/t${i % 7}`, headers: { ua: 'curl' } }, response: { status_code: i % 5 === 0 ? 500 : 200 }, tags: ['a', `t${i % 3}`], ...(i % 2 ? { user: { id: i } } : {}) },
      }));
      await call(first, 'POST', `/logs?source=${tokens['app.web']}`, nested);
      // The same id twice, as a retrying sender may store it.
      const repeated = { id: '7f1d0c8e-2b8a-4d5e-9a51-6f0b7e2c4d11', message: 'sent twice', timestamp: minutesAgo(1) };
      await call(first, 'POST', `/logs?source=${tokens['app.web']}`, [repeated, repeated]);
      await call(first, 'POST', `/logs?source=${tokens['app.jobs']}&wait=visible`, [{ message: 'job 1', level: 'info' }, { message: 'job 2', level: 'error' }]);
    } finally {
      assert.equal(await stopServer(first), 0);
    }

    // A Sawmill killed before it folded its last events: they are in the journal only.
    const killed = await spawnServer({ ...env, SAWMILL_FOLD_INTERVAL_MS: '600000', SAWMILL_VISIBILITY_MS: '600000' }, await freePort());
    await call(killed, 'POST', `/logs?source=${tokens['app.jobs']}`, [{ message: 'job 3 (journal)', level: 'info' }]);
    killed.child.kill('SIGKILL');
    await new Promise((resolve) => killed.child.once('exit', resolve));

    const migrate = () => runCli(['migrate-to-clickhouse', '--data-dir', dataDir], { SAWMILL_CLICKHOUSE_URL: `chdb:${chdbDir}`, SAWMILL_CLICKHOUSE_DATABASE: 'sawmill' });
    migrated = await migrate();
    // Run again (after an interruption, say): ClickHouse recognises the batches it already has.
    again = await migrate();
    // The same data dir, served from what the migration wrote.
    target = await startTestServer({ dataDir, warehouse: 'clickhouse', clickhouse: { url: `chdb:${chdbDir}`, username: undefined, password: undefined, database: 'sawmill' } });
  });
  after(async () => {
    await target?.stop();
    await rm(root, { recursive: true, force: true });
  });

  test('says what it copied where, and how a table is named after its source', () => {
    assert.equal(migrated.code, 0, migrated.stderr);
    const hex = (name: string) => tokens[name]!.replaceAll('-', '');
    const lines = migrated.stdout.trimEnd().split('\n');
    assert.equal(lines[0], "copying into ClickHouse database sawmill: each source's events go to the table src_<its token without dashes>_data");
    assert.ok(lines.includes(`app.web: 15,002 events -> sawmill.src_${hex('app.web')}_data`), migrated.stdout);
    assert.ok(lines.includes(`app.jobs: 3 events -> sawmill.src_${hex('app.jobs')}_data`), migrated.stdout);
    assert.match(lines.at(-1)!, new RegExp(`^copied 15,005 events of 11 sources\\. Start Sawmill on ${dataDir} with SAWMILL_WAREHOUSE=clickhouse`));
  });

  test('every event arrives once, with its fields, nested records and lists, however often it runs', async () => {
    assert.equal(again.code, 0, again.stderr);
    const counted = await call(target!, 'POST', '/api/endpoints/preview', {
      query: 'select count(*) as events, count(distinct id) as ids, countif(event_message like "burst %") as burst from `app.web`',
    });
    assert.deepEqual(counted.result, [{ events: 15_002, ids: 15_001, burst: PAGE_EVENTS + 2_000 }]);
    const nested = await call(target!, 'POST', '/api/endpoints/preview', {
      query: `select r.path, count(*) as n, countif(s.status_code = 500) as errors, count(u.id) as users, sum(array_length(m.tags)) as tags
        from \`app.web\` t cross join unnest(t.metadata) m cross join unnest(m.request) r cross join unnest(m.response) s left join unnest(m.user) u
        group by r.path order by r.path`,
    });
    assert.equal(nested.result.length, 7);
    assert.deepEqual(nested.result[0], { path: '/rest/v1/t0', n: 429, errors: 86, users: 214, tags: 858 });
    const jobs = await call(target!, 'GET', `/api/sources/app.jobs/events?limit=10`);
    assert.deepEqual(jobs.events.map((event: { event_message: string }) => event.event_message).sort(), ['job 1', 'job 2', 'job 3 (journal)']);
  });

  test('the same answers as DuckDB gave', async () => {
    const duckdb = await spawnServer({ SAWMILL_DATA_DIR: join(root, 'data'), SAWMILL_API_KEY: KEY }, await freePort());
    try {
      const query = { query: 'select id, timestamp, event_message, m.n from `app.web` t cross join unnest(t.metadata) m where m.n is not null order by m.n, timestamp limit 500' };
      // The restarted DuckDB service folds its journal first: job 3 is there too now.
      assert.deepEqual((await call(target!, 'POST', '/api/endpoints/preview', query)).result, (await call(duckdb, 'POST', '/api/endpoints/preview', query)).result);
    } finally {
      assert.equal(await stopServer(duckdb), 0);
    }
  });

  test("a source's retention becomes its table's TTL", async () => {
    const [row] = await target!.services.warehouse.query(`select engine_full from system.tables where database = 'sawmill' and name = 'src_${tokens['app.web']!.replaceAll('-', '')}_data'`, {}, { timeoutMs: 10_000, maxRows: 1 });
    assert.match(String(row?.engine_full), /TTL toDateTime\(timestamp\) \+ toIntervalDay\(30\)/);
  });
});

describe('sawmill migrate-to-clickhouse refuses', () => {
  let root: string;
  let running: ServerProcess | undefined;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'sawmill-migrate-refused-'));
  });
  after(async () => {
    if (running) await stopServer(running);
    await rm(root, { recursive: true, force: true });
  });

  test('a data dir a running Sawmill holds, in one line naming its PID', async () => {
    const dataDir = join(root, 'busy');
    running = await spawnServer({ SAWMILL_DATA_DIR: dataDir, SAWMILL_API_KEY: KEY }, await freePort());
    const run = await runCli(['migrate-to-clickhouse', '--data-dir', dataDir], { SAWMILL_CLICKHOUSE_URL: `chdb:${join(root, 'chdb')}` });
    assert.equal(run.code, 1);
    assert.equal(run.stderr.trimEnd(), `sawmill: data dir ${dataDir} is in use by another process (PID ${running.child.pid}), most likely another Sawmill: stop it, or give this one its own SAWMILL_DATA_DIR`);
    assert.equal(run.stdout, '');
  });

  test('a directory that is no data dir, and a source it does not have', async () => {
    const none = await runCli(['migrate-to-clickhouse', '--data-dir', join(root, 'nothing')], {});
    assert.deepEqual([none.code, none.stderr.trimEnd()], [1, `sawmill: no DuckDB data dir at ${join(root, 'nothing')} (no sawmill.duckdb): pass --data-dir or set SAWMILL_DATA_DIR`]);
    await stopServer(running!);
    running = undefined;
    const unknown = await runCli(['migrate-to-clickhouse', '--data-dir', join(root, 'busy'), '--source', 'no.such'], { SAWMILL_CLICKHOUSE_URL: `chdb:${join(root, 'chdb')}` });
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /^sawmill: no source "no\.such" in this data dir/);
  });

  test('a ClickHouse that does not answer, in one line: not the ClickHouse client\'s own log of the request', async () => {
    const dataDir = join(root, 'stopped');
    assert.equal(await stopServer(await spawnServer({ SAWMILL_DATA_DIR: dataDir, SAWMILL_API_KEY: KEY }, await freePort())), 0);
    const port = await freePort();
    const run = await runCli(['migrate-to-clickhouse', '--data-dir', dataDir], { SAWMILL_CLICKHOUSE_URL: `http://127.0.0.1:${port}` });
    assert.equal(run.code, 1);
    assert.equal(run.stderr.trimEnd(), `sawmill: migration stopped: connect ECONNREFUSED 127.0.0.1:${port}`);
    assert.equal(run.stdout, '');
  });
});
