/**
 * Security: key scopes on every ingestion route for every kind of key, endpoint SQL that tries to
 * leave its sandbox, another owner's data, and keys kept out of logs, error bodies and the data dir.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { generateKey, hashKey } from '../../src/catalog/access.ts';
import { INGEST_ROUTES } from '../../src/ingest/index.ts';
import { freePort, runCli, spawnServer, stopServer } from '../support/process.ts';
import { INGEST_KEY, PRIVATE_KEY, startTestServer, type TestServer } from '../support/server.ts';
import { send } from './support.ts';

const PREFIXES = ['/logs', '/api/logs', '/api/events'];
const PATHS = PREFIXES.flatMap((prefix) => INGEST_ROUTES.map((route) => ({ route, path: route === 'logs' ? prefix : `${prefix}/${route}` })));

/** A body each route accepts, with its content type. */
function validBody(route: string): { body: string; contentType: string } {
  switch (route) {
    case 'vercel':
    case 'zeit':
      return { body: JSON.stringify([{ id: 'v', message: 'm', timestamp: Date.now(), source: 'lambda' }]), contentType: 'application/json' };
    case 'logplex': {
      const frame = '<40>1 2026-01-01T10:00:00+00:00 host app web.1 - scoped';
      return { body: `${Buffer.byteLength(frame)} ${frame}`, contentType: 'application/logplex-1' };
    }
    case 'github':
      return { body: JSON.stringify({ action: 'opened', repository: { full_name: 'a/b' }, sender: { login: 'c' } }), contentType: 'application/json' };
    default:
      return { body: JSON.stringify([{ message: `scoped ${route}` }]), contentType: 'application/json' };
  }
}

let server: TestServer;
let own: { id: number; token: string };
let other: { id: number; token: string };
const keys: Record<string, string | null> = {};

before(async () => {
  server = await startTestServer();
  const create = async (name: string) => (await server.request('POST', '/api/sources', { body: { name } })).body;
  own = await create('scoped.own');
  other = await create('scoped.other');
  const token = async (scopes: string) => (await server.request('POST', '/api/access-tokens', { body: { scopes } })).body.token as string;
  const endpoint = (await server.request('POST', '/api/endpoints', { body: { name: 'scoped.count', query: 'select count(*) as n from `scoped.own`' } })).body;
  const tenantKey = generateKey();
  await server.services.catalog.createAccessToken(2, hashKey(tenantKey), ['private'], 'another owner');
  Object.assign(keys, {
    private: PRIVATE_KEY,
    ingest: INGEST_KEY,
    'ingest:source:own': await token(`ingest:source:${own.id}`),
    query: await token('query'),
    'query:endpoint': await token(`query:endpoint:${endpoint.id}`),
    'another owner': tenantKey,
    wrong: 'not-a-key-at-all-0123456789',
    none: null,
  });
});
after(() => server.stop({ removeData: true }));

describe('key scopes on every ingestion route', () => {
  // What each kind of key gets when writing to its own owner's source `own`, and to `other`.
  const expected: Record<string, [number, number]> = {
    private: [200, 200],
    ingest: [200, 200],
    'ingest:source:own': [200, 403],
    query: [403, 403],
    'query:endpoint': [403, 403],
    'another owner': [404, 404],
    wrong: [401, 401],
    none: [401, 401],
  };
  for (const { route, path } of PATHS) {
    test(`POST ${path}`, async () => {
      const { body, contentType } = validBody(route);
      for (const [kind, [toOwn, toOther]] of Object.entries(expected)) {
        const key = keys[kind];
        for (const [target, status] of [[own.token, toOwn], [other.token, toOther]] as const) {
          const headers: Record<string, string> = { 'content-type': contentType };
          if (key) headers['x-api-key'] = key;
          const reply = await send(server.url, 'POST', `${path}?source=${target}`, headers, body);
          assert.equal(reply.status, status, `${kind} key → ${target === own.token ? 'own' : 'other'} source: ${reply.text.slice(0, 200)}`);
          assert.ok(reply.json !== undefined);
        }
      }
    });
  }

  test('an ingest key cannot query or manage; a query key cannot manage; an endpoint key reaches only its endpoint', async () => {
    const management = ['/api/sources', '/api/endpoints', '/api/access-tokens', `/api/sources/${own.token}/schema`];
    for (const kind of ['ingest', 'ingest:source:own', 'query', 'query:endpoint']) {
      for (const path of management) assert.equal((await server.request('GET', path, { key: keys[kind]! })).status, 403, `${kind} GET ${path}`);
      const created = await server.request('POST', '/api/sources', { key: keys[kind]!, body: { name: `by-${kind}` } });
      assert.equal(created.status, 403, `${kind} creates a source`);
    }
    for (const kind of ['ingest', 'ingest:source:own']) assert.equal((await server.request('GET', '/api/endpoints/query/scoped.count', { key: keys[kind]! })).status, 403);
    assert.equal((await server.request('GET', '/api/endpoints/query/scoped.count', { key: keys['query:endpoint']! })).status, 200);
    assert.equal((await server.request('GET', '/api/endpoints/query/logs.all', { key: keys['query:endpoint']! })).status, 403);
  });
});

