import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { INGEST_KEY, PRIVATE_KEY, startTestServer, type TestServer } from '../support/server.ts';

/** 30 requests one second apart, ending a minute ago: every 5th a 500 on /rest, the rest 200s alternating paths. */
function requestEvents(endMillis: number) {
  return Array.from({ length: 30 }, (_, i) => {
    const failed = i % 5 === 0;
    const path = failed || i % 2 === 1 ? '/rest/v1/items' : '/auth/v1/token';
    return {
      message: `${failed ? 'request failed' : 'request ok'} #${i}`,
      level: failed ? 'error' : 'info',
      timestamp: new Date(endMillis - (29 - i) * 1000).toISOString(),
      metadata: { request: { path, method: i % 3 === 0 ? 'POST' : 'GET' }, response: { status_code: failed ? 500 : 200 }, attempt: i },
    };
  });
}

const q = (text: string) => encodeURIComponent(text);

/** Read a server-sent-event stream until `until` says stop; returns every `events` payload. */
async function readTail(server: TestServer, path: string, until: (events: any[]) => boolean, key = 'test-private-key-0123456789') {
  const controller = new AbortController();
  const response = await fetch(server.url + path, { headers: { 'x-api-key': key }, signal: controller.signal });
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
  const received: any[] = [];
  let ready!: () => void;
  const isReady = new Promise<void>((resolve) => (ready = resolve));
  const done = (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of response.body!) {
      buffer += decoder.decode(chunk as Uint8Array, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) !== -1) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = /^event: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (event === 'ready') ready();
        if (event === 'events') received.push(...JSON.parse(data!));
        if (until(received)) {
          controller.abort();
          return received;
        }
      }
    }
    return received;
  })().catch((error: Error) => (error.name === 'AbortError' ? received : Promise.reject(error)));
  await isReady;
  return { done, stop: () => controller.abort() };
}

