/**
 * LogLayer's Logflare transport (`@loglayer/transport-logflare`), written byte for byte from its
 * source rather than installed (four packages for one request shape). What it sends, read from
 * LogflareTransport.ts and the HttpTransport it configures:
 * - `POST <url>/logs/json?source=<sourceId>`, headers `Content-Type: application/json;
 *   charset=utf-8` and `X-API-KEY: <apiKey>`; the HTTP transport adds its own lower-case
 *   `content-type: application/json` beside it, so fetch sends both values joined by a comma;
 * - each line as `{"message": <the messages joined by a space>, "metadata": <the data, when there
 *   is any>}` (the level is not sent);
 * - batched by default (100 lines or 5 s): `{"batch": [line, ...]}` (batchMode "field");
 *   with `enableBatchSend: false` each line alone.
 * Logflare stores that whole envelope as one event; Sawmill stores each line.
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

function logLayerPost(token: string, body: unknown) {
  return fetch(`${server.url}/logs/json?source=${token}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json; charset=utf-8', 'X-API-KEY': INGEST_KEY, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

describe("LogLayer's Logflare transport", () => {
  test('a batch stores each line as its own event', async () => {
    const token = await createSource(server, 'loglayer.app');
    const batch = [
      { message: 'user signed in', metadata: { user: { id: 7 }, route: '/login' } },
      { message: 'cache warmed' },
      { message: 'payment failed card declined', metadata: { err: { name: 'Error', message: 'card declined' } } },
    ];
    const reply = await logLayerPost(token, { batch });
    assert.deepEqual([reply.status, await reply.json()], [200, { message: 'Logged!', accepted: 3, rejected: 0 }]);

    const rows = await storedRows(server, token);
    assert.deepEqual(rows.map((row) => JSON.parse(row.event_message)).sort((a, b) => a.message.localeCompare(b.message)), [batch[1], batch[2], batch[0]]);
    const signedIn = only(rows.find((row) => row.event_message.includes('signed in'))!.metadata);
    assert.equal(signedIn.message, 'user signed in');
    assert.deepEqual(only(only(signedIn.metadata).user), { id: 7 });
  });

  test('with batching off, one line per request is one event', async () => {
    const token = await createSource(server, 'loglayer.unbatched');
    const reply = await logLayerPost(token, { message: 'one line' });
    assert.equal(reply.status, 200);
    const rows = await storedRows(server, token);
    assert.deepEqual(rows.map((row) => only(row.metadata).message), ['one line']);
  });
});
