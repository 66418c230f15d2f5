/**
 * pino-logflare and logflare-transport-core, unmodified, pointed at Sawmill by `apiBaseUrl`.
 *
 * What they send (read from their source in node_modules): logflare-transport-core's HttpClient
 * POSTs `{"batch": [event, ...]}` as application/json to `/logs?source=<token>` or
 * `/logs?source_name=<name>` with `X-API-Key`, and parses every reply as JSON. pino-logflare turns
 * each pino line into `{message: msg (or the level name), timestamp: time in ms, metadata: {...the
 * line's own fields, context: {host, pid}, level: "debug"|"info"|"warning"|"error"|"critical"}}`;
 * its browser mode sends `{log_entry, metadata, timestamp}` instead.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { HttpClient, type NetworkError } from 'logflare-transport-core';
import pino from 'pino';
import pinoLogflare from 'pino-logflare';
import { INGEST_KEY, startTestServer, type TestServer } from '../support/server.ts';
import { createSource, only, storedRows, waitForRows } from './helpers.ts';

let server: TestServer;

before(async () => {
  server = await startTestServer();
});
after(() => server.stop({ removeData: true }));

describe('pino-logflare as a pino transport (worker thread, batched)', () => {
  test("a Node app's lines land with their message, fields, level and time", async () => {
    const token = await createSource(server, 'pino.app');
    const transport = pino.transport({
      target: 'pino-logflare',
      options: { apiKey: INGEST_KEY, sourceToken: token, apiBaseUrl: server.url, batchSize: 100, batchTimeout: 50 },
    });
    const logger = pino({ level: 'trace' }, transport);
    const before = Date.now();
    logger.trace('tracing');
    logger.debug({ cache: { hit: false } }, 'cache miss');
    logger.info({ user: { id: 7, plan: 'pro' }, route: '/checkout' }, 'order placed');
    logger.warn('low stock');
    logger.error(new Error('card declined'), 'payment failed');
    logger.child({ requestId: 'req-1' }).fatal('giving up');

    const rows = await waitForRows(server, token, 6);
    await new Promise<void>((resolve) => {
      transport.once('close', () => resolve());
      transport.end();
    });
    assert.equal(rows.length, 6, JSON.stringify(rows.map((row) => row.event_message)));
    const byMessage = new Map(rows.map((row) => [row.event_message as string, row]));
    const levels = Object.fromEntries(rows.map((row) => [row.event_message, only(row.metadata).level]));
    assert.deepEqual(levels, {
      tracing: 'debug',
      'cache miss': 'debug',
      'order placed': 'info',
      'low stock': 'warning',
      'payment failed': 'error',
      'giving up': 'critical',
    });

    const placed = only(byMessage.get('order placed')!.metadata);
    assert.deepEqual(only(placed.user), { id: 7, plan: 'pro' });
    assert.equal(placed.route, '/checkout');
    const context = only(placed.context);
    assert.equal(context.host, hostname());
    assert.equal(context.pid, process.pid);

    const failed = only(byMessage.get('payment failed')!.metadata);
    assert.equal(only(failed.err).message, 'card declined');
    assert.match(only(failed.err).stack, /Error: card declined/);
    assert.equal(only(byMessage.get('giving up')!.metadata).requestId, 'req-1');

    // pino's `time` (ms) becomes the event time.
    for (const row of rows) assert.ok(row.timestamp >= before * 1000 && row.timestamp <= Date.now() * 1000, `time of ${row.event_message}`);
  });

  test('the in-process stream (createWriteStream) sends the same batches', async () => {
    const token = await createSource(server, 'pino.stream');
    const stream = pinoLogflare.createWriteStream({ apiKey: INGEST_KEY, sourceToken: token, apiBaseUrl: server.url, size: 2 });
    const logger = pino({ level: 'info' }, stream);
    logger.info({ job: 'nightly' }, 'job started');
    logger.info({ job: 'nightly', took_ms: 420 }, 'job finished');
    const rows = await waitForRows(server, token, 2);
    assert.deepEqual(rows.map((row) => row.event_message).sort(), ['job finished', 'job started']);
    assert.equal(only(rows.find((row) => row.event_message === 'job finished')!.metadata).took_ms, 420);
  });

  test("browser mode's transmit sends log_entry events", async () => {
    const token = await createSource(server, 'pino.browser');
    // pino's browser build, as bundlers pick it; it runs in Node too.
    const pinoBrowser = createRequire(import.meta.url)('pino/browser.js') as typeof pino;
    const send = pinoLogflare.createPinoBrowserSend({ apiKey: INGEST_KEY, sourceToken: token, apiBaseUrl: server.url });
    const logger = pinoBrowser({ browser: { write: () => {}, transmit: { level: 'info', send } } });
    logger.child({ page: '/cart' }).warn({ items: 2 }, 'cart abandoned');
    const [row] = await waitForRows(server, token, 1);
    assert.equal(row?.event_message, 'cart abandoned');
    const metadata = only(row?.metadata);
    assert.deepEqual([metadata.level, metadata.browser, metadata.page, metadata.items], ['warning', true, '/cart', 2]);
  });
});

/**
 * Runs `code` as an app's own process (in the repository, so it finds pino and pino-logflare),
 * which logs and exits as apps do, and returns how many times each line `n` was stored.
 */
