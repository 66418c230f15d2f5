/**
 * The container image's build, without a Docker daemon: the Dockerfile is read stage by stage and
 * its steps are performed in temporary directories on a clean checkout (the files git tracks or
 * would track): COPY copies, `RUN sh scripts/image-build-steps.sh …` runs (the npm steps; a
 * build cache mount is left to npm's own cache), ENV is kept, and the final stage's CMD is
 * started with its ENV and with the environment Supabase's analytics overlay gives the service,
 * Logflare's settings included. Then Vector's and Studio's requests, the CLI and a clean stop.
 *
 * Two departures, both said here: the build stage's `dependencies` step (a full `npm ci`, half a
 * minute) links this checkout's node_modules, installed from the same package-lock.json; and
 * the service listens on 127.0.0.1 with a free port instead of 0.0.0.0:4000. RUN lines that set
 * up the operating system (apt-get, the user, /data) are listed as skipped, and checked by
 * test/deploy/compose.test.ts.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { LOGFLARE_ENVIRONMENT, STACK_PRIVATE_TOKEN, STACK_PUBLIC_TOKEN } from '../support/supabase-stack.ts';

const { THREADPOOL_SIZE } = createRequire(import.meta.url)('../../bin/threadpool.cjs') as { THREADPOOL_SIZE: string };

const repo = new URL('../../', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'sawmill-image-'));
after(() => rmSync(work, { recursive: true, force: true }));

interface Stage {
  name: string;
  dir: string;
  env: Record<string, string>;
  cmd?: string[];
}

/** The files of a clean checkout: tracked, plus new ones not ignored (what a commit would hold). */
function checkoutFiles(): string[] {
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: repo, encoding: 'utf8' });
  return listed.split('\0').filter((path) => path && existsSync(join(repo, path)));
}

/** Dockerfile instructions, continuation lines joined, comments dropped. */
function instructions(text: string): Array<{ op: string; args: string }> {
  return text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const [op, ...rest] = line.split(/\s+/);
      return { op: op!.toUpperCase(), args: rest.join(' ') };
    });
}

/** COPY from the checkout: a file to the target (into it when it names a directory), a directory's files under the target. */
function copy(files: string[], source: string, target: string, intoDirectory: boolean): void {
  if (files.includes(source)) {
    const destination = intoDirectory ? join(target, basename(source)) : target;
    mkdirSync(dirname(destination), { recursive: true });
    cpSync(join(repo, source), destination);
    return;
  }
  const under = files.filter((path) => path.startsWith(`${source}/`));
  assert.ok(under.length > 0, `COPY ${source}: nothing in the checkout`);
  for (const path of under) {
    const destination = join(target, path.slice(source.length + 1));
    mkdirSync(dirname(destination), { recursive: true });
    cpSync(join(repo, path), destination);
  }
}

const skipped: string[] = [];

function build(): Stage {
  const files = checkoutFiles();
  const stages: Stage[] = [];
  let stage: Stage | undefined;
  let workdir = '';
  for (const { op, args } of instructions(readFileSync(join(repo, 'Dockerfile'), 'utf8'))) {
    if (op === 'FROM') {
      const name = args.match(/ AS (\S+)$/i)?.[1] ?? `stage${stages.length}`;
      stage = { name, dir: join(work, name), env: {} };
      stages.push(stage);
      continue;
    }
    assert.ok(stage, `${op} before FROM`);
    const inStage = (path: string) => join(stage!.dir, path.startsWith('/') ? path : join(workdir, path));
    switch (op) {
      case 'WORKDIR':
        workdir = args;
        mkdirSync(inStage('.'), { recursive: true });
        break;
      case 'COPY': {
        const from = args.match(/^--from=(\S+)\s+/);
        const [source, target] = args.replace(/^--from=\S+\s+/, '').split(/\s+(?=\S+$)/) as [string, string];
        if (from) {
          const origin = stages.find((candidate) => candidate.name === from[1]);
          assert.ok(origin, `COPY --from=${from[1]}: no such stage`);
          cpSync(join(origin.dir, source), inStage(target), { recursive: true });
        } else {
          const sources = source.split(/\s+/);
          for (const path of sources) copy(files, path, inStage(target), target.endsWith('/') || sources.length > 1);
        }
        break;
      }
      case 'RUN': {
        const step = args.match(/^(?:--mount=\S+\s+)*sh scripts\/image-build-steps\.sh (\w+)$/)?.[1];
        if (!step) {
          skipped.push(args);
          break;
        }
        if (step === 'dependencies') symlinkSync(join(repo, 'node_modules'), inStage('node_modules'));
        else execFileSync('sh', ['scripts/image-build-steps.sh', step], { cwd: inStage('.'), stdio: 'pipe', env: { ...process.env, ...stage.env } });
        break;
      }
      case 'ENV':
        for (const [, name, value] of args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=(\S+)/g)) stage.env[name!] = value!;
        break;
      case 'CMD':
        stage.cmd = JSON.parse(args) as string[];
        stage.dir = inStage('.');
        break;
      default:
        // USER, VOLUME, EXPOSE, HEALTHCHECK: what the container runtime does, not the build.
        break;
    }
  }
  assert.ok(stage?.cmd, 'the final stage has a CMD');
  return stage;
}

