/**
 * Fluent Bit's `http` output as Logflare's docs configure it:
 *
 *   [OUTPUT]
 *       Name             http
 *       Match            *
 *       Host             <sawmill host>
 *       Port             443
 *       tls              On
 *       URI              /logs/json?api_key=<key>&source=<source uuid>
 *       Format           json
 *       json_date_key    timestamp
 *       json_date_format iso8601
 *
 * With `Format json` the plugin POSTs one JSON array of records per flush, Content-Type
 * application/json and User-Agent Fluent-Bit; `json_date_key` / `json_date_format iso8601` put the
 * record time first in each record as `2018-05-30T09:39:52.000681Z` (microseconds, UTC);
 * `Compress gzip` adds Content-Encoding: gzip. The requests below are written byte for byte, over
 * a plain TCP connection, the way the plugin frames them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { INGEST_KEY, startTestServer, type TestServer } from '../support/server.ts';
import { createSource, httpRequest, micros, only, sendRaw, storedRows } from './helpers.ts';

let server: TestServer;

before(async () => {
  server = await startTestServer();
});
after(() => server.stop({ removeData: true }));

/** Records as a tail input with the docker parser and the kubernetes filter produce them. */
const records = [
  {
    timestamp: '2026-11-20T10:00:00.250000Z',
    log: 'GET /healthz 200\n',
    stream: 'stdout',
    kubernetes: { pod_name: 'api-7d9f', namespace_name: 'prod', labels: { app: 'api' } },
  },
  { timestamp: '2026-11-20T10:00:01.000681Z', log: 'connection reset by peer\n', stream: 'stderr', kubernetes: { pod_name: 'api-7d9f', namespace_name: 'prod' } },
];

function fluentBitRequest(path: string, body: Buffer, gzip: boolean): Buffer {
  const { host } = new URL(server.url);
  const headers: Array<[string, string]> = [
    ['Host', host],
    ['Content-Length', String(body.length)],
    ['User-Agent', 'Fluent-Bit'],
    ['Content-Type', 'application/json'],
  ];
  if (gzip) headers.push(['Content-Encoding', 'gzip']);
  return httpRequest('POST', path, headers, body);
}

describe('Fluent Bit http output (Format json) to /logs/json', () => {
  test('each record is an event: metadata is the record, timestamp its ISO 8601 date key', async () => {
    const token = await createSource(server, 'fluentbit.plain');
    const reply = await sendRaw(server.url, fluentBitRequest(`/logs/json?api_key=${INGEST_KEY}&source=${token}`, Buffer.from(JSON.stringify(records)), false));
    assert.equal(reply.status, 200, reply.body);
    assert.deepEqual(JSON.parse(reply.body), { message: 'Logged!', accepted: 2, rejected: 0 });

    const [first, second] = (await storedRows(server, token)) as [Record<string, any>, Record<string, any>];
    assert.equal(first.timestamp, micros('2026-11-20T10:00:00.250Z'));
    assert.equal(second.timestamp, micros('2026-11-20T10:00:01Z') + 681, 'microseconds of the date key are kept');
    assert.deepEqual(JSON.parse(first.event_message), records[0], 'event_message is the record as JSON');
    const metadata = only(first.metadata);
    assert.equal(metadata.log, 'GET /healthz 200\n');
    assert.equal(metadata.stream, 'stdout');
    assert.equal(only(only(metadata.kubernetes).labels).app, 'api');
    assert.equal(only(second.metadata).stream, 'stderr');
  });

  test('Compress gzip', async () => {
    const token = await createSource(server, 'fluentbit.gzip');
    const body = gzipSync(JSON.stringify(records));
    const reply = await sendRaw(server.url, fluentBitRequest(`/logs/json?api_key=${INGEST_KEY}&source=${token}`, body, true));
    assert.equal(reply.status, 200, reply.body);
    assert.deepEqual((await storedRows(server, token)).map((row) => only(row.metadata).stream), ['stdout', 'stderr']);
  });

  test('a wrong api_key is refused with a JSON 401 (Fluent Bit retries any non-2xx up to Retry_Limit)', async () => {
    const token = await createSource(server, 'fluentbit.denied');
    const reply = await sendRaw(server.url, fluentBitRequest(`/logs/json?api_key=wrong&source=${token}`, Buffer.from(JSON.stringify(records)), false));
    assert.equal(reply.status, 401);
    assert.equal(JSON.parse(reply.body).error.code, 'unauthorized');
    assert.equal((await storedRows(server, token)).length, 0);
  });
});
