/** Measuring helpers: processes, /proc accounting, wrk, a keep-alive HTTP client, percentiles. */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync, openSync, closeSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export const REPO = new URL('..', import.meta.url).pathname.replace(/\/$/, '');
const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export function summarize(samples: number[]): { n: number; p50: number; p99: number; min: number; max: number; mean: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = sorted.reduce((sum, x) => sum + x, 0) / Math.max(1, sorted.length);
  return { n: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99), min: sorted[0] ?? NaN, max: sorted.at(-1) ?? NaN, mean };
}

// ---- /proc ----

/** Resident set size of a process in bytes (0 once it is gone). */
export function rssBytes(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** CPU seconds (user + system) of a whole process. */
export function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return NaN;
  }
}

/** CPU seconds per thread: the main thread as "<name> (main)", the others as "<name> <tid>" (Node's and DuckDB's threads are all "node"). */
export function threadCpu(pid: number): Record<string, number> {
  const out: Record<string, number> = {};
  let tids: string[] = [];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tids) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
      out[tid === String(pid) ? `${name} (main)` : `${name} ${tid}`] = (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
    } catch {
      // The thread ended.
    }
  }
  return out;
}

export function diffCpu(after: Record<string, number>, before: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, seconds] of Object.entries(after)) {
    const delta = seconds - (before[name] ?? 0);
    if (delta > 0.005) out[name] = Math.round(delta * 100) / 100;
  }
  return out;
}

/** Samples a process's RSS every `everyMs`; `peak()` since the last `reset()`. */
export class RssSampler {
  private max = 0;
  private readonly timer: NodeJS.Timeout;
  constructor(
    private readonly pid: number,
    everyMs = 100,
  ) {
    this.timer = setInterval(() => (this.max = Math.max(this.max, rssBytes(this.pid))), everyMs);
    this.timer.unref();
  }
  reset(): void {
    this.max = rssBytes(this.pid);
  }
  peak(): number {
    return Math.max(this.max, rssBytes(this.pid));
  }
  stop(): void {
    clearInterval(this.timer);
  }
}

// ---- child processes ----

export interface Child {
  process: ChildProcess;
  pid: number;
  exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export function startChild(command: string, args: string[], options: { env?: NodeJS.ProcessEnv; logFile?: string; cwd?: string } = {}): Child {
  const log = options.logFile ? openSync(options.logFile, 'a') : 'ignore';
  const child = spawn(command, args, { cwd: options.cwd ?? REPO, env: options.env ?? process.env, stdio: ['ignore', log, log] });
  if (typeof log === 'number') closeSync(log);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code, signal) => resolve(code ?? (signal ? 128 : null))));
  return {
    process: child,
    pid: child.pid!,
    exited,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const timeout = sleep(60_000).then(() => {
        child.kill('SIGKILL');
        return null;
      });
      return Promise.race([exited, timeout]);
    },
  };
}

