/**
 * Limits that protect the server and the warehouse: slow clients, oversize bodies however they
 * arrive, and the per-event limits (nesting depth, fields per source, key length, event size).
 */
import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { MAX_KEY_BYTES, DEFAULT_NORMALIZE_LIMITS } from '../../src/pipeline/normalize.ts';
import { PRIVATE_KEY, startTestServer, type TestServer } from '../support/server.ts';
import { openSocket, send, sleep } from './support.ts';

const MAX_BODY = 64 * 1024;
let server: TestServer;
let source: string;
/** Default limits, for the per-event ones. */
let roomy: TestServer;
let roomySource: string;

before(async () => {
  server = await startTestServer({ headersTimeoutMs: 1000, requestTimeoutMs: 2500, maxBodyBytes: MAX_BODY, maxFieldsPerSource: 12 });
  source = (await server.request('POST', '/api/sources', { body: { name: 'limits' } })).body.token;
  roomy = await startTestServer();
  roomySource = (await roomy.request('POST', '/api/sources', { body: { name: 'roomy' } })).body.token;
});
after(() => Promise.all([server.stop({ removeData: true }), roomy.stop({ removeData: true })]));

/** Resolves when the server closes the socket: how long it took and what it said first. */
function whenClosed(socket: Socket, startedAt: number): Promise<{ afterMs: number; said: string }> {
  let said = '';
  socket.on('data', (chunk) => (said += chunk.toString('latin1')));
  socket.on('error', () => undefined);
  return new Promise((resolve) => socket.once('close', () => resolve({ afterMs: Date.now() - startedAt, said })));
}

function trickle(socket: Socket, text: string, everyMs: number): NodeJS.Timeout {
  return setInterval(() => {
    if (!socket.destroyed) socket.write(text);
  }, everyMs);
}

describe('slow clients', () => {
  test('connections trickling headers or bodies, or saying nothing, are cut off while others are served', async () => {
    const startedAt = Date.now();
    const timers: NodeJS.Timeout[] = [];
    const closings: Array<Promise<{ afterMs: number; said: string }>> = [];
    const headerTricklers = await Promise.all(Array.from({ length: 20 }, () => openSocket(server.url)));
    for (const socket of headerTricklers) {
      closings.push(whenClosed(socket, startedAt));
      socket.write(`POST /logs?source=${source} HTTP/1.1\r\nHost: 127.0.0.1\r\n`);
      timers.push(trickle(socket, 'X-Slow: a\r\n', 150));
    }
    const silent = await openSocket(server.url);
    const silentClosed = whenClosed(silent, startedAt);
    const bodyTrickler = await openSocket(server.url);
    const bodyClosed = whenClosed(bodyTrickler, startedAt);
    bodyTrickler.write(
      `POST /logs?source=${source} HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: ${PRIVATE_KEY}\r\ncontent-type: application/json\r\ncontent-length: 10000\r\n\r\n[`,
    );
    timers.push(trickle(bodyTrickler, ' ', 100));

    // Meanwhile, ordinary clients are answered promptly.
    const latencies: number[] = [];
    for (let i = 0; Date.now() - startedAt < 3000; i++) {
      const sentAt = Date.now();
      const health = await server.request('GET', '/health', { key: null });
      const ingest = await server.request('POST', `/logs?source=${source}`, { body: { message: `served while slow clients wait ${i}` } });
      assert.deepEqual([health.status, ingest.status], [200, 200]);
      latencies.push(Date.now() - sentAt);
      await sleep(100);
    }
    assert.ok(Math.max(...latencies) < 1000, `slowest ordinary request took ${Math.max(...latencies)} ms`);

    const headerResults = await Promise.all(closings);
    for (const { afterMs, said } of headerResults) {
      assert.ok(afterMs >= 900 && afterMs < 2500, `header trickler cut off after ${afterMs} ms`);
      assert.match(said, /^HTTP\/1\.1 408 /);
    }
    const silentResult = await silentClosed;
    assert.ok(silentResult.afterMs < 2500, `silent connection cut off after ${silentResult.afterMs} ms`);
    const bodyResult = await bodyClosed;
    assert.ok(bodyResult.afterMs >= 2400 && bodyResult.afterMs < 4500, `body trickler cut off after ${bodyResult.afterMs} ms`);
    assert.match(bodyResult.said, /^HTTP\/1\.1 408 /);
    for (const timer of timers) clearInterval(timer);
  });
});

