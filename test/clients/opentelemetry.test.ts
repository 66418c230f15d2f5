/**
 * OpenTelemetry logs: the real SDK (`@opentelemetry/sdk-logs`) exporting through both official
 * OTLP/HTTP exporters (protobuf and JSON, plain and gzip), plus hand-written OTLP/JSON for the
 * corners exporters never produce (proto field names, partial success, malformed requests).
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { diag, DiagLogLevel, ROOT_CONTEXT, trace, TraceFlags } from '@opentelemetry/api';
import { SeverityNumber, type LogRecord } from '@opentelemetry/api-logs';
import { OTLPLogExporter as JsonExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { OTLPLogExporter as ProtobufExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { LoggerProvider, SimpleLogRecordProcessor, type LogRecordExporter } from '@opentelemetry/sdk-logs';
import { decodeErrorStatus, decodeExportResponse } from '../../src/ingest/otlp.ts';
import { INGEST_KEY, startTestServer, type TestServer } from '../support/server.ts';
import { createSource, micros, only, storedRows } from './helpers.ts';

let server: TestServer;

/** What the SDK and exporters report through OpenTelemetry's diagnostic logger. */
const diagnostics: { warn: string[]; error: string[] } = { warn: [], error: [] };

before(async () => {
  server = await startTestServer();
  const record = (into: string[]) => (message: string, ...args: unknown[]) => into.push([message, ...args.map((arg) => (arg instanceof Error ? arg.message : typeof arg === 'string' ? arg : JSON.stringify(arg)))].join(' '));
  diag.setLogger(
    { error: record(diagnostics.error), warn: record(diagnostics.warn), info: () => {}, debug: () => {}, verbose: () => {} },
    DiagLogLevel.WARN,
  );
});
afterEach(() => {
  diagnostics.warn.length = 0;
  diagnostics.error.length = 0;
});
after(async () => {
  diag.disable();
  await server.stop({ removeData: true });
});

type CompressionOption = NonNullable<ConstructorParameters<typeof JsonExporter>[0]>['compression'];
const GZIP = 'gzip' as CompressionOption;

/** Emits `records` through a LoggerProvider wired to `exporter` and waits until they are exported. */
async function logThrough(exporter: LogRecordExporter, records: LogRecord[]): Promise<void> {
  const provider = new LoggerProvider({
    resource: resourceFromAttributes({ 'service.name': 'checkout', 'deployment.environment': 'test' }),
    processors: [new SimpleLogRecordProcessor({ exporter })],
  });
  const logger = provider.getLogger('payments', '1.4.2');
  for (const record of records) logger.emit(record);
  await provider.forceFlush();
  await provider.shutdown();
}

const TRACE_ID = '5b8efff798038103d269b633813fc60c';
const SPAN_ID = 'eee19b7ec3c1b174';

/** A warning with a span context, a structured body, and attributes of every kind. */
function sampleRecords(label: string, at: Date): LogRecord[] {
  const inSpan = trace.setSpanContext(ROOT_CONTEXT, { traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: TraceFlags.SAMPLED });
  return [
    {
      timestamp: at,
      severityNumber: SeverityNumber.WARN,
      severityText: 'WARN',
      body: `${label}: card declined`,
      attributes: { 'http.method': 'POST', 'retry.count': 3, amount: 12.5, flagged: true, tags: ['fraud', 'manual'] },
      context: inSpan,
    },
    {
      timestamp: new Date(at.getTime() + 1),
      severityNumber: SeverityNumber.INFO,
      severityText: 'INFO',
      eventName: 'order.created',
      body: { order: { id: 42, items: 3 }, label },
    },
  ];
}

