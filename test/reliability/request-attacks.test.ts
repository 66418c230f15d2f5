/**
 * Hostile requests of issue 27 that need no load: anonymous explorer requests forcing folds,
 * parameters nested 100,000 deep, reserved parameter names, LQL nested past what its SQL can hold.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MAX_NESTING } from '../../src/explorer/lql.ts';
import { INGEST_KEY, startTestServer, type TestServer } from '../support/server.ts';

let server: TestServer;
let source: { token: string };

before(async () => {
  // Folds wait a minute unless a reader asks for one.
  server = await startTestServer({ foldIntervalMs: 60_000 });
  source = (await server.request('POST', '/api/sources', { body: { name: 'attacks' } })).body;
  assert.equal((await server.request('POST', `/logs?source=${source.token}&wait=visible`, { body: { message: 'first', metadata: { path: '/a', level: 'info' } } })).status, 200);
});
after(() => server.stop({ removeData: true }));

test('the explorer authenticates before it folds: requests without a reading key leave acknowledged events waiting', async () => {
  assert.equal((await server.request('POST', `/logs?source=${source.token}`, { body: { message: 'waiting' } })).status, 200);
  assert.equal(server.services.writer.backlog, 1);
  const paths = ['/api/explorer/key', '/api/explorer/sources', `/api/sources/${source.token}/events`, `/api/sources/${source.token}/volume`];
  for (const [key, status] of [[null, 401], ['wrong-key-0123456789', 401], [INGEST_KEY, 403]] as const) {
    for (const path of paths) assert.equal((await server.request('GET', path, { key })).status, status, `${key} ${path}`);
  }
  assert.equal(server.services.writer.backlog, 1, 'no fold was forced');
  assert.equal((await server.request('GET', `/api/sources/${source.token}/events`)).status, 200);
  assert.equal(server.services.writer.backlog, 0, 'a reader still reads what was acknowledged before it');
});

describe('endpoint parameters', () => {
  before(async () => {
    const endpoints = [
      { name: 'echo', query: 'select @p as p' },
      { name: 'sandboxed', query: 'with own as (select event_message from `attacks`) select * from own', sandboxable: true },
    ];
    for (const body of endpoints) assert.equal((await server.request('POST', '/api/endpoints', { body })).status, 201);
  });

  test('a parameter nested 100,000 lists deep is a 400 naming it, not a stack overflow', async () => {
    const deep = `{"p":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    const reply = await server.request('POST', '/api/endpoints/query/echo', { body: deep, headers: { 'content-type': 'application/json' } });
    assert.equal(reply.status, 400, JSON.stringify(reply.body));
    assert.equal(reply.body.error.code, 'invalid_parameter');
    assert.match(reply.body.error.message, /parameter p is a list of lists or records/);
    // A list of values is a repeated parameter: its last value, as before.
    assert.deepEqual((await server.request('POST', '/api/endpoints/query/echo', { body: { p: ['a', 'b'] } })).body, { result: [{ p: 'b' }] });
    assert.deepEqual((await server.request('GET', '/api/endpoints/query/echo?p=a&p=c')).body, { result: [{ p: 'c' }] });
  });

  test('@api_key and @sql cannot be parameters: they carry the caller\'s key and sandboxed query', async () => {
    const refusals = [
      { name: 'bq', query: 'select 1 as one,\n  @api_key as k' },
      { name: 'bq upper', query: 'select @SQL as s' },
      { name: 'ch', language: 'ch_sql', query: 'select {api_key:String} as k' },
      { name: 'lql', language: 'lql', query: 'f:attacks m.path:@sql' },
    ];
    for (const body of refusals) {
      const reply = await server.request('POST', '/api/endpoints', { body });
      assert.equal(reply.status, 422, body.name);
      assert.match(reply.body.errors.query[0], /query parameter @(api_key|SQL|sql) is reserved/, body.name);
    }
    const positioned = await server.request('POST', '/api/endpoints', { body: refusals[0] });
    assert.deepEqual([positioned.body.line, positioned.body.column], [2, 3]);
    const consumer = await server.request('GET', `/api/endpoints/query/sandboxed?sql=${encodeURIComponent('select @api_key as k from own')}&api_key=leak`);
    assert.equal(consumer.status, 400);
    assert.match(consumer.body.error.message, /@api_key is reserved/);
  });
});

test(`LQL nested deeper than ${MAX_NESTING} is refused in LQL's words, without a position in SQL it never wrote`, async () => {
  const nested = (depth: number) => `${'-('.repeat(depth)}first${')'.repeat(depth)}`;
  const deepest = await server.request('GET', `/api/sources/${source.token}/events?q=${encodeURIComponent(nested(MAX_NESTING))}`);
  assert.equal(deepest.status, 200, JSON.stringify(deepest.body));
  for (const q of [nested(MAX_NESTING + 1), `${'NOT '.repeat(40)}first`, `${'(first OR -('.repeat(12)}m.level:info${'))'.repeat(12)}`]) {
    const explorer = await server.request('GET', `/api/sources/${source.token}/events?q=${encodeURIComponent(q)}`);
    assert.equal(explorer.status, 400);
    assert.deepEqual(explorer.body, { error: { code: 'invalid_query', message: `groups and negations nest at most ${MAX_NESTING} deep` } });
    const saved = await server.request('POST', '/api/endpoints', { body: { name: `deep ${q.length}`, language: 'lql', query: `f:attacks ${q}` } });
    assert.equal(saved.status, 422);
    assert.match(saved.body.errors.query[0], /nest at most 16 deep/);
  }
});
