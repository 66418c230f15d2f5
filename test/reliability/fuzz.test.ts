/**
 * Seeded, bounded fuzzing of every ingestion route and the endpoint API with malformed and hostile
 * input. Every reply is a 2xx or a 4xx with a JSON error; the server stays healthy; what it
 * accepted is what it stored; data stored before is untouched.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { INGEST_ROUTES } from '../../src/ingest/index.ts';
import { PRIVATE_KEY, startTestServer, type TestServer } from '../support/server.ts';
import { seededRandom, send, type Random, type RawReply } from './support.ts';

const SEED = 20261121;
const ROUNDS = 260;
const PREFIXES = ['/logs', '/api/logs', '/api/events'];
const PATHS = PREFIXES.flatMap((prefix) => INGEST_ROUTES.map((route) => (route === 'logs' ? prefix : `${prefix}/${route}`)));

let server: TestServer;
let fuzzSource: string;
let baselineSource: string;

interface Payload {
  label: string;
  body: Buffer;
  headers: Record<string, string>;
}

const json = (label: string, value: unknown, headers: Record<string, string> = {}): Payload => ({
  label,
  body: Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)),
  headers: { 'content-type': 'application/json', ...headers },
});

const deepArray = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const deepObject = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
const manyKeys = (count: number, prefix = 'k') => Object.fromEntries(Array.from({ length: count }, (_, i) => [`${prefix}${i}`, i]));
const ODD_TIMESTAMPS = [
  '', ' ', '0', '-1', '1e10', 'NaN', 'Infinity', '2026-02-30T00:00:00Z', '2026-13-01', '9999-12-31T23:59:59Z', '0000-01-01T00:00:00Z',
  '2026-11-21T10:00:00+25:00', '2026-11-21T10:00:00.123456789123Z', '2026-11-21 10:00:00 UTC', '1700000000.' + '9'.repeat(3000),
  '17000000000000000000000', 1e21, -5, 1.5, 1700000000, 1700000000123, 1700000000123456, 1700000000123456789, true, null, [], {}, { $date: 1 },
];
const NAN_LIKE = ['NaN', '-NaN', 'nan', 'Infinity', '-Infinity', 'inf', '1e400', '-0', '0x1F', '1_000', '', ' ', 'null', 'undefined', 'true'];
const SQL_STRINGS = ["' or 1=1 --", "'; drop table x; --", '"; select * from read_csv(\'/etc/passwd\') --', "\\'", '`rows`', '@p', '$1', '?', "' union select * from duckdb_settings() --"];

/** One hostile or malformed request body, chosen by the seed. */
function payload(random: Random): Payload {
  const kind = random.int(0, 21);
  switch (kind) {
    case 0: {
      const valid = JSON.stringify({ message: 'truncated', metadata: { a: [1, 2, { b: 'c' }] } });
      return json('truncated JSON', valid.slice(0, random.int(1, valid.length - 1)));
    }
    case 1:
      return { label: 'random bytes', body: Buffer.from(Array.from({ length: random.int(1, 2000) }, () => random.int(0, 255))), headers: { 'content-type': random.pick(['application/json', 'application/x-ndjson', 'text/plain', '']) } };
    case 2:
      return { label: 'invalid UTF-8', body: Buffer.concat([Buffer.from('{"message":"bad '), Buffer.from(random.pick([[0xff], [0xc3, 0x28], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82]])), Buffer.from('"}')]), headers: { 'content-type': 'application/json' } };
    case 3:
      return json('10,000-level nesting (body)', random.chance(0.5) ? deepArray(10_000) : deepObject(10_000));
    case 4:
      return json('10,000-level nesting (metadata)', `{"message":"deep","metadata":${random.chance(0.5) ? deepArray(10_000) : deepObject(10_000)}}`);
    case 5:
      return json('huge array of scalars', `[${Array.from({ length: 100_000 }, (_, i) => i).join(',')}]`);
    case 6:
      return json('huge array in an event', { message: 'huge array', metadata: { values: Array.from({ length: random.pick([1000, 100_000]) }, (_, i) => i) } });
    case 7:
      return json('100,000 keys', random.chance(0.5) ? { message: 'many keys', ...manyKeys(100_000) } : { message: 'many keys', metadata: manyKeys(100_000) });
    case 8:
      return json('keys that sanitise to one name', {
        message: 'colliding keys',
        'a-b': 1, 'a.b': 2, 'a b': 3, 'A-B': 4, a_b: 5, 'a\u00e9b': 6, 'a/b': 7,
        metadata: Object.fromEntries(Array.from({ length: random.int(2, 800) }, (_, i) => [`x${String.fromCodePoint(0x100 + i)}`, i])),
      });
    case 9:
      return json('numbers beyond 2^64', `{"message":"big numbers","metadata":{"a":18446744073709551616,"b":-18446744073709551617,"c":1e400,"d":-1e400,"e":1e-400,"f":-0,"g":123456789012345678901234567890}}`);
    case 10:
      return json('NaN-like strings', { message: 'nan-like', metadata: Object.fromEntries(NAN_LIKE.map((value, i) => [`v${i}`, value])) });
    case 11:
      return json('odd timestamp', { message: 'odd timestamp', timestamp: random.pick(ODD_TIMESTAMPS) });
    case 12:
      return { label: 'wrong content type', body: Buffer.from('{"message":"x"}'), headers: { 'content-type': random.pick(['text/csv', 'application/xml', 'multipart/form-data; boundary=x', 'application/octet-stream', 'application/logplex-1', 'image/png', ';;;', 'application/json; charset=utf-16']) } };
    case 13: {
      const gz = gzipSync('{"message":"gz"}');
      const broken = random.pick([gz.subarray(0, random.int(2, gz.length - 1)), Buffer.concat([gz.subarray(0, 10), Buffer.from('garbage garbage')]), Buffer.from('{"message":"not gzip"}'), gzipSync(gz)]);
      return { label: 'broken gzip', body: broken, headers: { 'content-type': 'application/json', 'content-encoding': random.pick(['gzip', 'deflate', 'br', 'gzip, gzip', 'compress', 'x-gzip']) } };
    }
    case 14:
      return json('lone surrogates and NUL', '{"message":"lone \\ud800 here","id":"\\udfff","metadata":{"nul":"a\\u0000b","\\ud83d":"key"}}');
    case 15:
      return json('prototype keys', '{"message":"proto","__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}},"metadata":{"__proto__":1,"toString":"s","hasOwnProperty":2}}');
    case 16: {
      const valid = Buffer.from(JSON.stringify({ batch: [{ message: 'mutated', metadata: { a: 1, b: [true, null, 'x'] } }, { message: 'second' }] }));
      for (let flips = random.int(1, 5); flips > 0; flips--) valid[random.int(0, valid.length - 1)] = random.int(0, 255);
      return json('byte-flipped batch', valid.toString('latin1'));
    }
    case 17:
      return { label: 'logplex garbage', body: Buffer.from(random.pick(['99999999999999999999 <1>1 - - - - - x', '5 <1>1', '83 <999>1 2012-11-30T06:45:29+00:00 host app web.3 - hi\n', `10 ${'['.repeat(500)}`, '12 <13>1 - - - - - [a=b'])), headers: { 'content-type': 'application/logplex-1' } };
    case 18:
      return { label: 'NDJSON with bad lines', body: Buffer.from(['{"message":"ok line"}', '{bad', '', '[]', '42', '"s"', 'null', deepObject(3000)].join('\n')), headers: { 'content-type': 'application/x-ndjson' } };
    case 19:
      return json('wrong shapes', random.pick([42, 'string', null, true, [], {}, { batch: 'x' }, { batch: [[]] }, { batch: null }, [[1, 2]], [null], { message: { nested: 'message' } }, { message: ['array'] }, { id: {} }, { id: 1e400 }]));
    case 20:
      return json('empty body', '', random.chance(0.5) ? { 'content-type': 'application/json' } : {});
    default:
      return json('long strings and keys', { message: 'x'.repeat(random.int(0, 200_000)), ['k'.repeat(random.int(1, 5000))]: 'v', metadata: { ['é'.repeat(300)]: 'accent' } });
  }
}

