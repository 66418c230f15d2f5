/**
 * Vector's `http` sink exactly as Supabase's self-hosting vector.yml configures it: `encoding.codec:
 * json` (Vector frames a batch as one JSON array, Content-Type application/json), header
 * `x-api-key: ${LOGFLARE_PUBLIC_ACCESS_TOKEN}`, uri `http://analytics:4000/api/logs?source_name=<name>`.
 * The events are what its remap transforms leave: `event_message`, `timestamp` (RFC 3339 with
 * nanoseconds, Vector's own format), `appname`, `project`, `metadata`.
 *
 * Vector retries 429 and 5xx (except 501) and drops a batch on any other 4xx, so the replies that
 * matter are checked here: overload answers 429 with Retry-After, bad input answers 4xx.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { INGEST_KEY, startTestServer, type TestServer } from '../support/server.ts';
import { micros, only, storedRows } from './helpers.ts';

let server: TestServer;
let tokens: Record<string, string>;

before(async () => {
  server = await startTestServer();
  const sources = (await server.request('GET', '/api/sources')).body as Array<{ name: string; token: string }>;
  tokens = Object.fromEntries(sources.map((source) => [source.name, source.token]));
});
after(() => server.stop({ removeData: true }));

/** A request as Vector's http sink sends it; `key` is LOGFLARE_PUBLIC_ACCESS_TOKEN in Supabase. */
function vectorPost(target: TestServer, sourceName: string, events: unknown[], key = INGEST_KEY) {
  return fetch(`${target.url}/api/logs?source_name=${sourceName}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key, 'user-agent': 'Vector/0.39.0 (x86_64-unknown-linux-musl)' },
    body: JSON.stringify(events),
  });
}

describe("Vector http sink, Supabase's configuration", () => {
  test('auth logs: a JSON array with per-event timestamps lands with each event time', async () => {
    const events = [
      {
        appname: 'supabase-auth',
        event_message: '{"component":"api","level":"info","method":"GET","msg":"request started","path":"/user"}',
        metadata: { component: 'api', level: 'info', method: 'GET', msg: 'request started', path: '/user', timestamp: '2026-11-20T09:59:59Z' },
        project: 'default',
        timestamp: '2026-11-20T10:00:00.123456789Z',
      },
      {
        appname: 'supabase-auth',
        event_message: '{"component":"api","level":"info","msg":"request completed","status":200}',
        metadata: { component: 'api', level: 'info', msg: 'request completed', status: 200 },
        project: 'default',
        timestamp: '2026-11-20T10:00:00.200000Z',
      },
    ];
    const reply = await vectorPost(server, 'gotrue.logs.prod', events);
    assert.equal(reply.status, 200);
    assert.deepEqual(await reply.json(), { message: 'Logged!', accepted: 2, rejected: 0 });

    const rows = await storedRows(server, tokens['gotrue.logs.prod']!, "appname = 'supabase-auth'");
    assert.deepEqual(
      rows.map((row) => row.timestamp),
      [micros('2026-11-20T10:00:00.123Z') + 456, micros('2026-11-20T10:00:00.200Z')],
      'nanosecond RFC 3339 times kept to the microsecond',
    );
    assert.equal(rows[0]!.event_message, events[0]!.event_message);
    assert.equal(rows[0]!.project, 'default', 'top-level fields stay top-level, as Logflare stores them');
    assert.equal(only(rows[0]!.metadata).path, '/user');
    assert.equal(only(rows[1]!.metadata).msg, 'request completed');
  });

  test('kong (edge) logs reach cloudflare.logs.prod with the request and response Studio reads', async () => {
    const event = {
      appname: 'supabase-kong',
      event_message: '172.18.0.1 - - [20/Nov/2026:10:00:00 +0000] "GET /rest/v1/todos HTTP/1.1" 200 37 "-" "curl/8.4.0"',
      metadata: {
        request: { headers: { cf_connecting_ip: '172.18.0.1', referer: '-', user_agent: 'curl/8.4.0' }, method: 'GET', path: '/rest/v1/todos', protocol: 'HTTP/1.1' },
        response: { status_code: 200 },
      },
      project: 'default',
      timestamp: '2026-11-20T10:00:00Z',
    };
    const reply = await vectorPost(server, 'cloudflare.logs.prod', [event]);
    assert.equal(reply.status, 200);
    const [row] = await storedRows(server, tokens['cloudflare.logs.prod']!, "appname = 'supabase-kong'");
    const request = only(only(row!.metadata).request);
    assert.deepEqual([request.method, request.path], ['GET', '/rest/v1/todos']);
    assert.equal(only(only(row!.metadata).response).status_code, 200);
  });

  test('a bad key is a 401 (Vector drops the batch rather than retrying forever)', async () => {
    const reply = await vectorPost(server, 'gotrue.logs.prod', [{ event_message: 'x' }], 'not-the-key');
    assert.equal(reply.status, 401);
    assert.equal((await reply.json()).error.code, 'unauthorized');
  });

  test('an unknown source_name is a 404 with a JSON body', async () => {
    const reply = await vectorPost(server, 'no.such.source', [{ event_message: 'x' }]);
    assert.equal(reply.status, 404);
    assert.equal((await reply.json()).error.code, 'source_not_found');
  });
});

describe('backpressure: replies Vector retries', () => {
  test('a full ingest queue answers 429 with Retry-After, and the retried batch is stored', async () => {
    // One queued event fills the queue; the long commit (fold) interval keeps it queued while the second batch arrives.
    const small = await startTestServer({ maxQueuedEvents: 1, commitIntervalMs: 300, foldIntervalMs: 300 });
    try {
      const sources = (await small.request('GET', '/api/sources')).body as Array<{ name: string; token: string }>;
      const token = sources.find((source) => source.name === 'postgres.logs')!.token;
      const first = vectorPost(small, 'postgres.logs', [{ event_message: 'first', timestamp: '2026-11-20T10:00:00Z' }]);
      await new Promise((resolve) => setTimeout(resolve, 100));
      const second = await vectorPost(small, 'postgres.logs', [{ event_message: 'second', timestamp: '2026-11-20T10:00:01Z' }]);
      assert.equal(second.status, 429);
      assert.equal(second.headers.get('retry-after'), '1');
      assert.equal((await second.json()).error.code, 'queue_full');
      assert.equal((await first).status, 200);

      // What Vector does next: wait Retry-After, send the same batch again.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const retried = await vectorPost(small, 'postgres.logs', [{ event_message: 'second', timestamp: '2026-11-20T10:00:01Z' }]);
      assert.equal(retried.status, 200);
      assert.deepEqual((await storedRows(small, token)).map((row) => row.event_message), ['first', 'second']);
    } finally {
      await small.stop({ removeData: true });
    }
  });
});