describe('bodies over the limit', () => {
  const head = (extra: string) =>
    `POST /logs?source=${source} HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: ${PRIVATE_KEY}\r\ncontent-type: application/json\r\n${extra}\r\n`;

  test('413 before reading when Content-Length says so: the answer comes without a byte of body', async () => {
    const socket = await openSocket(server.url);
    const closed = whenClosed(socket, Date.now());
    socket.write(head(`content-length: ${100 * 1024 * 1024}\r\n`));
    const { afterMs, said } = await closed;
    assert.match(said, /^HTTP\/1\.1 413 /);
    assert.match(said, /"code":"payload_too_large"/);
    assert.ok(afterMs < 1000, `answered after ${afterMs} ms`);
  });

  test('413 while streaming a chunked body: cut off soon after the limit, not at the end', async () => {
    // The server may reset the connection while our chunks are still arriving, and a reset can
    // discard its 413 before we read it; so a few attempts, each of which must be cut off early.
    const attempt = async () => {
      const socket = await openSocket(server.url);
      const closed = whenClosed(socket, Date.now());
      let answered = false;
      socket.once('data', () => (answered = true));
      socket.write(head('transfer-encoding: chunked\r\n'));
      const chunk = Buffer.alloc(16 * 1024, 0x20);
      let sent = 0;
      // Up to 100 times the limit; the server must answer long before.
      for (let i = 0; i < 400 && !answered && !socket.destroyed; i++) {
        socket.write(`${chunk.length.toString(16)}\r\n`);
        socket.write(chunk);
        socket.write('\r\n');
        sent += chunk.length;
        await sleep(2);
      }
      const { said } = await closed;
      assert.ok(sent < 20 * MAX_BODY, `the server let ${sent} bytes in before answering`);
      return said;
    };
    const answers: string[] = [];
    for (let i = 0; i < 3 && !answers.some((said) => said !== ''); i++) answers.push(await attempt());
    assert.match(answers.find((said) => said !== '') ?? '', /^HTTP\/1\.1 413 /);
  });

  test('a gzip bomb sent chunked is cut off at the same limit', async () => {
    const bomb = gzipSync(JSON.stringify({ message: 'z'.repeat(50 * MAX_BODY) }));
    assert.ok(bomb.length < MAX_BODY);
    const reply = await send(server.url, 'POST', `/logs?source=${source}`, {
      'x-api-key': PRIVATE_KEY,
      'content-type': 'application/json',
      'content-encoding': 'gzip',
      'transfer-encoding': 'chunked',
    }, bomb);
    assert.equal(reply.status, 413);
    assert.equal(reply.json.error.code, 'payload_too_large');
  });
});