describe('explorer API', () => {
  let server: TestServer;
  let token: string;
  const end = Date.now() - 60_000;

  before(async () => {
    server = await startTestServer();
    const created = await server.request('POST', '/api/sources', { body: { name: 'api.requests' } });
    token = created.body.token;
    const ingested = await server.request('POST', `/logs?source=${token}`, { body: { batch: requestEvents(end) } });
    assert.equal(ingested.status, 200);
  });
  after(() => server.stop({ removeData: true }));

  test('source stats: count, last event time and events committed in the last minute', async () => {
    const { status, body } = await server.request('GET', '/api/explorer/sources');
    assert.equal(status, 200);
    const source = body.find((item: any) => item.token === token);
    assert.deepEqual(
      { name: source.name, events: source.events, last_event: source.last_event, events_last_minute: source.events_last_minute },
      { name: 'api.requests', events: 30, last_event: end * 1000, events_last_minute: 30 },
    );
  });

  test('events come newest first, in pages that neither skip nor repeat', async () => {
    const seen: number[] = [];
    let before: string | null = null;
    let pages = 0;
    do {
      const reply: any = await server.request('GET', `/api/sources/${token}/events?limit=7${before ? `&before=${q(before)}` : ''}`);
      assert.equal(reply.status, 200);
      seen.push(...reply.body.events.map((event: any) => event.metadata[0].attempt));
      before = reply.body.next_before;
      pages++;
    } while (before && pages < 10);
    assert.equal(pages, 5);
    assert.deepEqual(seen, Array.from({ length: 30 }, (_, i) => 29 - i));
  });

  test('a page carries the full event in query-result shape', async () => {
    const { body } = await server.request('GET', `/api/sources/${token}/events?limit=1`);
    const [event] = body.events;
    assert.equal(event.event_message, 'request ok #29');
    assert.equal(event.timestamp, end * 1000);
    assert.deepEqual(event.metadata, [{ request: [{ path: '/rest/v1/items', method: 'GET' }], response: [{ status_code: 200 }], attempt: 29 }]);
  });

  test('LQL filters: text, nested comparisons, regex, equality, ranges, negation', async () => {
    const attempts = async (query: string) => {
      const reply = await server.request('GET', `/api/sources/${token}/events?q=${q(query)}`);
      assert.equal(reply.status, 200, JSON.stringify(reply.body));
      return reply.body.events.map((event: any) => event.metadata[0].attempt);
    };
    assert.deepEqual(await attempts('failed'), [25, 20, 15, 10, 5, 0]);
    assert.deepEqual(await attempts('m.response.status_code:>=500 m.request.path:~"^/rest"'), [25, 20, 15, 10, 5, 0]);
    assert.deepEqual(await attempts('level:error m.request.method:POST'), [15, 0]);
    assert.deepEqual(await attempts('m.attempt:3..6 -failed'), [6, 4, 3]);
    assert.deepEqual(await attempts('m.request.path:"/auth/v1/token"'), [28, 26, 24, 22, 18, 16, 14, 12, 8, 6, 4, 2]);
  });

  test('the time range bounds the events: from inclusive, to exclusive', async () => {
    const from = new Date(end - 4000).toISOString();
    const to = new Date(end - 1000).toISOString();
    const { body } = await server.request('GET', `/api/sources/${token}/events?from=${q(from)}&to=${q(to)}`);
    assert.deepEqual(body.events.map((event: any) => event.metadata[0].attempt), [27, 26, 25]);
  });

  test('values that look like SQL are data, not SQL', async () => {
    for (const hostile of [`x') or 1=1 --`, `' or ''='`, `"; drop table x; --`]) {
      const reply = await server.request('GET', `/api/sources/${token}/events?q=${q(`level:"${hostile.replaceAll('"', '\\"')}"`)}`);
      assert.equal(reply.status, 200);
      assert.deepEqual(reply.body.events, []);
    }
    const stats = await server.request('GET', '/api/explorer/sources');
    assert.equal(stats.body.find((item: any) => item.token === token).events, 30);
  });

  test('bad queries answer 400 with the reason', async () => {
    const unknown = await server.request('GET', `/api/sources/${token}/events?q=${q('m.nope:1')}`);
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.error.code, 'invalid_query');
    assert.match(unknown.body.error.message, /unknown field m\.nope/);
    const cursor = await server.request('GET', `/api/sources/${token}/events?before=nonsense`);
    assert.equal(cursor.status, 400);
    const time = await server.request('GET', `/api/sources/${token}/events?from=yesterday`);
    assert.equal(time.status, 400);
    assert.equal(time.body.error.code, 'invalid_time');
  });

  test('volume counts events per bucket over the whole range, empty buckets included', async () => {
    const from = end - 59_000;
    const { status, body } = await server.request('GET', `/api/sources/${token}/volume?from=${from}&to=${end + 1000}&buckets=6`);
    assert.equal(status, 200);
    assert.equal(body.bucket_seconds, 10);
    assert.equal(body.buckets.reduce((sum: number, bucket: any) => sum + bucket.events, 0), 30);
    assert.equal(body.buckets[0].events, 0);
    const filtered = await server.request('GET', `/api/sources/${token}/volume?from=${from}&to=${end + 1000}&q=${q('level:error')}`);
    assert.equal(filtered.body.buckets.reduce((sum: number, bucket: any) => sum + bucket.events, 0), 6);
  });

  test('a source may be named by its name as well as its token', async () => {
    const { status, body } = await server.request('GET', `/api/sources/${q('api.requests')}/events?limit=1`);
    assert.equal(status, 200);
    assert.equal(body.events.length, 1);
  });

  test('live tail streams newly committed events that pass the filter, in wire shape', async () => {
    const tail = await readTail(server, `/api/sources/${token}/tail?q=${q('m.response.status_code:>=500 m.request.path:~"/rest"')}`, (events) => events.length >= 2);
    await server.request('POST', `/logs?source=${token}`, {
      body: {
        batch: [
          { message: 'tail: auth 500', metadata: { request: { path: '/auth' }, response: { status_code: 500 } } },
          { message: 'tail: rest 503', metadata: { request: { path: '/rest/v1/x' }, response: { status_code: 503 } } },
          { message: 'tail: rest 200', metadata: { request: { path: '/rest/v1/x' }, response: { status_code: 200 } } },
        ],
      },
    });
    await server.request('POST', `/logs?source=${token}`, { body: { message: 'tail: rest 500 again', metadata: { request: { path: '/rest' }, response: { status_code: 500 } } } });
    const events = await tail.done;
    assert.deepEqual(events.map((event) => event.event_message), ['tail: rest 503', 'tail: rest 500 again']);
    assert.deepEqual(events[0].metadata, [{ request: [{ path: '/rest/v1/x' }], response: [{ status_code: 503 }] }]);
    assert.equal(typeof events[0].timestamp, 'number');
  });

  test('live tail refuses a filter that cannot match, as the explorer does', async () => {
    for (const [text, message] of [
      ['m.nope:1', /unknown field m\.nope/],
      ['m.response.status_code:abc', /holds numbers/],
      ['level:error or', /write OR in capitals/],
    ] as const) {
      // Read the body only once refused: an accepted tail never ends.
      const controller = new AbortController();
      const reply = await fetch(`${server.url}/api/sources/${token}/tail?q=${q(text)}`, { headers: { 'x-api-key': PRIVATE_KEY }, signal: controller.signal });
      if (reply.status !== 400) controller.abort();
      assert.equal(reply.status, 400, text);
      const { error } = await reply.json();
      assert.equal(error.code, 'invalid_query');
      assert.match(error.message, message, text);
    }
  });

  test('a query key may read; an ingest key may not', async () => {
    const created = await server.request('POST', '/api/access-tokens', { body: { scopes: 'query' } });
    const queryKey = created.body.token;
    assert.equal((await server.request('GET', `/api/sources/${token}/events`, { key: queryKey })).status, 200);
    assert.deepEqual((await server.request('GET', '/api/explorer/key', { key: queryKey })).body, { scopes: ['query'], manage: false });
    for (const path of ['/api/explorer/sources', `/api/sources/${token}/events`, `/api/sources/${token}/volume`, `/api/sources/${token}/tail`]) {
      assert.equal((await server.request('GET', path, { key: INGEST_KEY })).status, 403, path);
      assert.equal((await server.request('GET', path, { key: null })).status, 401, path);
    }
  });

  test("another owner's source is not found", async () => {
    assert.equal((await server.request('GET', '/api/sources/00000000-0000-4000-8000-000000000000/events')).status, 404);
  });
});

