import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { freePort, runCli, spawnServer, stopServer, type ServerProcess } from '../support/process.ts';
import { PRIVATE_KEY, startTestServer, type TestServer } from '../support/server.ts';



describe('sawmill CLI: retention', () => {
  let server: TestServer;
  let env: Record<string, string>;
  const run = (...args: string[]) => runCli(args, env);

  before(async () => {
    server = await startTestServer();
    env = { SAWMILL_URL: server.url, SAWMILL_API_KEY: PRIVATE_KEY };
  });
  after(() => server.stop({ removeData: true }));

  test('sources retention shows and sets how long a source keeps events; list shows it; create takes it', async () => {
    assert.equal((await run('sources', 'create', 'kept.app', '--retention', '30')).code, 0);
    assert.deepEqual(await run('sources', 'retention', 'kept.app'), { code: 0, stdout: 'kept.app keeps events 30 days\n', stderr: '' });
    assert.deepEqual(await run('sources', 'retention', 'kept.app', '7'), { code: 0, stdout: 'kept.app keeps events 7 days\n', stderr: '' });
    const source = (await server.request('GET', '/api/explorer/sources')).body.find((item: { name: string }) => item.name === 'kept.app');
    assert.equal((await server.request('GET', `/api/sources/${source.token}`)).body.retention_days, 7);
    const listed = await run('sources', 'list');
    assert.match(listed.stdout.split('\n')[0]!, /\bretention\b/);
    assert.match(listed.stdout.split('\n').find((line) => line.includes('kept.app'))!, /7 days\s*$/);
    assert.deepEqual(await run('sources', 'retention', 'kept.app', 'forever'), { code: 0, stdout: 'kept.app keeps events forever\n', stderr: '' });
    assert.equal((await server.request('GET', `/api/sources/${source.token}`)).body.retention_days, null);

    const wrong = await run('sources', 'retention', 'kept.app', 'week');
    assert.equal(wrong.code, 2);
    assert.match(wrong.stderr, /retention is a whole number of days \(1 or more\) or "forever", got "week"/);
  });
});

