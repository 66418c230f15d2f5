import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { freePort, spawnServer, stopServer } from '../support/process.ts';

let dataDir: string;

before(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'sawmill-lifecycle-'));
});
after(() => rm(dataDir, { recursive: true, force: true }));

async function call(url: string, key: string, method: string, path: string, body?: unknown) {
  const reply = await fetch(url + path, {
    method,
    headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: reply.status, body: await reply.json().catch(() => undefined) };
}

test('first start generates a private key file (0600) without printing it; SIGTERM drains and exits 0; everything survives a restart', async () => {
  // At info, the level the keys in force are logged at (the default level).
  const env = { SAWMILL_DATA_DIR: dataDir, SAWMILL_LOG_LEVEL: 'info' };
  const first = await spawnServer(env, await freePort());
  let key: string;
  let source: Awaited<ReturnType<typeof call>>;
  let token: Awaited<ReturnType<typeof call>>;
  try {
    const keyFile = join(dataDir, 'private-key');
    key = (await readFile(keyFile, 'utf8')).trim();
    assert.equal((await stat(keyFile)).mode & 0o777, 0o600);
    assert.ok(key.length >= 32);
    assert.match(first.output(), /private-key/, 'says where the key is');
    assert.ok(!first.output().includes(key), 'never prints the key');

    source = await call(first.url, key, 'POST', '/api/sources', { name: 'kept' });
    const endpoint = await call(first.url, key, 'POST', '/api/endpoints', { name: 'kept.count', query: 'select count(*) as n from `kept`' });
    token = await call(first.url, key, 'POST', '/api/access-tokens', { scopes: 'ingest query', description: 'ci' });
    assert.deepEqual([source.status, endpoint.status, token.status], [201, 201, 201]);
    // Many concurrent requests, then SIGTERM while the last ones may still be in flight.
    const sends = Array.from({ length: 20 }, (_, i) =>
      call(first.url, token.body.token, 'POST', `/logs?source=${source.body.token}`, { batch: Array.from({ length: 50 }, (_, j) => ({ message: `e${i}-${j}` })) }),
    );
    const replies = await Promise.all(sends);
    assert.ok(replies.every((reply) => reply.status === 200));
  } finally {
    // Stopped also when an assertion failed: a server left running kept the test process from ending.
    assert.equal(await stopServer(first, 'SIGTERM'), 0);
  }

  const second = await spawnServer(env, await freePort());
  try {
    const count = await call(second.url, token.body.token, 'GET', '/api/endpoints/query/kept.count');
    assert.deepEqual(count.body, { result: [{ n: 1000 }] });
    const names = (await call(second.url, key, 'GET', '/api/sources')).body.map((s: any) => s.name);
    assert.ok(names.includes('kept') && names.includes('cloudflare.logs.prod'));
    const tokens = (await call(second.url, key, 'GET', '/api/access-tokens')).body;
    assert.deepEqual(tokens.map((t: any) => [t.scopes, t.description]), [['ingest query', 'ci']]);
    assert.ok(!JSON.stringify(tokens).includes(token.body.token), 'the key is shown only at creation');
  } finally {
    assert.equal(await stopServer(second), 0);
  }
});

test('a source deleted by its owner is not provisioned again on the next start', async () => {
  const env = { SAWMILL_DATA_DIR: dataDir, SAWMILL_API_KEY: 'configured-key-123' };
  const first = await spawnServer(env, await freePort());
  try {
    const sources = (await call(first.url, 'configured-key-123', 'GET', '/api/sources')).body;
    const pooler = sources.find((s: any) => s.name === 'pgbouncer.logs.prod');
    assert.equal((await call(first.url, 'configured-key-123', 'DELETE', `/api/sources/${pooler.token}`)).status, 204);
  } finally {
    await stopServer(first);
  }
  const second = await spawnServer(env, await freePort());
  try {
    const names = (await call(second.url, 'configured-key-123', 'GET', '/api/sources')).body.map((s: any) => s.name);
    assert.ok(!names.includes('pgbouncer.logs.prod'));
  } finally {
    await stopServer(second);
  }
});
