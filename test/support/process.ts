import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
const CLI = fileURLToPath(new URL('../../bin/sawmill.cjs', import.meta.url));

/** The real `sawmill` command in a child process, as a user would run it, with only `env` (and PATH) set. */
export function runCli(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  output: () => string;
}

/**
 * `npm start` as a separate process: the real entry point, signals and all. `args` replaces the
 * entry point, for starting it another way (`bin/sawmill.cjs serve`). It counts as started once
 * /health answers 2xx, or any status `started` accepts (a degraded start answers 503).
 */
export async function spawnServer(
  env: Record<string, string>,
  port: number,
  args = ['--import', 'tsx', MAIN],
  started = (status: number) => status < 300,
): Promise<ServerProcess> {
  const child = spawn(process.execPath, args, {
    env: { PATH: process.env.PATH, HOST: '127.0.0.1', PORT: String(port), SAWMILL_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90_000; // a loaded 2-core machine takes its time to compile and start
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}: ${output}`);
    const healthy = await fetch(`${url}/health`).then((reply) => started(reply.status), () => false);
    if (healthy) return { child, url, output: () => output };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`server did not become healthy: ${output}`);
}

export async function stopServer(server: ServerProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
  if (server.child.exitCode !== null) return server.child.exitCode;
  server.child.kill(signal);
  const [code] = await once(server.child, 'exit');
  return code as number | null;
}

/** A port that is free right now, from the kernel. */
export async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (typeof address !== 'object' || !address) throw new Error('no port');
  return address.port;
}

/** Runs `npm start`'s entry point until it exits on its own (bounded), with what it printed. */
export async function startToExit(env: Record<string, string>, options: { uid?: number; gid?: number } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    // The thread pool npm start gives the service, so only what the test is about is printed.
    env: { PATH: process.env.PATH, HOST: '127.0.0.1', SAWMILL_LOG_LEVEL: 'warn', UV_THREADPOOL_SIZE: '16', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...options,
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const [code] = await once(child, 'exit');
  clearTimeout(timer);
  return { code: code as number | null, stdout, stderr };
}

/** The messages of the JSON lines in a service's output (its log's default format), in order. */
export function logMessages(output: string): string[] {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => (JSON.parse(line) as { msg: string }).msg);
}

/** What a start that failed said: the message of its one `fatal` log line; nothing else goes to stderr. */
export function fatalMessage(run: { stdout: string; stderr: string }): string {
  assert.equal(run.stderr, '', 'nothing outside the log');
  const fatal = run.stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: number; msg: string })
    .filter((entry) => entry.level === 60);
  assert.equal(fatal.length, 1, `one fatal line, got:\n${run.stdout}`);
  return fatal[0]!.msg;
}
