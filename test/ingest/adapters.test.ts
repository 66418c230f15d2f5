import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { AppError } from '../../src/errors.ts';
import { INGEST_ROUTES, adapterFor, decodeBody, isIngestRoute, verifyGithubSignature } from '../../src/ingest/index.ts';
import type { RawEventResult, RawEvents } from '../../src/ingest/index.ts';
import { normalizeEvent } from '../../src/pipeline/normalize.ts';
import { sample } from '../support/samples.ts';

const NOW = Date.UTC(2024, 0, 15, 12, 0, 0) * 1000;

async function run(
  route: string,
  body: string | Buffer | unknown,
  contentType = 'application/json',
  headers: Record<string, string> = {},
  contentEncoding?: string,
): Promise<RawEvents> {
  const adapter = adapterFor(route);
  assert.ok(adapter, `no adapter for ${route}`);
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
  const decoded = await decodeBody(bytes, { contentType, contentEncoding }, 12 * 1024 * 1024);
  return adapter({ body: decoded, query: {}, headers });
}

function events(result: RawEvents): Array<Record<string, unknown>> {
  return result.events.map((e, i) => {
    assert.ok(e.ok, `event ${i}: ${e.ok ? '' : e.error}`);
    return e.event;
  });
}

function errorOf(result: RawEventResult | undefined): string {
  assert.ok(result && !result.ok, 'expected a per-event error');
  return result.error;
}

function assertAppError(fn: () => unknown, status: number, message: RegExp): void {
  assert.throws(fn, (error: unknown) => error instanceof AppError && error.status === status && message.test(error.message));
}

describe('routes', () => {
  it('maps every route name to an adapter, zeit to the vercel one', () => {
    assert.deepEqual(INGEST_ROUTES, ['logs', 'json', 'vercel', 'zeit', 'github', 'cloudflare', 'vector', 'logplex']);
    for (const route of INGEST_ROUTES) assert.equal(typeof adapterFor(route), 'function', route);
    assert.equal(adapterFor('zeit'), adapterFor('vercel'));
    assert.equal(adapterFor('nope'), undefined);
    assert.equal(adapterFor('toString'), undefined);
    assert.equal(isIngestRoute('__proto__'), false);
  });
});

