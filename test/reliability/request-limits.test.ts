/**
 * One request under the body limit cannot take the process down: bodies holding millions of
 * tiny events or values are refused with 413 before they are materialised, and the server's RSS
 * stays within a bound meanwhile. Runs the real entry point in its own process.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { AppError } from '../../src/errors.ts';
import { checkJsonText } from '../../src/ingest/request-limits.ts';
import { freePort, spawnServer, stopServer, type ServerProcess } from '../support/process.ts';
import { startTestServer } from '../support/server.ts';
import { rssOf, send, sleep } from './support.ts';

const KEY = 'request-limits-test-key-0123456789';
/** What the server may grow by while decoding one hostile body (docs/reliability.md). */
const ALLOWED_GROWTH_MB = 256;

let server: ServerProcess;
let dataDir: string;
let source: string;

before(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'sawmill-request-limits-'));
  server = await spawnServer({ SAWMILL_DATA_DIR: dataDir, SAWMILL_API_KEY: KEY, SAWMILL_MEMORY_LIMIT: '256MB' }, await freePort());
  const created = await send(server.url, 'POST', '/api/sources', { 'x-api-key': KEY, 'content-type': 'application/json' }, JSON.stringify({ name: 'limits' }));
  source = created.json.token;
});
after(async () => {
  await stopServer(server, 'SIGKILL');
  await rm(dataDir, { recursive: true, force: true });
});

function varint(value: number): number[] {
  const bytes: number[] = [];
  for (; value >= 0x80; value = Math.floor(value / 128)) bytes.push((value % 128) | 0x80);
  bytes.push(value);
  return bytes;
}

/** A length-delimited protobuf field. */
function field(number: number, content: Buffer): Buffer {
  return Buffer.concat([Buffer.from([(number << 3) | 2, ...varint(content.length)]), content]);
}

/** ExportLogsServiceRequest with `count` empty LogRecords in one ScopeLogs: two bytes each. */
function emptyLogRecords(count: number): Buffer {
  const records = Buffer.alloc(count * 2);
  for (let i = 0; i < records.length; i += 2) records[i] = (2 << 3) | 2;
  return field(1, field(2, records));
}

const repeated = (item: string, count: number, open = '[', close = ']') => `${open}${Array.from({ length: count }, () => item).join(',')}${close}`;

