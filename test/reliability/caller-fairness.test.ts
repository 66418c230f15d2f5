/**
 * Each caller's share of the query slots (src/http/fairness.ts, issue 27): anonymous callers of a
 * public endpoint cannot hold every slot nor fill the queue, the owner's private key and other
 * keys still get answers, and a caller past its rate is told when to come back.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { freePort, spawnServer, stopServer, type ServerProcess } from '../support/process.ts';
import { send } from './support.ts';

const KEY = 'fairness-test-private-key-0123456789';
const SLOW_QUERY_MS = 4000;
let dir: string;
let server: ServerProcess;
let slow: string;
let fast: string;
let queryKey: string;

const call = (path: string, key?: string) => send(server.url, 'GET', path, key ? { 'x-api-key': key } : {});

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sawmill-fairness-'));
  // Four DuckDB readers, as `npm start` gives; a caller may start 4 queries a second (a burst of 8).
  server = await spawnServer({ SAWMILL_DATA_DIR: dir, SAWMILL_API_KEY: KEY, UV_THREADPOOL_SIZE: '16', SAWMILL_CALLER_QUERY_RATE: '4' }, await freePort());
  const headers = { 'x-api-key': KEY, 'content-type': 'application/json' };
  const post = async (path: string, body: unknown) => (await send(server.url, 'POST', path, headers, JSON.stringify(body))).json;
  const source = await post('/api/sources', { name: 'rows' });
  for (let b = 0; b < 3; b++) await post(`/logs?source=${source.token}`, Array.from({ length: 1000 }, (_, i) => ({ message: `row ${b} ${i}` })));
  // A cartesian product of 8.1e13 rows: runs until its deadline on any machine (2.7e10, three
  // tables, took 3.2 s on an idle 2-core box: inside a 4 s deadline).
  slow = (await post('/api/endpoints', { name: 'slow', query: 'select count(*) as n from `rows` a cross join `rows` b cross join `rows` c cross join `rows` d', query_timeout_ms: SLOW_QUERY_MS, enable_auth: false })).token;
  fast = (await post('/api/endpoints', { name: 'fast', query: 'select count(*) as n from `rows`', enable_auth: false })).token;
  queryKey = (await post('/api/access-tokens', { scopes: 'query' })).token;
});
after(async () => {
  if (server) await stopServer(server, 'SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

test('four anonymous slow queries leave room: the private key and a query key are answered before any of them ends', async () => {
  const finished: string[] = [];
  const track = (name: string, reply: Promise<{ status: number }>) => reply.then((result) => (finished.push(name), result));
  const anonymous = Array.from({ length: 4 }, (_, i) => track(`anonymous ${i}`, call(`/api/endpoints/query/${slow}`)));
  await new Promise((resolve) => setTimeout(resolve, 500));
  const owner = await track('private key', call(`/api/endpoints/query/${fast}`, KEY));
  const other = await track('query key', call(`/api/endpoints/query/${fast}`, queryKey));
  assert.deepEqual([owner.status, other.status], [200, 200]);
  assert.deepEqual(finished, ['private key', 'query key']);
  // Two run at a time for one address, two wait their turn (and meet the deadline or their own).
  const statuses = (await Promise.all(anonymous)).map((reply) => reply.status).sort();
  assert.ok(statuses.every((status) => status === 503 || status === 504), statuses.join());
});

test('one address cannot fill the queue: past its two running and two waiting it is refused with Retry-After', async () => {
  const replies = await Promise.all([
    ...Array.from({ length: 8 }, () => call(`/api/endpoints/query/${slow}`)),
    new Promise((resolve) => setTimeout(resolve, 500)).then(() => call(`/api/endpoints/query/${fast}`, KEY)),
  ]);
  const owner = replies.pop()!;
  assert.equal(owner.status, 200);
  const refused = replies.filter((reply) => reply.status === 429);
  assert.equal(refused.length, 4, replies.map((reply) => reply.status).join());
  assert.equal(refused[0]!.json.error.code, 'too_many_queries');
  assert.equal(refused[0]!.headers['retry-after'], '1');
});

test('a key past its rate is refused with 429 rate_limited and Retry-After; the private key is not limited', async () => {
  const statuses: number[] = [];
  let limited: Awaited<ReturnType<typeof call>> | undefined;
  for (let i = 0; i < 30; i++) {
    const reply = await call(`/api/endpoints/query/${fast}`, queryKey);
    statuses.push(reply.status);
    if (reply.status === 429) limited ??= reply;
  }
  assert.ok(limited, statuses.join());
  assert.equal(limited.json.error.code, 'rate_limited');
  assert.ok(Number(limited.headers['retry-after']) >= 1);
  assert.deepEqual(statuses.slice(0, 8), Array(8).fill(200));
  for (let i = 0; i < 30; i++) assert.equal((await call(`/api/endpoints/query/${fast}`, KEY)).status, 200);
});