test('closing the service ends open tails instead of waiting for them', async () => {
  const server = await startTestServer();
  const source = (await server.request('POST', '/api/sources', { body: { name: 'watched' } })).body;
  const tail = await readTail(server, `/api/sources/${source.token}/tail`, () => false);
  const started = Date.now();
  await server.stop({ removeData: true });
  assert.ok(Date.now() - started < 5_000, 'shutdown was held up by the open stream');
  assert.deepEqual(await tail.done, []);
});

test('a caller past its live tails (SAWMILL_CALLER_TAILS) gets a 429 that says so; other keys and its own tails go on', async () => {
  const server = await startTestServer({ callerTails: 2 });
  try {
    const source = (await server.request('POST', '/api/sources', { body: { name: 'watched.often' } })).body;
    const newKey = async () => (await server.request('POST', '/api/access-tokens', { body: { scopes: 'query' } })).body.token as string;
    const [busy, other] = [await newKey(), await newKey()];
    const path = `/api/sources/${source.token}/tail`;
    const busyTails = [await readTail(server, path, (events) => events.length > 0, busy), await readTail(server, path, (events) => events.length > 0, busy)];

    // Read the body only once refused: an accepted tail never ends.
    const controller = new AbortController();
    const refused = await fetch(server.url + path, { headers: { 'x-api-key': busy }, signal: controller.signal });
    if (refused.status !== 429) controller.abort();
    assert.equal(refused.status, 429);
    assert.deepEqual((await refused.json()).error, {
      code: 'too_many_tails',
      message: 'this key has 2 live tails open, the most allowed (SAWMILL_CALLER_TAILS); close one first (a tail ends when its connection closes)',
    });
    // Another key, and the private key, are counted on their own.
    const others = [await readTail(server, path, (events) => events.length > 0, other), await readTail(server, path, (events) => events.length > 0)];
    // The busy key's tails still stream.
    await server.request('POST', `/logs?source=${source.token}`, { body: { message: 'seen by every tail' } });
    for (const tail of [...busyTails, ...others]) assert.deepEqual((await tail.done).map((event) => event.event_message), ['seen by every tail']);

    // Its tails closed (each ended once it had its event), the key may open one again.
    let reopened: number | undefined;
    for (let attempt = 0; attempt < 50 && reopened !== 200; attempt++) {
      const controller = new AbortController();
      reopened = (await fetch(server.url + path, { headers: { 'x-api-key': busy }, signal: controller.signal })).status;
      controller.abort();
      if (reopened !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(reopened, 200);
  } finally {
    await server.stop({ removeData: true });
  }
});