describe('raw route (POST P)', () => {
  it('takes one object as one event, with source/source_name as routing, not data', async () => {
    const event = { ...sample('cloudflare.logs.prod'), source: '0e4c3c16-4d4b-4a5c-9c3a-2f0d7e2b1a11', source_name: 'x' };
    const result = await run('logs', event);
    assert.deepEqual(result.routing, { source: '0e4c3c16-4d4b-4a5c-9c3a-2f0d7e2b1a11', sourceName: 'x' });
    assert.deepEqual(events(result), [sample('cloudflare.logs.prod')]);
  });

  it('keeps a non-string source as data', async () => {
    const result = await run('logs', { message: 'm', source: { kind: 'db' } });
    assert.deepEqual(result.routing, {});
    assert.deepEqual(events(result), [{ message: 'm', source: { kind: 'db' } }]);
  });

  it('treats {"batch": [...]} and a bare array as batches', async () => {
    const batch = [sample('postgres.logs'), sample('gotrue.logs.prod')];
    const wrapped = await run('logs', { batch, source_name: 'postgres.logs' });
    assert.deepEqual(events(wrapped), batch);
    assert.deepEqual(wrapped.routing, { sourceName: 'postgres.logs' });
    assert.deepEqual(events(await run('logs', batch)), batch);
  });

  it('accepts an empty batch as zero events', async () => {
    assert.deepEqual((await run('logs', { batch: [] })).events, []);
    assert.deepEqual((await run('logs', [])).events, []);
  });

  it('treats a non-array batch field as ordinary data of one event', async () => {
    assert.deepEqual(events(await run('logs', { message: 'm', batch: 'nightly' })), [{ message: 'm', batch: 'nightly' }]);
  });

  it('reports non-object batch elements per event and keeps the others', async () => {
    const result = await run('logs', { batch: [{ message: 'a' }, 'oops', null, { message: 'b' }] });
    assert.equal(result.events.length, 4);
    assert.match(errorOf(result.events[1]), /batch\[1\]: expected a JSON object, got a string/);
    assert.match(errorOf(result.events[2]), /batch\[2\]: expected a JSON object, got null/);
    assert.ok(result.events[0]!.ok && result.events[3]!.ok);
  });

  it('reads NDJSON as one event per line, bad lines reported per line', async () => {
    const body = `${JSON.stringify(sample('storage.logs.prod.2'))}\nnot json\n\n[1]\n${JSON.stringify(sample('postgREST.logs.prod'))}\n`;
    const result = await run('logs', body, 'application/x-ndjson');
    assert.equal(result.events.length, 4);
    assert.deepEqual(result.events[0], { ok: true, event: sample('storage.logs.prod.2') });
    assert.match(errorOf(result.events[1]), /^line 2 is not valid JSON: .* at line 1 column 1/);
    assert.match(errorOf(result.events[2]), /^line 4: expected a JSON object, got an array/);
    assert.deepEqual(result.events[3], { ok: true, event: sample('postgREST.logs.prod') });
  });

  it('rejects a scalar body with 400 and a logplex body with 415', async () => {
    await assert.rejects(run('logs', '42'), (e: unknown) => e instanceof AppError && e.status === 400 && /got a number/.test(e.message));
    await assert.rejects(run('logs', '5 hello', 'application/logplex-1'), (e: unknown) => e instanceof AppError && e.status === 415);
  });

  it('feeds the normaliser: every Supabase sample in one gzip batch', async () => {
    const names = ['cloudflare.logs.prod', 'deno-relay-logs', 'realtime.logs.prod', 'pgbouncer.logs.prod'];
    const body = gzipSync(JSON.stringify(names.map(sample)));
    const rows = events(await run('logs', body, 'application/json', {}, 'gzip')).map((e) => normalizeEvent(e, NOW));
    assert.deepEqual(
      rows.map((r) => (r.ok ? r.row.event_message : r.error)),
      names.map((n) => sample(n).event_message),
    );
  });
});

describe('json route (P/json)', () => {
  it('stores each element as metadata with its JSON text as the message', async () => {
    const records = [{ log: 'hello', stream: 'stdout', source: 'stdout' }, { level: 'warn', nested: { a: [1, 2] } }];
    const result = await run('json', records, 'application/json; charset=utf-8');
    assert.deepEqual(events(result), records.map((r) => ({ event_message: JSON.stringify(r), metadata: r })));
    assert.deepEqual(result.routing, {}, 'a body source is data on this route');
  });

  it("uses the element's top-level timestamp (Fluent Bit ISO 8601) as the event time, keeping it in metadata", async () => {
    const record = { timestamp: '2023-03-23T14:36:26.5Z', log: 'x' };
    const [event] = events(await run('json', [record]));
    assert.equal(event!.timestamp, '2023-03-23T14:36:26.5Z');
    const r = normalizeEvent(event, NOW);
    assert.ok(r.ok);
    assert.equal(r.row.timestamp, Date.UTC(2023, 2, 23, 14, 36, 26, 500) * 1000);
    assert.deepEqual(r.row.fields.metadata, record);
    assert.equal(r.row.event_message, JSON.stringify(record));
  });

  it('takes a single object as one event and NDJSON per line', async () => {
    assert.equal(events(await run('json', { a: 1 })).length, 1);
    assert.equal(events(await run('json', '{"a":1}\n{"a":2}', 'application/x-ndjson')).length, 2);
  });

  it('takes a body that is only {"batch": [...]} as its elements (LogLayer), unlike Logflare', async () => {
    const batch = [{ message: 'first', metadata: { user: { id: 7 } } }, { message: 'second' }];
    assert.deepEqual(events(await run('json', { batch })), batch.map((r) => ({ event_message: JSON.stringify(r), metadata: r })));
    assert.match(errorOf((await run('json', { batch: [{ a: 1 }, 'x'] })).events[1]), /batch\[1\]: expected a JSON object, got a string/);
    // Any other object is one record that happens to have a batch field.
    for (const record of [{ batch: [1, 2], job: 'import' }, { batch: 'nightly' }]) {
      assert.deepEqual(events(await run('json', record)), [{ event_message: JSON.stringify(record), metadata: record }]);
    }
  });

  it('reports non-object elements per event', async () => {
    const result = await run('json', [{ a: 1 }, 7]);
    assert.match(errorOf(result.events[1]), /element 1: expected a JSON object, got a number/);
  });
});

