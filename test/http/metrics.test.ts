import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { INGEST_KEY, startTestServer, type TestServer } from '../support/server.ts';

let server: TestServer;
let metricsKey: string;

before(async () => {
  server = await startTestServer();
  const created = await server.request('POST', '/api/access-tokens', { body: { scopes: ['metrics'], description: 'prometheus' } });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  metricsKey = created.body.token;
});
after(() => server.stop({ removeData: true }));

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses the text exposition format strictly enough that a malformed line fails the test. */
function parseExposition(text: string): { samples: Sample[]; types: Map<string, string> } {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  assert.ok(text.endsWith('\n'), 'the exposition ends with a newline');
  for (const line of text.trimEnd().split('\n')) {
    const type = /^# TYPE ([a-z_:][a-z0-9_:]*) (counter|gauge|histogram)$/.exec(line);
    if (type) {
      types.set(type[1]!, type[2]!);
      continue;
    }
    if (/^# HELP [a-z_:][a-z0-9_:]* \S/.test(line)) continue;
    const sample = /^([a-z_:][a-z0-9_:]*)(?:\{((?:[a-z_][a-z0-9_]*="(?:[^"\\]|\\.)*",?)*)\})? (-?[0-9.e+]+|\+Inf|NaN)$/.exec(line);
    assert.ok(sample, `not a valid sample line: ${line}`);
    const labels = Object.fromEntries([...(sample[2] ?? '').matchAll(/([a-z_][a-z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map((match) => [match[1]!, match[2]!]));
    samples.push({ name: sample[1]!, labels, value: Number(sample[3]) });
  }
  return { samples, types };
}

const value = (samples: Sample[], name: string, labels: Record<string, string> = {}) =>
  samples.filter((sample) => sample.name === name && Object.entries(labels).every(([key, wanted]) => sample.labels[key] === wanted)).reduce((sum, sample) => sum + sample.value, 0);

async function scrape(key: string | null = metricsKey) {
  const response = await fetch(`${server.url}/metrics`, { headers: key === null ? {} : { authorization: `Bearer ${key}` } });
  return { status: response.status, contentType: response.headers.get('content-type'), text: await response.text() };
}

test('/metrics needs a key with the metrics (or private) scope, sent as a bearer token', async () => {
  assert.equal((await scrape(null)).status, 401);
  const ingestOnly = await scrape(INGEST_KEY);
  assert.equal(ingestOnly.status, 403);
  assert.match(ingestOnly.text, /metrics or private scope/);
  const scraped = await scrape();
  assert.equal(scraped.status, 200);
  assert.match(scraped.contentType ?? '', /^text\/plain; version=0\.0\.4/);
  // A metrics key reads figures, nothing else.
  assert.equal((await server.request('GET', '/api/sources', { key: metricsKey })).status, 403);
});

test('ingestion, folds, visibility lag, endpoint latency and cache, DuckDB memory and file size are counted', async () => {
  const source = (await server.request('POST', '/api/sources', { body: { name: 'shop.requests' } })).body;
  for (let i = 0; i < 3; i++) {
    const stored = await server.request('POST', `/logs?source=${source.token}`, { body: { batch: [{ message: `ok ${i}` }, { message: `also ${i}` }] } });
    assert.equal(stored.status, 200);
  }
  const mixed = await server.request('POST', `/logs?source=${source.token}`, { body: { batch: [{ message: 'fine' }, 'not an object'] } });
  assert.deepEqual([mixed.status, mixed.body.accepted, mixed.body.rejected], [200, 1, 1]);
  assert.equal((await server.request('POST', '/logs?source=00000000-0000-0000-0000-000000000000', { body: { message: 'x' } })).status, 404);
  const otlp = { resourceLogs: [{ scopeLogs: [{ logRecords: [{ body: { stringValue: 'from OpenTelemetry' } }] }] }] };
  assert.equal((await server.request('POST', '/v1/logs?source_name=shop.requests', { body: otlp })).status, 200);

  const endpoint = { name: 'shop.count', query: 'select count(*) as n from `shop.requests`', cache_duration_seconds: 60 };
  assert.equal((await server.request('POST', '/api/endpoints', { body: endpoint })).status, 201);
  for (let i = 0; i < 2; i++) assert.deepEqual((await server.request('GET', '/api/endpoints/query/shop.count')).body, { result: [{ n: 8 }] });

  const { samples, types } = parseExposition((await scrape()).text);
  const shop = { source: 'shop.requests' };
  assert.equal(value(samples, 'sawmill_ingest_requests_total', { ...shop, status: '200' }), 5);
  assert.equal(value(samples, 'sawmill_ingest_requests_total', { source: '', status: '404' }), 1);
  assert.equal(value(samples, 'sawmill_ingest_events_total', { ...shop, outcome: 'accepted' }), 8);
  assert.equal(value(samples, 'sawmill_ingest_events_total', { ...shop, outcome: 'rejected' }), 1);
  // The endpoint's query waited for every acknowledged request to be folded in.
  assert.equal(value(samples, 'sawmill_visibility_lag_seconds_count'), 5);
  assert.ok(value(samples, 'sawmill_fold_events_sum') >= 8);
  assert.ok(value(samples, 'sawmill_fold_duration_seconds_count') >= 1);
  assert.equal(value(samples, 'sawmill_endpoint_request_duration_seconds_count', { endpoint: 'shop.count', status: '200' }), 2);
  assert.equal(value(samples, 'sawmill_endpoint_request_duration_seconds_bucket', { endpoint: 'shop.count', status: '200', le: '+Inf' }), 2);
  assert.equal(value(samples, 'sawmill_endpoint_cache_requests_total', { result: 'hit' }), 1);
  assert.equal(value(samples, 'sawmill_endpoint_cache_requests_total', { result: 'miss' }), 1);
  assert.equal(value(samples, 'sawmill_queue_events'), 0);
  assert.equal(value(samples, 'sawmill_queue_capacity_events'), 250_000);
  assert.ok(value(samples, 'sawmill_warehouse_memory_bytes') > 0, 'DuckDB holds some memory');
  assert.ok(value(samples, 'sawmill_data_file_bytes', { file: 'sawmill.duckdb' }) > 0);
  assert.ok(value(samples, 'sawmill_process_resident_memory_bytes') > 0);
  assert.equal(types.get('sawmill_endpoint_request_duration_seconds'), 'histogram');
  assert.equal(types.get('sawmill_ingest_requests_total'), 'counter');

  // Histogram buckets are cumulative.
  const buckets = samples.filter((sample) => sample.name === 'sawmill_visibility_lag_seconds_bucket').map((sample) => sample.value);
  assert.deepEqual(buckets, [...buckets].sort((a, b) => a - b));
});
