/** The shared catalog on a real PostgreSQL: migrations, records, uniqueness, replicas kept fresh. */

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { readFile } from 'node:fs/promises';
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
    assert.deepEqual(rows.map((row) => row.name), ['001_catalog.sql', '002_endpoint_language.sql']);
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

test('endpoints saved before languages existed read as bq_sql; a language Sawmill cannot run is refused', { skip }, async () => {
  // A database as the first migration left it, holding an endpoint record without a language.
  const admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  await admin.query('CREATE DATABASE sawmill_before_languages');
  await admin.end();
  const url = new URL(database.url);
  url.pathname = '/sawmill_before_languages';
  const pool = new pg.Pool({ connectionString: url.toString() });
  let catalog: PostgresCatalog | undefined;
  try {
    await pool.query(await readFile(new URL('../../src/catalog/migrations/001_catalog.sql', import.meta.url), 'utf8'));
    await pool.query('CREATE TABLE sawmill_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())');
    await pool.query("INSERT INTO sawmill_migrations (version, name) VALUES (1, '001_catalog.sql')");
    const old = { id: 500, token: '00000000-0000-4000-8000-000000000001', owner_id: 1, name: 'old', query: 'select 1 as one', max_limit: 10 };
    await pool.query('INSERT INTO sawmill_endpoints (id, token, owner_id, name, record) VALUES ($1, $2, $3, $4, $5)', [old.id, old.token, 1, old.name, old]);

    catalog = await PostgresCatalog.open({ url: url.toString() });
    assert.equal(catalog.endpointByName(1, 'old')?.language, 'bq_sql');
    const stored = (await pool.query("SELECT record->>'language' AS language FROM sawmill_endpoints WHERE id = 500")).rows[0];
    assert.equal(stored.language, 'bq_sql', 'the migration wrote it into the record');

    const lql = await catalog.createEndpoint(1, { name: 'new', query: 'f:app.logs', language: 'lql' });
    assert.equal((await pool.query("SELECT record->>'language' AS language FROM sawmill_endpoints WHERE id = $1", [lql.id])).rows[0].language, 'lql');
    await assert.rejects(
      pool.query('INSERT INTO sawmill_endpoints (id, token, owner_id, name, record) VALUES ($1, $2, $3, $4, $5)', [99, '00000000-0000-4000-8000-000000000099', 1, 'pg', { ...old, language: 'pg_sql' }]),
      /sawmill_endpoints_language/,
    );
  } finally {
    await catalog?.close();
    await pool.end();
  }
});
