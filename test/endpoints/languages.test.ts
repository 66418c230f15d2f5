/** An endpoint's `language` through the management API: stored, validated, run, cached, sandboxed. */

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestServer, type TestServer } from '../support/server.ts';

let server: TestServer;

before(async () => {
  server = await startTestServer();
  const source = await server.request('POST', '/api/sources', { body: { name: 'shop.requests' } });
  const events = [
    { message: "GET /cart it's slow", metadata: { level: 'error', status: 503, path: '/cart' } },
    { message: 'GET /home', metadata: { level: 'info', status: 200, path: '/home' } },
    { message: 'POST /pay', metadata: { level: 'ERROR', status: 500, path: '/pay' } },
  ];
  for (const event of events) assert.equal((await server.request('POST', `/logs?source=${source.body.token}`, { body: event })).status, 200);
});
after(() => server.stop({ removeData: true }));

const create = (body: Record<string, unknown>) => server.request('POST', '/api/endpoints', { body });
const run = async (name: string, params = '') => {
  const reply = await server.request('GET', `/api/endpoints/query/${name}${params}`);
  assert.equal(reply.status, 200, JSON.stringify(reply.body));
  return reply.body.result as Array<Record<string, unknown>>;
};

describe('the language field', () => {
  test('bq_sql unless given; returned, listed and changed like the other fields', async () => {
    const plain = await create({ name: 'lang.default', query: 'select 1 as one' });
    assert.deepEqual([plain.status, plain.body.language], [201, 'bq_sql']);
    const explicit = await create({ name: 'lang.explicit', query: 'select 1 as one', language: 'bq_sql' });
    assert.equal(explicit.body.language, 'bq_sql');
    const listed = (await server.request('GET', '/api/endpoints')).body.find((endpoint: { name: string }) => endpoint.name === 'lang.default');
    assert.equal(listed.language, 'bq_sql');

    const patched = await server.request('PATCH', `/api/endpoints/${plain.body.token}`, { body: { language: 'lql', query: 'f:shop.requests level:error' } });
    assert.equal(patched.status, 204, JSON.stringify(patched.body));
    const read = (await server.request('GET', `/api/endpoints/${plain.body.token}`)).body;
    assert.deepEqual([read.language, read.query], ['lql', 'f:shop.requests level:error']);
    assert.equal((await run('lang.default')).length, 2, 'now runs as LQL');
  });

  test('pg_sql and unknown languages are refused with a 422 naming the field', async () => {
    const pg = await create({ name: 'lang.pg', query: 'select 1', language: 'pg_sql' });
    assert.equal(pg.status, 422);
    assert.match(pg.body.errors.language[0], /pg_sql .*not supported/);
    const other = await create({ name: 'lang.other', query: 'select 1', language: 'sql' });
    assert.equal(other.status, 422);
    assert.match(other.body.errors.language[0], /bq_sql, ch_sql, lql/);
    const saved = await create({ name: 'lang.keep', query: 'select 1 as one' });
    const put = await server.request('PUT', `/api/endpoints/${saved.body.token}`, { body: { name: 'lang.keep', query: 'select 1 as one', language: 'pg_sql' } });
    assert.equal(put.status, 422);
    assert.equal((await server.request('GET', `/api/endpoints/${saved.body.token}`)).body.language, 'bq_sql');
  });

  test('changing only the language checks the saved query in the new language', async () => {
    const saved = await create({ name: 'lang.switch', query: 'select 2 as two' });
    const refused = await server.request('PATCH', `/api/endpoints/${saved.body.token}`, { body: { language: 'lql' } });
    assert.equal(refused.status, 422);
    assert.match(refused.body.errors.query[0], /f:<source>/);
    assert.deepEqual(await run('lang.switch'), [{ two: 2 }], 'the endpoint is unchanged');
  });
});