/** Poll `url` until it answers 2xx. */
export async function waitForHttp(url: string, child: Child, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  void child.exited.then(() => (exited = true));
  while (Date.now() < deadline) {
    if (exited) throw new Error(`process ${child.pid} exited before ${url} answered`);
    try {
      const response = await fetch(url);
      await response.arrayBuffer();
      if (response.ok) return;
    } catch {
      // Not listening yet.
    }
    await sleep(100);
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}

// ---- wrk ----

export interface WrkResult {
  requests: number;
  duration_us: number;
  bytes: number;
  connect_errors: number;
  read_errors: number;
  write_errors: number;
  status_errors: number;
  timeouts: number;
  p50_us: number;
  p90_us: number;
  p99_us: number;
  max_us: number;
  mean_us: number;
  /** CPU seconds wrk itself used (sampled; the generator's share of the 2 cores). */
  generator_cpu_s: number;
}

export function findWrk(): string | undefined {
  const found = spawnSync('sh', ['-c', 'command -v wrk'], { encoding: 'utf8' });
  return found.status === 0 ? found.stdout.trim() : undefined;
}

export async function runWrk(options: { url: string; requestsFile: string; apiKey?: string; connections: number; seconds: number; threads?: number }): Promise<WrkResult> {
  const args = [`-t${options.threads ?? 1}`, `-c${options.connections}`, `-d${options.seconds}s`, '--timeout', '10s', '-s', join(REPO, 'bench/wrk.lua'), options.url, '--', options.requestsFile];
  if (options.apiKey) args.push(options.apiKey);
  const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  let cpu = 0;
  const sampler = setInterval(() => {
    const seconds = cpuSeconds(child.pid!);
    if (Number.isFinite(seconds)) cpu = seconds;
  }, 50);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearInterval(sampler);
  const line = out.split('\n').find((l) => l.startsWith('@@RESULT '));
  if (code !== 0 || !line) throw new Error(`wrk failed (exit ${code}): ${err || out}`);
  return { ...(JSON.parse(line.slice('@@RESULT '.length)) as Omit<WrkResult, 'generator_cpu_s'>), generator_cpu_s: cpu };
}

// ---- HTTP client for endpoint latency (sequential, keep-alive) ----

const agent = new Agent({ keepAlive: true, maxSockets: 4 });

export function httpJson(url: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method: options.method ?? 'GET', headers: options.headers, agent }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(options.body);
  });
}

export function closeHttpAgent(): void {
  agent.destroy();
}

// ---- whole-machine CPU, to see what else ran during a measurement ----

/** Busy and total CPU seconds of the whole machine since boot (all cores). */
export function machineCpu(): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const [user, nice, system, idle, iowait, irq, softirq, steal] = line as [number, number, number, number, number, number, number, number];
  const busy = user + nice + system + irq + softirq + steal;
  return { busy: busy / CLOCK_TICKS, total: (busy + idle + iowait) / CLOCK_TICKS };
}

export function loadAverage(): number {
  return Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
}

// ---- perf (native profile, DuckDB included) ----

export function findPerf(): string | undefined {
  const found = spawnSync('sh', ['-c', 'command -v perf'], { encoding: 'utf8' });
  return found.status === 0 ? found.stdout.trim() : undefined;
}

/** Sample a process with `perf record` for `seconds`; resolves with the data file once done. */
export function perfRecord(pid: number, seconds: number, file: string): Promise<string> {
  const child = spawn('perf', ['record', '-F', '499', '-p', String(pid), '-o', file, '--', 'sleep', String(seconds)], { stdio: 'ignore' });
  return new Promise((resolve, reject) => child.once('exit', (code) => (code === 0 ? resolve(file) : reject(new Error(`perf record exited with ${code}`)))));
}

/** Self time by shared object, and the top symbols, from a perf data file. */
export function perfSummary(file: string, top = 30): { by_dso: Array<{ share: number; dso: string }>; top_symbols: Array<{ share: number; dso: string; symbol: string }> } {
  const report = (sort: string) =>
    spawnSync('perf', ['report', '-i', file, '--stdio', '--no-children', '--sort', sort, '--percent-limit', '0.3'], { encoding: 'utf8', maxBuffer: 64 * 2 ** 20 }).stdout.split('\n').filter((line) => /^\s+\d+\.\d+%/.test(line));
  const by_dso = report('dso').map((line) => {
    const [, share, dso] = /^\s+(\d+\.\d+)%\s+(.*)$/.exec(line)!;
    return { share: Number(share) / 100, dso: dso!.trim() };
  });
  const top_symbols = report('dso,sym')
    .slice(0, top)
    .map((line) => {
      const [, share, dso, symbol] = /^\s+(\d+\.\d+)%\s+(\S+)\s+\[.\]\s+(.*)$/.exec(line) ?? [, '0', '?', line.trim()];
      return { share: Number(share) / 100, dso: dso!, symbol: symbol!.trim().slice(0, 160) };
    });
  return { by_dso, top_symbols };
}
