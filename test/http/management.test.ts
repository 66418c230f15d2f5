import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { generateKey, hashKey } from '../../src/catalog/access.ts';
import { translate } from '../../src/sql/index.ts';
import { INGEST_KEY, PRIVATE_KEY, startTestServer, type TestServer } from '../support/server.ts';

let server: TestServer;

before(async () => {
  server = await startTestServer();
});
after(() => server.stop({ removeData: true }));

describe('sources', () => {
  test('create 201, read, PUT, PATCH 204, delete 204, then 404 in Logflare shape', async () => {
    const created = await server.request('POST', '/api/sources', { body: { name: 'app.logs', description: 'mine' } });
    assert.equal(created.status, 201);
    assert.deepEqual(Object.keys(created.body).sort(), ['description', 'has_webhook_secret', 'id', 'inserted_at', 'name', 'retention_days', 'token', 'updated_at']);
    const token = created.body.token;
    assert.equal((await server.request('GET', `/api/sources/${token}`)).body.name, 'app.logs');
    assert.equal((await server.request('GET', `/api/sources/${created.body.id}`)).body.token, token, 'by id too');
    const put = await server.request('PUT', `/api/sources/${token}`, { body: { name: 'app.logs2', description: null } });
    assert.deepEqual([put.status, put.body.name, put.body.description], [200, 'app.logs2', null]);
    const patch = await server.request('PATCH', `/api/sources/${token}`, { body: { retention_days: 7 } });
    assert.equal(patch.status, 204);
    assert.equal((await server.request('GET', `/api/sources/${token}`)).body.retention_days, 7);
    assert.equal((await server.request('DELETE', `/api/sources/${token}`)).status, 204);
    const gone = await server.request('GET', `/api/sources/${token}`);
    assert.deepEqual([gone.status, gone.body], [404, { error: 'Not Found', message: `no source "${token}" (by token, id or name)` }]);
    const ingest = await server.request('POST', `/logs?source=${token}`, { body: { message: 'x' } });
    assert.equal(ingest.status, 404);
  });

  test('a source is also found by its name, as the explorer routes take it', async () => {
    const created = await server.request('POST', '/api/sources', { body: { name: 'by.name' } });
    const byName = await server.request('GET', '/api/sources/by.name');
    assert.deepEqual([byName.status, byName.body.token], [200, created.body.token]);
    assert.equal((await server.request('PATCH', '/api/sources/by.name', { body: { retention_days: 3 } })).status, 204);
    assert.equal((await server.request('GET', `/api/sources/${created.body.token}`)).body.retention_days, 3);
    const missing = await server.request('GET', '/api/sources/no.such.name');
    assert.deepEqual([missing.status, missing.body], [404, { error: 'Not Found', message: 'no source "no.such.name" (by token, id or name)' }]);
  });

  test('a duplicate name or bad input is a 422 with field messages', async () => {
    await server.request('POST', '/api/sources', { body: { name: 'dup' } });
    const duplicate = await server.request('POST', '/api/sources', { body: { name: 'dup' } });
    assert.equal(duplicate.status, 422);
    assert.deepEqual(duplicate.body, { errors: { name: ['has already been taken'] } });
    const invalid = await server.request('POST', '/api/sources', { body: { name: '', retention_days: -1 } });
    assert.equal(invalid.status, 422);
    assert.ok(invalid.body.errors.name && invalid.body.errors.retention_days);
  });

  test('the schema endpoint lists fixed columns and inferred fields', async () => {
    const created = await server.request('POST', '/api/sources', { body: { name: 'schema.demo' } });
    await server.request('POST', `/logs?source=${created.body.token}`, { body: { message: 'x', level: 'info', metadata: { n: 1, tags: ['a'] } } });
    const schema = await server.request('GET', `/api/sources/${created.body.token}/schema`);
    assert.deepEqual(schema.body, {
      id: { type: 'STRING', mode: 'NULLABLE' },
      timestamp: { type: 'TIMESTAMP', mode: 'NULLABLE' },
      event_message: { type: 'STRING', mode: 'NULLABLE' },
      level: { type: 'STRING', mode: 'NULLABLE' },
      metadata: { type: 'RECORD', mode: 'REPEATED', fields: { n: { type: 'INT64', mode: 'NULLABLE' }, tags: { type: 'STRING', mode: 'REPEATED' } } },
    });
  });
  test('a source created again under its old name gets the stored copies its endpoints read', async () => {
    const first = await server.request('POST', '/api/sources', { body: { name: 'again.logs' } });
    await server.request('POST', `/logs?source=${first.body.token}`, { body: { message: 'x', metadata: { user: { id: 7 } } } });
    const query = 'select u.id as id from `again.logs` as t cross join unnest(t.metadata) as m cross join unnest(m.user) as u';
    assert.equal((await server.request('POST', '/api/endpoints', { body: { name: 'again.users', query } })).status, 201);
    assert.equal((await server.request('DELETE', `/api/sources/${first.body.token}`)).status, 204);
    const second = await server.request('POST', '/api/sources', { body: { name: 'again.logs' } });
    await server.request('POST', `/logs?source=${second.body.token}`, { body: { message: 'y', metadata: { user: { id: 8 } } } });
    assert.deepEqual((await server.request('GET', '/api/endpoints/query/again.users')).body, { result: [{ id: 8 }] });
    const { warehouse, dialect } = server.services;
    if (warehouse.engine !== 'duckdb') return; // ClickHouse reads subcolumns: it keeps no copies
    const relation = warehouse.relation(second.body.token);
    const translated = translate(query, dialect, { resolveTable: (name) => (name === 'again.logs' ? relation : undefined) });
    assert.match(translated.sql, /"sawmill:leaf:metadata\.user\.id"/, 'the chain reads the stored copy of u.id');
  });
});

