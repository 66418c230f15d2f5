/**
 * The README's first search, `level:error`, over events sent the documented ways: the console's
 * curl snippet and pino-logflare put the level in `metadata`, OpenTelemetry in
 * `metadata.severity_text` (as ERROR); some senders put it at the top. OR and grouping combine.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { INGEST_KEY, startTestServer, type TestServer } from '../support/server.ts';

const q = (text: string) => encodeURIComponent(text);

/** An OTLP/JSON export of one log record, as @opentelemetry/exporter-logs-otlp-http sends it. */
function otlpRecord(body: string, severityText: string, severityNumber: number) {
  const nanos = `${BigInt(Date.now()) * 1_000_000n}`;
  return {
    resourceLogs: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'checkout' } }] },
        scopeLogs: [{ scope: { name: 'app' }, logRecords: [{ timeUnixNano: nanos, severityNumber, severityText, body: { stringValue: body } }] }],
      },
    ],
  };
}

describe('search finds what users mean', () => {
  let server: TestServer;
  /** The source with metadata levels only (curl snippet, pino-logflare, OpenTelemetry). */
  let documented: string;
  /** A source whose events carry the level at the top, and some in metadata. */
  let mixed: string;

  const send = async (path: string, body: unknown) => {
    const reply = await server.request('POST', path, { body, key: INGEST_KEY });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
  };
  const search = async (token: string, text: string) => {
    const reply = await server.request('GET', `/api/sources/${token}/events?q=${q(text)}`);
    assert.equal(reply.status, 200, `${text}: ${JSON.stringify(reply.body)}`);
    return (reply.body.events as Array<{ event_message: string }>).map((event) => event.event_message).sort();
  };

  before(async () => {
    server = await startTestServer();
    documented = (await server.request('POST', '/api/sources', { body: { name: 'app.documented' } })).body.token;
    mixed = (await server.request('POST', '/api/sources', { body: { name: 'app.mixed' } })).body.token;
    // The console's curl snippet and pino-logflare's shape: the level inside metadata.
    await send(`/logs?source=${documented}`, { message: 'curl: card declined', metadata: { level: 'error', user: { id: 7 } } });
    await send(`/logs?source=${documented}`, { batch: [{ message: 'pino: cache warm', metadata: { level: 'info' } }, { message: 'pino: disk nearly full', metadata: { level: 'warning' } }] });
    // OpenTelemetry: severity_text in metadata, upper case.
    await send(`/v1/logs?source=${documented}`, otlpRecord('otel: payment timeout', 'ERROR', 17));
    await send(`/v1/logs?source=${documented}`, otlpRecord('otel: retrying', 'INFO', 9));

    await send(`/logs?source=${mixed}`, {
      batch: [
        { message: 'top: failed', level: 'error' },
        { message: 'top: fine', level: 'info' },
        { message: 'nested: failed', metadata: { level: 'error' } },
        { message: 'bare: no level at all' },
      ],
    });
  });
  after(() => server?.stop({ removeData: true }));

  test('level:error finds metadata levels and OpenTelemetry severities (any case)', async () => {
    assert.deepEqual(await search(documented, 'level:error'), ['curl: card declined', 'otel: payment timeout']);
    assert.deepEqual(await search(documented, 'level:ERROR'), ['curl: card declined', 'otel: payment timeout']);
    assert.deepEqual(await search(documented, 'severity_text:info'), ['otel: retrying', 'pino: cache warm']);
  });

  test('a field at the top and inside metadata: either place matches; a missing record drops nothing', async () => {
    assert.deepEqual(await search(mixed, 'level:error'), ['nested: failed', 'top: failed']);
    assert.deepEqual(await search(mixed, '-level:error'), ['bare: no level at all', 'top: fine']);
  });

  test('OR, AND and parentheses combine clauses', async () => {
    assert.deepEqual(await search(documented, 'level:error OR level:warning'), ['curl: card declined', 'otel: payment timeout', 'pino: disk nearly full']);
    assert.deepEqual(await search(documented, '(level:error OR level:warning) -timeout'), ['curl: card declined', 'pino: disk nearly full']);
    assert.deepEqual(await search(documented, 'level:error AND declined'), ['curl: card declined']);
    assert.deepEqual(await search(documented, 'm.user.id:7 OR retrying'), ['curl: card declined', 'otel: retrying']);
    assert.deepEqual(await search(documented, '-(level:info OR level:warning)'), ['curl: card declined', 'otel: payment timeout']);
    const volume = await server.request('GET', `/api/sources/${documented}/volume?q=${q('level:error OR level:warning')}&from=${Date.now() - 3600_000}&to=${Date.now() + 60_000}`);
    assert.equal(volume.status, 200);
    assert.equal(volume.body.buckets.reduce((sum: number, bucket: { events: number }) => sum + bucket.events, 0), 3);
  });

  test('mistakes say so instead of searching for words', async () => {
    for (const [text, message] of [
      ['level:error or level:warning', /write OR in capitals/],
      ['(level:error OR level:warning', /not closed/],
      ['level:error OR', /ends where a clause should follow/],
      ['OR level:error', /OR needs a clause on each side/],
      ['nope:1', /unknown field nope \(nor m\.nope\)/],
    ] as const) {
      const reply = await server.request('GET', `/api/sources/${documented}/events?q=${q(text)}`);
      assert.equal(reply.status, 400, text);
      assert.match(reply.body.error.message, message, text);
    }
  });
});
