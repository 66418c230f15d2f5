/**
 * Cloudflare, two senders on `/logs/cloudflare`:
 * - Logflare's worker template: `fetch(".../logs/cloudflare", {method: "POST", headers:
 *   {"X-API-KEY": key, "Content-Type": "application/json", "User-Agent": "Cloudflare Worker via <host>"},
 *   body: JSON.stringify({batch: [...], source: sourceKey})})`, each element a Logflare event with
 *   `metadata.request` / `metadata.response` / `metadata.logflare_worker`; older copies send one
 *   event `{source, log_entry, metadata}` instead of a batch.
 * - Logpush's HTTP destination: NDJSON, gzip, Content-Type text/plain, key and source in the URL.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { INGEST_KEY, startTestServer, type TestServer } from '../support/server.ts';
import { createSource, micros, only, storedRows } from './helpers.ts';

let server: TestServer;

before(async () => {
  server = await startTestServer();
});
after(() => server.stop({ removeData: true }));

/** One request as the worker template logs it. */
function workerEvent(path: string, status: number, originTimeMs: number) {
  const url = `https://shop.example.com${path}`;
  return {
    message: `GET | ${status} | 203.0.113.9 | 8b1d0f3e7c2a4d51-LHR | ${url} | Mozilla/5.0`,
    metadata: {
      response: { headers: { 'content-type': 'text/html', 'cf-cache-status': 'HIT' }, origin_time: originTimeMs, status_code: status },
      request: {
        url,
        method: 'GET',
        headers: { 'user-agent': 'Mozilla/5.0', 'cf-ray': '8b1d0f3e7c2a4d51-LHR' },
        cf: { asn: 3209, colo: 'LHR', country: 'GB', tlsVersion: 'TLSv1.3' },
      },
      logflare_worker: { worker_id: 'X4K2QZ' },
    },
  };
}

const workerHeaders = { 'x-api-key': INGEST_KEY, 'content-type': 'application/json', 'user-agent': 'Cloudflare Worker via shop.example.com' };

describe('Logflare worker template', () => {
  test('{"batch": [...], "source": ...} with X-API-KEY', async () => {
    const token = await createSource(server, 'cf.worker');
    const reply = await server.request('POST', '/logs/cloudflare', {
      key: null,
      headers: workerHeaders,
      body: JSON.stringify({ batch: [workerEvent('/', 200, 12), workerEvent('/cart', 404, 30)], source: token }),
    });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    assert.deepEqual(reply.body, { message: 'Logged!', accepted: 2, rejected: 0 });
    const rows = await storedRows(server, token);
    const cart = rows.find((row) => row.event_message.includes('/cart'))!;
    const metadata = only(cart.metadata);
    assert.equal(only(metadata.response).status_code, 404);
    assert.equal(only(only(metadata.request).cf).colo, 'LHR');
    assert.equal(only(metadata.logflare_worker).worker_id, 'X4K2QZ');
    assert.ok(rows.every((row) => row.source === undefined), 'the body source is routing, not data');
  });

  test('the single-event form with log_entry, to /logs and /logs/cloudflare', async () => {
    const token = await createSource(server, 'cf.single');
    const { message, metadata } = workerEvent('/single', 200, 5);
    for (const path of ['/logs', '/logs/cloudflare']) {
      const reply = await server.request('POST', path, { key: null, headers: workerHeaders, body: JSON.stringify({ source: token, log_entry: `${path}: ${message}`, metadata }) });
      assert.equal(reply.status, 200, JSON.stringify(reply.body));
    }
    const rows = await storedRows(server, token);
    assert.deepEqual(rows.map((row) => row.event_message.split(':')[0]).sort(), ['/logs', '/logs/cloudflare']);
    assert.equal(only(only(rows[0]!.metadata).request).method, 'GET');
  });
});

describe('Cloudflare Logpush (HTTP destination)', () => {
  test('gzip NDJSON as text/plain: one event per record, time from EdgeStartTimestamp', async () => {
    const token = await createSource(server, 'cf.logpush');
    const records = [
      { ClientIP: '198.51.100.4', ClientRequestHost: 'shop.example.com', ClientRequestMethod: 'GET', ClientRequestURI: '/', EdgeResponseStatus: 200, EdgeStartTimestamp: '2026-11-20T10:00:00Z', RayID: '8b1d0f3e7c2a4d51' },
      { ClientIP: '198.51.100.5', ClientRequestHost: 'shop.example.com', ClientRequestMethod: 'POST', ClientRequestURI: '/api/cart', EdgeResponseStatus: 502, EdgeStartTimestamp: 1795168801500000000, RayID: '8b1d0f3e7c2a4d52' },
    ];
    const body = gzipSync(records.map((record) => JSON.stringify(record)).join('\n') + '\n');
    const reply = await server.request('POST', `/logs/cloudflare?api_key=${INGEST_KEY}&source=${token}`, {
      key: null,
      body,
      headers: { 'content-type': 'text/plain; charset=utf-8', 'content-encoding': 'gzip', 'user-agent': 'Go-http-client/2.0' },
    });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    assert.equal(reply.body.accepted, 2);
    const [get, post] = (await storedRows(server, token)) as [Record<string, any>, Record<string, any>];
    assert.equal(get.event_message, 'GET | 200 | shop.example.com | /');
    assert.equal(get.timestamp, micros('2026-11-20T10:00:00Z'));
    assert.equal(post.event_message, 'POST | 502 | shop.example.com | /api/cart');
    assert.equal(post.timestamp, micros('2026-11-20T10:00:01.500Z'), 'unix nanoseconds, Logpush’s default timestamp format');
    assert.equal(only(post.metadata).RayID, '8b1d0f3e7c2a4d52');
  });
});
