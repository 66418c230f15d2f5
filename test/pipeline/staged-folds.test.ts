/**
 * Events that fit their source's schema are acknowledged as staged lines and folded as they are
 * (src/warehouse/staged-rows.ts). These tests use a real server on 127.0.0.1 and its real DuckDB
 * file: lines staged before a column widened are stored as if they had arrived afterwards, and
 * staged records left in the journal by a SIGKILL are folded once, and correctly, at restart.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { viewName } from '../../src/warehouse/duckdb/layout.ts';
import type { AppendBatch } from '../../src/warehouse/types.ts';
import { freePort, spawnServer, stopServer, type ServerProcess } from '../support/process.ts';
import { startTestServer } from '../support/server.ts';

const KEY = 'staged-folds-private-key-0123456789';
const dirs: string[] = [];
after(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

test('lines staged before a scalar column widened are stored as the widened type, in the same fold', async () => {
  const server = await startTestServer({ foldIntervalMs: 2_000 });
  try {
    const source = (await server.request('POST', '/api/sources', { body: { name: 'widening' } })).body.token;
    const warehouse = server.services.warehouse;
    const append = warehouse.append.bind(warehouse);
    const folds: Array<{ rows: number; staged: number }> = [];
    warehouse.append = async (batches: ReadonlyArray<AppendBatch>, position?: number) => {
      for (const batch of batches) folds.push({ rows: batch.rows.length, staged: (batch.staged ?? []).reduce((sum, part) => sum + part.count, 0) });
      return append(batches, position);
    };
    const post = (events: unknown[]) => server.request('POST', `/logs?source=${source}`, { body: events });
    assert.equal((await post([{ message: 'a', n: 1, m: { k: 1 } }])).status, 200);
    assert.equal((await server.request('GET', `/api/sources/${source}/schema`)).status, 200); // folds it: n and m.k are ints now
    // b fits the schema and is staged with ints; c widens n and m.k to strings in the same fold.
    assert.equal((await post([{ message: 'b', n: 2, m: { k: 2 } }])).status, 200);
    assert.equal((await post([{ message: 'c', n: 'text', m: { k: 'x', j: true } }])).status, 200);
    const stored = await warehouse.query(
      `select event_message, n, m[1].k as k, m[1].j as j from ${warehouse.relation(source)} order by event_message`,
      {},
      { timeoutMs: 10_000, maxRows: 10 },
    );
    assert.deepEqual(folds, [{ rows: 1, staged: 0 }, { rows: 1, staged: 1 }], 'b was staged, c was planned at the fold');
    assert.deepEqual(stored, [
      { event_message: 'a', n: '1', k: '1', j: null },
      { event_message: 'b', n: '2', k: '2', j: null },
      { event_message: 'c', n: 'text', k: 'x', j: true },
    ]);
  } finally {
    await server.stop({ removeData: true });
  }
});

async function call(server: ServerProcess, method: string, path: string, body?: unknown) {
  const reply = await fetch(server.url + path, {
    method,
    headers: { 'x-api-key': KEY, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: reply.status, body: (await reply.json()) as { token?: string } };
}

async function storedRows(dataDir: string, source: string): Promise<unknown[][]> {
  const instance = await DuckDBInstance.create(join(dataDir, 'sawmill.duckdb'));
  try {
    const connection = await instance.connect();
    const reader = await connection.runAndReadAll(`select id, n, m[1].k from "${viewName(source)}" order by id`);
    const rows = reader.getRows().map((row) => row.map((value) => (typeof value === 'bigint' ? Number(value) : value)));
    connection.closeSync();
    return rows;
  } finally {
    instance.closeSync();
  }
}

test('staged records acknowledged before a SIGKILL are folded exactly once at restart, widened where need be', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'sawmill-staged-'));
  dirs.push(dataDir);
  // Folds wait a minute: what is acknowledged after the first fold stays in the journal only.
  const env = { SAWMILL_DATA_DIR: dataDir, SAWMILL_API_KEY: KEY, SAWMILL_FOLD_INTERVAL_MS: '60000' };
  let server = await spawnServer(env, await freePort());
  const source = (await call(server, 'POST', '/api/sources', { name: 'replayed' })).body.token!;
  assert.equal((await call(server, 'POST', `/logs?source=${source}`, [{ id: 'e0', message: 'first', n: 1, m: { k: 1 } }])).status, 200);
  assert.equal((await call(server, 'GET', `/api/sources/${source}/schema`)).status, 200); // folds e0
  const staged = Array.from({ length: 20 }, (_, i) => ({ id: `e${String(i + 1).padStart(2, '0')}`, message: 'staged', n: i, m: { k: i } }));
  assert.equal((await call(server, 'POST', `/logs?source=${source}`, staged)).status, 200);
  assert.equal((await call(server, 'POST', `/logs?source=${source}`, [{ id: 'w', message: 'widens', n: 'text', m: { k: 'x' } }])).status, 200);
  assert.equal(await stopServer(server, 'SIGKILL'), null);

  server = await spawnServer(env, await freePort());
  assert.equal(await stopServer(server), 0);
  const rows = await storedRows(dataDir, source);
  assert.deepEqual(rows, [
    ['e0', '1', '1'],
    ...staged.map((event, i) => [event.id, String(i), String(i)]),
    ['w', 'text', 'x'],
  ]);
});

test('a backlog of half the queue is folded at once instead of waiting out the fold interval', async () => {
  const server = await startTestServer({ foldIntervalMs: 60_000, maxQueuedEvents: 400 });
  try {
    const source = (await server.request('POST', '/api/sources', { body: { name: 'paced' } })).body.token;
    const warehouse = server.services.warehouse;
    const append = warehouse.append.bind(warehouse);
    const folded: number[] = [];
    warehouse.append = async (batches: ReadonlyArray<AppendBatch>, position?: number) => {
      await append(batches, position);
      for (const batch of batches) folded.push(batch.rows.length + (batch.staged ?? []).reduce((sum, part) => sum + part.count, 0));
    };
    const post = (n: number, label: string) =>
      server.request('POST', `/logs?source=${source}`, { body: Array.from({ length: n }, (_, i) => ({ id: `${label}${i}`, message: label })) });
    assert.equal((await post(150, 'a')).status, 200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.deepEqual(folded, [], 'under half the queue waits for the interval');
    assert.equal((await post(100, 'b')).status, 200);
    for (let i = 0; i < 100 && folded.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(folded, [250], 'folded long before the 60 s interval');
    assert.equal(server.services.writer.backlog, 0);
  } finally {
    await server.stop({ removeData: true });
  }
});
