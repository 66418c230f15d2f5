/**
 * What the service itself prints, run as `npm start` runs it: its version, a line on an
 * unsupported Node, and (SAWMILL_LOG_FORMAT) the form of its lines.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { SAWMILL_VERSION } from '../../src/data-format.ts';
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

  test('an unknown SAWMILL_LOG_FORMAT stops the start with one line', async () => {
    const run = await startToExit({ PORT: String(await freePort()), SAWMILL_DATA_DIR: join(root, 'bad-format'), SAWMILL_LOG_FORMAT: 'text' });
    assert.equal(run.code, 1);
    assert.equal(run.stderr.trimEnd(), 'sawmill: could not start: SAWMILL_LOG_FORMAT must be json or pretty, got "text"');
  });
});