describe('per-event limits', () => {
  const stored = async (where: string): Promise<any[]> => {
    const { warehouse } = roomy.services;
    return warehouse.query(`select * from ${warehouse.relation(roomySource)} where ${where}`, {}, { timeoutMs: 5000, maxRows: 100 });
  };

  test('fields past the per-source limit are kept in _overflow, keyed by path, not dropped', async () => {
    const fresh = (await server.request('POST', '/api/sources', { body: { name: 'wide' } })).body.token;
    const { warehouse } = server.services;
    const event = {
      message: 'wide',
      metadata: Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`known_${i}`, i])),
      extra: { nested: { deeper: 'kept' }, list: [1, 2] },
      more: 'text',
    };
    const reply = await server.request('POST', `/logs?source=${fresh}`, { body: event });
    assert.equal(reply.status, 200);
    const rows = await warehouse.query(`select * from ${warehouse.relation(fresh)}`, {}, { timeoutMs: 5000, maxRows: 10 });
    const schemaFields = (await server.request('GET', `/api/sources/${fresh}/schema`)).body;
    const count = (fields: Record<string, any>): number => Object.values(fields).reduce((n, field) => n + 1 + (field.fields ? count(field.fields) : 0), 0);
    const { id: _id, timestamp: _ts, event_message: _message, _overflow, ...own } = schemaFields;
    assert.ok(count(own) <= 12, `${count(own)} fields stored as columns`);
    assert.equal(_overflow.type, 'STRING');
    const row: any = rows[0];
    const overflow = JSON.parse(row._overflow);
    // Whatever did not fit is in the overflow, whole: together they hold the event.
    const metadata = row.metadata[0];
    for (let i = 0; i < 8; i++) assert.equal(metadata[`known_${i}`] ?? overflow[`metadata.known_${i}`], i);
    const extra = row.extra?.[0];
    assert.equal(extra?.nested?.[0]?.deeper ?? overflow['extra.nested.deeper'] ?? overflow['extra.nested']?.deeper ?? overflow.extra?.nested?.deeper, 'kept');
    assert.equal(row.more ?? overflow.more, 'text');
    assert.ok(Object.keys(overflow).length > 0);
  });

  test('a chain of records deeper than the field budget is stored: no record is left without fields', async () => {
    const fresh = (await server.request('POST', '/api/sources', { body: { name: 'chain' } })).body.token;
    let chain: unknown = 'end';
    for (let i = 0; i < 15; i++) chain = { [`level_${i}`]: chain };
    const reply = await server.request('POST', `/logs?source=${fresh}`, { body: { message: 'chain', metadata: chain } });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    const { warehouse } = server.services;
    const [row]: any[] = await warehouse.query(`select * from ${warehouse.relation(fresh)}`, {}, { timeoutMs: 5000, maxRows: 1 });
    // Records without a leaf are no use as columns, so the chain that does not fit stays whole.
    assert.deepEqual(JSON.parse(row._overflow), { metadata: chain });
  });

  test('a value that would turn a record column into text goes to _overflow; stored events keep their shape', async () => {
    const fresh = (await server.request('POST', '/api/sources', { body: { name: 'shapes' } })).body.token;
    const { warehouse } = server.services;
    await server.request('POST', `/logs?source=${fresh}`, { body: { message: 'first', metadata: { request: { path: '/a' }, tags: ['x'] } } });
    const clash = await server.request('POST', `/logs?source=${fresh}`, { body: { message: 'second', metadata: { request: 'GET /b', tags: { not: 'a list' } } } });
    assert.equal(clash.status, 200);
    const rows: any[] = await warehouse.query(`select event_message, metadata, _overflow from ${warehouse.relation(fresh)} order by event_message`, {}, { timeoutMs: 5000, maxRows: 10 });
    assert.deepEqual(rows[0]!.metadata, [{ request: [{ path: '/a' }], tags: ['x'] }], 'the first event is untouched');
    assert.deepEqual(JSON.parse(rows[1]!._overflow), { 'metadata.request': 'GET /b', 'metadata.tags': { not: 'a list' } });
    const schema = (await server.request('GET', `/api/sources/${fresh}/schema`)).body;
    assert.equal(schema.metadata.fields.request.type, 'RECORD');
  });

  test('a key of the event itself named _overflow is kept under another name', async () => {
    const reply = await roomy.request('POST', `/logs?source=${roomySource}`, { body: { message: 'own overflow', _overflow: 'mine' } });
    assert.equal(reply.status, 200);
    const [row] = await stored(`event_message = 'own overflow'`);
    assert.equal(row!._overflow_2, 'mine');
  });

  test('nesting deeper than the limit is kept as JSON text at that depth', async () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < DEFAULT_NORMALIZE_LIMITS.maxDepth + 5; i++) deep = { d: deep };
    const reply = await roomy.request('POST', `/logs?source=${roomySource}`, { body: { message: 'deep', metadata: deep } });
    assert.equal(reply.status, 200);
    const [row] = await stored(`event_message = 'deep'`);
    let level: any = row!.metadata;
    let depth = 1;
    while (Array.isArray(level) && typeof level[0]?.d !== 'string') {
      level = level[0].d;
      depth++;
    }
    assert.ok(depth <= DEFAULT_NORMALIZE_LIMITS.maxDepth + 1, `typed to depth ${depth}`);
    assert.match(level[0].d, /"d":\{"d":/);
    assert.match(level[0].d, /"bottom"/);
  });

  test(`keys are cut to ${MAX_KEY_BYTES} bytes; an event over the size limit is refused with 400`, async () => {
    const longKey = 'k'.repeat(500);
    const reply = await roomy.request('POST', `/logs?source=${roomySource}`, { body: { message: 'long key', [longKey]: 1 } });
    assert.equal(reply.status, 200);
    const [row] = await stored(`event_message = 'long key'`);
    assert.equal(row['k'.repeat(MAX_KEY_BYTES)], 1);
    const tooBig = await roomy.request('POST', `/logs?source=${roomySource}`, { body: { message: 'x'.repeat(DEFAULT_NORMALIZE_LIMITS.maxEventBytes + 10) } });
    assert.equal(tooBig.status, 400);
    assert.match(tooBig.body.error.message, /larger than the limit/);
    const wide = await roomy.request('POST', `/logs?source=${roomySource}`, {
      body: { message: 'wide top', ...Object.fromEntries(Array.from({ length: DEFAULT_NORMALIZE_LIMITS.maxKeysPerObject + 1 }, (_, i) => [`top_${i}`, i])) },
    });
    assert.equal(wide.status, 400, 'an event with more top-level fields than an object may have is refused');
  });
});