describe('LQL endpoints', () => {
  test('read the source f: names: whole events, newest first, filtered, with @name parameters', async () => {
    const created = await create({ name: 'lql.errors', language: 'lql', query: 'f:shop.requests level:error m.status:>=@min_status' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.language, 'lql');
    const rows = await run('lql.errors', '?min_status=500');
    assert.deepEqual(rows.map((row) => row.event_message), ['POST /pay', "GET /cart it's slow"]);
    assert.deepEqual(Object.keys(rows[0]!).sort(), ['event_message', 'id', 'metadata', 'timestamp']);
    assert.deepEqual((await run('lql.errors', '?min_status=501')).map((row) => row.event_message), ["GET /cart it's slow"]);
    assert.deepEqual(await run('lql.errors'), [], 'a missing parameter is NULL, as in SQL endpoints');
    await create({ name: 'lql.since', language: 'lql', query: 'f:shop.requests timestamp:>=@since @word' });
    assert.equal((await run('lql.since', '?since=2000-01-01T00:00:00Z&word=get')).length, 2, 'a time parameter and a search word parameter');
    assert.deepEqual(await run('lql.since', `?since=${new Date(Date.now() + 3_600_000).toISOString()}&word=get`), []);
  });

  test('values are literals a caller cannot change; text search; max rows', async () => {
    await create({ name: 'lql.text', language: 'lql', query: `f:shop.requests "it's" -m.path:/home`, max_limit: 5 });
    assert.deepEqual((await run('lql.text', '?p0=x&p1=y')).map((row) => row.event_message), ["GET /cart it's slow"]);
    await create({ name: 'lql.capped', language: 'lql', query: 'f:shop.requests', max_limit: 2 });
    assert.deepEqual((await run('lql.capped')).map((row) => row.event_message), ['POST /pay', 'GET /home']);
  });

  test('cached like a SQL endpoint: the same parameters are answered from the cache', async () => {
    await create({ name: 'lql.cached', language: 'lql', query: 'f:shop.requests m.path:@path', cache_duration_seconds: 300 });
    const before = server.services.endpoints.cacheHits;
    const first = await run('lql.cached', '?path=/home');
    assert.equal(first.length, 1);
    assert.deepEqual(await run('lql.cached', '?path=/home'), first);
    assert.equal(server.services.endpoints.cacheHits, before + 1, 'the second call was a hit');
    assert.equal((await run('lql.cached', '?path=/pay'))[0]!.event_message, 'POST /pay', 'other parameters are another entry');
  });

  test('a sandboxable LQL endpoint lets callers query its events CTE', async () => {
    await create({ name: 'lql.sandbox', language: 'lql', query: 'f:shop.requests m.status:>=500', sandboxable: true });
    const sql = encodeURIComponent('select count(*) as n from events');
    assert.deepEqual(await run('lql.sandbox', `?sql=${sql}`), [{ n: 2 }]);
  });

  test('a field the source gains later is read: the SQL follows the source\'s fields', async () => {
    const source = await server.request('POST', '/api/sources', { body: { name: 'growing.logs' } });
    const ingest = (body: unknown) => server.request('POST', `/logs?source=${source.body.token}`, { body });
    await ingest({ message: 'nested', metadata: { level: 'error' } });
    await create({ name: 'lql.growing', language: 'lql', query: 'f:growing.logs level:error' });
    assert.deepEqual((await run('lql.growing')).map((row) => row.event_message), ['nested']);
    await ingest({ message: 'top level', level: 'error' });
    assert.deepEqual((await run('lql.growing')).map((row) => row.event_message), ['top level', 'nested']);
  });

  test('bad LQL is a 422 at create that says what and where', async () => {
    const cases: Array<[string, RegExp, number]> = [
      ['level:error', /f:<source>/, 1],
      ['f:nowhere level:error', /source "nowhere" not found/, 1],
      ['f:shop.requests level:error m.nope:1', /unknown field m\.nope/, 29],
      ['f:shop.requests m.status:lots', /m\.status holds numbers/, 17],
      ['f:shop.requests\n  (m.status:>=500 OR m.path:~"(")', /regular expression/, 22],
      ['f:shop.requests f:other', /only one f:/, 17],
      ['f:shop.requests m.path:"/cart', /double quote is not closed/, 24],
      ['f:shop.requests (level:error OR m.status:500', /\( is not closed/, 17],
      ['f:shop.requests level:error OR', /ends where a clause should follow/, 29],
    ];
    for (const [query, message, column] of cases) {
      const reply = await create({ name: 'lql.bad', language: 'lql', query });
      assert.equal(reply.status, 422, query);
      assert.match(reply.body.errors.query[0], message, query);
      assert.equal(reply.body.column, column, query);
    }
  });

  test('Run draft (preview) takes the language', async () => {
    const reply = await server.request('POST', '/api/endpoints/preview', { body: { language: 'lql', query: 'f:shop.requests m.path:/pay' } });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    assert.deepEqual(reply.body.result.map((row: { event_message: string }) => row.event_message), ['POST /pay']);
    const asSql = await server.request('POST', '/api/endpoints/preview', { body: { query: 'f:shop.requests m.path:/pay' } });
    assert.equal(asSql.status, 400, 'without a language the draft is BigQuery SQL');
  });
});

describe('ch_sql endpoints', () => {
  test('created, run with {name:Type} and @name parameters, and cached like a BigQuery one', async () => {
    const query = [
      'select toStartOfHour(timestamp) as hour, countIf(event_message like {pattern:String}) as matching, count() as events',
      'from `shop.requests`',
      'where @project is null or event_message != @project',
      'group by hour',
    ].join('\n');
    const created = await create({ name: 'ch.hourly', language: 'ch_sql', query, cache_duration_seconds: 300 });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.language, 'ch_sql');
    const before = server.services.endpoints.cacheHits;
    const rows = await run('ch.hourly', '?pattern=GET%25');
    assert.deepEqual(rows.map((row) => [row.matching, row.events]), [[2, 3]]);
    assert.deepEqual(await run('ch.hourly', '?pattern=GET%25'), rows);
    assert.equal(server.services.endpoints.cacheHits, before + 1, 'the second call was a hit');
    assert.deepEqual((await run('ch.hourly', '?pattern=POST%25')).map((row) => row.matching), [1]);
  });

  test('max rows, sandboxing in ClickHouse SQL, and the same query refused as BigQuery SQL', async () => {
    const query = 'with recent as (select event_message, timestamp from `shop.requests`) select event_message from recent order by timestamp desc';
    await create({ name: 'ch.sandbox', language: 'ch_sql', query, sandboxable: true, max_limit: 2 });
    assert.equal((await run('ch.sandbox')).length, 2);
    const sql = encodeURIComponent("select countIf(event_message like 'GET%') as n from recent");
    assert.deepEqual(await run('ch.sandbox', `?sql=${sql}`), [{ n: 2 }]);
    const asBigQuery = await create({ name: 'ch.as-bq', query: 'select toStartOfHour(timestamp) as hour from `shop.requests`' });
    assert.equal(asBigQuery.status, 422, 'toStartOfHour is ClickHouse SQL');
  });

  test('bad ClickHouse SQL is a 422 with its line and column', async () => {
    const reply = await create({ name: 'ch.bad', language: 'ch_sql', query: 'select\n  COUNTIF(1) from `shop.requests`' });
    assert.equal(reply.status, 422);
    assert.match(reply.body.errors.query[0], /countIf/);
    assert.deepEqual([reply.body.line, reply.body.column], [2, 3]);
    const settings = await create({ name: 'ch.settings', language: 'ch_sql', query: 'select 1 settings max_threads = 1' });
    assert.equal(settings.status, 422);
  });

  test('Run draft (preview) runs ClickHouse SQL', async () => {
    const reply = await server.request('POST', '/api/endpoints/preview', { body: { language: 'ch_sql', query: 'select count() as n from `shop.requests` where event_message like {prefix:String}', params: { prefix: 'GET%' } } });
    assert.deepEqual([reply.status, reply.body], [200, { result: [{ n: 2 }] }]);
  });
});
