/**
 * What callers' parameters and `sql` may make the service keep (issue 27): the endpoint result
 * cache and the translation memo are bounded by bytes, keys included, and a sandboxed `sql`
 * past its limit is refused.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ResultCache } from '../../src/endpoints/cache.ts';
import { MAX_CONSUMER_SQL, MAX_MEMO_BYTES } from '../../src/endpoints/service.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const MB = 1024 * 1024;

/** A sample of /metrics by name and labels. */
async function metric(server: TestServer, name: string, labels: string): Promise<number> {
  const text = await (await fetch(`${server.url}/metrics`, { headers: { 'x-api-key': 'test-private-key-0123456789' } })).text();
  const line = text.split('\n').find((row) => row.startsWith(`${name}{${labels}}`));
  assert.ok(line, `${name}{${labels}} in /metrics`);
  return Number(line.split(' ').at(-1));
}

describe('the endpoint result cache', () => {
  test('a key is a digest: its size does not grow with the parameters', () => {
    const small = ResultCache.key(1, { p: 'x' });
    const large = ResultCache.key(1, { p: 'x'.repeat(MB) });
    assert.equal(large.length, small.length);
    assert.ok(large.length < 64);
    assert.notEqual(ResultCache.key(1, { p: `${'x'.repeat(MB)}y` }), large);
  });

  test('expired entries are swept without being read again', () => {
    const cache = new ResultCache(MB);
    try {
      cache.set(ResultCache.key(1, { p: 'a' }), '{"result":[]}', 1);
      cache.set(ResultCache.key(1, { p: 'b' }), '{"result":[]}', 60_000);
      cache.sweep(Date.now() + 10);
      assert.equal(cache.size, 1);
    } finally {
      cache.stop();
    }
  });

  test('entries kept to warm an endpoint count the parameters they keep', () => {
    const cache = new ResultCache(4 * MB);
    try {
      for (let i = 0; i < 20; i++) cache.set(ResultCache.key(1, { p: String(i) }), '{}', 60_000, { run: async () => '{}', retainedBytes: 2 * MB });
      assert.equal(cache.size, 1);
      assert.ok(cache.bytes <= 4 * MB);
    } finally {
      cache.stop();
    }
  });
});

describe('distinct large parameters and sql against a running server', () => {
  let server: TestServer;
  before(async () => {
    // Many requests from one address in a moment: past the per-caller rate, which is not what this tests.
    server = await startTestServer({ cacheMaxBytes: 4 * MB, callerQueryRate: 1000 });
    const source = (await server.request('POST', '/api/sources', { body: { name: 'memo.src' } })).body;
    await server.request('POST', `/logs?source=${source.token}`, { body: { message: 'hello' } });
    const endpoints = [
      { name: 'memo.cached', query: 'select count(*) as n from `memo.src` where @p is not null', cache_duration_seconds: 600, enable_auth: false },
      { name: 'memo.sandbox', query: 'with own as (select event_message from `memo.src`) select count(*) as n from own', sandboxable: true, enable_auth: false },
    ];
    for (const body of endpoints) assert.equal((await server.request('POST', '/api/endpoints', { body })).status, 201);
  });
  after(() => server.stop({ removeData: true }));

  const token = async (name: string) => ((await server.request('GET', '/api/endpoints')).body as Array<{ name: string; token: string }>).find((one) => one.name === name)!.token;

  test('anonymous requests with distinct 512 KB parameter values: the cache holds at most its bound', async () => {
    const cached = await token('memo.cached');
    for (let i = 0; i < 40; i++) {
      const reply = await server.request('POST', `/api/endpoints/query/${cached}`, { key: null, body: { p: `${i}:${'v'.repeat(512 * 1024)}` } });
      assert.deepEqual(reply.body, { result: [{ n: 1 }] });
    }
    const held = await metric(server, 'sawmill_endpoint_memo_bytes', 'memo="results"');
    assert.ok(held > 0 && held <= 4 * MB, `${held} bytes held`);
  });

  test(`a sandboxed sql longer than ${MAX_CONSUMER_SQL} characters is refused with 413; distinct long ones keep the memo under its bound`, async () => {
    const sandbox = await token('memo.sandbox');
    const sql = (i: number, length: number) => {
      const head = `select count(*) as n from own where event_message != '${i}`;
      return `${head}${'x'.repeat(length - head.length - 1)}'`;
    };
    const refused = await server.request('POST', `/api/endpoints/query/${sandbox}`, { key: null, body: { sql: sql(0, MAX_CONSUMER_SQL + 1) } });
    assert.equal(refused.status, 413);
    assert.equal(refused.body.error.code, 'sql_too_long');
    for (let i = 0; i < 100; i++) {
      const reply = await server.request('POST', `/api/endpoints/query/${sandbox}`, { key: null, body: { sql: sql(i, MAX_CONSUMER_SQL) } });
      assert.deepEqual(reply.body, { result: [{ n: 1 }] });
    }
    const held = await metric(server, 'sawmill_endpoint_memo_bytes', 'memo="translations"');
    assert.ok(held > MAX_MEMO_BYTES / 2 && held <= MAX_MEMO_BYTES, `${held} bytes held`);
  });
});