function hostileQuery(random: Random): string {
  if (random.chance(0.8)) return `?source=${fuzzSource}`;
  return random.pick([
    `?source=${encodeURIComponent(random.pick(SQL_STRINGS))}`,
    `?source_name=${encodeURIComponent(random.pick(SQL_STRINGS))}`,
    `?source=${fuzzSource}&source=${baselineSource}`,
    `?source_name=fuzz&source_name=baseline`,
    `?source=${fuzzSource.toUpperCase()}`,
    `?source=${'a'.repeat(10_000)}`,
    '',
  ]);
}

/** A reply the fuzz accepts: a 2xx with a JSON body, or a 4xx with `{error: {code, message}}`. */
function checkReply(reply: RawReply, what: string): void {
  assert.ok(reply.status < 500, `${what}: ${reply.status} ${reply.text.slice(0, 300)}`);
  assert.ok(reply.json !== undefined, `${what}: the body is not JSON: ${reply.text.slice(0, 200)}`);
  if (reply.status >= 400) {
    const error = reply.json.error;
    assert.ok(typeof error === 'object' && typeof error.code === 'string' && typeof error.message === 'string', `${what}: ${reply.text.slice(0, 200)}`);
  }
}

async function fingerprint(sourceToken: string): Promise<unknown> {
  const { warehouse } = server.services;
  const [row] = await warehouse.query(
    `select count(*) as n, sum(hash(id, "timestamp", event_message, cast(metadata as varchar))) as h from ${warehouse.relation(sourceToken)}`,
    {},
    { timeoutMs: 10_000, maxRows: 1 },
  );
  return row;
}

