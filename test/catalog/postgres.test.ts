/** The shared catalog on a real PostgreSQL: migrations, records, uniqueness, replicas kept fresh. */

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { migrate, PostgresCatalog } from '../../src/catalog/postgres-catalog.ts';
import { postgresUnavailable, skipUnlessAvailable, startPostgres, type TestPostgres } from '../support/postgres.ts';

const skip = skipUnlessAvailable(postgresUnavailable());
let database: TestPostgres;
let first: PostgresCatalog;
let second: PostgresCatalog;

before(async () => {
  if (skip) return;
  database = await startPostgres();
  [first, second] = await Promise.all([PostgresCatalog.open({ url: database.url }), PostgresCatalog.open({ url: database.url })]);
});
after(async () => {
  if (skip) return;
  await first?.close();
  await second?.close();
  await database?.stop();
});

async function eventually(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test('migrations run once, in order, even when two instances start together', { skip }, async () => {
  const pool = new pg.Pool({ connectionString: database.url });
  try {
    assert.deepEqual(await migrate(pool), [], 'already applied by open()');
    const rows = (await pool.query('SELECT version, name FROM sawmill_migrations ORDER BY version')).rows;
    assert.deepEqual(rows.map((row) => row.name), ['001_catalog.sql']);
  } finally {
    await pool.end();
  }
});

test('records written by one instance appear in the other', { skip }, async () => {
  const source = await first.createSource(1, { name: 'shared', retention_days: 7 });
  assert.equal(first.sourceByToken(source.token)?.name, 'shared', 'an instance reads its own writes at once');
  await eventually(() => second.sourceByName(1, 'shared') !== undefined, 'the source on the other instance');
  assert.deepEqual(second.getSource(1, String(source.id)), source);

  const endpoint = await second.createEndpoint(1, { name: 'e', query: 'select 1 as one', query_timeout_ms: 5000 });
  await eventually(() => first.endpointByToken(endpoint.token) !== undefined, 'the endpoint');
  assert.equal(first.endpointByToken(endpoint.token)?.query_timeout_ms, 5000, 'fields round-trip whole');

  const changes: Array<[string, number]> = [];
  const stop = second.onChange((kind, id) => changes.push([kind, id]));
  const updated = await first.updateEndpoint(endpoint, { query: 'select 2 as two' });
  await eventually(() => second.getEndpoint(1, endpoint.token)?.query === 'select 2 as two', 'the update');
  assert.equal(second.getEndpoint(1, endpoint.token)?.updated_at, updated.updated_at);
  assert.ok(changes.some(([kind, id]) => kind === 'endpoint' && id === endpoint.id), 'change listeners are told');
  stop();

  await first.deleteEndpoint(updated);
  await eventually(() => second.endpointByToken(endpoint.token) === undefined, 'the delete');

  const token = await first.createAccessToken(1, 'ab'.repeat(32), ['ingest'], 'ci');
  await eventually(() => second.accessTokenByHash(token.key_hash) !== undefined, 'the access token');
  assert.deepEqual(second.listAccessTokens(1).map((item) => item.scopes), [['ingest']]);
});

test('names are unique per owner: 422 like the file catalog', { skip }, async () => {
  await first.createSource(1, { name: 'taken' });
  await assert.rejects(second.createSource(1, { name: 'taken' }), (error: Error & { status?: number }) => error.status === 422);
  const other = await second.createSource(2, { name: 'taken' });
  assert.equal(other.owner_id, 2, 'another owner may use the name');
});

test('once() runs its work on one instance only', { skip }, async () => {
  let runs = 0;
  const work = async () => {
    runs++;
    await new Promise((resolve) => setTimeout(resolve, 50));
  };
  await Promise.all([first.once('provisioned', work), second.once('provisioned', work)]);
  assert.equal(runs, 1);
});