describe('access tokens and scopes', () => {
  test('the key is shown once; list hides it; lookup by the key; delete by id or by the key itself', async () => {
    const created = await server.request('POST', '/api/access-tokens', { body: { scopes: ['query'], description: 'dash' } });
    assert.equal(created.status, 201);
    const key = created.body.token;
    const listed = (await server.request('GET', '/api/access-tokens')).body;
    assert.ok(listed.some((token: any) => token.id === created.body.id && token.token === undefined));
    assert.ok(!JSON.stringify(listed).includes(key));
    assert.equal((await server.request('GET', '/api/endpoints/query/logs.all?project=x&project_tier=FREE', { key })).status, 200);
    const found = await server.request('POST', '/api/access-tokens/lookup', { body: { token: key } });
    assert.deepEqual([found.status, found.body.id, found.body.token], [200, created.body.id, undefined]);
    const configured = await server.request('POST', '/api/access-tokens/lookup', { body: { token: PRIVATE_KEY } });
    assert.equal(configured.status, 404);
    assert.match(configured.body.message, /keys set by SAWMILL_API_KEY or SAWMILL_INGEST_KEY are not access tokens/);
    assert.equal((await server.request('DELETE', `/api/access-tokens/${encodeURIComponent(key)}`)).status, 204);
    assert.equal((await server.request('GET', '/api/endpoints/query/logs.all?project=x&project_tier=FREE', { key })).status, 401);
    const bad = await server.request('POST', '/api/access-tokens', { body: { scopes: ['root'] } });
    assert.equal(bad.status, 422);
  });

  test('an ingest key cannot query or manage; a query key cannot ingest or manage', async () => {
    const query = (await server.request('POST', '/api/access-tokens', { body: { scopes: 'query' } })).body.token;
    const source = (await server.request('GET', '/api/sources')).body[0].token;
    const results = await Promise.all([
      server.request('GET', '/api/sources', { key: INGEST_KEY }),
      server.request('POST', '/api/endpoints', { key: INGEST_KEY, body: { name: 'x', query: 'select 1' } }),
      server.request('GET', '/api/endpoints/query/logs.all', { key: INGEST_KEY }),
      server.request('POST', `/logs?source=${source}`, { key: query, body: { message: 'x' } }),
      server.request('GET', '/api/access-tokens', { key: query }),
    ]);
    assert.deepEqual(results.map((reply) => reply.status), [403, 403, 403, 403, 403]);
  });

  test('an endpoint-scoped key queries only that endpoint', async () => {
    const endpoints = (await server.request('GET', '/api/endpoints')).body as any[];
    const logsAll = endpoints.find((endpoint) => endpoint.name === 'logs.all');
    const key = (await server.request('POST', '/api/access-tokens', { body: { scopes: [`query:endpoint:${logsAll.id}`] } })).body.token;
    const allowed = await server.request('GET', '/api/endpoints/query/logs.all?project=a&project_tier=FREE', { key });
    const denied = await server.request('GET', '/api/endpoints/query/usage.api-counts?project=a&interval=hourly', { key });
    assert.deepEqual([allowed.status, denied.status], [200, 403]);
  });

  test("another owner's key never reaches this owner's sources or endpoints", async () => {
    const key = generateKey();
    await server.services.catalog.createAccessToken(2, hashKey(key), ['private'], 'tenant two');
    const mine = (await server.request('GET', '/api/sources')).body[0];
    const theirs = await server.request('GET', '/api/sources', { key });
    assert.deepEqual(theirs.body, []);
    assert.equal((await server.request('GET', `/api/sources/${mine.token}`, { key })).status, 404);
    assert.equal((await server.request('POST', `/logs?source=${mine.token}`, { key, body: { message: 'x' } })).status, 404);
    assert.equal((await server.request('POST', `/logs?source_name=${mine.name}`, { key, body: { message: 'x' } })).status, 404);
    assert.equal((await server.request('GET', '/api/endpoints/query/logs.all', { key })).status, 404);
    const sneaky = await server.request('POST', '/api/endpoints', { key, body: { name: 'peek', query: `select * from \`${mine.name}\`` } });
    assert.equal(sneaky.status, 422, 'a query may only read its owner\'s sources');
  });
});

