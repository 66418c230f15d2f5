import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { freePort } from '../support/process.ts';
import { connection } from '../../src/cli/client.ts';
import { PRIVATE_KEY, startTestServer, type TestServer } from '../support/server.ts';
import { LOGFLARE_ENVIRONMENT, STACK_PRIVATE_TOKEN } from '../support/supabase-stack.ts';

const BIN = fileURLToPath(new URL('../../bin/sawmill.mjs', import.meta.url));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The real `sawmill` binary in a child process, as a user would run it. */
function sawmill(args: string[], options: { env?: Record<string, string | undefined>; input?: string } = {}): Promise<Run> {
  const child = spawn(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH, ...options.env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  child.stdin.end(options.input ?? '');
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function waitFor(check: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('sawmill CLI against a running service', () => {
  let server: TestServer;
  let env: Record<string, string>;
  const run = (args: string[], input?: string) => sawmill(args, { env, ...(input === undefined ? {} : { input }) });

  before(async () => {
    server = await startTestServer();
    env = { SAWMILL_URL: server.url, SAWMILL_API_KEY: PRIVATE_KEY };
  });
  after(() => server.stop({ removeData: true }));

  test('sources create prints the new token; the service has the source', async () => {
    const { code, stdout } = await run(['sources', 'create', 'cli.app', '--description', 'made by the CLI']);
    assert.equal(code, 0);
    const token = /created source cli\.app: ([0-9a-f-]{36})/.exec(stdout)?.[1];
    assert.ok(token, stdout);
    const stored = await server.request('GET', `/api/sources/${token}`);
    assert.deepEqual([stored.body.name, stored.body.description], ['cli.app', 'made by the CLI']);
  });

  test('ingest sends NDJSON from stdin, reports progress and the lines it could not store', async () => {
    const lines = [
      ...Array.from({ length: 25 }, (_, i) => JSON.stringify({ message: `${i % 5 === 0 ? 'error' : 'info'}: job ${i}`, metadata: { job: i, failed: i % 5 === 0 } })),
      'this line is not JSON',
      '',
    ];
    const { code, stderr, stdout } = await run(['ingest', 'cli.app', '--batch', '10', '--json'], lines.join('\n'));
    // Not everything was stored: a script must see a failure.
    assert.equal(code, 1, stderr);
    assert.match(stderr, /25 events sent, [\d,]+\/s, 1 rejected/);
    assert.match(stderr, /line 26: not valid JSON/);
    assert.match(stderr, /1 of 26 events were not stored/);
    assert.deepEqual(JSON.parse(stdout), { accepted: 25, rejected: 1 });
    const page = await server.request('GET', `/api/sources/cli.app/events?limit=100`);
    assert.equal(page.body.events.length, 25);
  });

  test('ingest of input with no valid event fails', async () => {
    const { code, stderr } = await run(['ingest', 'cli.app'], 'nope\nstill nope\n');
    assert.equal(code, 1);
    assert.match(stderr, /no event was stored/);
  });

  test('sources list shows counts, the last-minute rate and the last event; --json is machine-readable', async () => {
    const table = await run(['sources', 'list']);
    assert.equal(table.code, 0);
    const line = table.stdout.split('\n').find((row) => row.includes('cli.app'));
    assert.match(line ?? '', /cli\.app\s+[0-9a-f-]{36}\s+25\s+25\s+\d{4}-\d{2}-\d{2}T/);
    const json = await run(['sources', 'list', '--json']);
    const source = JSON.parse(json.stdout).find((item: { name: string }) => item.name === 'cli.app');
    assert.equal(source.events, 25);
  });

  test('ingest names the input line of each problem, in every batch, whole-batch refusals included', async () => {
    assert.equal((await run(['sources', 'create', 'cli.lines'])).code, 0);
    const lines = ['{"message":"a"}', '{"message":"b"}', '{"message":"c"}', '7', 'nope', '[1]', '{"message":"d"}', '{"message":"e"}', '{bad'];
    const { code, stderr } = await run(['ingest', 'cli.lines', '--batch', '3'], lines.join('\n'));
    assert.equal(code, 1, stderr);
    const problems = stderr.split('\n').filter((line) => line.startsWith('  line')).map((line) => line.trim());
    assert.deepEqual(problems, ['line 4: expected a JSON object, got a number', "line 9: not valid JSON: expected a property name in double quotes, found 'b' at column 2"]);
    assert.match(stderr, /4 of 9 events were not stored/);
  });

  test('ingest of empty input fails: nothing was stored', async () => {
    const { code, stderr } = await run(['ingest', 'cli.lines'], '\n\n');
    assert.equal(code, 1);
    assert.match(stderr, /no events on stdin: nothing was stored/);
  });

  test('sources create refuses a name queries or URLs could not use, before and at the service', async () => {
    for (const [name, reason] of [
      ['bad`name', /must not contain a backtick/],
      ['two\nlines', /must not contain control characters/],
      ['evil\u202Etxt.exe', /must not contain control characters or invisible format characters \(tabs, newlines, U\+202E\)/],
      ['zero\u200Bwidth', /U\+200B/],
      ['  ', /must not be empty/],
      ['0b7e4b1c-9d7a-4c57-8f0e-3c1f6f0f9e21', /must not look like a source UUID/],
    ] as const) {
      const { code, stderr } = await run(['sources', 'create', name]);
      assert.equal(code, 2, name);
      assert.match(stderr, reason, name);
      const reply = await server.request('POST', '/api/sources', { body: { name } });
      assert.equal(reply.status, 422, name);
      assert.match(JSON.stringify(reply.body), reason, name);
    }
  });

  test('keys create takes ingest:source:<name>; keys revoke ends a key', async () => {
    const created = await run(['keys', 'create', '--scope', 'ingest:source:cli.lines', '--description', 'lines only']);
    assert.equal(created.code, 0, created.stderr);
    const key = created.stdout.trim();
    const id = /key (\d+) \(ingest:source:(\d+)\) created/.exec(created.stderr);
    assert.ok(id, created.stderr);
    const source = (await server.request('GET', '/api/sources')).body.find((item: { name: string }) => item.name === 'cli.lines');
    assert.equal(Number(id[2]), source.id);
    const send = (name: string, withKey: string) => server.request('POST', `/logs?source_name=${name}`, { body: { message: 'scoped' }, key: withKey });
    assert.equal((await send('cli.lines', key)).status, 200);
    assert.equal((await send('cli.app', key)).status, 403);
    const unknown = await run(['keys', 'create', '--scope', 'ingest:source:no.such.source']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no source named "no\.such\.source"/);

    const revoked = await run(['keys', 'revoke', id[1]!]);
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.match(revoked.stdout, new RegExp(`revoked key ${id[1]}`));
    assert.equal((await send('cli.lines', key)).status, 401);
    const again = await run(['keys', 'revoke', id[1]!]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /no key/);
  });

  test('keys create prints a key once, with the scopes asked for; that key works', async () => {
    const { code, stdout, stderr } = await run(['keys', 'create', '--scope', 'query', '--description', 'dashboards']);
    assert.equal(code, 0, stderr);
    const key = stdout.trim();
    assert.match(key, /^[A-Za-z0-9_-]{43}$/);
    assert.match(stderr, /\(query\) created; it is shown only this once/);
    const listed = await run(['keys', 'list', '--json']);
    assert.ok(JSON.parse(listed.stdout).some((token: { scopes: string; description: string }) => token.scopes === 'query' && token.description === 'dashboards'));
    // A query key reads but cannot manage.
    const sources = await sawmill(['sources', 'list'], { env: { ...env, SAWMILL_API_KEY: key } });
    assert.equal(sources.code, 0);
    const create = await sawmill(['sources', 'create', 'nope'], { env: { ...env, SAWMILL_API_KEY: key } });
    assert.equal(create.code, 1);
    assert.match(create.stderr, /403: this key may not manage/);
  });

  test('query runs an endpoint with --param values, as a table or as JSON', async () => {
    const created = await server.request('POST', '/api/endpoints', {
      body: { name: 'jobs-from', query: 'select m.job, event_message from `cli.app` t cross join unnest(t.metadata) m where m.job >= cast(@from_job as int64) order by m.job' },
    });
    assert.equal(created.status, 201);
    const table = await run(['query', 'jobs-from', '--param', 'from_job=22']);
    assert.equal(table.code, 0, table.stderr);
    assert.deepEqual(table.stdout.trimEnd().split('\n'), ['job  event_message', '---  -------------', '22   info: job 22', '23   info: job 23', '24   info: job 24']);
    assert.match(table.stderr, /3 rows/);
    const json = await run(['query', created.body.token, '-p', 'from_job=24', '--json']);
    assert.deepEqual(JSON.parse(json.stdout), [{ job: 24, event_message: 'info: job 24' }]);
  });

  test('--version prints the version', async () => {
    const { version } = JSON.parse(readFileSync(fileURLToPath(new URL('../../package.json', import.meta.url)), 'utf8')) as { version: string };
    for (const flag of ['--version', '-V', 'version']) assert.deepEqual(await run([flag]), { code: 0, stdout: `sawmill ${version}\n`, stderr: '' });
  });

  test('query says which parameters had no value (NULL) and which the query does not use', async () => {
    await server.request('POST', '/api/endpoints', { body: { name: 'cli.params', query: 'select @word as word, @count as count' } });
    const typo = await run(['query', 'cli.params', '--param', 'word=hi', '--param', 'cuont=3']);
    assert.equal(typo.code, 0, typo.stderr);
    assert.match(typo.stderr, /^note: no value for @count, so NULL \(--param count=…\); the query does not use cuont: ignored$/m);
    const json = await run(['query', 'cli.params', '-p', 'word=hi', '-p', 'count=1', '--json']);
    assert.deepEqual([JSON.parse(json.stdout), json.stderr], [[{ word: 'hi', count: '1' }], '']);
  });

  test('query shows TIMESTAMP columns as ISO 8601 in a table, as microseconds in --json', async () => {
    const created = await server.request('POST', '/api/endpoints', {
      body: { name: 'first-job', query: 'select timestamp, timestamp_trunc(timestamp, minute) as minute, m.job from `cli.app` t cross join unnest(t.metadata) m where m.job = 0' },
    });
    assert.equal(created.status, 201);
    const table = await run(['query', 'first-job']);
    assert.equal(table.code, 0, table.stderr);
    const row = table.stdout.trimEnd().split('\n')[2]!;
    assert.match(row, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z\s+\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:00\.000Z\s+0$/);
    const [json] = JSON.parse((await run(['query', 'first-job', '--json'])).stdout);
    assert.equal(typeof json.timestamp, 'number');
    assert.equal(new Date(json.timestamp / 1000).toISOString(), row.split(/\s+/)[0]);
  });

  test('tail streams new events that match --filter until interrupted', async () => {
    const child: ChildProcess = spawn(process.execPath, [BIN, 'tail', 'cli.app', '--filter', 'm.failed:true'], { env: { PATH: process.env.PATH, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk) => (stdout += chunk));
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    await waitFor(() => stderr.includes('tailing cli.app where m.failed:true'), 'the tail to start');
    await server.request('POST', '/logs?source_name=cli.app', {
      body: { batch: [{ message: 'tail ok', metadata: { failed: false } }, { message: 'tail failed', metadata: { failed: true } }] },
    });
    await waitFor(() => stdout.includes('tail failed'), 'the event to arrive');
    child.kill('SIGINT');
    const [code] = await once(child, 'exit');
    assert.equal(code, 0);
    const lines = stdout.trim().split('\n');
    assert.equal(lines.length, 1);
    assert.match(lines[0]!, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z  tail failed$/);
  });

  test('sources delete asks for --yes when it cannot prompt, then deletes', async () => {
    const refused = await run(['sources', 'delete', 'cli.app']);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /removes its 27 events: pass --yes/);
    const deleted = await run(['sources', 'delete', 'cli.app', '--yes']);
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.match(deleted.stdout, /deleted source cli\.app/);
    assert.equal((await server.request('GET', '/api/explorer/sources')).body.some((source: { name: string }) => source.name === 'cli.app'), false);
  });

  test('errors: a bad key, an unknown command, a service that is not there', async () => {
    const badKey = await sawmill(['sources', 'list'], { env: { ...env, SAWMILL_API_KEY: 'wrong' } });
    assert.equal(badKey.code, 1);
    assert.match(badKey.stderr, /401: invalid API key \(pass --key or set SAWMILL_API_KEY\)/);
    const unknown = await run(['frobnicate']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown command "frobnicate"/);
    const badFlag = await run(['query', 'x', '--nope']);
    assert.equal(badFlag.code, 2);
    const down = await sawmill(['sources', 'list', '--url', `http://127.0.0.1:${await freePort()}`], { env });
    assert.equal(down.code, 1);
    assert.match(down.stderr, /cannot reach http:\/\/127\.0\.0\.1:\d+/);
  });

  test('endpoints create, list, show, update and delete, with the query\'s language', async () => {
    const source = await server.request('POST', '/api/sources', { body: { name: 'cli.endpoints' } });
    for (const message of ['GET /a', 'GET /b', 'POST /c']) await server.request('POST', `/logs?source=${source.body.token}`, { body: { message } });

    const lql = await run(['endpoints', 'create', 'cli.gets', '--language', 'lql', '--query', 'f:cli.endpoints GET', '--cache', '60']);
    assert.equal(lql.code, 0, lql.stderr);
    assert.match(lql.stdout, /created endpoint cli\.gets \(lql\): [0-9a-f-]{36}/);
    const ch = await run(['endpoints', 'create', 'cli.counts', '--language', 'ch_sql', '--query-file', '-'], 'select countIf(event_message like {p:String}) as n\nfrom `cli.endpoints`');
    assert.equal(ch.code, 0, ch.stderr);
    assert.deepEqual((await server.request('GET', '/api/endpoints/query/cli.counts?p=POST%25')).body, { result: [{ n: 1 }] });

    const list = await run(['endpoints', 'list']);
    assert.match(list.stdout, /^id\s+name\s+language\s+cache\s+max rows\s+token$/m);
    assert.match(list.stdout, /cli\.gets\s+lql\s+60s\s+1000/);
    assert.match(list.stdout, /cli\.counts\s+ch_sql\s+off/);
    const show = await run(['endpoints', 'show', 'cli.gets']);
    assert.match(show.stdout, /^language:\s+lql$/m);
    assert.match(show.stdout, /^f:cli\.endpoints GET$/m);
    assert.equal((await run(['query', 'cli.gets', '--json'])).stdout.match(/"event_message"/g)?.length, 2);

    const refused = await run(['endpoints', 'update', 'cli.counts', '--language', 'lql']);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /422: query: an LQL endpoint names the source it reads with f:<source>.*\(line 1, column 1\)/);
    const badSql = await run(['endpoints', 'update', 'cli.counts', '--query', 'select\n  nosuch(1) from `cli.endpoints`']);
    assert.match(badSql.stderr, /422: query: .*nosuch.*\(line 2, column 3\)/);
    const pg = await run(['endpoints', 'create', 'cli.pg', '--language', 'pg_sql', '--query', 'select 1']);
    assert.equal(pg.code, 1);
    assert.match(pg.stderr, /language: pg_sql \(PostgreSQL SQL\) is not supported/);
    const updated = await run(['endpoints', 'update', 'cli.counts', '--language', 'bq_sql', '--query', 'select count(*) as n from `cli.endpoints`', '--max-rows', '5']);
    assert.equal(updated.code, 0, updated.stderr);
    assert.match(updated.stdout, /updated endpoint cli\.counts \(bq_sql\)/);
    const stored = (await server.request('GET', '/api/endpoints')).body.find((endpoint: { name: string }) => endpoint.name === 'cli.counts');
    assert.deepEqual([stored.language, stored.max_limit], ['bq_sql', 5]);

    assert.equal((await run(['endpoints', 'delete', 'cli.counts'])).code, 0);
    assert.equal((await server.request('GET', `/api/endpoints/${stored.token}`)).status, 404);
    assert.equal((await run(['endpoints', 'create', 'cli.none'])).code, 2, 'create without a query is a usage error');
  });

  test('--help lists every command', async () => {
    const { code, stdout } = await run(['--help']);
    assert.equal(code, 0);
    for (const command of ['serve', 'sources list', 'sources create', 'sources delete', 'keys create', 'endpoints create', 'endpoints update', 'query <endpoint>', 'tail <source>', 'ingest <source>']) assert.ok(stdout.includes(command), command);
  });
});

test('sawmill serve runs the service; other commands find its generated key in the data dir', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'sawmill-cli-serve-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [BIN, 'serve', '--port', String(port), '--host', '127.0.0.1', '--data-dir', dataDir], {
    env: { PATH: process.env.PATH, SAWMILL_LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  try {
    await waitFor(() => output.includes('generated a private key'), `the service to start: ${output}`, 30_000);
    await waitFor(() => existsSync(join(dataDir, 'private-key')), 'the key file');
    let healthy = false;
    await waitFor(() => {
      void fetch(`${url}/health`).then((reply) => (healthy = reply.ok), () => undefined);
      return healthy;
    }, 'health');
    const listed = await sawmill(['sources', 'list', '--json'], { env: { SAWMILL_URL: url, SAWMILL_DATA_DIR: dataDir } });
    assert.equal(listed.code, 0, listed.stderr);
    assert.ok(JSON.parse(listed.stdout).some((source: { name: string }) => source.name === 'cloudflare.logs.prod'));
    const page = await fetch(`${url}/console/`);
    assert.equal(page.status, 200);
  } finally {
    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    assert.equal(code, 0, output);
    await rm(dataDir, { recursive: true, force: true });
  }
});

test("the key: --key, SAWMILL_API_KEY, the service's LOGFLARE_PRIVATE_ACCESS_TOKEN (Supabase's analytics container), then the generated file; empty values count as none", async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'sawmill-cli-key-'));
  try {
    await writeFile(join(dataDir, 'private-key'), 'generated-key\n');
    const key = (options: { key?: string }, env: Record<string, string>) => connection(options, { SAWMILL_DATA_DIR: dataDir, ...env }).key;
    assert.equal(key({ key: 'flag' }, { SAWMILL_API_KEY: 'sawmill', LOGFLARE_PRIVATE_ACCESS_TOKEN: 'logflare' }), 'flag');
    assert.equal(key({}, { SAWMILL_API_KEY: 'sawmill', LOGFLARE_PRIVATE_ACCESS_TOKEN: 'logflare' }), 'sawmill');
    assert.equal(key({}, { SAWMILL_API_KEY: '', LOGFLARE_PRIVATE_ACCESS_TOKEN: 'logflare' }), 'logflare');
    assert.equal(key({}, { SAWMILL_API_KEY: '', LOGFLARE_PRIVATE_ACCESS_TOKEN: '' }), 'generated-key');
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});

test('inside the Supabase analytics container, commands sign in with LOGFLARE_PRIVATE_ACCESS_TOKEN', async () => {
  const server = await startTestServer({ privateKey: STACK_PRIVATE_TOKEN });
  try {
    // The container's environment as Supabase's overlay and our image set it; no key file in /data.
    const env = { ...LOGFLARE_ENVIRONMENT, SAWMILL_DATA_DIR: server.dataDir, SAWMILL_URL: server.url };
    const listed = await sawmill(['sources', 'list', '--json'], { env });
    assert.equal(listed.code, 0, listed.stderr);
    assert.ok(JSON.parse(listed.stdout).some((source: { name: string }) => source.name === 'deno-relay-logs'));
  } finally {
    await server.stop({ removeData: true });
  }
});
