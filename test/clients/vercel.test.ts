/**
 * Vercel log drains to `/logs/vercel` (and the legacy `/logs/zeit`), key and source in the drain
 * URL. Vercel POSTs batches as a JSON array (`json` drains) or one entry per line (`ndjson`
 * drains, Content-Type application/x-ndjson); entries carry `id`, `message`, `timestamp` (ms),
 * `source` (build, static, external, lambda, edge, ...), project and deployment ids, and for
 * requests a `proxy` object whose `userAgent` is a list.
 *
 * Verification: Vercel shows a code when a drain is added and checks that the drain URL answers
 * with `x-vercel-verify: <code>`; the code is put in the URL as `vercel_verify=`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { INGEST_KEY, startTestServer, type TestServer } from '../support/server.ts';
import { createSource, only, storedRows } from './helpers.ts';

let server: TestServer;

before(async () => {
  server = await startTestServer();
});
after(() => server.stop({ removeData: true }));

const deployment = { projectId: 'prj_3Fq9XbVZ1kQm8aT', deploymentId: 'dpl_7Hc2LwP4sYd9', host: 'shop-git-main-acme.vercel.app' };

const entries = [
  {
    id: '1763632800123001',
    message: 'START RequestId: 643af4e3 Version: $LATEST\nEND RequestId: 643af4e3\nREPORT RequestId: 643af4e3 Duration: 16.44 ms Billed Duration: 17 ms Memory Size: 1024 MB Max Memory Used: 78 MB',
    timestamp: 1763632800123,
    type: 'stdout',
    source: 'lambda',
    ...deployment,
    path: 'api/checkout.js',
    requestId: 'fra1::abc12-1763632800100',
    statusCode: 200,
  },
  {
    id: '1763632800456002',
    message: '',
    timestamp: 1763632800456,
    type: 'stdout',
    source: 'static',
    ...deployment,
    proxy: {
      timestamp: 1763632800450,
      method: 'GET',
      scheme: 'https',
      host: 'shop.example.com',
      path: '/favicon.ico',
      userAgent: ['Mozilla/5.0 (Macintosh)', 'Safari/605.1.15'],
      referer: 'https://shop.example.com/',
      statusCode: 304,
      clientIp: '198.51.100.7',
      region: 'fra1',
      cacheId: 'pdx1::v8hkv-1763632800450',
      vercelCache: 'HIT',
    },
  },
  { id: '1763632800789003', message: 'Build completed in 41s', timestamp: 1763632800789, type: 'stdout', source: 'build', ...deployment, buildId: 'bld_9sd8f7' },
];

describe('Vercel log drain deliveries', () => {
  test('json drain: a JSON array including lambda output, static requests and build lines', async () => {
    const token = await createSource(server, 'vercel.json');
    const reply = await server.request('POST', `/logs/vercel?api_key=${INGEST_KEY}&source=${token}`, {
      key: null,
      body: JSON.stringify(entries),
      headers: { 'content-type': 'application/json', 'x-vercel-signature': 'f'.repeat(40) },
    });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    assert.equal(reply.body.accepted, 3);

    const [lambda, staticFile, build] = (await storedRows(server, token)) as [Record<string, any>, Record<string, any>, Record<string, any>];
    assert.equal(lambda.timestamp, 1763632800123000);
    assert.match(lambda.event_message, /^lambda \| START RequestId: 643af4e3/);
    assert.equal(only(lambda.metadata).statusCode, 200);
    assert.equal(only(lambda.metadata).requestId, 'fra1::abc12-1763632800100');
    assert.equal(staticFile.event_message, 'static | 304 | shop.example.com | /favicon.ico | 198.51.100.7 | Mozilla/5.0 (Macintosh),Safari/605.1.15');
    assert.equal(only(only(staticFile.metadata).proxy).vercelCache, 'HIT');
    assert.equal(build.event_message, 'build | Build completed in 41s');
    assert.equal(only(build.metadata).deploymentId, 'dpl_7Hc2LwP4sYd9');
  });

  test('ndjson drain, to the legacy /logs/zeit path', async () => {
    const token = await createSource(server, 'vercel.ndjson');
    const reply = await server.request('POST', `/logs/zeit?api_key=${INGEST_KEY}&source=${token}`, {
      key: null,
      body: entries.map((entry) => JSON.stringify(entry)).join('\n'),
      headers: { 'content-type': 'application/x-ndjson' },
    });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    assert.deepEqual((await storedRows(server, token)).map((row) => only(row.metadata).source), ['lambda', 'static', 'build']);
  });
});

describe('Vercel drain verification (x-vercel-verify)', () => {
  const code = '6ebf4087434daf8193f187d0e12a2810098cdf2e';

  test('GET and HEAD on the drain URL answer 200 with the code, storing nothing', async () => {
    const token = await createSource(server, 'vercel.verify');
    const url = `${server.url}/logs/vercel?api_key=${INGEST_KEY}&source=${token}&vercel_verify=${code}`;
    for (const method of ['GET', 'HEAD']) {
      const reply = await fetch(url, { method });
      assert.equal(reply.status, 200, method);
      assert.equal(reply.headers.get('x-vercel-verify'), code, method);
    }
    const zeit = await fetch(`${server.url}/api/logs/zeit?api_key=${INGEST_KEY}&source=${token}&vercel_verify=${code}`);
    assert.equal(zeit.headers.get('x-vercel-verify'), code);
    assert.equal((await storedRows(server, token)).length, 0);
  });

  test('deliveries to a drain URL with the code carry the header too', async () => {
    const token = await createSource(server, 'vercel.verify.post');
    const reply = await fetch(`${server.url}/logs/vercel?api_key=${INGEST_KEY}&source=${token}&vercel_verify=${code}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(entries.slice(0, 1)),
    });
    assert.equal(reply.status, 200);
    assert.equal(reply.headers.get('x-vercel-verify'), code);
  });

  test('no code for a wrong key, an unknown source, or a code that is not one', async () => {
    const token = await createSource(server, 'vercel.verify.denied');
    const wrongKey = await fetch(`${server.url}/logs/vercel?api_key=nope&source=${token}&vercel_verify=${code}`);
    assert.equal(wrongKey.status, 401);
    assert.equal(wrongKey.headers.get('x-vercel-verify'), null);
    const unknownSource = await fetch(`${server.url}/logs/vercel?api_key=${INGEST_KEY}&source=00000000-0000-4000-8000-000000000000&vercel_verify=${code}`);
    assert.equal(unknownSource.status, 404);
    assert.equal(unknownSource.headers.get('x-vercel-verify'), null);
    const missing = await fetch(`${server.url}/logs/vercel?api_key=${INGEST_KEY}&source=${token}`);
    assert.equal(missing.status, 400);
    assert.match((await missing.json()).error.message, /vercel_verify/);
    const injected = await fetch(`${server.url}/logs/vercel?api_key=${INGEST_KEY}&source=${token}&vercel_verify=${encodeURIComponent('a\r\nset-cookie: x')}`);
    assert.equal(injected.status, 400);
    assert.equal(injected.headers.get('set-cookie'), null);
  });
});