async function storedCount(sourceToken: string): Promise<number> {
  const { warehouse } = server.services;
  const [row] = await warehouse.query(`select count(*) as n from ${warehouse.relation(sourceToken)}`, {}, { timeoutMs: 10_000, maxRows: 1 });
  return Number(row!.n);
}

before(async () => {
  server = await startTestServer({ maxBodyBytes: 2 * 1024 * 1024 });
  fuzzSource = (await server.request('POST', '/api/sources', { body: { name: 'fuzz' } })).body.token;
  baselineSource = (await server.request('POST', '/api/sources', { body: { name: 'baseline' } })).body.token;
  const seed = Array.from({ length: 500 }, (_, i) => ({ id: `base-${i}`, message: `baseline ${i}`, timestamp: 1_763_700_000_000 + i, metadata: { i, tag: `t${i % 7}`, nested: { ok: i % 2 === 0 } } }));
  assert.equal((await server.request('POST', `/logs?source=${baselineSource}`, { body: seed })).status, 200);
});
after(() => server.stop({ removeData: true }));

test(`ingestion routes survive ${ROUNDS} seeded hostile requests (seed ${SEED})`, async () => {
  const random = seededRandom(SEED);
  const baselineBefore = await fingerprint(baselineSource);
  let accepted = 0;
  const seen = new Map<string, number>();
  for (let round = 0; round < ROUNDS; round++) {
    const path = random.pick(PATHS);
    const { label, body, headers } = payload(random);
    const query = hostileQuery(random);
    const what = `round ${round}: ${label} → POST ${path}${query.slice(0, 80)}`;
    const reply = await send(server.url, 'POST', path + query, { 'x-api-key': PRIVATE_KEY, ...headers }, body);
    checkReply(reply, what);
    // Source tokens are matched ignoring case.
    if (reply.status === 200 && query.toLowerCase() === `?source=${fuzzSource}`) accepted += reply.json.accepted;
    seen.set(`${label} ${reply.status}`, (seen.get(`${label} ${reply.status}`) ?? 0) + 1);
    if (round % 20 === 19) assert.equal((await send(server.url, 'GET', '/health', {})).status, 200, `healthy after ${what}`);
  }
  // Every kind of payload was tried, and some were stored.
  assert.equal(new Set([...seen.keys()].map((key) => key.replace(/ \d+$/, ''))).size, 22, [...seen.keys()].join('; '));
  assert.ok(accepted > 0);
  assert.equal(await storedCount(fuzzSource), accepted, 'every accepted event is stored, and nothing else');
  assert.deepEqual(await fingerprint(baselineSource), baselineBefore, 'data stored before the fuzz is intact');
  assert.equal(((await server.request('GET', '/api/sources')).body as any[]).length >= 2, true);
});

test('hostile values that are accepted are stored faithfully', async () => {
  const source = (await server.request('POST', '/api/sources', { body: { name: 'faithful' } })).body.token;
  const post = (body: string) => send(server.url, 'POST', `/logs?source=${source}`, { 'x-api-key': PRIVATE_KEY, 'content-type': 'application/json' }, body);
  const events = [
    '{"id":"collide","message":"collide","a-b":1,"a.b":2,"A_B":3}',
    '{"id":"numbers","message":"numbers","metadata":{"big":18446744073709551616,"inf":1e400,"neg0":-0}}',
    `{"id":"nan","message":"nan","metadata":${JSON.stringify(Object.fromEntries(NAN_LIKE.map((value, i) => [`v${i}`, value])))}}`,
    '{"id":"surrogate","message":"lone \\ud800 here"}',
    `{"id":"sql","message":${JSON.stringify(SQL_STRINGS.join(' | '))}}`,
  ];
  for (const event of events) assert.equal((await post(event)).status, 200, event);
  const { warehouse } = server.services;
  const rows = await warehouse.query(`select * from ${warehouse.relation(source)}`, {}, { timeoutMs: 5000, maxRows: 10 });
  const byId = Object.fromEntries(rows.map((row) => [row.id, row as any]));
  assert.deepEqual([byId.collide._a_b, byId.collide._a_b_2, byId.collide.A_B], [1, 2, 3], 'keys that sanitise alike keep their own values');
  assert.equal(byId.numbers.metadata[0].big, 18446744073709551616);
  assert.equal(byId.numbers.metadata[0].inf, 'Infinity');
  NAN_LIKE.forEach((value, i) => assert.equal(byId.nan.metadata[0][`v${i}`], value, `"${value}" stays a string`));
  assert.equal(byId.surrogate.event_message, 'lone \ufffd here');
  assert.equal(byId.sql.event_message, SQL_STRINGS.join(' | '));
});