async function storedPerLine(token: string, code: string, lines: number): Promise<number[]> {
  const artifacts = fileURLToPath(new URL('../../test-artifacts/', import.meta.url));
  await mkdir(artifacts, { recursive: true });
  const dir = await mkdtemp(join(artifacts, 'pino-app-'));
  try {
    await writeFile(join(dir, 'app.mjs'), code);
    await promisify(execFile)(process.execPath, [join(dir, 'app.mjs')], { cwd: dir, timeout: 20_000 });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  await waitForRows(server, token, lines);
  // A second post may still be on its way when the process has exited.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const counts = Array.from({ length: lines }, () => 0);
  for (const row of await storedRows(server, token)) {
    const line: number = only(row.metadata).n;
    counts[line] = (counts[line] ?? 0) + 1;
  }
  return counts;
}

describe('an app that logs and exits', () => {
  const logLines = (lines: number) => `for (let n = 0; n < ${lines}; n++) logger.info({ n }, 'line');\n`;

  test('the in-process stream (the console snippet and docs/clients.md) stores each line once', async () => {
    const token = await createSource(server, 'pino.exits.stream');
    const options = JSON.stringify({ apiKey: INGEST_KEY, sourceToken: token, apiBaseUrl: server.url });
    const app = `import pino from 'pino';\nimport { createWriteStream } from 'pino-logflare';\nconst logger = pino(createWriteStream(${options}));\n${logLines(5)}`;
    assert.deepEqual(await storedPerLine(token, app, 5), [1, 1, 1, 1, 1]);
  });

  test('pino.transport posts the lines it still holds at exit twice (why the docs do not use it)', async () => {
    const token = await createSource(server, 'pino.exits.transport');
    const options = JSON.stringify({ apiKey: INGEST_KEY, sourceToken: token, apiBaseUrl: server.url });
    const app = `import pino from 'pino';\nconst logger = pino(pino.transport({ target: 'pino-logflare', options: ${options} }));\n${logLines(3)}`;
    // pino-logflare 0.5.2: at the end of its input the transport sends its batch, and the stream's
    // close sends the same batch again before the first send has emptied it.
    assert.deepEqual(await storedPerLine(token, app, 3), [2, 2, 2]);
  });
});

describe('logflare-transport-core HttpClient directly', () => {
  test('with sourceName: POST /logs?source_name=<name>, reply parsed as JSON', async () => {
    const token = await createSource(server, 'core.by-name');
    const client = new HttpClient({ apiKey: INGEST_KEY, sourceName: 'core.by-name', apiBaseUrl: server.url });
    const reply = await client.postLogEvents([
      { message: 'first', metadata: { attempt: 1 } },
      { message: 'second', metadata: { attempt: 2 }, timestamp: '2026-01-02T03:04:05.678Z' },
    ]);
    assert.deepEqual(reply, { message: 'Logged!', accepted: 2, rejected: 0 });
    const rows = await storedRows(server, token);
    const second = rows.find((row) => row.event_message === 'second');
    assert.equal(second?.timestamp, Date.parse('2026-01-02T03:04:05.678Z') * 1000);
    assert.equal(only(second?.metadata).attempt, 2);
  });

  test('with sourceToken: POST /logs?source=<uuid>', async () => {
    const token = await createSource(server, 'core.by-token');
    const client = new HttpClient({ apiKey: INGEST_KEY, sourceToken: token, apiBaseUrl: server.url });
    assert.deepEqual(await client.postLogEvents([{ message: 'by token' }]), { message: 'Logged!', accepted: 1, rejected: 0 });
    assert.deepEqual((await storedRows(server, token)).map((row) => row.event_message), ['by token']);
  });

  test('an error reply is JSON the client can parse and hand to onError', async () => {
    const failures: Array<{ batch: object[]; error: Error }> = [];
    const client = new HttpClient({
      apiKey: INGEST_KEY,
      sourceName: 'no.such.source',
      apiBaseUrl: server.url,
      onError: (payload, error) => failures.push({ batch: payload.batch, error }),
    });
    const result = await client.postLogEvents([{ message: 'lost' }]);
    // The library is compiled to ES5, where `instanceof` an Error subclass fails; its name is reliable.
    const failure = result as NetworkError;
    assert.equal(failure.name, 'NetworkError', `got ${String(result)}`);
    assert.equal(failure.response.status, 404);
    assert.equal((failure.data as { error: { code: string } }).error.code, 'source_not_found');
    assert.equal(failures.length, 1);
    assert.deepEqual(failures[0]!.batch, [{ message: 'lost' }]);
  });
});
