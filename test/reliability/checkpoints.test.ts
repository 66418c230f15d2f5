import assert from 'node:assert/strict';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { restoreDataDir } from '../../src/backup.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const servers: TestServer[] = [];
const dirs: string[] = [];
after(async () => {
  for (const server of servers) await server.stop({ removeData: true });
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

const walBytes = async (dataDir: string) => (await stat(join(dataDir, 'sawmill.duckdb.wal')).catch(() => undefined))?.size ?? 0;

async function scrape(server: TestServer): Promise<string> {
  const reply = await fetch(`${server.url}/metrics`, { headers: { authorization: 'Bearer test-private-key-0123456789' } });
  assert.equal(reply.status, 200);
  return reply.text();
}

const failedCheckpoints = (metrics: string) => Number(/^sawmill_checkpoints_total\{outcome="failed"\} (\d+)$/m.exec(metrics)?.[1]);
const okCheckpoints = (metrics: string) => Number(/^sawmill_checkpoints_total\{outcome="ok"\} (\d+)$/m.exec(metrics)?.[1]);

test('the console list then a retention change: backups still work, restore, and the WAL keeps being folded', async () => {
  const server = await startTestServer();
  servers.push(server);
  const root = await mkdtemp(join(tmpdir(), 'sawmill-checkpoint-'));
  dirs.push(root);
  const token = (await server.request('POST', '/api/sources', { body: { name: 'api.logs' } })).body.token as string;
  assert.equal((await server.request('POST', '/logs?source_name=api.logs', { body: { batch: [{ message: 'first' }] } })).status, 200);
  assert.equal((await server.request('POST', '/api/backup', { body: { dir: join(root, 'before') } })).status, 200);

  // What `sawmill sources retention api.logs 30` sends (the CLI lists sources first; the console polls the same list).
  assert.equal((await server.request('GET', '/api/explorer/sources')).status, 200);
  assert.equal((await server.request('PATCH', `/api/sources/${token}`, { body: { retention_days: 30 } })).status, 204);

  const backup = await server.request('POST', '/api/backup', { body: { dir: join(root, 'after') } });
  assert.equal(backup.status, 200, JSON.stringify(backup.body));
  // Folded before the copy: the file alone holds everything.
  assert.deepEqual(backup.body.files, ['sawmill.duckdb', 'environment-keys.json', 'catalog.json', 'sawmill-format.json']);

  const restoredDir = join(root, 'restored');
  await restoreDataDir(join(root, 'after'), restoredDir);
  const restored = await startTestServer({ dataDir: restoredDir });
  servers.push(restored);
  const source = (await restored.request('GET', '/api/sources')).body.find((entry: { name: string }) => entry.name === 'api.logs');
  assert.equal(source.retention_days, 30);
  const events = await restored.request('GET', '/api/sources/api.logs/events?limit=10');
  assert.deepEqual(
    events.body.events.map((event: { event_message: string }) => event.event_message),
    ['first'],
  );

  // The console keeps polling while events arrive: the WAL is still folded once ingestion pauses.
  for (let i = 0; i < 30; i++) {
    const batch = Array.from({ length: 100 }, (_, j) => ({ message: `later ${i}.${j}`, metadata: { n: j } }));
    assert.equal((await server.request('POST', '/logs?source_name=api.logs', { body: { batch } })).status, 200);
    if (i % 10 === 0) assert.equal((await server.request('GET', '/api/explorer/sources')).status, 200);
  }
  assert.ok((await walBytes(server.dataDir)) > 0, 'the new events are in the WAL first');
  const deadline = Date.now() + 15_000;
  while ((await walBytes(server.dataDir)) > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
  assert.equal(await walBytes(server.dataDir), 0, 'the WAL was folded into the database file');
  const metrics = await scrape(server);
  assert.equal(failedCheckpoints(metrics), 0);
  assert.ok(okCheckpoints(metrics) >= 3, metrics);
  assert.equal((await server.request('GET', '/health')).body.status, 'ok');
});

test('the idle checkpoint: 2 s after the first fold, and after folds that come further apart, 1.5 times their spacing', async () => {
  const server = await startTestServer({ foldIntervalMs: 60_000 });
  servers.push(server);
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const token = (await server.request('POST', '/api/sources', { body: { name: 'idle.checkpoints' } })).body.token as string;
  const foldSome = async (label: string) => {
    const batch = Array.from({ length: 50 }, (_, i) => ({ message: `${label} ${i}` }));
    assert.equal((await server.request('POST', `/logs?source=${token}`, { body: { batch } })).status, 200);
    // A query folds what was acknowledged before it (few events wait).
    assert.equal((await server.request('GET', `/api/sources/${token}/events?limit=1`)).status, 200);
    assert.ok((await walBytes(server.dataDir)) > 0, `${label}: the fold is in the WAL`);
  };
  const walFoldedWithin = async (ms: number) => {
    const deadline = Date.now() + ms;
    while ((await walBytes(server.dataDir)) > 0 && Date.now() < deadline) await sleep(200);
    return (await walBytes(server.dataDir)) === 0;
  };

  await foldSome('first');
  assert.ok(await walFoldedWithin(10_000), 'the first fold of a fresh server is checkpointed once writes pause');
  await foldSome('second');
  await sleep(6_000);
  await foldSome('third');
  await sleep(4_000);
  assert.ok((await walBytes(server.dataDir)) > 0, 'folds 6 s apart: no checkpoint 4 s after the last (it waits 1.5 x 6 s)');
  assert.ok(await walFoldedWithin(20_000), 'and then one comes');
});
