import assert from 'node:assert/strict';
import { SAWMILL_VERSION } from '../../src/data-format.ts';
import { createHmac, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { deflateSync, gzipSync } from 'node:zlib';
import { INGEST_KEY, startTestServer, type TestServer } from '../support/server.ts';
import { sample, SUPABASE_SOURCES } from '../support/samples.ts';

let server: TestServer;
let tokens: Record<string, string>;

/** Stored rows of a source, straight from the warehouse. */
async function stored(sourceName: string, where = 'true'): Promise<Record<string, any>[]> {
  const { warehouse } = server.services;
  const sql = `select * from ${warehouse.relation(tokens[sourceName]!)} where ${where} order by timestamp, id`;
  return warehouse.query(sql, {}, { timeoutMs: 5000, maxRows: 10_000 });
}

async function createSource(name: string, extra: Record<string, unknown> = {}): Promise<string> {
  const reply = await server.request('POST', '/api/sources', { body: { name, ...extra } });
  assert.equal(reply.status, 201, JSON.stringify(reply.body));
  tokens[name] = reply.body.token;
  return reply.body.token;
}

before(async () => {
  server = await startTestServer();
  const reply = await server.request('GET', '/api/sources');
  tokens = Object.fromEntries(reply.body.map((source: any) => [source.name, source.token]));
});
after(() => server.stop({ removeData: true }));

describe('start-up', () => {
  test('health answers ok', async () => {
    const reply = await server.request('GET', '/health', { key: null });
    assert.deepEqual([reply.status, reply.body], [200, { status: 'ok', version: SAWMILL_VERSION }]);
  });

  test('the nine Supabase sources are provisioned with their own UUID tokens', () => {
    assert.deepEqual(Object.keys(tokens).sort(), [...SUPABASE_SOURCES].sort());
    assert.equal(new Set(Object.values(tokens)).size, 9);
    for (const token of Object.values(tokens)) assert.match(token, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});

describe('POST /logs with each Supabase sample', () => {
  for (const name of SUPABASE_SOURCES) {
    test(name, async () => {
      const event: Record<string, any> = { ...sample(name), id: randomUUID() };
      const reply = await server.request('POST', `/logs?source=${tokens[name]}`, { body: event });
      assert.equal(reply.status, 200, JSON.stringify(reply.body));
      assert.deepEqual(reply.body, { message: 'Logged!', accepted: 1, rejected: 0 });
      const [row] = await stored(name, `id = '${event.id}'`);
      assert.ok(row, 'the event is stored');
      assert.equal(row.event_message, event.event_message);
      // Objects come back as one-element repeated records, BigQuery-style.
      assert.ok(Array.isArray(row.metadata) && row.metadata.length === 1);
      if (event.project) assert.equal(row.project, event.project);
    });
  }

  test('nested values keep their types and shape', async () => {
    const [row] = await stored('cloudflare.logs.prod');
    const request = row!.metadata[0].request[0];
    assert.equal(request.cf[0].asn, 3209);
    assert.equal(request.cf[0].botManagement[0].verifiedBot, false);
    assert.equal(row!.metadata[0].response[0].status_code, 200);
  });
});

describe('body shapes, prefixes and encodings', () => {
  const body = (message: string) => ({ message, metadata: { shape: message } });

  for (const prefix of ['/logs', '/api/logs', '/api/events']) {
    test(`${prefix}: single object, batch, bare array`, async () => {
      const path = `${prefix}?source=${tokens['postgREST.logs.prod']}`;
      const single = await server.request('POST', path, { body: body(`${prefix} single`) });
      const batch = await server.request('POST', path, { body: { batch: [body(`${prefix} b1`), body(`${prefix} b2`)] } });
      const array = await server.request('POST', path, { body: [body(`${prefix} a1`), body(`${prefix} a2`), body(`${prefix} a3`)] });
      assert.deepEqual([single.body.accepted, batch.body.accepted, array.body.accepted], [1, 2, 3]);
      const rows = await stored('postgREST.logs.prod', `event_message like '${prefix} %'`);
      assert.equal(rows.length, 6);
    });
  }

  test('an empty batch succeeds and stores nothing', async () => {
    const reply = await server.request('POST', `/logs?source=${tokens['postgREST.logs.prod']}`, { body: { batch: [] } });
    assert.deepEqual([reply.status, reply.body.accepted], [200, 0]);
  });

  test('NDJSON, gzip and deflate bodies', async () => {
    const source = await createSource('encodings');
    const ndjson = ['{"message":"nd 1"}', '{"message":"nd 2"}', ''].join('\n');
    const nd = await server.request('POST', `/logs?source=${source}`, { body: ndjson, headers: { 'content-type': 'application/x-ndjson' } });
    const gz = await server.request('POST', `/logs?source=${source}`, {
      body: gzipSync(JSON.stringify({ batch: [{ message: 'gz 1' }, { message: 'gz 2' }] })),
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    });
    const df = await server.request('POST', `/logs?source=${source}`, {
      body: deflateSync(JSON.stringify({ message: 'df 1' })),
      headers: { 'content-type': 'application/json', 'content-encoding': 'deflate' },
    });
    assert.deepEqual([nd.body.accepted, gz.body.accepted, df.body.accepted], [2, 2, 1]);
    const messages = (await stored('encodings')).map((row) => row.event_message).sort();
    assert.deepEqual(messages, ['df 1', 'gz 1', 'gz 2', 'nd 1', 'nd 2']);
  });
});

describe('keys and sources', () => {
  test('the key by Bearer, X-API-KEY or ?api_key=', async () => {
    const source = tokens['pgbouncer.logs.prod']!;
    const bearer = await server.request('POST', `/logs?source=${source}`, { key: null, headers: { authorization: `Bearer ${INGEST_KEY}` }, body: { message: 'bearer' } });
    const header = await server.request('POST', `/logs?source=${source}`, { key: INGEST_KEY, body: { message: 'header' } });
    const query = await server.request('POST', `/logs?source=${source}&api_key=${INGEST_KEY}`, { key: null, body: { message: 'query' } });
    assert.deepEqual([bearer.status, header.status, query.status], [200, 200, 200]);
  });

  test('the source by ?source_name=, body field, or x-source header', async () => {
    const source = tokens['pgbouncer.logs.prod']!;
    const byName = await server.request('POST', '/logs?source_name=pgbouncer.logs.prod', { body: { message: 'by name' } });
    const byBody = await server.request('POST', '/logs', { body: { source, message: 'by body', metadata: {} } });
    const byBodyName = await server.request('POST', '/logs', { body: { source_name: 'pgbouncer.logs.prod', message: 'by body name' } });
    const byHeader = await server.request('POST', '/logs', { headers: { 'x-source': source }, body: { message: 'by header' } });
    assert.deepEqual([byName.status, byBody.status, byBodyName.status, byHeader.status], [200, 200, 200, 200]);
    const rows = await stored('pgbouncer.logs.prod', `event_message like 'by %'`);
    assert.equal(rows.length, 4);
    assert.ok(rows.every((row) => row.source === undefined), 'routing fields are not stored as data');
  });

  test('401 without a key or with a wrong one', async () => {
    const path = `/logs?source=${tokens['pgbouncer.logs.prod']}`;
    const missing = await server.request('POST', path, { key: null, body: { message: 'x' } });
    const wrong = await server.request('POST', path, { key: 'not-a-key', body: { message: 'x' } });
    assert.deepEqual([missing.status, wrong.status], [401, 401]);
    assert.equal(missing.body.error.code, 'unauthorized');
    assert.ok(!JSON.stringify(wrong.body).includes('not-a-key'), 'the key is not echoed');
  });

  test('a 401 says what is wrong with an Authorization header that is not Bearer, without repeating the key', async () => {
    const path = `/logs?source=${tokens['pgbouncer.logs.prod']}`;
    const bare = await server.request('POST', path, { key: null, headers: { authorization: INGEST_KEY }, body: { message: 'x' } });
    const basic = await server.request('POST', path, { key: null, headers: { authorization: `Basic ${Buffer.from(`user:${INGEST_KEY}`).toString('base64')}` }, body: { message: 'x' } });
    assert.deepEqual([bare.status, basic.status], [401, 401]);
    assert.match(bare.body.error.message, /Authorization header has no scheme.*Authorization: Bearer <key>/);
    assert.match(basic.body.error.message, /Authorization header uses the Basic scheme.*Bearer <key>/);
    for (const reply of [bare, basic]) assert.ok(!JSON.stringify(reply.body).includes(INGEST_KEY.slice(5)), 'the key is not echoed');
    const none = await server.request('POST', path, { key: null, body: { message: 'x' } });
    assert.match(none.body.error.message, /^missing API key: send Authorization: Bearer <key>, X-API-KEY/);
  });

  test('a source name given as ?source= (or in a body "source") is answered with how to name a source', async () => {
    const query = await server.request('POST', '/logs?source=pgbouncer.logs.prod', { body: { message: 'x' } });
    assert.equal(query.status, 400);
    assert.equal(query.body.error.code, 'invalid_source');
    assert.match(query.body.error.message, /got "pgbouncer\.logs\.prod"; to name a source by its name, use \?source_name=pgbouncer\.logs\.prod$/);
    const body = await server.request('POST', '/logs', { body: { source: 'pgbouncer.logs.prod', message: 'x' } });
    assert.match(body.body.error.message, /use a "source_name" field$/);
  });

  test('a source-scoped key writes only to its source (403 elsewhere)', async () => {
    const sources = (await server.request('GET', '/api/sources')).body as any[];
    const own = sources.find((source) => source.name === 'postgres.logs');
    const created = await server.request('POST', '/api/access-tokens', { body: { scopes: [`ingest:source:${own.id}`] } });
    assert.equal(created.status, 201);
    const key = created.body.token;
    const allowed = await server.request('POST', `/logs?source=${own.token}`, { key, body: { message: 'scoped' } });
    const denied = await server.request('POST', `/logs?source=${tokens['pgbouncer.logs.prod']}`, { key, body: { message: 'scoped' } });
    assert.deepEqual([allowed.status, denied.status], [200, 403]);
    assert.equal(denied.body.error.code, 'forbidden');
  });

  test('404 for an unknown source, 400 for a source that is not a UUID', async () => {
    const unknown = await server.request('POST', `/logs?source=${randomUUID()}`, { body: { message: 'x' } });
    const invalid = await server.request('POST', '/logs?source=not-a-uuid', { body: { message: 'x' } });
    const unnamed = await server.request('POST', '/logs?source_name=nope', { body: { message: 'x' } });
    const missing = await server.request('POST', '/logs', { body: { message: 'x' } });
    assert.deepEqual([unknown.status, invalid.status, unnamed.status, missing.status], [404, 400, 404, 400]);
  });
});

describe('bad input', () => {
  const path = () => `/logs?source=${tokens['postgREST.logs.prod']}`;

  test('400 for malformed JSON, saying where', async () => {
    const reply = await server.request('POST', path(), { body: '{"message": "x",\n  "metadata": }', headers: { 'content-type': 'application/json' } });
    assert.equal(reply.status, 400);
    assert.match(reply.body.error.message, /line 2/);
  });

  test('415 for an unsupported content type', async () => {
    const reply = await server.request('POST', path(), { body: 'a,b,c', headers: { 'content-type': 'text/csv' } });
    assert.equal(reply.status, 415);
    assert.equal(typeof reply.body.error.message, 'string');
  });

  test('413 over the body limit, from Content-Length', async () => {
    const small = await startTestServer({ maxBodyBytes: 8192 });
    try {
      const token = (await small.request('GET', '/api/sources')).body[0].token;
      const reply = await small.request('POST', `/logs?source=${token}`, { body: { message: 'x'.repeat(20_000) } });
      assert.equal(reply.status, 413);
      assert.equal(reply.body.error.code, 'payload_too_large');
      const bomb = gzipSync(JSON.stringify({ message: 'y'.repeat(5_000_000) }));
      assert.ok(bomb.length < 8192, `the bomb is ${bomb.length} bytes compressed`);
      const bombed = await small.request('POST', `/logs?source=${token}`, { body: bomb, headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } });
      assert.equal(bombed.status, 413);
    } finally {
      await small.stop({ removeData: true });
    }
  });

  test('events that cannot be stored are reported one by one; the others are stored', async () => {
    const reply = await server.request('POST', path(), { body: [{ message: 'good one' }, 42, { message: 'good two' }] });
    assert.equal(reply.status, 200);
    assert.deepEqual([reply.body.accepted, reply.body.rejected], [2, 1]);
    assert.equal(reply.body.errors[0].index, 1);
    assert.equal((await stored('postgREST.logs.prod', `event_message like 'good %'`)).length, 2);
  });

  test('unknown routes answer JSON 404', async () => {
    const reply = await server.request('POST', '/logs/nope', { body: {} });
    assert.equal(reply.status, 404);
    assert.equal(reply.body.error.code, 'not_found');
  });
});

describe('vendor routes', () => {
  test('/logs/json: each element is an event, its timestamp the event time (Fluent Bit)', async () => {
    const source = await createSource('fluentbit');
    const records = [
      { timestamp: '2026-11-20T10:00:00.250000Z', log: 'first', kubernetes: { pod: 'a' } },
      { timestamp: '2026-11-20T10:00:01Z', log: 'second' },
    ];
    const reply = await server.request('POST', `/logs/json?source=${source}&api_key=${INGEST_KEY}`, {
      key: null,
      body: JSON.stringify(records),
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    assert.equal(reply.body.accepted, 2);
    const rows = await stored('fluentbit');
    assert.equal(rows[0]!.timestamp, Date.parse('2026-11-20T10:00:00.250Z') * 1000);
    assert.equal(rows[0]!.metadata[0].log, 'first');
    assert.equal(rows[0]!.metadata[0].kubernetes[0].pod, 'a');
    assert.deepEqual(JSON.parse(rows[1]!.event_message), records[1]);
  });

  test('/logs/github: message from repository, sender and action; *_url keys dropped; signature checked', async () => {
    const secret = 'webhook-secret';
    const source = await createSource('github', { webhook_secret: secret });
    const payload = JSON.stringify({
      action: 'opened',
      repository: { full_name: 'acme/app', html_url: 'https://example.test/acme/app', owner: { login: 'acme', avatar_url: 'x' } },
      sender: { login: 'octo', url: 'u' },
      issue: { number: 7, comments_url: 'c' },
    });
    const signature = `sha256=${createHmac('sha256', secret).update(payload).digest('hex')}`;
    const headers = { 'content-type': 'application/json', 'x-github-event': 'issues', 'x-hub-signature-256': signature };
    const good = await server.request('POST', `/logs/github?source=${source}&api_key=${INGEST_KEY}`, { key: null, body: payload, headers });
    const bad = await server.request('POST', `/logs/github?source=${source}&api_key=${INGEST_KEY}`, {
      key: null,
      body: payload,
      headers: { ...headers, 'x-hub-signature-256': 'sha256=' + '0'.repeat(64) },
    });
    assert.deepEqual([good.status, bad.status], [200, 401]);
    const [row] = await stored('github');
    assert.equal(row!.event_message, 'acme/app | octo | opened');
    assert.ok(!JSON.stringify(row!.metadata).includes('_url'), 'keys ending in _url are dropped at every depth');
    assert.equal(row!.metadata[0].sender[0].url, 'u');
  });

  test('/logs/vercel and /logs/zeit: drain entries', async () => {
    const source = await createSource('vercel');
    const entries = [
      {
        id: 'v1',
        message: 'GET /api',
        timestamp: 1763632800123,
        source: 'edge',
        proxy: { statusCode: 200, host: 'app.vercel.app', path: '/api', clientIp: '1.2.3.4', userAgent: ['curl/8'] },
      },
      { id: 'v2', message: 'built', timestamp: 1763632800456, source: 'build' },
    ];
    const reply = await server.request('POST', `/logs/vercel?source=${source}`, { body: entries });
    const zeit = await server.request('POST', `/logs/zeit?source=${source}`, { body: [{ ...entries[1], id: 'v3' }] });
    assert.deepEqual([reply.body.accepted, zeit.body.accepted], [2, 1]);
    const rows = await stored('vercel');
    assert.equal(rows.length, 3);
    assert.equal(rows[0]!.timestamp, 1763632800123000);
    assert.match(rows[0]!.event_message, /^edge \| 200 \| app\.vercel\.app \| \/api \| 1\.2\.3\.4 \| /);
  });

  test('/logs/cloudflare: worker batch with source in the body, and Logpush NDJSON gzip', async () => {
    const source = await createSource('cloudflare');
    const worker = await server.request('POST', '/logs/cloudflare', {
      body: { source, batch: [{ ...sample('cloudflare.logs.prod'), id: 'cf1' }] },
    });
    const logpush = [
      JSON.stringify({ ClientRequestMethod: 'GET', EdgeResponseStatus: 200, ClientRequestHost: 'a.test', ClientRequestURI: '/x', EdgeStartTimestamp: '2026-11-20T10:00:00Z' }),
      JSON.stringify({ ClientRequestMethod: 'POST', EdgeResponseStatus: 500, ClientRequestHost: 'a.test', ClientRequestURI: '/y', EdgeStartTimestamp: '2026-11-20T10:00:02Z' }),
    ].join('\n');
    const push = await server.request('POST', `/logs/cloudflare?source=${source}`, {
      body: gzipSync(logpush),
      headers: { 'content-type': 'text/plain', 'content-encoding': 'gzip' },
    });
    assert.deepEqual([worker.status, worker.body.accepted, push.status, push.body.accepted], [200, 1, 200, 2]);
    assert.equal((await stored('cloudflare')).length, 3);
  });
});

describe('schema', () => {
  test('types widen instead of losing data, and the schema endpoint shows them', async () => {
    const source = await createSource('drift');
    await server.request('POST', `/logs?source=${source}`, { body: { message: 'n', metadata: { value: 1, shape: 'text' } } });
    await server.request('POST', `/logs?source=${source}`, { body: { message: 'f', metadata: { value: 1.5 } } });
    await server.request('POST', `/logs?source=${source}`, { body: { message: 's', metadata: { value: 'many', shape: { nested: true } } } });
    const schema = await server.request('GET', `/api/sources/${source}/schema`);
    assert.equal(schema.status, 200);
    assert.equal(schema.body.metadata.type, 'RECORD');
    assert.equal(schema.body.metadata.fields.value.type, 'STRING');
    assert.equal(schema.body.metadata.fields.shape.type, 'STRING');
    const values = (await stored('drift')).map((row) => row.metadata[0].value);
    // "1.0" when 1 was stored as a float before the column became a string, "1" when all three
    // were folded into the same commit (or ClickHouse wrote the float): the number is kept either way.
    assert.deepEqual(values.slice(1), ['1.5', 'many']);
    assert.equal(Number(values[0]), 1);
    const shapes = (await stored('drift')).map((row) => row.metadata[0].shape ?? null);
    assert.deepEqual(shapes, ['text', null, '{"nested":true}']);
  });
});