describe('vercel route (P/vercel, P/zeit)', () => {
  const edge = {
    id: '1',
    message: '',
    timestamp: 1679582186000,
    source: 'edge',
    projectId: 'p',
    proxy: {
      timestamp: 1679582186000,
      method: 'GET',
      host: 'my-app.vercel.app',
      path: '/api/hello',
      statusCode: 200,
      clientIp: '203.0.113.7',
      userAgent: ['Mozilla/5.0', 'curl/8'],
    },
  };

  it('builds the proxy message, joins userAgent in metadata, and takes the ms timestamp', async () => {
    const [event] = events(await run('vercel', [edge]));
    assert.equal(event!.event_message, 'edge | 200 | my-app.vercel.app | /api/hello | 203.0.113.7 | Mozilla/5.0,curl/8');
    assert.deepEqual(event!.metadata, { ...edge, proxy: { ...edge.proxy, userAgent: 'Mozilla/5.0,curl/8' } });
    assert.equal(edge.proxy.userAgent.length, 2, 'the input is not mutated');
    const r = normalizeEvent(event, NOW);
    assert.ok(r.ok && r.row.timestamp === 1679582186000 * 1000);
  });

  it('uses build, or build | message, for build entries', async () => {
    const [withMessage, bare] = events(await run('zeit', [
      { source: 'build', message: 'Installing dependencies...', timestamp: 1 },
      { source: 'build', timestamp: 2 },
    ]));
    assert.equal(withMessage!.event_message, 'build | Installing dependencies...');
    assert.equal(bare!.event_message, 'build');
  });

  it('uses source | message for lambda output without proxy data', async () => {
    const [event] = events(await run('vercel', [{ source: 'lambda', message: 'START RequestId: abc', timestamp: 1 }]));
    assert.equal(event!.event_message, 'lambda | START RequestId: abc');
  });

  it('leaves missing proxy parts empty', async () => {
    const [event] = events(await run('vercel', [{ source: 'static', proxy: { statusCode: 304 } }]));
    assert.equal(event!.event_message, 'static | 304 |  |  |  | ');
  });

  it('accepts NDJSON drains', async () => {
    const body = [edge, { ...edge, id: '2' }].map((e) => JSON.stringify(e)).join('\n');
    assert.equal(events(await run('vercel', body, 'application/x-ndjson')).length, 2);
  });
});