test('the image builds from a clean checkout, and its CMD serves Supabase with Logflare\'s environment set', { timeout: 180_000 }, async () => {
  const image = build();
  assert.ok(existsSync(join(image.dir, 'build/main.js')), 'compiled service');
  assert.ok(existsSync(join(image.dir, 'console/dist/index.html')), 'console');
  assert.ok(!existsSync(join(image.dir, 'node_modules/typescript')), 'no development dependencies');
  assert.ok(skipped.some((line) => line.includes('apt-get install')), `skipped: ${skipped.join(' | ')}`);

  const dataDir = mkdtempSync(join(work, 'data-'));
  const env = {
    PATH: process.env.PATH!,
    ...LOGFLARE_ENVIRONMENT,
    ...image.env,
    HOST: '127.0.0.1',
    PORT: '0',
    SAWMILL_DATA_DIR: dataDir,
  };
  const [command, ...args] = image.cmd!;
  const child = spawn(command === 'node' ? process.execPath : command!, args, { cwd: image.dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let buffered = '';
      child.stdout.on('data', (chunk: Buffer) => {
        buffered += chunk.toString();
        const complete = buffered.split('\n');
        buffered = complete.pop()!;
        for (const line of complete) {
          lines.push(line);
          const listening = line.match(/Sawmill \S+ listening on (http:\/\/[^"]+)/);
          if (listening) resolve(listening[1]!);
        }
      });
      void exited.then((code) => reject(new Error(`exited ${code} before listening: ${stderr}`)));
      setTimeout(() => reject(new Error(`not listening after 60 s: ${lines.join('\n')} ${stderr}`)), 60_000).unref();
    });

    assert.equal((await fetch(`${url}/health`)).status, 200);
    // The pool every start gets (bin/threadpool.cjs), though nothing in the environment asks for it.
    const metrics = await (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${STACK_PRIVATE_TOKEN}` } })).text();
    assert.match(metrics, new RegExp(`^sawmill_threadpool_threads ${THREADPOOL_SIZE}$`, 'm'));

    // Vector's sink with the public token; the public token may not query.
    const shipped = await fetch(`${url}/api/logs?source_name=postgres.logs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': STACK_PUBLIC_TOKEN },
      body: JSON.stringify([{ event_message: 'checkpoint starting', project: 'default', timestamp: new Date().toISOString(), metadata: { host: 'db-default', parsed: { error_severity: 'LOG' } } }]),
    });
    assert.equal(shipped.status, 200, await shipped.text());
    const params = new URLSearchParams({ project: 'default', iso_timestamp_start: new Date(Date.now() - 3_600_000).toISOString(), iso_timestamp_end: new Date(Date.now() + 60_000).toISOString(), granularity: 'hour' });
    const denied = await fetch(`${url}/api/endpoints/query/service-health?${params}`, { headers: { 'x-api-key': STACK_PUBLIC_TOKEN } });
    assert.equal(denied.status, 403);

    // Studio's call with the private token.
    const health = await fetch(`${url}/api/endpoints/query/service-health?${params}`, { headers: { 'x-api-key': STACK_PRIVATE_TOKEN } });
    const body = (await health.json()) as { result: Array<{ postgres_logs: { ok: number; total: number } }> };
    assert.equal(health.status, 200, JSON.stringify(body));
    assert.equal(body.result.reduce((total, row) => total + row.postgres_logs.total, 0), 1);

    // The CLI the image ships (its `sawmill` command), with production dependencies only, run in
    // the analytics container as Supabase's overlay configures it: it signs in with the
    // LOGFLARE_PRIVATE_ACCESS_TOKEN the service reads, no --key needed.
    const cliOutput = execFileSync(process.execPath, ['bin/sawmill.cjs', 'query', 'logs.all', '--url', url, '--json', '--param', 'project=default', '--param', 'project_tier=ENTERPRISE'], {
      cwd: image.dir,
      encoding: 'utf8',
      env: { PATH: process.env.PATH!, ...LOGFLARE_ENVIRONMENT, ...image.env, SAWMILL_DATA_DIR: dataDir },
    });
    assert.doesNotThrow(() => JSON.parse(cliOutput), cliOutput);
  } finally {
    child.kill('SIGTERM');
  }
  assert.equal(await exited, 0, stderr);
  assert.doesNotMatch(`${lines.join('\n')}${stderr}`, /leaves room for/, 'no warning about the pool at start');

  const ignoredLines = lines.filter((line) => line.includes('Logflare settings'));
  assert.equal(ignoredLines.length, 1, lines.join('\n'));
  const message = JSON.parse(ignoredLines[0]!) as { level: number; msg: string };
  assert.equal(message.level, 30, 'info');
  for (const name of Object.keys(LOGFLARE_ENVIRONMENT)) {
    const used = name === 'LOGFLARE_PUBLIC_ACCESS_TOKEN' || name === 'LOGFLARE_PRIVATE_ACCESS_TOKEN';
    assert.equal(message.msg.includes(name), !used, `${name} ${used ? 'is read' : 'is named as ignored'}`);
  }
  assert.ok(!message.msg.includes(STACK_PRIVATE_TOKEN) && !message.msg.includes(LOGFLARE_ENVIRONMENT.DB_PASSWORD!), 'names only, never values');
});
