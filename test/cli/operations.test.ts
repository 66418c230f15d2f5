import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { PRIVATE_KEY, startTestServer, type TestServer } from '../support/server.ts';

const BIN = fileURLToPath(new URL('../../bin/sawmill.mjs', import.meta.url));

/** The real `sawmill` binary in a child process, as a user would run it. */
function sawmill(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('sawmill CLI: retention', () => {
  let server: TestServer;
  let env: Record<string, string>;
  const run = (...args: string[]) => sawmill(args, env);

  before(async () => {
    server = await startTestServer();
    env = { SAWMILL_URL: server.url, SAWMILL_API_KEY: PRIVATE_KEY };
  });
  after(() => server.stop({ removeData: true }));

  test('sources retention shows and sets how long a source keeps events; list shows it; create takes it', async () => {
    assert.equal((await run('sources', 'create', 'kept.app', '--retention', '30')).code, 0);
    assert.deepEqual(await run('sources', 'retention', 'kept.app'), { code: 0, stdout: 'kept.app keeps events 30 days\n', stderr: '' });
    assert.deepEqual(await run('sources', 'retention', 'kept.app', '7'), { code: 0, stdout: 'kept.app keeps events 7 days\n', stderr: '' });
    const source = (await server.request('GET', '/api/explorer/sources')).body.find((item: { name: string }) => item.name === 'kept.app');
    assert.equal((await server.request('GET', `/api/sources/${source.token}`)).body.retention_days, 7);
    const listed = await run('sources', 'list');
    assert.match(listed.stdout.split('\n')[0]!, /\bretention\b/);
    assert.match(listed.stdout.split('\n').find((line) => line.includes('kept.app'))!, /7 days\s*$/);
    assert.deepEqual(await run('sources', 'retention', 'kept.app', 'forever'), { code: 0, stdout: 'kept.app keeps events forever\n', stderr: '' });
    assert.equal((await server.request('GET', `/api/sources/${source.token}`)).body.retention_days, null);

    const wrong = await run('sources', 'retention', 'kept.app', 'week');
    assert.equal(wrong.code, 2);
    assert.match(wrong.stderr, /retention is a whole number of days \(1 or more\) or "forever", got "week"/);
  });
});
