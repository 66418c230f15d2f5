/**
 * What the service itself prints, run as `npm start` runs it: its version, a line on an
 * unsupported Node, and (SAWMILL_LOG_FORMAT) the form of its lines.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { DATA_FORMAT, MARKER_FILE, SAWMILL_VERSION } from '../../src/data-format.ts';
import { SUPPORTED_NODE, satisfies, unsupportedNodeMessage } from '../../src/node-support.ts';
import { freePort, spawnServer, startToExit, stopServer } from '../support/process.ts';

let root: string;
before(async () => {
  root = await mkdtemp(join(tmpdir(), 'sawmill-service-log-'));
});
after(() => rm(root, { recursive: true, force: true }));

describe('versions', () => {
  test("Node versions against package.json's engines", () => {
    assert.equal(SUPPORTED_NODE, '^22.12.0 || ^24.0.0');
    const supported = ['22.12.0', '22.20.1', '24.0.0', '24.11.3', 'v24.1.0'];
    const unsupported = ['20.20.2', '22.11.0', '23.0.0', '25.1.0', '18.0.0'];
    assert.deepEqual(supported.filter((version) => !satisfies(version, SUPPORTED_NODE)), []);
    assert.deepEqual(unsupported.filter((version) => satisfies(version, SUPPORTED_NODE)), []);
    assert.equal(unsupportedNodeMessage('24.11.3'), undefined);
    assert.equal(
      unsupportedNodeMessage('20.20.2'),
      'Node 20.20.2 is not a supported version (package.json engines: ^22.12.0 || ^24.0.0): Sawmill may run, but it is tested on those; upgrade Node',
    );
    assert.equal(satisfies('20.0.0', '>=18'), true, 'a range it cannot read raises no alarm');
  });

  test('the start names the version, and this Node in one line when engines does not cover it', async () => {
    const server = await spawnServer({ SAWMILL_DATA_DIR: join(root, 'versions'), SAWMILL_API_KEY: 'k-0123456789', SAWMILL_LOG_LEVEL: 'info' }, await freePort());
    try {
      const health = await fetch(`${server.url}/health`).then((reply) => reply.json());
      assert.deepEqual(health, { status: 'ok', version: SAWMILL_VERSION });
      assert.match(server.output(), new RegExp(`"msg":"Sawmill ${SAWMILL_VERSION.replaceAll('.', '\\.')} listening on http://127\\.0\\.0\\.1:\\d+"`));
      const nodeLines = server.output().split('\n').filter((line) => line.includes('is not a supported version'));
      // This machine's Node decides which holds; both are checked wherever the suite runs on both.
      assert.equal(nodeLines.length, satisfies(process.versions.node, SUPPORTED_NODE) ? 0 : 1, server.output());
      if (nodeLines.length) assert.match(nodeLines[0]!, new RegExp(`"level":40,.*"msg":"Node ${process.versions.node} is not a supported version`));
    } finally {
      assert.equal(await stopServer(server), 0);
    }
  });
});

/** Starts the service with `env`, runs `work` against it, stops it with SIGTERM; what it printed. */
async function serviceOutput(name: string, env: Record<string, string>, work: (url: string) => Promise<void>): Promise<{ lines: string[]; code: number | null }> {
  const server = await spawnServer({ SAWMILL_DATA_DIR: join(root, name), SAWMILL_API_KEY: KEY, SAWMILL_LOG_LEVEL: 'info', ...env }, await freePort());
  let code: number | null;
  try {
    await work(server.url);
  } finally {
    code = await stopServer(server);
  }
  return { lines: server.output().trimEnd().split('\n'), code };
}

const KEY = 'service-log-key-0123456789';
const get = (url: string) => fetch(url, { headers: { 'x-api-key': KEY } }).then((reply) => reply.text());