describe('endpoint SQL stays inside its owner\'s sources', () => {
  const ESCAPES = [
    "select * from read_csv('/etc/passwd')",
    "select * from read_text('/etc/hostname')",
    "select * from read_json_auto('http://127.0.0.1:1/x.json')",
    "select * from read_parquet('s3://bucket/x.parquet')",
    "select * from glob('/*')",
    "select getenv('HOME') as home",
    "select current_setting('memory_limit') as limit",
    'select * from duckdb_settings()',
    'select * from duckdb_extensions()',
    "select * from pragma_database_list()",
    "attach '/tmp/sawmill-other.duckdb' as other",
    'load httpfs',
    'install httpfs',
    "set enable_external_access = true",
    "copy (select 1) to '/tmp/sawmill-out.csv'",
    'pragma database_list',
    "select * from sawmill.main.duckdb_tables()",
    'select * from information_schema.tables',
    'select * from src_00000000000000000000000000000000_0001',
  ];

  test('each escape is refused when the endpoint is saved', async () => {
    for (const query of ESCAPES) {
      const reply = await server.request('POST', '/api/endpoints', { body: { name: `escape ${query.slice(0, 40)}`, query } });
      assert.equal(reply.status, 422, `${query} → ${reply.status} ${JSON.stringify(reply.body).slice(0, 200)}`);
    }
  });

  test('each escape is refused as a sandboxed sql parameter', async () => {
    const sandbox = await server.request('POST', '/api/endpoints', {
      body: { name: 'sandbox', query: 'with own as (select event_message from `scoped.own`) select * from own', sandboxable: true },
    });
    assert.equal(sandbox.status, 201, JSON.stringify(sandbox.body));
    for (const sql of [...ESCAPES, 'select * from `scoped.other`', 'select * from `scoped.own`']) {
      const reply = await server.request('GET', `/api/endpoints/query/sandbox?sql=${encodeURIComponent(sql)}`);
      assert.ok(reply.status >= 400 && reply.status < 500, `${sql} → ${reply.status} ${JSON.stringify(reply.body).slice(0, 200)}`);
    }
    const allowed = await server.request('GET', `/api/endpoints/query/sandbox?sql=${encodeURIComponent('select count(*) as n from own')}`);
    assert.equal(allowed.status, 200);
  });

  test('even SQL that reached DuckDB could not read files or URLs, attach, load extensions or change settings', async () => {
    const { warehouse } = server.services;
    const direct = [
      "select * from read_csv('/etc/passwd')",
      "select * from read_text('/etc/hostname')",
      "select * from read_json_auto('http://127.0.0.1:1/x.json')",
      "attach '/tmp/sawmill-other.duckdb' as other",
      'load httpfs',
      'install httpfs',
      'set enable_external_access = true',
      "set allowed_directories = ['/']",
      "copy (select 1) to '/tmp/sawmill-out.csv'",
    ];
    for (const sql of direct) {
      await assert.rejects(warehouse.query(sql, {}, { timeoutMs: 5000, maxRows: 10 }), (error: Error & { status?: number }) => error.status === 400, sql);
    }
  });

  test("another owner's endpoints cannot name this owner's sources, even one of the same name", async () => {
    const tenant = keys['another owner']!;
    const peek = await server.request('POST', '/api/endpoints', { key: tenant, body: { name: 'peek', query: 'select * from `scoped.own`' } });
    assert.equal(peek.status, 422);
    // With a source of that name of its own, the name means its own source.
    assert.equal((await server.request('POST', '/api/sources', { key: tenant, body: { name: 'scoped.own' } })).status, 201);
    const mine = await server.request('POST', '/api/endpoints', { key: tenant, body: { name: 'mine', query: 'select count(*) as n from `scoped.own`' } });
    assert.equal(mine.status, 201);
    assert.deepEqual((await server.request('GET', '/api/endpoints/query/mine', { key: tenant })).body, { result: [{ n: 0 }] });
    assert.ok(((await server.request('GET', '/api/endpoints/query/scoped.count')).body.result[0].n as number) > 0);
  });
});