test('the endpoint API: hostile parameters are bound, never spliced; hostile SQL and names are refused with 4xx', async () => {
  const random = seededRandom(SEED + 1);
  const created = await server.request('POST', '/api/endpoints', {
    body: { name: 'echo.fuzz', query: 'select @p as p, (select count(*) from `baseline` where event_message = @p) as n' },
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const hostile = [...SQL_STRINGS, 'baseline 1', '\u0000', 'é'.repeat(1000), 'x'.repeat(10_000), '%', '\\', '\n;\n', '\ud83d\ude00'];
  for (const value of hostile) {
    const viaQuery = await send(server.url, 'GET', `/api/endpoints/query/echo.fuzz?p=${encodeURIComponent(value)}`, { 'x-api-key': PRIVATE_KEY });
    checkReply(viaQuery, `GET p=${value.slice(0, 40)}`);
    assert.deepEqual(viaQuery.json, { result: [{ p: value, n: value === 'baseline 1' ? 1 : 0 }] });
    const viaBody = await send(server.url, 'POST', '/api/endpoints/query/echo.fuzz', { 'x-api-key': PRIVATE_KEY, 'content-type': 'application/json' }, JSON.stringify({ p: value }));
    assert.deepEqual(viaBody.json, { result: [{ p: value, n: value === 'baseline 1' ? 1 : 0 }] });
  }
  // A request line past the header limit (512 KiB, SAWMILL_MAX_HEADER_BYTES) is refused before routing, still as JSON; the body has no such limit.
  const huge = 'y'.repeat(600_000);
  const tooLong = await send(server.url, 'GET', `/api/endpoints/query/echo.fuzz?p=${huge}`, { 'x-api-key': PRIVATE_KEY });
  assert.equal(tooLong.status, 431);
  assert.ok(tooLong.json !== undefined);
  const inBody = await send(server.url, 'POST', '/api/endpoints/query/echo.fuzz', { 'x-api-key': PRIVATE_KEY, 'content-type': 'application/json' }, JSON.stringify({ p: huge }));
  assert.deepEqual(inBody.json, { result: [{ p: huge, n: 0 }] });
  const oddBodies = ['{', '[1,2]', '{"p":{"nested":[1]}}', '{"p":null}', '{"p":1e400}', deepObject(10_000), 'null'];
  for (const body of oddBodies) {
    const reply = await send(server.url, 'POST', '/api/endpoints/query/echo.fuzz', { 'x-api-key': PRIVATE_KEY, 'content-type': 'application/json' }, body);
    checkReply(reply, `POST body ${body.slice(0, 30)}`);
  }
  const names = ['%00', '..%2F..%2Fetc%2Fpasswd', 'a'.repeat(5000), encodeURIComponent(SQL_STRINGS[0]!), '00000000-0000-0000-0000-000000000000'];
  for (const name of names) {
    const reply = await send(server.url, 'GET', `/api/endpoints/query/${name}`, { 'x-api-key': PRIVATE_KEY });
    checkReply(reply, name.slice(0, 40));
    assert.equal(reply.status, name.length > 100 ? 414 : 404, name.slice(0, 40)); // Fastify caps path parameters at 100 characters
  }
  for (let round = 0; round < 40; round++) {
    const query = random.pick([
      ...SQL_STRINGS,
      `select * from \`${random.pick(SQL_STRINGS)}\``,
      'select 1; select 2',
      deepArray(2000),
      `select ${'('.repeat(5000)}1${')'.repeat(5000)}`,
      `select ${Array.from({ length: 3000 }, (_, i) => `${i} as c${i}`).join(', ')}`,
      `select * from \`baseline\` where event_message = '${'x'.repeat(random.int(0, 10))}`,
      'with a as (select 1 as x) select * from a, a',
      '',
      `select * from unnest([${Array.from({ length: 100 }, () => random.int(0, 9)).join(',')}])`,
    ]);
    const reply = await send(server.url, 'POST', '/api/endpoints', { 'x-api-key': PRIVATE_KEY, 'content-type': 'application/json' }, JSON.stringify({ name: `fuzz-${round}`, query }));
    assert.ok([201, 422].includes(reply.status), `${query.slice(0, 60)} → ${reply.status} ${reply.text.slice(0, 200)}`);
    if (reply.status === 201) {
      const ran = await send(server.url, 'GET', `/api/endpoints/query/${reply.json.token}`, { 'x-api-key': PRIVATE_KEY });
      checkReply(ran, `running ${query.slice(0, 60)}`);
    }
  }
  assert.equal((await send(server.url, 'GET', '/health', {})).status, 200);
});