describe('endpoints', () => {
  test('create, read, PUT, PATCH, delete; 422 for SQL that is not a single query', async () => {
    const created = await server.request('POST', '/api/endpoints', { body: { name: 'mine', query: 'select 1 as one', description: 'd' } });
    assert.equal(created.status, 201);
    assert.deepEqual(
      Object.keys(created.body).sort(),
      ['cache_duration_seconds', 'description', 'enable_auth', 'id', 'inserted_at', 'language', 'max_limit', 'name', 'proactive_requerying_seconds', 'query', 'sandboxable', 'token', 'updated_at'],
    );
    const token = created.body.token;
    assert.deepEqual((await server.request('GET', `/api/endpoints/query/${token}`)).body, { result: [{ one: 1 }] });
    const put = await server.request('PUT', `/api/endpoints/${token}`, { body: { name: 'mine', query: 'select 2 as two' } });
    assert.equal(put.body.query, 'select 2 as two');
    assert.equal((await server.request('PATCH', `/api/endpoints/${token}`, { body: { max_limit: 10 } })).status, 204);
    for (const query of ['select 1; select 2', 'delete from `postgres.logs` where true', "select * from read_csv('/etc/passwd')"]) {
      const refused = await server.request('PATCH', `/api/endpoints/${token}`, { body: { query } });
      assert.equal(refused.status, 422, query);
      assert.ok(refused.body.errors.query[0].length > 0);
    }
    const limit = await server.request('PATCH', `/api/endpoints/${token}`, { body: { max_limit: 10_001 } });
    assert.equal(limit.status, 422);
    assert.equal((await server.request('DELETE', `/api/endpoints/${token}`)).status, 204);
    assert.equal((await server.request('GET', `/api/endpoints/query/${token}`)).status, 404);
  });

  test('invalid SQL at run time is a 400 that says what is wrong', async () => {
    const created = await server.request('POST', '/api/endpoints', { body: { name: 'runtime', query: 'select cast(@n as int64) as n' } });
    const reply = await server.request('GET', `/api/endpoints/query/runtime?n=abc`);
    assert.equal(reply.status, 400);
    assert.match(reply.body.error.message, /abc|convert|cast/i);
    assert.equal((await server.request('GET', `/api/endpoints/query/runtime?n=41`)).body.result[0].n, 41);
    assert.equal(created.status, 201);
  });

  test('an endpoint with enable_auth off answers without a key, by token only', async () => {
    const created = await server.request('POST', '/api/endpoints', { body: { name: 'public', query: 'select 7 as seven', enable_auth: false } });
    const byToken = await server.request('GET', `/api/endpoints/query/${created.body.token}`, { key: null });
    const byName = await server.request('GET', '/api/endpoints/query/public', { key: null });
    assert.deepEqual([byToken.status, byToken.body, byName.status], [200, { result: [{ seven: 7 }] }, 401]);
    const privateOne = (await server.request('GET', '/api/endpoints')).body.find((endpoint: any) => endpoint.name === 'logs.all');
    assert.equal((await server.request('GET', `/api/endpoints/query/${privateOne.token}`, { key: null })).status, 401);
  });

  test('POST query: parameters from the JSON body', async () => {
    await server.request('POST', '/api/endpoints', { body: { name: 'echo', query: 'select @word as word' } });
    const reply = await server.request('POST', '/api/endpoints/query/echo', { body: { word: 'hello' } });
    assert.deepEqual(reply.body, { result: [{ word: 'hello' }] });
    const missing = await server.request('GET', '/api/endpoints/query/echo');
    assert.deepEqual(missing.body, { result: [{ word: null }] }, 'a missing parameter is NULL');
  });

  test("a missing parameter is NULL and an unknown one ignored, as in Logflare; headers name them", async () => {
    await server.request('POST', '/api/endpoints', { body: { name: 'pair', query: 'select @word as word, @count as count' } });
    const run = await server.request('GET', '/api/endpoints/query/pair?word=hi&cuont=3&sql=select%201&f%C3%BCr=1');
    assert.deepEqual(run.body, { result: [{ word: 'hi', count: null }] });
    assert.equal(run.headers.get('x-sawmill-missing-params'), 'count');
    // `sql` is ignored too: this endpoint is not sandboxable.
    assert.equal(run.headers.get('x-sawmill-unknown-params'), 'cuont, sql, f%C3%BCr');
    const complete = await server.request('POST', '/api/endpoints/query/pair', { body: { word: 'a', count: '1' } });
    assert.deepEqual([complete.headers.get('x-sawmill-missing-params'), complete.headers.get('x-sawmill-unknown-params')], [null, null]);
    const draft = await server.request('POST', '/api/endpoints/preview', { body: { query: 'select @word as word', params: { wrod: 'x' } } });
    assert.deepEqual([draft.headers.get('x-sawmill-missing-params'), draft.headers.get('x-sawmill-unknown-params')], ['word', 'wrod']);
  });

  test('a sandboxable endpoint uses sql, and the key in ?api_key= is no parameter', async () => {
    await server.request('POST', '/api/endpoints', { body: { name: 'boxed', query: 'with t as (select @word as word) select word from t', sandboxable: true } });
    const run = await server.request('GET', `/api/endpoints/query/boxed?word=x&sql=${encodeURIComponent('select upper(word) as w from t')}&api_key=${PRIVATE_KEY}`, { key: null });
    assert.deepEqual(run.body, { result: [{ w: 'X' }] });
    assert.deepEqual([run.headers.get('x-sawmill-missing-params'), run.headers.get('x-sawmill-unknown-params')], [null, null]);
  });
});