test('keys never appear in logs (debug level) or error bodies, and are stored only as hashes', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'sawmill-secrets-'));
  const privateKey = `private-${generateKey()}`;
  const ingestKey = `ingest-${generateKey()}`;
  const wrongKey = `wrong-${generateKey()}`;
  let keptKey = '';
  const child = await spawnServer({ SAWMILL_DATA_DIR: dataDir, SAWMILL_API_KEY: privateKey, SAWMILL_INGEST_KEY: ingestKey, SAWMILL_LOG_LEVEL: 'trace' }, await freePort());
  try {
    const bodies: string[] = [];
    const call = async (method: string, path: string, headers: Record<string, string>, body?: string) => {
      const reply = await send(child.url, method, path, { 'content-type': 'application/json', ...headers }, body);
      bodies.push(reply.text, JSON.stringify(reply.headers));
      return reply;
    };
    const source = (await call('POST', '/api/sources', { 'x-api-key': privateKey }, '{"name":"secret.test"}')).json.token;
    const issued = (await call('POST', '/api/access-tokens', { authorization: `Bearer ${privateKey}` }, '{"scopes":"ingest query"}')).json.token as string;
    bodies.length = 0; // the one reply that must show a key: its creation
    const presented = [privateKey, ingestKey, wrongKey, issued];
    const ways = (key: string): Array<{ headers: Record<string, string>; query: string }> => [
      { headers: { 'x-api-key': key }, query: '' },
      { headers: { authorization: `Bearer ${key}` }, query: '' },
      { headers: {}, query: `api_key=${encodeURIComponent(key)}` },
      { headers: { 'X-API-KEY': key }, query: `api_key=${encodeURIComponent(key)}` },
      // Other spellings the query parser decodes to api_key, and other names a careless client may use.
      { headers: {}, query: `api%5Fkey=${encodeURIComponent(key)}` },
      { headers: {}, query: `%61pi%5fkey=${encodeURIComponent(key)}` },
      { headers: {}, query: `api_key=x&api_key=${encodeURIComponent(key)}` },
      { headers: {}, query: `API-Key=${encodeURIComponent(key)}` },
      { headers: {}, query: `apikey=${encodeURIComponent(key).replace(/-/g, '%2D')}` },
      { headers: {}, query: `api_key[]=${encodeURIComponent(key)}` },
    ];
    for (const key of presented) {
      for (const { headers, query } of ways(key)) {
        const q = (rest: string) => `?${[query, rest].filter(Boolean).join('&')}`;
        await call('POST', `/logs${q(`source=${source}`)}`, headers, '{"message":"ok"}');
        await call('POST', `/logs${q('source=not-a-uuid')}`, headers, '{"message":"bad source"}');
        await call('POST', `/logs${q(`source=${source}`)}`, headers, '{"message": broken');
        await call('POST', `/logs${q(`source=${source}`)}`, { ...headers, 'content-type': 'text/csv' }, 'a,b');
        await call('GET', `/api/sources${q('')}`, headers);
        await call('GET', `/api/endpoints/query/nope${q('')}`, headers);
        await call('GET', `/api/endpoints/query/${'n'.repeat(200)}${q('')}`, headers);
        await call('GET', `/no/such/route${q('')}`, headers);
        await call('DELETE', `/api/access-tokens/999${q('')}`, headers);
      }
    }
    // Keys in the path: where a route takes one (revoking a token by its key: by then it is no
    // longer a key), and wherever else a careless client puts one (a source's place, ?token=).
    // A 404 may name the path to the one who sent it, so these replies are not read.
    const manage = { 'x-api-key': privateKey };
    const keysNow = [privateKey, ingestKey, issued];
    for (const key of keysNow) {
      const inPath = encodeURIComponent(key);
      for (const path of [`/api/sources/${inPath}`, `/api/sources/${inPath}/events`, `/api/sources/${inPath}/tail`, `/api/endpoints/${inPath}`, `/api/endpoints/query/${inPath}`, `/endpoints/query/${inPath}`, `/logs/${inPath}`, `/no/such/${inPath}/route`]) {
        await send(child.url, 'GET', path, manage);
      }
      await send(child.url, 'GET', `/api/sources?token=${inPath}`, manage);
      await send(child.url, 'POST', `/logs?source=${source}&access_token=${inPath}`, { ...manage, 'content-type': 'application/json' }, '{"message":"ok"}');
    }
    for (const key of [wrongKey, privateKey, ingestKey, issued]) {
      await send(child.url, 'DELETE', `/api/access-tokens/${encodeURIComponent(key)}`, manage);
    }
    assert.equal((await send(child.url, 'GET', '/api/sources', { 'x-api-key': issued })).status, 401, 'the issued key was revoked by its value');
    // The CLI revokes a key given by value by its id: the key goes in a body, never in a URL.
    const another = JSON.parse((await send(child.url, 'POST', '/api/access-tokens', { ...manage, 'content-type': 'application/json' }, '{"scopes":"ingest"}')).text) as { id: number; token: string };
    presented.push(another.token);
    const revoke = await runCli(['keys', 'revoke', another.token], { SAWMILL_URL: child.url, SAWMILL_API_KEY: privateKey });
    assert.equal(revoke.code, 0, revoke.stderr);
    assert.equal(revoke.stdout.trim(), `revoked key ${another.id}; it no longer works`);
    assert.equal((await send(child.url, 'GET', '/api/sources', { 'x-api-key': another.token })).status, 401);
    // One kept, to see how it is stored.
    keptKey = JSON.parse((await send(child.url, 'POST', '/api/access-tokens', { ...manage, 'content-type': 'application/json' }, '{"scopes":"query"}')).text).token;
    presented.push(keptKey);

    const output = child.output();
    assert.match(output, /"msg":"GET \/api\/sources\?api_key=\[redacted\] 200 in \d+ ms"/, 'requests were logged');
    assert.match(output, /"msg":"GET \/api\/sources\/\[redacted\]\/events 404 in \d+ ms"/);
    assert.match(output, /"msg":"GET \/api\/sources\?token=\[redacted\] 200 in \d+ ms"/);
    assert.match(output, /"msg":"DELETE \/api\/access-tokens\/\[redacted\] 204 in \d+ ms"/);
    assert.match(output, new RegExp(`"msg":"DELETE /api/access-tokens/${another.id} 204 in \\d+ ms"`), 'the CLI revoked by id');
    for (const key of presented) {
      assert.ok(!output.includes(key), 'a key appears in the log');
      const leak = bodies.find((body) => body.includes(key));
      assert.equal(leak, undefined, 'a key appears in a reply');
    }
  } finally {
    assert.equal(await stopServer(child), 0);
  }
  try {
    const catalog = await readFile(join(dataDir, 'catalog.json'), 'utf8');
    const hashes = JSON.parse(catalog).access_tokens.map((token: { key_hash: string }) => token.key_hash);
    assert.equal(hashes.length, 1);
    assert.match(hashes[0], /^[0-9a-f]{64}$/);
    for (const name of await readdir(dataDir, { recursive: true })) {
      const bytes = await readFile(join(dataDir, name)).catch(() => undefined);
      if (!bytes) continue; // a folder
      for (const secret of [privateKey, ingestKey, keptKey]) assert.ok(!bytes.includes(secret), `${name} holds a key`);
    }
    assert.equal(createHash('sha256').update('x').digest('hex').length, 64);
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});
