/**
 * Visibility decoupled from the acknowledgement (docs/reliability.md, "When events can be
 * queried"): under a large backlog a query reads what is folded instead of forcing small folds,
 * `?wait=visible` answers only once the request's events can be queried, and a clean stop leaves
 * no journal behind. Real server on 127.0.0.1, real DuckDB file.
 */
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { READER_WAIT_MAX_EVENTS } from '../../src/pipeline/writer.ts';
import { PRIVATE_KEY, startTestServer, type TestServer } from '../support/server.ts';

/** Nothing folds by itself during these tests: only a reader's barrier or `?wait=visible` can. */
const NO_TIMED_FOLDS = { foldIntervalMs: 120_000, visibilityMs: 120_000 };

async function sourceWithCounter(server: TestServer, name: string): Promise<{ token: string; count: () => Promise<number> }> {
  const token = (await server.request('POST', '/api/sources', { body: { name } })).body.token as string;
  const endpoint = (await server.request('POST', '/api/endpoints', { body: { name: `${name}.count`, query: `select count(*) as n from \`${name}\`` } })).body;
  const count = async () => {
    const reply = await server.request('GET', `/api/endpoints/query/${endpoint.token}`);
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    return Number(reply.body.result[0].n);
  };
  return { token, count };
}

const events = (count: number, label: string) => Array.from({ length: count }, (_, i) => ({ message: `${label} ${i}` }));

test('under a backlog past the reader limit a query does not wait for folds; ?wait=visible does, for everything before it', async () => {
  const server = await startTestServer(NO_TIMED_FOLDS);
  try {
    const { token, count } = await sourceWithCounter(server, 'backlogged');
    // One small request first: with few events waiting, a query still reads its own writes.
    assert.equal((await server.request('POST', `/logs?source=${token}`, { body: events(10, 'first') })).status, 200);
    assert.equal(await count(), 10);

    const backlog = READER_WAIT_MAX_EVENTS + 2_000;
    for (let sent = 0; sent < backlog; sent += 4_000) {
      const reply = await server.request('POST', `/logs?source=${token}`, { body: events(Math.min(4_000, backlog - sent), `bulk ${sent}`) });
      assert.equal(reply.status, 200);
    }
    assert.equal(await count(), 10, 'the query answered from what was folded, without folding the backlog first');

    const waited = await server.request('POST', `/logs?source=${token}&wait=visible`, { body: events(5, 'waited') });
    assert.equal(waited.status, 200);
    assert.equal(waited.body.accepted, 5);
    assert.equal(await count(), 10 + backlog + 5, 'wait=visible answered once its events, and those before them, could be queried');
  } finally {
    await server.stop({ removeData: true });
  }
});

test('wait takes only "visible": anything else is a 400 naming the parameter, and stores nothing', async () => {
  const server = await startTestServer(NO_TIMED_FOLDS);
  try {
    const { token, count } = await sourceWithCounter(server, 'wait.values');
    const reply = await server.request('POST', `/logs?source=${token}&wait=true`, { body: events(3, 'refused') });
    assert.equal(reply.status, 400);
    assert.equal(reply.body.error.code, 'invalid_parameter');
    assert.match(reply.body.error.message, /wait must be "visible"/);
    assert.equal(await count(), 0);
  } finally {
    await server.stop({ removeData: true });
  }
});

test('a clean stop folds everything and leaves no journal file; a restart goes on numbering after it', async () => {
  let server = await startTestServer(NO_TIMED_FOLDS);
  const { dataDir } = server;
  try {
    const { token } = await sourceWithCounter(server, 'stopped.clean');
    for (let round = 0; round < 2; round++) {
      assert.equal((await server.request('POST', `/logs?source=${token}`, { body: events(50, `round ${round}`) })).status, 200);
      await server.stop();
      const left = (await readdir(join(dataDir, 'journal'))).filter((name) => !name.startsWith('rejected'));
      assert.deepEqual(left, [], `round ${round}: nothing is left in the journal after a clean stop`);
      server = await startTestServer({ ...NO_TIMED_FOLDS, dataDir });
      const endpoint = (await server.request('GET', '/api/endpoints')).body.find((e: { name: string }) => e.name === 'stopped.clean.count');
      const counted = await server.request('GET', `/api/endpoints/query/${endpoint.token}`);
      assert.equal(Number(counted.body.result[0].n), 50 * (round + 1), `round ${round}: every event is stored once`);
    }
  } finally {
    await server.stop({ removeData: true });
  }
});