test('hostile bodies under the size limit are refused with 413 naming the limit, and RSS stays bounded', async () => {
  const hostile: Array<{ label: string; path: string; type: string; body: () => Buffer | string; code: string }> = [
    { label: 'OTLP protobuf, 6M empty LogRecords (12 MB)', path: '/v1/logs', type: 'application/x-protobuf', body: () => emptyLogRecords(6_000_000), code: 'too_many_events' },
    { label: '[{},{},…] with 1M objects (2.9 MB)', path: '/logs', type: 'application/json', body: () => repeated('{}', 1_000_000), code: 'too_many_events' },
    { label: 'NDJSON, 1M lines of {}', path: '/logs', type: 'application/x-ndjson', body: () => repeated('{}', 1_000_000, '', '').replaceAll(',', '\n'), code: 'too_many_events' },
    { label: '{"batch": […]} with 200k objects', path: '/logs', type: 'application/json', body: () => `{"batch":${repeated('{}', 200_000)}}`, code: 'too_many_events' },
    { label: 'one event holding 3M empty arrays (9 MB)', path: '/logs', type: 'application/json', body: () => `{"message":"x","metadata":{"a":${repeated('[]', 3_000_000)}}}`, code: 'decode_limit_exceeded' },
    { label: 'OTLP JSON, 500k empty logRecords', path: '/v1/logs', type: 'application/json', body: () => `{"resourceLogs":[{"scopeLogs":[{"logRecords":${repeated('{}', 500_000)}}]}]}`, code: 'too_many_events' },
  ];
  const pid = server.child.pid!;
  const idle = await rssOf(pid);
  const bound = idle + ALLOWED_GROWTH_MB * 2 ** 20;
  let peak = idle;
  let sampling = true;
  // On old code, kills the server as soon as it passes the bound, so the test fails at once.
  const sampler = (async () => {
    for (let i = 0; sampling && i < 30_000; i++) {
      const rss = await rssOf(pid).catch(() => 0);
      peak = Math.max(peak, rss);
      if (rss > bound) server.child.kill('SIGKILL');
      await sleep(10);
    }
  })();
  const outcomes: string[] = [];
  try {
    for (const { label, path, type, body, code } of hostile) {
      const reply = await send(server.url, 'POST', `${path}?source=${source}`, { 'x-api-key': KEY, 'content-type': type }, body()).catch(
        (error: Error) => ({ status: 0, text: error.message, json: undefined }),
      );
      outcomes.push(`${label}: ${reply.status} ${reply.text.slice(0, 200)}`);
      assert.equal(reply.status, 413, outcomes.at(-1));
      // The OTLP route answers a google.rpc.Status in the request's encoding (its message is plain
      // text inside the protobuf); the others Logflare's error shape.
      const message = path === '/v1/logs' ? reply.text : reply.json.error.message;
      if (path !== '/v1/logs') assert.equal(reply.json.error.code, code);
      assert.match(message, code === 'too_many_events' ? /more than 100000 events.*SAWMILL_MAX_EVENTS_PER_REQUEST/ : /more than 1048576 JSON objects and arrays/);
    }
  } finally {
    sampling = false;
    await sampler;
  }
  const grewMb = (peak - idle) / 2 ** 20;
  console.log(`idle RSS ${(idle / 2 ** 20).toFixed(0)} MB, peak growth over ${hostile.length} hostile bodies ${grewMb.toFixed(0)} MB`);
  assert.ok(peak <= bound, `RSS grew by ${grewMb.toFixed(0)} MB (allowed ${ALLOWED_GROWTH_MB})`);

  // Still serving, and an ordinary large batch goes in.
  const batch = Array.from({ length: 20_000 }, (_, i) => ({ message: `ordinary event ${i}`, metadata: { i, tags: ['a', 'b'] } }));
  const ordinary = await send(server.url, 'POST', `/logs?source=${source}`, { 'x-api-key': KEY, 'content-type': 'application/json' }, JSON.stringify({ batch }));
  assert.equal(ordinary.status, 200, ordinary.text);
  assert.equal(ordinary.json.accepted, 20_000);
});

test('the events cap is configurable and counts every envelope the same way', async () => {
  const small = await startTestServer({ maxEventsPerRequest: 5 });
  try {
    const token = (await small.request('POST', '/api/sources', { body: { name: 'capped' } })).body.token;
    const events = (n: number) => Array.from({ length: n }, (_, i) => ({ message: `e${i}` }));
    assert.equal((await small.request('POST', `/logs?source=${token}`, { body: events(5) })).status, 200);
    for (const body of [events(6), { batch: events(6) }]) {
      const reply = await small.request('POST', `/logs?source=${token}`, { body });
      assert.equal(reply.status, 413);
      assert.deepEqual(reply.body.error.code, 'too_many_events');
      assert.match(reply.body.error.message, /more than 5 events/);
    }
    const ndjson = events(6).map((event) => JSON.stringify(event)).join('\n');
    const lines = await small.request('POST', `/logs?source=${token}`, { body: ndjson, headers: { 'content-type': 'application/x-ndjson' } });
    assert.equal(lines.status, 413);
  } finally {
    await small.stop({ removeData: true });
  }
});

test('the pre-parse count reads strings as strings and counts events as each envelope holds them', () => {
  const limits = { maxEventsPerRequest: 3, maxContainers: 1000 };
  const refused = (text: string) => assert.throws(() => checkJsonText(text, limits), (error: AppError) => error.status === 413, text);
  const accepted = (text: string) => assert.doesNotThrow(() => checkJsonText(text, limits), text);
  accepted('[{"m":"[{},{},{},{}]"},{"m":"a\\"[1,2,3,4]\\\\"},{}]');
  refused('[{},{},{},{}]');
  refused('{"batch":[1,2,3,4],"source":"x"}');
  accepted('{"message":"x","metadata":{"tags":[1,2,3,4,5,6]}}');
  accepted('{"a":1}\n{"b":[1,2,3,4,5]}\n{"c":"}}}}"}');
  refused('{"a":1}\n{"b":2}\n{"c":3}\n{"d":4}');
  refused('1 2 3 4 5 6 7 8');
  assert.throws(() => checkJsonText(`[${'[]'.repeat(1001)}]`, { maxEventsPerRequest: 5000, maxContainers: 1000 }), /more than 1000 JSON objects and arrays/);
});
