/**
 * Heroku HTTPS log drains (`heroku drains:add "https://<host>/logs/logplex?api_key=<key>&source=<uuid>"`).
 * Logplex POSTs `Content-Type: application/logplex-1` with Logplex-Msg-Count, Logplex-Frame-Id and
 * Logplex-Drain-Token headers; the body is octet-counted RFC 5424 frames, `<byte length> <syslog
 * message>`, Heroku leaving out the structured-data field. Written here byte for byte.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { INGEST_KEY, startTestServer, type TestServer } from '../support/server.ts';
import { createSource, httpRequest, micros, only, sendRaw, storedRows } from './helpers.ts';

let server: TestServer;

before(async () => {
  server = await startTestServer();
});
after(() => server.stop({ removeData: true }));

const messages = [
  '<40>1 2026-11-20T10:00:00.123456+00:00 host app web.1 - State changed from starting to up\n',
  '<158>1 2026-11-20T10:00:01+00:00 host heroku router - at=info method=GET path="/checkout" host=shop.herokuapp.com request_id=5f0b1c2d fwd="198.51.100.9" dyno=web.1 connect=0ms service=12ms status=200 bytes=1548 protocol=https\n',
  '<190>1 2026-11-20T10:00:02+00:00 host app web.1 - Müller’s order shipped\n',
];

/** Octet counting: each frame's length is its byte length, so multi-byte characters count as bytes. */
const frames = (lines: string[]) => Buffer.from(lines.map((line) => `${Buffer.byteLength(line)} ${line}`).join(''));

function logplexRequest(path: string, body: Buffer, count: number): Buffer {
  return httpRequest(
    'POST',
    path,
    [
      ['Host', new URL(server.url).host],
      ['Content-Type', 'application/logplex-1'],
      ['Logplex-Msg-Count', String(count)],
      ['Logplex-Frame-Id', '09C557EAFCFB6CF2740EE62F62971098'],
      ['Logplex-Drain-Token', 'd.fc6b856b-3332-4546-93de-7d0ee272c3bd'],
      ['User-Agent', 'Logplex/v123'],
      ['Content-Length', String(body.length)],
    ],
    body,
  );
}

describe('Heroku logplex drain', () => {
  test('each octet-counted frame is an event with its syslog time, header fields and message', async () => {
    const token = await createSource(server, 'heroku.drain');
    const reply = await sendRaw(server.url, logplexRequest(`/logs/logplex?api_key=${INGEST_KEY}&source=${token}`, frames(messages), messages.length));
    assert.equal(reply.status, 200, reply.body);
    assert.deepEqual(JSON.parse(reply.body), { message: 'Logged!', accepted: 3, rejected: 0 });

    const [up, router, shipped] = (await storedRows(server, token)) as [Record<string, any>, Record<string, any>, Record<string, any>];
    assert.equal(up.event_message, 'State changed from starting to up');
    assert.equal(up.timestamp, micros('2026-11-20T10:00:00.123Z') + 456);
    assert.deepEqual(
      (({ appname, procid, hostname, facility, severity }) => ({ appname, procid, hostname, facility, severity }))(only(up.metadata)),
      { appname: 'app', procid: 'web.1', hostname: 'host', facility: 'syslog', severity: 'emerg' },
    );
    assert.match(router.event_message, /^at=info method=GET path="\/checkout" .* status=200 /);
    assert.equal(only(router.metadata).appname, 'heroku');
    assert.equal(only(router.metadata).procid, 'router');
    assert.equal(only(router.metadata).severity, 'info');
    assert.equal(shipped.event_message, 'Müller’s order shipped', 'multi-byte text inside octet counts');
  });

  test('a frame whose count runs past the body is reported; the frames before it are kept', async () => {
    const token = await createSource(server, 'heroku.truncated');
    const body = Buffer.concat([frames(messages.slice(0, 1)), Buffer.from('999 <40>1 2026-11-20T10:00:03+00:00 host app web.1 - cut off')]);
    const reply = await sendRaw(server.url, logplexRequest(`/logs/logplex?api_key=${INGEST_KEY}&source=${token}`, body, 2));
    assert.equal(reply.status, 200, reply.body);
    const answer = JSON.parse(reply.body);
    assert.deepEqual([answer.accepted, answer.rejected], [1, 1]);
    assert.match(answer.errors[0].message, /octet count 999 runs past the end/);
  });
});