describe('the log', () => {
  test('json (the default): one line a request, none for the console polls at info, and a last line at shutdown', async () => {
    const { lines, code } = await serviceOutput('json', {}, async (url) => {
      for (let poll = 0; poll < 3; poll++) {
        await get(`${url}/api/explorer/sources`);
        await get(`${url}/metrics`);
        await get(`${url}/health`);
      }
      await get(`${url}/api/sources?api_key=${KEY}`);
    });
    assert.equal(code, 0);
    const entries = lines.filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { msg: string; level: number; req?: { url: string } });
    assert.deepEqual(entries.filter((entry) => /explorer|metrics|health/.test(entry.req?.url ?? entry.msg)), [], 'the console polls and health checks are not logged at info');
    const requests = entries.filter((entry) => entry.req?.url.startsWith('/api/sources'));
    assert.equal(requests.length, 1, 'one line for the one request');
    assert.match(requests[0]!.msg, /^GET \/api\/sources\?api_key=\[redacted\] 200 in \d+ ms$/);
    assert.equal(entries.at(-1)!.msg, 'Sawmill stopped');
    assert.equal(JSON.parse(lines.at(-1)!).msg, 'Sawmill stopped', 'nothing after it');
  });

  test('pretty: the same lines as text for people, the last one "stopped"', async () => {
    const { lines, code } = await serviceOutput('pretty', { SAWMILL_LOG_FORMAT: 'pretty' }, async (url) => {
      await get(`${url}/api/explorer/sources`);
      await get(`${url}/api/sources`);
    });
    assert.equal(code, 0);
    assert.deepEqual(lines.filter((line) => line.startsWith('{')), [], 'no JSON lines');
    const at = '\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z';
    assert.ok(lines.some((line) => new RegExp(`^${at} INFO  Sawmill ${SAWMILL_VERSION.replaceAll('.', '\\.')} listening on http://127\\.0\\.0\\.1:\\d+$`).test(line)), lines.join('\n'));
    assert.deepEqual(lines.filter((line) => line.includes('/api/')).map((line) => line.replace(new RegExp(`^${at} `), '').replace(/\d+ ms$/, 'N ms')), ['INFO  GET /api/sources 200 in N ms']);
    assert.match(lines.at(-1)!, new RegExp(`^${at} INFO  Sawmill stopped$`));
  });

  test('a request line shows at most 2,048 characters of its URL, and no part of a key where it is cut', async () => {
    const sql = `SELECT id FROM ${'x'.repeat(100_000)}`;
    // The cut falls inside the key: a URL cut before it is redacted would show its first characters.
    const filler = `f=${'a'.repeat(2021)}`;
    const straddling = `/api/sources?${filler}&token=${KEY}`;
    const { lines, code } = await serviceOutput('long-urls', {}, async (url) => {
      await get(`${url}/api/endpoints/query/logs.all?sql=${encodeURIComponent(sql)}&api_key=${KEY}`);
      await get(`${url}${straddling}`);
    });
    assert.equal(code, 0);
    const longest = Math.max(...lines.map((line) => line.length));
    assert.ok(longest < 5_000, `a line of ${longest} characters`);
    const requests = lines.filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { msg: string; req?: { url: string } }).filter((entry) => entry.req);
    const query = requests.find((entry) => entry.req!.url.startsWith('/api/endpoints/query/logs.all'))!;
    const fullLength = '/api/endpoints/query/logs.all?sql='.length + encodeURIComponent(sql).length + `&api_key=${KEY}`.length;
    assert.equal(query.req!.url, `/api/endpoints/query/logs.all?sql=${encodeURIComponent(sql).slice(0, 2048 - 34)}…[cut: the URL has ${fullLength} characters]`);
    assert.match(query.msg, /^GET \/api\/endpoints\/query\/logs\.all\?sql=SELECT%20id%20FROM%20x+…\[cut: the URL has \d+ characters\] \d{3} in \d+ ms$/);
    const sources = requests.find((entry) => entry.req!.url.startsWith('/api/sources'))!;
    assert.equal(sources.req!.url, `/api/sources?${filler}&token=[reda…[cut: the URL has ${straddling.length} characters]`);
    assert.ok(!lines.join('\n').includes(KEY.slice(0, 5)), 'no part of the key');
  });

  test('an unknown SAWMILL_LOG_FORMAT stops the start with one line', async () => {
    const run = await startToExit({ PORT: String(await freePort()), SAWMILL_DATA_DIR: join(root, 'bad-format'), SAWMILL_LOG_FORMAT: 'text' });
    assert.equal(run.code, 1);
    assert.equal(run.stderr.trimEnd(), 'sawmill: could not start: SAWMILL_LOG_FORMAT must be json or pretty, got "text"');
  });
});

/** A line of the `pretty` format, or the indented stack below an error's line. */
const PRETTY_LINE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z (TRACE|DEBUG|INFO |WARN |ERROR|FATAL) \S/;