/** Events acknowledged but not yet folded, as /metrics reports them (reading it folds nothing). */
async function waitingEvents(server: TestServer): Promise<number> {
  const reply = await server.request('GET', '/metrics');
  assert.equal(reply.status, 200);
  const match = /^sawmill_queue_events (\d+)$/m.exec(String(reply.body));
  assert.ok(match, 'sawmill_queue_events is in /metrics');
  return Number(match[1]);
}

test('a quiet server waits the fold interval, not the visibility bound, to fold a few events; a query still reads them at once', async () => {
  const server = await startTestServer({ foldIntervalMs: 60_000, visibilityMs: 200 });
  try {
    const { token, count } = await sourceWithCounter(server, 'quiet.folds');
    assert.equal((await server.request('POST', `/logs?source=${token}`, { body: events(10, 'quiet') })).status, 200);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    assert.equal(await waitingEvents(server), 10, 'no fold after 7 visibility bounds: a handful of events waits for company');
    assert.equal(await count(), 10, 'a query folds what was acknowledged before it');
    assert.equal(await waitingEvents(server), 0);
  } finally {
    await server.stop({ removeData: true });
  }
});

/** Folds into the warehouse so far, as /metrics reports them (the series appears with the first). */
async function folds(server: TestServer): Promise<number> {
  const match = /^sawmill_fold_events_count (\d+)$/m.exec(String((await server.request('GET', '/metrics')).body));
  return match ? Number(match[1]) : 0;
}

test('under a sustained rate a server is not quiet, though few events wait: it folds within the visibility bound, not the fold interval', async () => {
  // 500 events a second, far fewer than the reader limit (10,000) ever wait: no query forces a
  // fold, and the 60 s interval is never reached, so only the visibility bound can start one.
  const server = await startTestServer({ foldIntervalMs: 60_000, visibilityMs: 1_000 });
  try {
    const { token } = await sourceWithCounter(server, 'sustained.folds');
    const before = await folds(server);
    const most = READER_WAIT_MAX_EVENTS / 2;
    let sent = 0;
    while (sent < most && (await folds(server)) === before) {
      const reply = await server.request('POST', `/logs?source=${token}`, { body: events(50, `sustained ${sent}`) });
      assert.equal(reply.status, 200);
      sent += 50;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.ok((await folds(server)) > before, `a fold started while the rate held, before ${sent} events waited (they waited for a fold interval of 60 s)`);
    assert.ok(sent < most);
  } finally {
    await server.stop({ removeData: true });
  }
});

test('with a live tail open, a quiet server folds within the visibility bound, so the tail shows events promptly', async () => {
  const server = await startTestServer({ foldIntervalMs: 60_000, visibilityMs: 200 });
  try {
    const { token } = await sourceWithCounter(server, 'quiet.tailed');
    const controller = new AbortController();
    const response = await fetch(`${server.url}/api/sources/${token}/tail`, { headers: { 'x-api-key': PRIVATE_KEY }, signal: controller.signal });
    assert.equal(response.status, 200);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const seen = async (needle: string, ms: number) => {
      const deadline = performance.now() + ms;
      while (!text.includes(needle)) {
        const left = deadline - performance.now();
        if (left <= 0) return false;
        const chunk = await Promise.race([reader.read(), new Promise<undefined>((resolve) => setTimeout(resolve, left))]);
        if (chunk?.value) text += decoder.decode(chunk.value, { stream: true });
      }
      return true;
    };
    assert.ok(await seen('event: ready', 5_000), 'the tail is open');
    assert.equal((await server.request('POST', `/logs?source=${token}`, { body: events(1, 'tailed') })).status, 200);
    assert.ok(await seen('tailed 0', 5_000), 'the tail shows the event well before the 60 s fold interval');
    controller.abort();
  } finally {
    await server.stop({ removeData: true });
  }
});
