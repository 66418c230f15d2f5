/**
 * One query cannot take all the memory: functions whose output size the query chooses
 * (GENERATE_ARRAY, GENERATE_TIMESTAMP_ARRAY, REPEAT, LPAD, RPAD) are bounded as ZetaSQL bounds
 * them, statically when their arguments are literals and at run time otherwise. Runs the real
 * entry point in its own process, so its RSS is the server's alone.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { freePort, spawnServer, stopServer, type ServerProcess } from '../support/process.ts';
import { rssOf, send, sleep } from './support.ts';

const KEY = 'query-memory-test-key-0123456789';
const MEMORY_LIMIT_MB = 256;
/** What the process may grow by over its idle size: DuckDB's limit plus the margin docs/reliability.md states. */
const ALLOWED_GROWTH_MB = MEMORY_LIMIT_MB + 192;

let server: ServerProcess;
let dataDir: string;

before(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'sawmill-query-memory-'));
  server = await spawnServer(
    { SAWMILL_DATA_DIR: dataDir, SAWMILL_API_KEY: KEY, SAWMILL_MEMORY_LIMIT: `${MEMORY_LIMIT_MB}MB`, SAWMILL_QUERY_TIMEOUT_MS: '3000', UV_THREADPOOL_SIZE: '16' },
    await freePort(),
  );
});
after(async () => {
  await stopServer(server, 'SIGKILL');
  await rm(dataDir, { recursive: true, force: true });
});

const headers = { 'x-api-key': KEY, 'content-type': 'application/json' };

async function createEndpoint(name: string, query: string, extra: Record<string, unknown> = {}) {
  return send(server.url, 'POST', '/api/endpoints', headers, JSON.stringify({ name, query, ...extra }));
}

async function run(token: string, params: Record<string, string>) {
  return send(server.url, 'GET', `/api/endpoints/query/${token}?${new URLSearchParams(params)}`, headers);
}

test('generators and string builders with literal arguments past the limit are refused when the endpoint is saved', async () => {
  const refused = {
    'select array_length(generate_array(1, 1000000000)) as n': /GENERATE_ARRAY cannot generate arrays with more than 16000 elements/,
    "select array_length(generate_timestamp_array(timestamp '2000-01-01', timestamp '2001-01-01', interval 1 minute)) as n":
      /GENERATE_TIMESTAMP_ARRAY cannot generate arrays with more than 16000 elements/,
    "select length(repeat('ab', 40000)) as n": /output of REPEAT exceeds the limit of 65536 bytes/,
    "select length(lpad('x', 2000000)) as n": /output of LPAD exceeds the limit/,
    "select format('%1000000d', 1) as s": /a width or precision in FORMAT exceeds the limit of 65536/,
  };
  for (const [query, message] of Object.entries(refused)) {
    const reply = await createEndpoint(`static.${Object.keys(refused).indexOf(query)}`, query);
    assert.equal(reply.status, 422, `${query}: ${reply.text}`);
    assert.match(reply.json.errors.query[0], message);
  }
  const atTheLimit = await createEndpoint('static.ok', 'select array_length(generate_array(1, 16000)) as n');
  assert.equal(atTheLimit.status, 201, atTheLimit.text);
  const answer = await run(atTheLimit.json.token, {});
  assert.deepEqual(answer.json.result, [{ n: 16000 }]);
});

test('the same calls with bound arguments fail at run time, five callers at once, and RSS stays within the memory limit plus the margin', async () => {
  const queries = {
    array: ['select array_length(generate_array(1, cast(@n as int64))) as n', /more than 16000 elements/],
    timestamps: [
      "select array_length(generate_timestamp_array(timestamp '2000-01-01', timestamp_add(timestamp '2000-01-01', interval cast(@n as int64) second), interval 1 second)) as n",
      /more than 16000 elements/,
    ],
    repeat: ["select length(repeat('x', cast(@n as int64))) as n", /exceeds the limit of 65536 bytes/],
    padding: ["select length(rpad('x', cast(@n as int64), 'y')) as n", /exceeds the limit of 65536 bytes/],
    // Each 'x' becomes @n bytes: 60,000 of them.
    replace: ["select length(replace(repeat('x', 60000), 'x', repeat('y', least(cast(@n as int64), 60000)))) as n", /output of REPLACE exceeds the limit of 65536 bytes/],
  } as const;
  const tokens: Record<string, string> = {};
  for (const [name, [query]] of Object.entries(queries)) {
    const created = await createEndpoint(`bound.${name}`, query);
    assert.equal(created.status, 201, created.text);
    tokens[name] = created.json.token;
  }
  const pid = server.child.pid!;
  const idle = await rssOf(pid);
  const bound = idle + ALLOWED_GROWTH_MB * 2 ** 20;
  let peak = idle;
  let sampling = true;
  // Samples RSS and, on old code, kills the server the moment it passes the bound: the test then
  // fails at once instead of letting the process eat the machine's memory.
  const sampler = (async () => {
    for (let i = 0; sampling && i < 20_000; i++) {
      const rss = await rssOf(pid).catch(() => 0);
      peak = Math.max(peak, rss);
      if (rss > bound) server.child.kill('SIGKILL');
      await sleep(10);
    }
  })();
  // Within the limits they answer, a different string of nearly 64 KiB on each of 2,048 rows (one
  // batch of DuckDB's) included.
  assert.deepEqual((await run(tokens.array!, { n: '16000' })).json.result, [{ n: 16000 }]);
  assert.deepEqual((await run(tokens.repeat!, { n: '65536' })).json.result, [{ n: 65536 }]);
  assert.deepEqual((await run(tokens.replace!, { n: '1' })).json.result, [{ n: 60000 }]);
  const perRow = await createEndpoint('bound.rows', 'select max(length(repeat(cast(a as string), cast(@n as int64)))) as n from unnest(generate_array(10000, 12047)) a', {
    query_timeout_ms: 30_000,
  });
  const rows = await run(perRow.json.token, { n: '13000' });
  assert.deepEqual(rows.json?.result, [{ n: 65000 }], rows.text);
  const names = Object.keys(queries) as Array<keyof typeof queries>;
  const replies = await Promise.all(
    names.map((name) => run(tokens[name]!, { n: '1000000000' }).catch((error: Error) => ({ status: 0, json: undefined, text: error.message }))),
  );
  await sleep(3000); // an engine still building after the reply (DuckDB cannot interrupt one call) shows up here
  sampling = false;
  await sampler;
  const grewMb = (peak - idle) / 2 ** 20;
  console.log(`peak RSS ${(peak / 2 ** 20).toFixed(0)} MB; idle RSS ${(idle / 2 ** 20).toFixed(0)} MB, growth under the queries at and past the limits ${grewMb.toFixed(0)} MB`);
  assert.ok(peak <= bound, `RSS grew by ${grewMb.toFixed(0)} MB over ${(idle / 2 ** 20).toFixed(0)} MB idle (allowed ${ALLOWED_GROWTH_MB})`);
  names.forEach((name, i) => {
    const reply = replies[i]!;
    assert.equal(reply.status, 400, `${name}: ${reply.text}`);
    assert.equal(reply.json.error.code, 'query_failed');
    assert.match(reply.json.error.message, queries[name][1]);
  });
});