function assertFormat(format: 'json' | 'pretty', lines: string[]): void {
  let afterError = false;
  for (const line of lines) {
    if (format === 'json') {
      const entry = JSON.parse(line) as { level: unknown; time: unknown; msg: unknown };
      assert.ok(typeof entry.level === 'number' && typeof entry.time === 'number' && typeof entry.msg === 'string', line);
    } else if (!(afterError && line.startsWith('  at '))) {
      assert.match(line, PRETTY_LINE);
      afterError = / error=/.test(line);
    }
  }
}

describe('every line a start writes is in SAWMILL_LOG_FORMAT', () => {
  for (const format of ['json', 'pretty'] as const) {
    test(`${format}: a generated key, a small pool, Logflare settings, a repaired write-ahead log and journal, an upgrade, a start that fails`, async () => {
      const dataDir = join(root, `start-${format}`);
      const env = {
        SAWMILL_DATA_DIR: dataDir,
        SAWMILL_LOG_FORMAT: format,
        SAWMILL_LOG_LEVEL: 'info',
        UV_THREADPOOL_SIZE: '4', // room for one DuckDB query: the start warns
        DB_HOSTNAME: 'db', // a Logflare setting with no meaning here
      };
      // First start: no key set, so one is generated. Events folded into DuckDB's write-ahead log, then killed.
      const first = await spawnServer(env, await freePort());
      const key = (await readFile(join(dataDir, 'private-key'), 'utf8')).trim();
      const headers = { 'x-api-key': key, 'content-type': 'application/json' };
      const source = (await (await fetch(`${first.url}/api/sources`, { method: 'POST', headers, body: '{"name":"start.log"}' })).json()) as { token: string };
      const stored = await fetch(`${first.url}/logs?source=${source.token}&wait=visible`, { method: 'POST', headers, body: '[{"message":"one"},{"message":"two"}]' });
      assert.equal(stored.status, 200);
      assert.equal(await stopServer(first, 'SIGKILL'), null);

      // What the next start repairs and upgrades: a WAL entry whose checksum does not match, a
      // damaged journal file older than the newest, a data dir marked one format older.
      const wal = join(dataDir, 'sawmill.duckdb.wal');
      assert.ok(existsSync(wal), 'the killed server left a write-ahead log');
      await appendFile(wal, Buffer.concat([Buffer.from([16, 0, 0, 0, 0, 0, 0, 0]), Buffer.alloc(8, 0xab), Buffer.alloc(16, 0x11)]));
      await writeFile(join(dataDir, 'journal', '0000000000000000.journal'), Buffer.alloc(64, 0x5a));
      const marker = join(dataDir, MARKER_FILE);
      await writeFile(marker, `${JSON.stringify({ ...JSON.parse(await readFile(marker, 'utf8')), format: DATA_FORMAT.format - 1 })}\n`);

      const second = await spawnServer(env, await freePort());
      // A third start on the port the second holds fails, saying why.
      const failed = await startToExit({ ...env, SAWMILL_DATA_DIR: join(root, `start-${format}-failed`), PORT: new URL(second.url).port });
      assert.equal(failed.code, 1);
      assert.equal(await stopServer(second), 0);

      const lines = [first.output(), second.output(), failed.stdout, failed.stderr].flatMap((output) => output.split('\n')).filter(Boolean);
      assertFormat(format, lines);
      const text = lines.join('\n');
      for (const said of [
        /generated a private key, stored in /,
        /UV_THREADPOOL_SIZE=4 leaves room for 1 concurrent DuckDB query/,
        /Logflare settings with no meaning here, ignored: DB_HOSTNAME/,
        /write-ahead log .*sawmill\.duckdb\.wal had a damaged tail/,
        /journal .*0000000000000000\.journal was damaged at byte 0; cut there, original kept as /,
        new RegExp(`data dir ${dataDir}: migrated from format ${DATA_FORMAT.format - 1} to ${DATA_FORMAT.format}`),
        new RegExp(`(FATAL |"level":60,).*port ${new URL(second.url).port} on 127\\.0\\.0\\.1 is already in use by another process`),
        /Sawmill stopped/,
      ]) {
        assert.match(text, said);
      }
      // One line says where it listens, ours; Fastify's own ("Server listening at") is not written.
      assert.equal(lines.filter((line) => /listening/i.test(line)).length, 2, text);
      assert.equal(lines.filter((line) => new RegExp(`Sawmill ${SAWMILL_VERSION.replaceAll('.', '\\.')} listening on http://127\\.0\\.0\\.1:\\d+`).test(line)).length, 2, text);
    });
  }
});
