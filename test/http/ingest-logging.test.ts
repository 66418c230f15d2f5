/**
 * At the default log level (info) ingestion requests are not logged one by one (a line each, at
 * thousands of requests a second, costs the main thread); other routes are, one line a request
 * once answered, and debug logs every ingestion request too. The real entry point, its stdout
 * read as is.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { freePort, spawnServer, stopServer } from '../support/process.ts';

const KEY = 'ingest-logging-private-key-0123456789';
const dirs: string[] = [];
after(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

async function logOf(level: string): Promise<Array<{ msg?: string; req?: { url?: string }; res?: { statusCode?: number } }>> {
  const dataDir = await mkdtemp(join(tmpdir(), 'sawmill-logging-'));
  dirs.push(dataDir);
  const server = await spawnServer({ SAWMILL_DATA_DIR: dataDir, SAWMILL_API_KEY: KEY, SAWMILL_LOG_LEVEL: level }, await freePort());
  try {
    const headers = { 'x-api-key': KEY, 'content-type': 'application/json' };
    const sources = (await (await fetch(`${server.url}/api/sources`, { headers })).json()) as Array<{ token: string }>;
    const reply = await fetch(`${server.url}/logs?source=${sources[0]!.token}`, { method: 'POST', headers, body: '{"message":"hello"}' });
    assert.equal(reply.status, 200);
    const refused = await fetch(`${server.url}/logs?source=${sources[0]!.token}`, { method: 'POST', headers, body: '{"message": broken' });
    assert.equal(refused.status, 400);
  } finally {
    assert.equal(await stopServer(server), 0);
  }
  return server
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { msg?: string });
}

test('info: ingestion requests are not logged one by one, other requests are', async () => {
  const lines = await logOf('info');
  const urls = lines.filter((line) => line.res !== undefined).map((line) => line.req?.url ?? '');
  assert.deepEqual(urls.filter((url) => url.startsWith('/api/sources')), ['/api/sources'], 'the management request is logged, once');
  assert.deepEqual(urls.filter((url) => url.startsWith('/logs')), [], 'no ingestion request is');
});

test('debug: every ingestion request is logged', async () => {
  const lines = await logOf('debug');
  const urls = lines.filter((line) => line.res !== undefined).map((line) => line.req?.url ?? '');
  assert.equal(urls.filter((url) => url.startsWith('/logs')).length, 2);
});