describe('github route (P/github)', () => {
  const payload = {
    action: 'opened',
    issue: { url: 'https://api.github.com/x', html_url: 'https://github.com/x', title: 'Bug', labels: [{ name: 'bug', url: 'u' }] },
    repository: { full_name: 'octo/sawmill', clone_url: 'c', owner: { login: 'octo', avatar_url: 'a', followers_url: 'f' } },
    sender: { login: 'alice', repos_url: 'r' },
  };

  it('builds repo | sender | action and removes *_url keys at every depth', async () => {
    const [event] = events(await run('github', payload));
    assert.equal(event!.event_message, 'octo/sawmill | alice | opened');
    assert.deepEqual(event!.metadata, {
      action: 'opened',
      issue: { url: 'https://api.github.com/x', title: 'Bug', labels: [{ name: 'bug', url: 'u' }] },
      repository: { full_name: 'octo/sawmill', owner: { login: 'octo' } },
      sender: { login: 'alice' },
    });
    assert.equal(payload.issue.html_url, 'https://github.com/x', 'the input is not mutated');
  });

  it('falls back to the X-GitHub-Event header when there is no action, else leaves it empty', async () => {
    const push = { ref: 'refs/heads/main', repository: { full_name: 'octo/sawmill' }, sender: { login: 'bob' } };
    assert.equal(events(await run('github', push, 'application/json', { 'x-github-event': 'push' }))[0]!.event_message, 'octo/sawmill | bob | push');
    assert.equal(events(await run('github', { zen: 'hi' }))[0]!.event_message, ' |  | ');
  });

  it('removes *_url keys below the depth where the call stack would give out', async () => {
    const deep = `${'{"a":'.repeat(20_000)}{"x_url":1,"keep":2}${'}'.repeat(20_000)}`;
    const [event] = events(await run('github', deep));
    let inner: unknown = event!.metadata;
    for (let i = 0; i < 20_000; i++) inner = (inner as Record<string, unknown>).a;
    assert.deepEqual(inner, { keep: 2 });
  });

  it('verifies X-Hub-Signature-256 in constant time', () => {
    const body = Buffer.from(JSON.stringify(payload));
    const secret = 's3cret';
    const good = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
    assert.equal(verifyGithubSignature(body, good, secret), true);
    assert.equal(verifyGithubSignature(body, good.toUpperCase().replace('SHA256=', 'sha256='), secret), true);
    assert.equal(verifyGithubSignature(body, good, 'other'), false);
    assert.equal(verifyGithubSignature(Buffer.concat([body, Buffer.from(' ')]), good, secret), false);
    assert.equal(verifyGithubSignature(body, undefined, secret), false);
    assert.equal(verifyGithubSignature(body, good.replace('sha256=', 'sha1='), secret), false);
    assert.equal(verifyGithubSignature(body, good.slice(0, -2), secret), false);
    assert.equal(verifyGithubSignature(body, 'sha256=' + 'zz'.repeat(32), secret), false);
  });
});