async function assertSampleStored(token: string, label: string, at: Date): Promise<void> {
  const rows = await storedRows(server, token);
  assert.equal(rows.length, 2, JSON.stringify(rows));
  const [warning, info] = rows as [Record<string, any>, Record<string, any>];

  assert.equal(warning.event_message, `${label}: card declined`);
  assert.equal(warning.timestamp, at.getTime() * 1000);
  const meta = only(warning.metadata);
  assert.equal(meta.severity_text, 'WARN');
  assert.equal(meta.severity_number, SeverityNumber.WARN);
  assert.equal(meta.trace_id, TRACE_ID);
  assert.equal(meta.span_id, SPAN_ID);
  assert.equal(meta.flags, 1);
  // Attribute keys with dots are made safe as column names: "http.method" → "_http_method".
  const attributes = only(meta.attributes);
  assert.equal(attributes._http_method, 'POST');
  assert.equal(attributes._retry_count, 3);
  assert.equal(attributes.amount, 12.5);
  assert.equal(attributes.flagged, true);
  assert.deepEqual(attributes.tags, ['fraud', 'manual']);
  const resource = only(meta.resource);
  assert.equal(resource._service_name, 'checkout');
  assert.equal(resource._deployment_environment, 'test');
  assert.deepEqual(only(meta.scope), { name: 'payments', version: '1.4.2' });
  assert.equal(typeof meta.observed_timestamp, 'string');

  // A structured body: its JSON text is the message, its fields stay queryable.
  assert.deepEqual(JSON.parse(info.event_message), { order: { id: 42, items: 3 }, label });
  const infoMeta = only(info.metadata);
  assert.equal(infoMeta.event_name, 'order.created');
  assert.equal(only(only(infoMeta.body).order).id, 42);
  assert.equal(infoMeta.trace_id ?? null, null, 'no span context, no trace id');
}

describe('@opentelemetry/exporter-logs-otlp-proto (application/x-protobuf)', () => {
  test('each LogRecord lands as an event with severity, ids, attributes, resource and scope', async () => {
    const token = await createSource(server, 'otel.proto');
    const at = new Date(Date.now() - 60_000);
    const exporter = new ProtobufExporter({ url: `${server.url}/v1/logs`, headers: { 'x-api-key': INGEST_KEY, 'x-source': token } });
    await logThrough(exporter, sampleRecords('proto', at));
    assert.deepEqual(diagnostics.error, []);
    await assertSampleStored(token, 'proto', at);
  });

  test('gzip, Bearer key and ?source_name=', async () => {
    const token = await createSource(server, 'otel.proto.gzip');
    const at = new Date(Date.now() - 30_000);
    const exporter = new ProtobufExporter({
      url: `${server.url}/v1/logs?source_name=otel.proto.gzip`,
      headers: { authorization: `Bearer ${INGEST_KEY}` },
      compression: GZIP,
    });
    await logThrough(exporter, sampleRecords('proto gzip', at));
    assert.deepEqual(diagnostics.error, []);
    await assertSampleStored(token, 'proto gzip', at);
  });

  test('a record that cannot be stored is reported as partial success, in protobuf, to the exporter', async () => {
    const token = await createSource(server, 'otel.proto.partial');
    const exporter = new ProtobufExporter({ url: `${server.url}/v1/logs`, headers: { 'x-api-key': INGEST_KEY, 'x-source': token } });
    await logThrough(exporter, [
      { body: 'kept', timestamp: new Date() },
      { body: 'from the future', timestamp: new Date(Date.now() + 3 * 3600_000) },
    ]);
    assert.deepEqual(diagnostics.error, [], 'partial success is not a failed export');
    const warning = diagnostics.warn.find((message) => message.includes('Partial Success'));
    assert.ok(warning, `the exporter decoded partial_success; diagnostics: ${JSON.stringify(diagnostics.warn)}`);
    assert.match(warning, /"rejectedLogRecords":1/);
    assert.match(warning, /more than one hour in the future/);
    assert.deepEqual((await storedRows(server, token)).map((row) => row.event_message), ['kept']);
  });

  test('a wrong key fails the export and stores nothing', async () => {
    const token = await createSource(server, 'otel.proto.denied');
    const exporter = new ProtobufExporter({ url: `${server.url}/v1/logs`, headers: { 'x-api-key': 'wrong-key', 'x-source': token } });
    await logThrough(exporter, [{ body: 'denied' }]);
    assert.ok(diagnostics.error.length > 0, 'the SDK reports the failed export');
    assert.equal((await storedRows(server, token)).length, 0);
  });
});

