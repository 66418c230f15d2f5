/**
 * Every way Sawmill starts gives it the same libuv threadpool (bin/threadpool.cjs): npm start, the
 * `sawmill serve` command, and the container image's CMD, which both compose files run (the image
 * itself is started by test/deploy/image.test.ts). Each start is read back from the running
 * service's /metrics, with UV_THREADPOOL_SIZE unset, and a value set in the environment is kept.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { freePort, spawnServer, stopServer } from '../support/process.ts';
import { readYaml } from '../support/supabase-stack.ts';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const { THREADPOOL_SIZE } = createRequire(import.meta.url)('../../bin/threadpool.cjs') as { THREADPOOL_SIZE: string };
const KEY = 'threadpool-test-key-0123456789';

let root: string;
before(async () => {
  root = await mkdtemp(join(tmpdir(), 'sawmill-threadpool-'));
});
after(() => rm(root, { recursive: true, force: true }));

async function threadpoolOf(url: string): Promise<number> {
  const metrics = await (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${KEY}` } })).text();
  const line = /^sawmill_threadpool_threads (\d+)$/m.exec(metrics);
  assert.ok(line, metrics);
  return Number(line[1]);
}

/** The environment of a start, with UV_THREADPOOL_SIZE left out unless given. */
const environment = (name: string, port: number, extra: Record<string, string> = {}) => ({
  PATH: process.env.PATH!,
  HOME: process.env.HOME ?? root,
  HOST: '127.0.0.1',
  PORT: String(port),
  SAWMILL_DATA_DIR: join(root, name),
  SAWMILL_API_KEY: KEY,
  SAWMILL_LOG_LEVEL: 'warn',
  ...extra,
});

test('the pool is one number, asked for by every entry point', () => {
  assert.ok(Number(THREADPOOL_SIZE) >= 8, 'room for 4 queries beside the 4 threads kept for ingestion');
  const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { scripts: Record<string, string>; bin: Record<string, string> };
  assert.equal(pkg.scripts.start, 'node bin/service.cjs');
  assert.equal(pkg.bin.sawmill, 'bin/sawmill.cjs');
});

describe('npm start', () => {
  for (const [label, extra, expected] of [
    ['unset', {}, Number(THREADPOOL_SIZE)],
    ['set by its user', { UV_THREADPOOL_SIZE: '12' }, 12],
  ] as const) {
    test(`UV_THREADPOOL_SIZE ${label}: ${expected} threads`, { timeout: 120_000 }, async () => {
      const port = await freePort();
      // npm runs the script in a shell of its own: the whole process group is stopped at the end.
      const child = spawn('npm', ['start', '--silent'], { cwd: repo, env: environment(`npm-${expected}`, port, extra), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
      let output = '';
      child.stdout!.on('data', (chunk) => (output += chunk));
      child.stderr!.on('data', (chunk) => (output += chunk));
      try {
        const deadline = Date.now() + 90_000;
        while (!(await fetch(`http://127.0.0.1:${port}/health`).then((reply) => reply.ok, () => false))) {
          assert.ok(Date.now() < deadline && child.exitCode === null, `npm start did not come up: ${output}`);
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
        assert.equal(await threadpoolOf(`http://127.0.0.1:${port}`), expected);
        assert.doesNotMatch(output, /leaves room for/);
      } finally {
        process.kill(-child.pid!, 'SIGTERM');
        if (child.exitCode === null) await once(child, 'exit');
      }
    });
  }
});

test('sawmill serve', { timeout: 120_000 }, async () => {
  const port = await freePort();
  const server = await spawnServer(environment('serve', port), port, [join(repo, 'bin/sawmill.cjs'), 'serve']);
  try {
    assert.equal(await threadpoolOf(server.url), Number(THREADPOOL_SIZE));
    assert.doesNotMatch(server.output(), /leaves room for/);
  } finally {
    assert.equal(await stopServer(server), 0);
  }
});

describe('the image and the compose files', () => {
  test("the image's CMD is npm start's entry point; its `sawmill` command is the package's", async () => {
    const dockerfile = await readFile(join(repo, 'Dockerfile'), 'utf8');
    const finalStage = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    assert.match(finalStage, /^CMD \["node", "bin\/service\.cjs"\]$/m);
    assert.match(finalStage, /ln -s \/app\/bin\/sawmill\.cjs \/usr\/local\/bin\/sawmill/);
    assert.doesNotMatch(finalStage, /UV_THREADPOOL_SIZE/, 'one place says the number: bin/threadpool.cjs');
  });

  for (const [path, service] of [
    ['docker-compose.yml', 'sawmill'],
    ['deploy/supabase/docker-compose.sawmill.yml', 'analytics'],
  ] as const) {
    test(`${path} runs the image's CMD and leaves the pool to it`, () => {
      const definition = readYaml(join(repo, path)).services[service] as Record<string, unknown>;
      assert.equal(definition.command, undefined);
      assert.equal(definition.entrypoint, undefined);
      const environmentNames = Array.isArray(definition.environment) ? (definition.environment as string[]).map((line) => line.split('=')[0]) : Object.keys((definition.environment as object | undefined) ?? {});
      assert.ok(!environmentNames.includes('UV_THREADPOOL_SIZE'), environmentNames.join(', '));
    });
  }
});
