/**
 * Which keys are in force across restarts: a key the environment set stays in force when its
 * variable is later empty (the root docker-compose.yml passes `SAWMILL_API_KEY=` when it is
 * unset) or unset; a new value replaces it; with none ever set, one is generated once. Each start
 * says where its keys come from, and never prints one.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { freePort, logMessages, spawnServer, stopServer, type ServerProcess } from '../support/process.ts';

const FIRST = 'first-configured-private-key-0123456789';
const SECOND = 'second-configured-private-key-0123456789';
const INGEST = 'configured-ingest-key-0123456789';

let root: string;
before(async () => {
  root = await mkdtemp(join(tmpdir(), 'sawmill-keys-'));
});
after(() => rm(root, { recursive: true, force: true }));

const status = async (server: ServerProcess, key: string, method = 'GET', path = '/api/sources', body?: unknown) =>
  (
    await fetch(server.url + path, {
      method,
      headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
  ).status;

/** What a start with `env` logged at info, a message a line. */
async function withServer(env: Record<string, string>, check: (server: ServerProcess) => Promise<void>): Promise<string> {
  const server = await spawnServer({ SAWMILL_LOG_LEVEL: 'info', ...env }, await freePort());
  try {
    await check(server);
  } finally {
    assert.equal(await stopServer(server), 0);
  }
  const output = server.output();
  for (const key of [FIRST, SECOND, INGEST]) assert.ok(!output.includes(key), 'never prints a key');
  return logMessages(output).join('\n');
}

test('an empty or unset variable keeps the key it set in force; a new value replaces it; the log names the source', async () => {
  const dataDir = join(root, 'configured');
  const configured = await withServer({ SAWMILL_DATA_DIR: dataDir, SAWMILL_API_KEY: FIRST, LOGFLARE_PUBLIC_ACCESS_TOKEN: INGEST }, async (server) => {
    assert.equal(await status(server, FIRST), 200);
  });
  assert.match(configured, /^private key: SAWMILL_API_KEY from the environment$/m);
  assert.match(configured, /^ingest key: LOGFLARE_PUBLIC_ACCESS_TOKEN from the environment$/m);

  // What the root docker-compose.yml hands the container when the variables are not set.
  const empty = await withServer({ SAWMILL_DATA_DIR: dataDir, SAWMILL_API_KEY: '', SAWMILL_INGEST_KEY: '' }, async (server) => {
    assert.equal(await status(server, FIRST), 200, 'the key senders and scripts were given still works');
    assert.equal(await status(server, INGEST, 'POST', '/logs?source_name=postgres.logs', { message: 'still accepted' }), 200);
    assert.equal(await status(server, INGEST), 403, 'the ingest key still only ingests');
  });
  assert.ok(!existsSync(join(dataDir, 'private-key')), 'no key was generated in its place');
  assert.match(empty, /^private key: the one SAWMILL_API_KEY set on \d{4}-\d\d-\d\dT[\d:.]+Z \(SAWMILL_API_KEY is empty or unset now; environment-keys\.json in the data dir remembers it\)$/m);
  assert.match(empty, /^ingest key: the one LOGFLARE_PUBLIC_ACCESS_TOKEN set on /m);

  await withServer({ SAWMILL_DATA_DIR: dataDir }, async (server) => assert.equal(await status(server, FIRST), 200));

  const replaced = await withServer({ SAWMILL_DATA_DIR: dataDir, SAWMILL_API_KEY: SECOND }, async (server) => {
    assert.equal(await status(server, SECOND), 200);
    assert.equal(await status(server, FIRST), 401, 'a new value replaces the old key');
  });
  assert.match(replaced, /^private key: SAWMILL_API_KEY from the environment, in place of the one SAWMILL_API_KEY set on /m);
  await withServer({ SAWMILL_DATA_DIR: dataDir, SAWMILL_API_KEY: '' }, async (server) => {
    assert.equal(await status(server, SECOND), 200);
    assert.equal(await status(server, FIRST), 401);
  });
});

test('with no key ever set, one is generated once and stays in force', async () => {
  const dataDir = join(root, 'generated');
  const first = await withServer({ SAWMILL_DATA_DIR: dataDir, SAWMILL_API_KEY: '' }, async () => undefined);
  assert.match(first, new RegExp(`^private key: none set \\(SAWMILL_API_KEY\\): generated a private key, stored in ${join(dataDir, 'private-key')}$`, 'm'));
  assert.match(first, /^ingest key: none /m);
  const again = await withServer({ SAWMILL_DATA_DIR: dataDir, SAWMILL_API_KEY: '' }, async () => undefined);
  assert.match(again, new RegExp(`^private key: generated at first start, in ${join(dataDir, 'private-key')}$`, 'm'));
});