describe('@opentelemetry/exporter-logs-otlp-http (application/json)', () => {
  test('each LogRecord lands as an event with severity, ids, attributes, resource and scope', async () => {
    const token = await createSource(server, 'otel.json');
    const at = new Date(Date.now() - 60_000);
    const exporter = new JsonExporter({ url: `${server.url}/v1/logs`, headers: { 'x-api-key': INGEST_KEY, 'x-source': token } });
    await logThrough(exporter, sampleRecords('json', at));
    assert.deepEqual(diagnostics.error, []);
    await assertSampleStored(token, 'json', at);
  });

  test('gzip, Bearer key and ?source=', async () => {
    const token = await createSource(server, 'otel.json.gzip');
    const at = new Date(Date.now() - 30_000);
    const exporter = new JsonExporter({
      url: `${server.url}/v1/logs?source=${token}`,
      headers: { authorization: `Bearer ${INGEST_KEY}` },
      compression: GZIP,
    });
    await logThrough(exporter, sampleRecords('json gzip', at));
    assert.deepEqual(diagnostics.error, []);
    await assertSampleStored(token, 'json gzip', at);
  });

  test('partial success reaches the JSON exporter too', async () => {
    const token = await createSource(server, 'otel.json.partial');
    const exporter = new JsonExporter({ url: `${server.url}/v1/logs`, headers: { 'x-api-key': INGEST_KEY, 'x-source': token } });
    await logThrough(exporter, [{ body: 'kept' }, { body: 'late', timestamp: new Date(Date.now() + 3 * 3600_000) }]);
    const warning = diagnostics.warn.find((message) => message.includes('Partial Success'));
    assert.ok(warning, JSON.stringify(diagnostics.warn));
    assert.match(warning, /"rejectedLogRecords":"1"/);
    assert.equal((await storedRows(server, token)).length, 1);
  });
});