describe('sawmill backup / restore of a running instance', () => {
  let root: string;
  let original: ServerProcess;
  let key: string;
  const api = async (server: ServerProcess, method: string, path: string, body?: unknown, as = key) => {
    const reply = await fetch(server.url + path, {
      method,
      headers: { 'x-api-key': as, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: reply.status, body: (await reply.json().catch(() => undefined)) as any };
  };
  const ingest = async (server: ServerProcess, source: string, events: unknown[]) => assert.equal((await api(server, 'POST', `/logs?source_name=${source}`, { batch: events })).status, 200);
  const rows = async (server: ServerProcess, endpoint: string) => (await api(server, 'GET', `/api/endpoints/query/${endpoint}`)).body.result as Array<Record<string, unknown>>;

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'sawmill-backup-'));
    // No key configured: the instance generates one into its data dir, which the backup must carry.
    // Folds wait a minute here unless something asks for them: the backup must ask.
    original = await spawnServer({ SAWMILL_DATA_DIR: join(root, 'original'), SAWMILL_FOLD_INTERVAL_MS: '60000' }, await freePort());
    key = (await readFile(join(root, 'original', 'private-key'), 'utf8')).trim();
  });
  after(async () => {
    if (original) await stopServer(original);
    await rm(root, { recursive: true, force: true });
  });

  test('a backup taken under ingestion restores into a fresh data dir with every acknowledged event, the catalog and the keys', async () => {
    for (const name of ['quiet.logs', 'busy.logs']) assert.equal((await api(original, 'POST', '/api/sources', { name, retention_days: 30 })).status, 201);
    const everything = 'select id, timestamp, event_message, metadata from `quiet.logs` order by id';
    assert.equal((await api(original, 'POST', '/api/endpoints', { name: 'quiet.all', query: everything, max_limit: 10_000 })).status, 201);
    assert.equal((await api(original, 'POST', '/api/endpoints', { name: 'busy.messages', query: 'select event_message from `busy.logs`', max_limit: 10_000 })).status, 201);
    const queryKey = (await api(original, 'POST', '/api/access-tokens', { scopes: ['query'] })).body.token as string;
    for (let i = 0; i < 10; i++) {
      await ingest(original, 'quiet.logs', Array.from({ length: 20 }, (_, j) => ({ message: `quiet ${i}.${j}`, metadata: { request: { path: `/p/${j}`, status: 200 + i }, tags: ['a', String(j)] } })));
      await ingest(original, 'busy.logs', [{ message: `before ${i}` }]);
    }

    // Ingestion goes on while the backup runs; what was acknowledged before it began must all be there.
    let ingesting = true;
    let during = 0;
    const background = (async () => {
      for (let i = 0; ingesting && i < 500; i++) {
        await ingest(original, 'busy.logs', [{ message: `during ${i}` }]);
        during++;
      }
    })();
    const backupDir = join(root, 'backup');
    const backup = await runCli(['backup', backupDir], { SAWMILL_URL: original.url, SAWMILL_DATA_DIR: join(root, 'original') });
    ingesting = false;
    await background;
    assert.equal(backup.code, 0, backup.stderr);
    assert.ok(during > 0, 'requests were acknowledged while the backup ran');
    assert.match(backup.stdout, new RegExp(`^backup written to ${backupDir}: sawmill\\.duckdb.*catalog\\.json, private-key, sawmill-format\\.json\\n$`));
    const again = await runCli(['backup', backupDir], { SAWMILL_URL: original.url, SAWMILL_API_KEY: key });
    assert.equal(again.code, 1);
    assert.match(again.stderr, /backup dir .* is not empty: choose a new or empty one/);

    const restoredDir = join(root, 'restored');
    const restore = await runCli(['restore', backupDir, '--data-dir', restoredDir], {});
    assert.equal(restore.code, 0, restore.stderr);
    assert.match(restore.stdout, new RegExp(`into ${restoredDir}; start the service with SAWMILL_DATA_DIR=${restoredDir}`));
    const overwrite = await runCli(['restore', backupDir, '--data-dir', join(root, 'original')], {});
    assert.equal(overwrite.code, 1);
    assert.match(overwrite.stderr, /data dir .*original is not empty .*: restore into a new data dir, or move this one aside first/);

    const restored = await spawnServer({ SAWMILL_DATA_DIR: restoredDir }, await freePort());
    try {
      // Same generated key, same sources with their settings, same endpoints, same access tokens.
      const sources = (await api(restored, 'GET', '/api/sources')).body as Array<{ name: string; retention_days: number | null }>;
      assert.deepEqual(sources.filter((source) => ['quiet.logs', 'busy.logs'].includes(source.name)).map((source) => [source.name, source.retention_days]), [['quiet.logs', 30], ['busy.logs', 30]]);
      assert.equal((await api(restored, 'GET', '/api/endpoints/query/quiet.all', undefined, queryKey)).status, 200);
      // The quiet source: identical contents, ids, timestamps and nested fields included.
      const quiet = await rows(restored, 'quiet.all');
      assert.equal(quiet.length, 200);
      assert.deepEqual(quiet, await rows(original, 'quiet.all'));
      // The busy one: everything acknowledged before the backup, and nothing the original lacks.
      const busy = new Set((await rows(restored, 'busy.messages')).map((row) => row.event_message));
      for (let i = 0; i < 10; i++) assert.ok(busy.has(`before ${i}`), `before ${i} is in the backup`);
      const originalBusy = new Set((await rows(original, 'busy.messages')).map((row) => row.event_message));
      assert.equal(originalBusy.size, 10 + during);
      for (const message of busy) assert.ok(originalBusy.has(message));
    } finally {
      assert.equal(await stopServer(restored), 0);
    }
  });
});