describe('cloudflare route (P/cloudflare)', () => {
  it('passes worker batches through like the raw route, with body routing', async () => {
    const worker = { log_entry: 'GET | 200 | ...', metadata: sample('cloudflare.logs.prod').metadata };
    const result = await run('cloudflare', { batch: [worker, worker], source: '0e4c3c16-4d4b-4a5c-9c3a-2f0d7e2b1a11' });
    assert.deepEqual(events(result), [worker, worker]);
    assert.equal(result.routing.source, '0e4c3c16-4d4b-4a5c-9c3a-2f0d7e2b1a11');
    const single = await run('cloudflare', { ...worker, source: '0e4c3c16-4d4b-4a5c-9c3a-2f0d7e2b1a11' });
    assert.deepEqual(events(single), [worker]);
  });

  it('reads gzip NDJSON Logpush records sent as text/plain without Content-Encoding', async () => {
    const records = [
      { ClientRequestMethod: 'GET', EdgeResponseStatus: 200, ClientRequestHost: 'example.com', ClientRequestURI: '/a?b=1', EdgeStartTimestamp: '2023-03-23T14:36:26Z', RayID: '7ac6' },
      { ClientRequestMethod: 'POST', EdgeResponseStatus: 502, ClientRequestHost: 'example.com', ClientRequestURI: '/b', EdgeStartTimestamp: 1679582186000000000 },
      { Action: 'block', ClientIP: '203.0.113.7', Datetime: '2023-03-23T14:36:27Z' },
    ];
    const body = gzipSync(records.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const result = await run('cloudflare', body, 'text/plain; charset=utf-8');
    const evs = events(result);
    assert.deepEqual(evs.map((e) => e.event_message), ['GET | 200 | example.com | /a?b=1', 'POST | 502 | example.com | /b', JSON.stringify(records[2])]);
    assert.deepEqual(evs.map((e) => e.metadata), records);
    const times = evs.map((e) => normalizeEvent(e, NOW)).map((r) => (r.ok ? r.row.timestamp : r.error));
    const base = Date.UTC(2023, 2, 23, 14, 36, 26) * 1000;
    assert.deepEqual(times, [base, base, base + 1_000_000]);
  });

  it('takes the Workers trace event time from EventTimestampMs', async () => {
    const [event] = events(await run('cloudflare', '{"ScriptName":"w","Outcome":"ok","EventTimestampMs":1679582186000}\n', 'application/x-ndjson'));
    assert.equal(event!.timestamp, 1679582186000);
  });
});

describe('vector route (P/vector)', () => {
  it('moves message and timestamp out of metadata and copies log.level', async () => {
    const [event] = events(await run('vector', [{ message: 'hi', timestamp: '2023-03-23T14:36:26Z', host: 'h', log: { level: 'warn' } }]));
    assert.deepEqual(event, {
      event_message: 'hi',
      metadata: { host: 'h', log: { level: 'warn' }, level: 'warn' },
      timestamp: '2023-03-23T14:36:26Z',
    });
  });

  it('uses the metadata JSON text when there is no message', async () => {
    const [event] = events(await run('vector', [{ timestamp: 1, host: 'h' }]));
    assert.equal(event!.event_message, '{"host":"h"}');
  });
});

describe('logplex route (P/logplex)', () => {
  const frame = (message: string) => `${Buffer.byteLength(message)} ${message}`;

  it('turns each octet-counted frame into an event', async () => {
    const body =
      frame('<40>1 2012-11-30T06:45:29+00:00 host app web.3 - State changed from starting to up\n') +
      frame('<190>1 2012-11-30T06:45:26.123456+00:00 host heroku router - at=info method=GET path="/ü" status=200\n');
    const evs = events(await run('logplex', body, 'application/logplex-1'));
    assert.deepEqual(evs, [
      {
        event_message: 'State changed from starting to up',
        timestamp: '2012-11-30T06:45:29+00:00',
        metadata: { facility: 'syslog', severity: 'emerg', priority: 40, version: 1, hostname: 'host', appname: 'app', procid: 'web.3' },
      },
      {
        event_message: 'at=info method=GET path="/ü" status=200',
        timestamp: '2012-11-30T06:45:26.123456+00:00',
        metadata: { facility: 'local7', severity: 'info', priority: 190, version: 1, hostname: 'host', appname: 'heroku', procid: 'router' },
      },
    ]);
    const r = normalizeEvent(evs[1], NOW);
    assert.ok(r.ok && r.row.timestamp === Date.UTC(2012, 10, 30, 6, 45, 26) * 1000 + 123_456);
  });

  it('reads RFC 5424 structured data and a nil structured data field', async () => {
    const body = frame('<13>1 2023-03-23T14:36:26Z h a p ID47 [ex@1 k="v\\]"][b@2 x="y"] hello') + frame('<13>1 - h a p - - msg');
    const [withSd, nil] = events(await run('logplex', body, 'application/logplex-1'));
    assert.deepEqual(withSd!.metadata, {
      facility: 'user', severity: 'notice', priority: 13, version: 1, hostname: 'h', appname: 'a', procid: 'p', msgid: 'ID47',
      structured_data: '[ex@1 k="v\\]"][b@2 x="y"]',
    });
    assert.equal(withSd!.event_message, 'hello');
    assert.equal(nil!.event_message, 'msg');
    assert.equal(nil!.timestamp, undefined);
  });

  it('reports a malformed frame per event and stops at a broken octet count', async () => {
    const body = frame('not syslog') + frame('<13>1 2023-03-23T14:36:26Z h a p - ok') + '99 short';
    const result = await run('logplex', body, 'application/logplex-1');
    assert.equal(result.events.length, 3);
    assert.match(errorOf(result.events[0]), /frame at byte 0: not an RFC 5424 syslog message/);
    assert.ok(result.events[1]!.ok);
    assert.match(errorOf(result.events[2]), /octet count 99 runs past the end of the body/);
  });

  it('rejects a JSON body with 415', async () => {
    await assert.rejects(run('logplex', { a: 1 }), (e: unknown) => e instanceof AppError && e.status === 415);
  });

  it('fails the whole body when frames are not octet-counted', () => {
    const adapter = adapterFor('logplex')!;
    const result = adapter({ body: { kind: 'text', mediaType: 'application/logplex-1', bytes: Buffer.from('<13>1 no count') }, query: {}, headers: {} });
    assert.match(errorOf(result.events[0]), /expected "<octet count> <syslog message>"/);
    assertAppError(() => adapter({ body: { kind: 'json', value: {} }, query: {}, headers: {} }), 415, /logplex-1/);
  });
});