describe('OTLP/HTTP wire details', () => {
  const post = (path: string, body: Uint8Array | string, headers: Record<string, string>) =>
    fetch(server.url + path, { method: 'POST', body: body as BodyInit, headers: { 'x-api-key': INGEST_KEY, ...headers } });

  /** OTLP/JSON as the specification writes it, exercising every AnyValue kind and nanosecond time. */
  const specShaped = {
    resourceLogs: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'billing' } }] },
        scopeLogs: [
          {
            scope: { name: 'billing.jobs', version: '2.0.0', attributes: [{ key: 'team', value: { stringValue: 'payments' } }] },
            logRecords: [
              {
                timeUnixNano: '1763632800123456789',
                observedTimeUnixNano: '1763632800200000000',
                severityNumber: 10,
                severityText: 'Information',
                traceId: '5B8EFFF798038103D269B633813FC60C',
                spanId: 'EEE19B7EC3C1B174',
                body: { stringValue: 'invoice sent' },
                attributes: [
                  { key: 'text', value: { stringValue: 'some text' } },
                  { key: 'yes', value: { boolValue: true } },
                  { key: 'count', value: { intValue: '10' } },
                  { key: 'huge', value: { intValue: '9223372036854775807' } },
                  { key: 'ratio', value: { doubleValue: 637.704 } },
                  { key: 'list', value: { arrayValue: { values: [{ stringValue: 'a' }, { stringValue: 'b' }] } } },
                  { key: 'map', value: { kvlistValue: { values: [{ key: 'inner.key', value: { intValue: 7 } }] } } },
                  { key: 'raw', value: { bytesValue: 'aGVsbG8=' } },
                ],
              },
              // Only an observed time, a severity given by name, and no body.
              { observedTimeUnixNano: 1763632801000000000, severityNumber: 'SEVERITY_NUMBER_ERROR2' },
            ],
          },
        ],
      },
    ],
  };

  test('OTLP/JSON gzip: every value kind, nanosecond times, x-source header; reply is an empty JSON ExportLogsServiceResponse', async () => {
    const token = await createSource(server, 'otel.wire');
    const reply = await post('/v1/logs', gzipSync(JSON.stringify(specShaped)), {
      'content-type': 'application/json',
      'content-encoding': 'gzip',
      'x-source': token,
    });
    assert.equal(reply.status, 200);
    assert.match(reply.headers.get('content-type') ?? '', /^application\/json/);
    assert.deepEqual(await reply.json(), {});

    const [first, second] = (await storedRows(server, token)) as [Record<string, any>, Record<string, any>];
    assert.equal(first.event_message, 'invoice sent');
    assert.equal(first.timestamp, 1763632800123456, 'nanoseconds truncated to the stored microseconds');
    const meta = only(first.metadata);
    assert.equal(meta.trace_id, TRACE_ID, 'hex ids are stored lower-case');
    assert.equal(meta.span_id, SPAN_ID);
    assert.equal(meta.severity_number, 10);
    assert.equal(meta.observed_timestamp, '2025-11-20T10:00:00.200000Z');
    const attributes = only(meta.attributes);
    assert.equal(attributes.text, 'some text');
    assert.equal(attributes.yes, true);
    assert.equal(attributes.count, 10);
    assert.equal(attributes.huge, '9223372036854775807', 'int64 beyond 2^53 keeps its digits');
    assert.equal(attributes.ratio, 637.704);
    assert.deepEqual(attributes.list, ['a', 'b']);
    assert.equal(only(attributes.map)._inner_key, 7);
    assert.equal(attributes.raw, 'aGVsbG8=');
    assert.deepEqual(only(only(meta.scope).attributes), { team: 'payments' });

    assert.equal(second.event_message, '');
    assert.equal(second.timestamp, micros('2025-11-20T10:00:01Z'), 'observed time stands in for a missing time');
    assert.equal(only(second.metadata).severity_number, SeverityNumber.ERROR2);
  });

  test('proto field names (snake_case) are accepted in OTLP/JSON', async () => {
    const token = await createSource(server, 'otel.snake');
    const body = {
      resource_logs: [{ scope_logs: [{ log_records: [{ time_unix_nano: '1763632800000000000', severity_text: 'DEBUG', body: { string_value: 'snake' } }] }] }],
    };
    const reply = await post(`/v1/logs?source=${token}`, JSON.stringify(body), { 'content-type': 'application/json' });
    assert.equal(reply.status, 200);
    const [row] = await storedRows(server, token);
    assert.equal(row?.event_message, 'snake');
    assert.equal(only(row?.metadata).severity_text, 'DEBUG');
  });

  test('a bad LogRecord is rejected alone and counted in partialSuccess', async () => {
    const token = await createSource(server, 'otel.partial.json');
    const body = {
      resourceLogs: [{ scopeLogs: [{ logRecords: [{ body: { stringValue: 'good' } }, { traceId: 'not-hex', body: { stringValue: 'bad' } }] }] }],
    };
    const reply = await post('/v1/logs', JSON.stringify(body), { 'content-type': 'application/json', 'x-source': token });
    assert.equal(reply.status, 200);
    const answer = await reply.json();
    assert.equal(answer.partialSuccess.rejectedLogRecords, '1');
    assert.match(answer.partialSuccess.errorMessage, /logRecords\[1\]\.traceId must be 16 bytes/);
    assert.deepEqual((await storedRows(server, token)).map((row) => row.event_message), ['good']);
  });

  test('errors are a google.rpc.Status in the request encoding, with OTLP status codes', async () => {
    const token = await createSource(server, 'otel.errors');
    const protobufHeaders = { 'content-type': 'application/x-protobuf', 'x-source': token };

    const unauthorized = await post('/v1/logs', Buffer.alloc(0), { ...protobufHeaders, 'x-api-key': 'wrong' });
    assert.equal(unauthorized.status, 401);
    assert.equal(unauthorized.headers.get('content-type'), 'application/x-protobuf');
    assert.deepEqual(decodeErrorStatus(new Uint8Array(await unauthorized.arrayBuffer())), { code: 16, message: 'invalid API key' });

    const garbage = await post('/v1/logs', Buffer.from([0x0a, 0xff, 0xff, 0xff]), protobufHeaders);
    assert.equal(garbage.status, 400);
    assert.equal((decodeErrorStatus(new Uint8Array(await garbage.arrayBuffer())) as { code: number }).code, 3);

    const notOtlp = await post('/v1/logs', JSON.stringify({ resourceLogs: 'nope' }), { 'content-type': 'application/json', 'x-source': token });
    assert.equal(notOtlp.status, 400);
    const status = await notOtlp.json();
    assert.equal(status.code, 3);
    assert.match(status.message, /resourceLogs must be an array/);

    const unknownSource = await post('/v1/logs', '{}', { 'content-type': 'application/json', 'x-source': '00000000-0000-4000-8000-000000000000' });
    assert.equal(unknownSource.status, 404);
    const noSource = await post('/v1/logs', '{}', { 'content-type': 'application/json' });
    assert.equal(noSource.status, 400);
    const wrongType = await post('/v1/logs', 'hello', { 'content-type': 'text/plain', 'x-source': token });
    assert.equal(wrongType.status, 415);
  });

  test('a protobuf request that rejects nothing gets an empty protobuf ExportLogsServiceResponse', async () => {
    const token = await createSource(server, 'otel.empty');
    const reply = await post('/v1/logs', Buffer.alloc(0), { 'content-type': 'application/x-protobuf', 'x-source': token });
    assert.equal(reply.status, 200);
    const bytes = new Uint8Array(await reply.arrayBuffer());
    assert.equal(bytes.length, 0);
    assert.deepEqual(decodeExportResponse(bytes), {});
  });
});
