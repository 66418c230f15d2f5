/**
 * Sawmill's benchmark suite (issue 5). `npm run bench` (full) or `npm run bench -- --quick`.
 *
 * Measures, against a real server started as a child process on 127.0.0.1 with a temp data dir:
 * HTTP ingest (wrk in its own process: batches of 100 and single events; under the batched load,
 * a probe's 2xx-to-queryable time; peak RSS with defaults and with lower bounds), endpoint latency
 * (three built-ins and one user endpoint, uncached and cached), storage per event and RSS; and
 * in the same run the ceilings: a bare node:http server (HTTP), DuckDB bulk-loading the events the
 * batched run sends (CREATE TABLE AS read_json, bench/ingest-ceiling.ts) and the stored events
 * with read_json into Sawmill's tables (engine), and the endpoints' translated SQL run
 * directly on DuckDB (translation + HTTP overhead).
 *
 * Writes a table to stdout, bench/results/<timestamp>-<mode>.json and, for full runs (or with
 * --docs), docs/benchmarks.md. Never part of CI: nothing here is a timed test.
 *
 * Options: --quick, --profile (server runs with --cpu-prof; summaries in the JSON), --perf (perf
 * record on the server during the measured ingest runs: native time, DuckDB included), --docs,
 * --no-docs, --keep (keep the temp dir), --seconds=N (ingest run length), --log-level=L,
 * --no-clickhouse (skip the ClickHouse path run by bench/clickhouse.ts afterwards),
 * --no-log-attributes (skip bench/log-attributes.ts: one log_attributes key vs its typed field),
 * --ingest-only (section 1 only: ingest, its ceilings, storage and memory), --batched-only (only
 * the batched runs with their visibility probes, per round and variant; printed, nothing written).
 */
import { fork, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { cpus, freemem, release, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DuckDBInstance, type DuckDBConnection, type DuckDBResultReader } from '@duckdb/node-api';
import { translate } from '../src/sql/index.ts';
import { QUERY_SETTINGS } from '../src/warehouse/duckdb/adapter.ts';
import { parseSegmentName, viewName } from '../src/warehouse/duckdb/layout.ts';
import { hiddenSelectItems, isHiddenColumn } from '../src/warehouse/duckdb/promotion.ts';
import { promotionOf } from '../src/warehouse/duckdb/promoted-view.ts';
import { loadReads } from '../src/warehouse/duckdb/promotions-table.ts';
import { promotingDialect, type Promotion } from '../src/warehouse/duckdb/rewrite.ts';
import { duckdbType, fieldTypeFromDuckdb, quoteIdent } from '../src/warehouse/duckdb/types.ts';
import type { RecordFields } from '../src/warehouse/types.ts';
import { EventGenerator, SOURCE_OF, type EventKind } from './generator.ts';
import {
  closeHttpAgent,
  cpuSeconds,
  diffCpu,
  findPerf,
  findWrk,
  httpJson,
  loadAverage,
  machineCpu,
  perfRecord,
  perfSummary,
  REPO,
  RssSampler,
  rssBytes,
  runWrk,
  startChild,
  summarize,
  threadCpu,
  waitForHttp,
  type Child,
  type WrkResult,
} from './lib.ts';
import { summarizeProfile, type ProfileSummary } from './profile-summary.ts';
import { fmt, pct, renderMarkdown, renderTable, short } from './report.ts';
import { stageChunks, type ChunkResult } from './stage.ts';
import { bulkLoadCeiling } from './ingest-ceiling.ts';
import { prepareBaseline } from './baseline.ts';
import { PROBE_ENDPOINT, probeEndpointQuery, VisibilityProbe } from './visibility-probe.ts';

// ---- options ----

const argv = process.argv.slice(2);
const flag = (name: string) => argv.includes(`--${name}`);
const option = (name: string) => argv.find((arg) => arg.startsWith(`--${name}=`))?.split('=')[1];
const QUICK = flag('quick');
const PROFILE = flag('profile');
const PERF = flag('perf');
/** Only the ingest part (section 1) and its ceilings: for working on the write path. */
const INGEST_ONLY = flag('ingest-only');
/** Only the batched runs and their visibility probes: for working on folds and checkpoints. */
const BATCHED_ONLY = flag('batched-only');
const MODE = QUICK ? 'quick' : 'full';
/** A commit to run the same ingest load against, side by side (`--baseline=<rev>`; see bench/baseline.ts). */
const BASELINE = option('baseline');
/** Ingest runs per variant, in alternating order (`--rounds=N`). */
const ROUNDS = Number(option('rounds') ?? (BASELINE && !QUICK ? 3 : 1));

const PLAN = QUICK
  ? { ingestSeconds: 8, ceilingSeconds: 5, warmupSeconds: 2, trickleSeconds: 10, idleSeconds: 10, basePerSource: 250_000, levels: [1_000_000], uncachedRuns: 15, warmupRounds: 20, cachedRuns: 200 }
  : { ingestSeconds: 20, ceilingSeconds: 10, warmupSeconds: 3, trickleSeconds: 20, idleSeconds: 20, basePerSource: 1_000_000, levels: [1_000_000, 10_000_000], uncachedRuns: 30, warmupRounds: 20, cachedRuns: 500 };
if (option('seconds')) PLAN.ingestSeconds = Number(option('seconds'));
const CONCURRENCY = 32;
const BATCH = 100;
const API_KEY = 'bench-private-key-0123456789abcdef';
const LOG_LEVEL = option('log-level');
const MEMORY_LIMIT = '2GB';
const WINDOW_MS = 14 * 86_400_000;
/** Share of edge (cloudflare) events in the ingest mix; the rest are function (deno-relay) events. */
const EDGE_SHARE = 0.6;

const started = new Date();
const stamp = started.toISOString().replace(/[:.]/g, '-').replace(/-\d+Z$/, 'Z');
const log = (message: string) => console.log(`[bench +${((Date.now() - started.getTime()) / 1000).toFixed(0).padStart(4)}s] ${message}`);

// ---- the Sawmill server ----

interface Sawmill {
  child: Child;
  url: string;
  dataDir: string;
  profileDir: string | undefined;
}

let nextPort = 43000 + Math.floor(Math.random() * 1000);

async function startSawmill(dataDir: string, workDir: string, profileName?: string, settings: Record<string, string> = {}, repo = REPO, logName = 'server.log'): Promise<Sawmill> {
  const port = nextPort++;
  const profileDir = profileName ? join(workDir, 'profiles', profileName) : undefined;
  if (profileDir) await mkdir(profileDir, { recursive: true });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    SAWMILL_DATA_DIR: dataDir,
    SAWMILL_API_KEY: API_KEY,
    SAWMILL_MEMORY_LIMIT: MEMORY_LIMIT,
    ...settings,
  };
  if (LOG_LEVEL) env.SAWMILL_LOG_LEVEL = LOG_LEVEL;
  // As `npm start` starts that checkout: bin/service.cjs sets the threadpool; older ones set it in package.json.
  const service = existsSync(join(repo, 'bin/service.cjs'));
  if (!service) env.UV_THREADPOOL_SIZE ??= '16';
  const args = [...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []), join(repo, service ? 'bin/service.cjs' : 'build/main.js')];
  const child = startChild(process.execPath, args, { env, logFile: join(workDir, logName), cwd: repo });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForHttp(`${url}/health`, child);
  } catch (error) {
    const tail = (await readFile(join(workDir, logName), 'utf8').catch(() => '')).split('\n').slice(-15).join('\n');
    throw new Error(`${(error as Error).message}; the end of server.log:\n${tail}`);
  }
  return { child, url, dataDir, profileDir };
}

/**
 * Idle RSS: the server's RSS once it has had no request for IDLE_MS. V8 keeps the young
 * generation it grew during start-up (up to 32 MB) until a GC finds allocation slow over 5 s,
 * which the server brings about when idle (src/http/idle-memory.ts); sampled at 3 s, as this suite did
 * before, that is still in. Both samples are logged.
 */
const IDLE_MS = 10_000;
async function idleRss(pid: number): Promise<number> {
  await sleep(3000);
  const early = rssBytes(pid);
  await sleep(IDLE_MS - 3000);
  const idle = rssBytes(pid);
  log(`  RSS ${(early / 2 ** 20).toFixed(0)} MB 3 s after start-up, ${(idle / 2 ** 20).toFixed(0)} MB after ${IDLE_MS / 1000} s idle`);
  return idle;
}

async function stopSawmill(server: Sawmill): Promise<void> {
  const code = await server.child.stop('SIGTERM');
  if (code !== 0) throw new Error(`Sawmill exited with ${code}; see server.log`);
}

const auth = { 'x-api-key': API_KEY };

async function api<T>(server: Sawmill, method: string, path: string, body?: unknown): Promise<T> {
  const reply = await httpJson(server.url + path, {
    method,
    headers: body === undefined ? auth : { ...auth, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (reply.status >= 300) throw new Error(`${method} ${path}: ${reply.status} ${reply.body.slice(0, 500)}`);
  return (reply.body ? JSON.parse(reply.body) : undefined) as T;
}

// ---- request files for wrk ----

/** Each request line names its source as `{<source name>}`, for addressedRequests to fill in per server. */
async function writeRequests(file: string, options: { requests: number; batch: number; seed: number }): Promise<{ events: number; rawBytes: number }> {
  const now = Date.now();
  const generator = new EventGenerator({ seed: options.seed, fromMs: now - WINDOW_MS + 3_600_000, toMs: now - 60_000 });
  const lines: string[] = [];
  let events = 0;
  let rawBytes = 0;
  for (let i = 0; i < options.requests; i++) {
    // Deterministic mix: request i is edge when its slot in a 10-cycle falls under the share.
    const kind: EventKind = (i * 7) % 10 < EDGE_SHARE * 10 ? 'edge' : 'relay';
    const batch = Array.from({ length: options.batch }, () => generator.event(kind));
    const body = JSON.stringify(options.batch === 1 ? batch[0] : batch);
    events += options.batch;
    rawBytes += batch.reduce((sum, event) => sum + Buffer.byteLength(JSON.stringify(event)) + 1, 0);
    lines.push(`/logs?source={${SOURCE_OF[kind]}}\t${body}`);
  }
  await writeFile(file, `${lines.join('\n')}\n`);
  return { events, rawBytes };
}

/** A requests template with each `{<source name>}` replaced by that source's token on one server. */
/** Each provisioned source's ingest token, by source name. */
async function sourceTokens(server: Sawmill): Promise<Record<string, string>> {
  const sources = await api<Array<{ name: string; token: string }>>(server, 'GET', '/api/sources');
  return Object.fromEntries(sources.map((source) => [source.name, source.token]));
}

async function addressedRequests(template: string, tokens: Record<string, string>, file: string): Promise<string> {
  const text = await readFile(template, 'utf8');
  await writeFile(file, text.replace(/\{([^}\t]+)\}\t/g, (_match, name: string) => `${tokens[name] ?? name}\t`));
  return file;
}

// ---- ingest measurement ----

export interface IngestFigures {
  events_per_s: number;
  requests_per_s: number;
  p50_ms: number;
  p90_ms: number;
  p99_ms: number;
  max_ms: number;
  requests: number;
  events: number;
  errors: { connect: number; read: number; write: number; status: number; timeout: number };
  seconds: number;
  server_cpu_s: number;
  server_threads_cpu_s: Record<string, number>;
  generator_cpu_s: number;
  /** Cores busy with other processes on the machine during the run (not the server, not wrk). */
  other_cpu_cores: number;
  rss_peak_bytes: number;
  /** Time from a probe event's 2xx to the first query that returned it, ms (see visibility-probe.ts). */
  visibility?: ReturnType<typeof summarize> & { failures: number; lags_ms: number[] };
  perf?: ReturnType<typeof perfSummary>;
}

/**
 * Server CPU at a trickle: one single event every 1000/TRICKLE_PER_S ms from this process, as a
 * quiet deployment receives them. Shows the fixed cost of each fold, paid here for a few events.
 */
const TRICKLE_PER_S = 20;
async function measureTrickle(target: { url: string; pid: number }, requestsFile: string, seconds: number): Promise<{ events_per_s: number; server_cores: number; non_2xx: number }> {
  const requests = (await readFile(requestsFile, 'utf8')).split('\n', TRICKLE_PER_S * seconds).map((line) => line.split('\t') as [string, string]);
  const settledMs = await settle(target.pid);
  log(`  settled ${(settledMs / 1000).toFixed(1)} s after the load`);
  const cpuBefore = cpuSeconds(target.pid);
  const t0 = performance.now();
  let failed = 0;
  for (const [i, [path, body]] of requests.entries()) {
    await sleep(Math.max(0, t0 + (i * 1000) / TRICKLE_PER_S - performance.now()));
    const reply = await httpJson(target.url + path, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body });
    if (reply.status >= 300) failed++;
  }
  await sleep(Math.max(0, t0 + seconds * 1000 - performance.now()));
  const elapsed = (performance.now() - t0) / 1000;
  return { events_per_s: requests.length / elapsed, server_cores: (cpuSeconds(target.pid) - cpuBefore) / elapsed, non_2xx: failed };
}

async function measureLoad(
  target: { url: string; pid: number },
  requestsFile: string,
  batch: number,
  seconds: number,
  rss?: RssSampler,
  perfFile?: string,
  startProbe?: () => VisibilityProbe,
): Promise<IngestFigures> {
  await runWrk({ url: target.url, requestsFile, apiKey: API_KEY, connections: CONCURRENCY, seconds: PLAN.warmupSeconds });
  rss?.reset();
  const probe = startProbe?.();
  const cpuBefore = cpuSeconds(target.pid);
  const threadsBefore = threadCpu(target.pid);
  const machineBefore = machineCpu();
  const perf = perfFile ? perfRecord(target.pid, Math.max(1, seconds - 1), perfFile) : undefined;
  const result: WrkResult = await runWrk({ url: target.url, requestsFile, apiKey: API_KEY, connections: CONCURRENCY, seconds });
  const visibility = await probe?.stop();
  const machineBusy = machineCpu().busy - machineBefore.busy;
  const cpu = cpuSeconds(target.pid) - cpuBefore;
  const threads = diffCpu(threadCpu(target.pid), threadsBefore);
  const perfFigures = perf ? perfSummary(await perf) : undefined;
  const duration = result.duration_us / 1e6;
  const ok = result.requests - result.status_errors;
  return {
    events_per_s: (ok * batch) / duration,
    requests_per_s: result.requests / duration,
    p50_ms: result.p50_us / 1000,
    p90_ms: result.p90_us / 1000,
    p99_ms: result.p99_us / 1000,
    max_ms: result.max_us / 1000,
    requests: result.requests,
    events: ok * batch,
    errors: { connect: result.connect_errors, read: result.read_errors, write: result.write_errors, status: result.status_errors, timeout: result.timeouts },
    seconds: duration,
    server_cpu_s: Math.round(cpu * 100) / 100,
    server_threads_cpu_s: threads,
    generator_cpu_s: result.generator_cpu_s,
    other_cpu_cores: Math.max(0, Math.round(((machineBusy - cpu - result.generator_cpu_s) / duration) * 100) / 100),
    rss_peak_bytes: rss ? rss.peak() : rssBytes(target.pid),
    ...(visibility ? { visibility: { ...summarize(visibility.lags_ms), failures: visibility.failures, lags_ms: visibility.lags_ms } } : {}),
    ...(perfFigures ? { perf: perfFigures } : {}),
  };
}

/**
 * Waits until the server is quiet: under SETTLED_CORES for SETTLED_SECONDS seconds running, so
 * the last folds and the checkpoint after the runs before (a few seconds of DuckDB's work, which
 * starts 2 s after the last fold) do not count as the trickle's. At most SETTLE_MAX_MS; returns
 * how long it took.
 */
const SETTLED_CORES = 0.02;
const SETTLED_SECONDS = 5;
const SETTLE_MAX_MS = 60_000;
async function settle(pid: number): Promise<number> {
  const t0 = performance.now();
  for (let quiet = 0; quiet < SETTLED_SECONDS && performance.now() - t0 < SETTLE_MAX_MS; ) {
    quiet = (await idleCores(pid, 1)) <= SETTLED_CORES ? quiet + 1 : 0;
  }
  return performance.now() - t0;
}

/** Server CPU while nothing is sent. */
async function idleCores(pid: number, seconds: number): Promise<number> {
  const before = cpuSeconds(pid);
  const t0 = performance.now();
  await sleep(seconds * 1000);
  return (cpuSeconds(pid) - before) / ((performance.now() - t0) / 1000);
}

interface Variant {
  key: 'current' | 'baseline';
  label: string;
  /** The checkout whose build/main.js runs. */
  repo: string;
}

export interface IngestRun {
  variant: Variant['key'];
  label: string;
  round: number;
  batch: IngestFigures;
  single: IngestFigures;
  trickle: Awaited<ReturnType<typeof measureTrickle>>;
  /** Server CPU with nothing sent: after start-up (and IDLE_MS), and after the load and the trickle. */
  idle: { fresh_cores: number; after_load_cores: number };
  rss: { idle_fresh_bytes: number; peak_bytes: number };
  storage: Awaited<ReturnType<typeof storageOf>> & { data_dir_bytes: number; data_dir_bytes_per_event: number; raw_bytes_per_event: number; ratio: number };
}

/**
 * One variant's ingest runs on a fresh server: idle RSS and CPU, batches with a visibility probe,
 * single events, the trickle, idle CPU after it, then the data dir's size after a clean stop.
 */
async function ingestRun(
  variant: Variant,
  round: number,
  workDir: string,
  templates: { batch: string; single: string },
  rawPerEvent: { batch: number; single: number },
  options: { profile: boolean; perf: boolean },
  profiles: Record<string, ProfileSummary>,
): Promise<IngestRun> {
  const name = `${variant.label}, round ${round + 1}`;
  const dataDir = await mkdtemp(join(workDir, `ingest-${variant.key}-`));
  const server = await startSawmill(dataDir, workDir, options.profile ? 'ingest' : undefined, {}, variant.repo, variant.key === 'current' ? 'server.log' : 'server-baseline.log');
  const pid = server.child.pid;
  const idleFresh = await idleRss(pid);
  const idleFreshCores = await idleCores(pid, PLAN.idleSeconds);
  log(`${name}: up (pid ${pid}), idle RSS ${(idleFresh / 2 ** 20).toFixed(0)} MB, idle CPU ${idleFreshCores.toFixed(4)} cores`);
  const tokens = await sourceTokens(server);
  const batchFile = await addressedRequests(templates.batch, tokens, join(workDir, `requests-batch-${variant.key}.txt`));
  const singleFile = await addressedRequests(templates.single, tokens, join(workDir, `requests-single-${variant.key}.txt`));
  await api(server, 'POST', '/api/endpoints', { name: PROBE_ENDPOINT, query: probeEndpointQuery(SOURCE_OF.edge), cache_duration_seconds: 0 });

  const target = { url: server.url, pid };
  const rss = new RssSampler(pid);
  const probe = () => new VisibilityProbe(server.url, auth, tokens[SOURCE_OF.edge]!);
  const batch = await measureLoad(target, batchFile, BATCH, PLAN.ingestSeconds, rss, options.perf ? join(workDir, 'perf-batch.data') : undefined, probe);
  log(`  batches of ${BATCH}: ${fmt(batch.events_per_s)} ev/s, p50 ${batch.p50_ms.toFixed(1)} ms, p99 ${batch.p99_ms.toFixed(1)} ms, non-2xx ${batch.errors.status}, server ${(batch.server_cpu_s / batch.seconds).toFixed(2)} cores, others ${batch.other_cpu_cores.toFixed(2)}`);
  log(`  visible after 2xx: p50 ${batch.visibility!.p50.toFixed(0)} ms, p99 ${batch.visibility!.p99.toFixed(0)} ms over ${batch.visibility!.n} probes, ${batch.visibility!.failures} not seen`);
  const single = await measureLoad(target, singleFile, 1, PLAN.ingestSeconds, rss, options.perf ? join(workDir, 'perf-single.data') : undefined);
  log(`  single events: ${fmt(single.requests_per_s)} req/s, p50 ${single.p50_ms.toFixed(1)} ms, p99 ${single.p99_ms.toFixed(1)} ms, non-2xx ${single.errors.status}`);
  rss.stop();
  const trickle = await measureTrickle(target, singleFile, PLAN.trickleSeconds);
  await sleep(5000); // the last fold and the idle checkpoint
  const afterLoadCores = await idleCores(pid, PLAN.idleSeconds);
  log(`  trickle of ${TRICKLE_PER_S} events/s: ${trickle.server_cores.toFixed(4)} cores, non-2xx ${trickle.non_2xx}; idle after it: ${afterLoadCores.toFixed(4)} cores`);
  await stopSawmill(server);
  if (server.profileDir) profiles.ingest = await summarizeDir(server.profileDir);

  // The whole data dir (journal, catalog, DuckDB file) after a clean stop, over the events stored.
  const stored = await storageOf(join(dataDir, 'sawmill.duckdb'), tokens, [SOURCE_OF.edge, SOURCE_OF.relay]);
  const dataDirBytes = directoryBytes(dataDir);
  const raw = (rawPerEvent.batch * batch.events + rawPerEvent.single * single.events) / (batch.events + single.events);
  const storage = { ...stored, data_dir_bytes: dataDirBytes, data_dir_bytes_per_event: dataDirBytes / stored.events, raw_bytes_per_event: raw, ratio: raw / (dataDirBytes / stored.events) };
  log(`  stored ${fmt(stored.events)} events: data dir ${storage.data_dir_bytes_per_event.toFixed(1)} B/event (${storage.ratio.toFixed(1)}x smaller than NDJSON)`);
  await rm(dataDir, { recursive: true, force: true });
  return {
    variant: variant.key,
    label: variant.label,
    round,
    batch,
    single,
    trickle,
    idle: { fresh_cores: idleFreshCores, after_load_cores: afterLoadCores },
    rss: { idle_fresh_bytes: idleFresh, peak_bytes: Math.max(batch.rss_peak_bytes, single.rss_peak_bytes) },
    storage,
  };
}

/** The run whose `value` is the median of `runs` (the lower middle one of an even count). */
function medianRun(runs: IngestRun[], value: (run: IngestRun) => number = (run) => run.batch.events_per_s): IngestRun {
  const sorted = [...runs].sort((a, b) => value(a) - value(b));
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

/** Every probe of every round, summarised together. */
function pooledVisibility(runs: IngestRun[]): IngestFigures['visibility'] {
  const lags = runs.flatMap((run) => run.batch.visibility?.lags_ms ?? []);
  return { ...summarize(lags), failures: runs.reduce((sum, run) => sum + (run.batch.visibility?.failures ?? 0), 0), lags_ms: lags };
}

/** Per round, this code's figure over the baseline's; and the median of those ratios. */
function versusBaseline(runs: IngestRun[]): Record<string, unknown> {
  const figures: Record<string, (run: IngestRun) => number> = {
    batch_events_per_s: (run) => run.batch.events_per_s,
    single_requests_per_s: (run) => run.single.requests_per_s,
    server_cpu_us_per_batched_event: (run) => (run.batch.server_cpu_s / run.batch.events) * 1e6,
    server_cpu_us_per_single_event: (run) => (run.single.server_cpu_s / run.single.events) * 1e6,
    trickle_cores: (run) => run.trickle.server_cores,
    idle_cores: (run) => run.idle.fresh_cores,
  };
  const rounds = [...new Set(runs.map((run) => run.round))];
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(figures)) {
    const ratios = rounds.map((round) => {
      const current = runs.find((run) => run.round === round && run.variant === 'current')!;
      const baseline = runs.find((run) => run.round === round && run.variant === 'baseline')!;
      return value(current) / value(baseline);
    });
    const sorted = [...ratios].sort((a, b) => a - b);
    out[name] = { ratios, median: sorted[Math.floor((sorted.length - 1) / 2)], current: runs.filter((run) => run.variant === 'current').map(value), baseline: runs.filter((run) => run.variant === 'baseline').map(value) };
  }
  return out;
}

/**
 * Overload and the memory it leaves (issue 29, item 8): 64 senders of bodies of about 1 MB against
 * SAWMILL_MEMORY_LIMIT=512MB, then RSS each second for a minute with nothing sent. The promise is
 * idle + the memory limit within that minute.
 */
const OVERLOAD = { connections: 64, eventsPerBody: 900, memoryLimitMb: 512, afterSeconds: 60 };
async function overloadRun(workDir: string): Promise<Record<string, unknown>> {
  const dataDir = await mkdtemp(join(workDir, 'overload-data-'));
  const server = await startSawmill(dataDir, workDir, undefined, { SAWMILL_MEMORY_LIMIT: `${OVERLOAD.memoryLimitMb}MB` });
  const pid = server.child.pid;
  const idle = await idleRss(pid);
  const tokens = await sourceTokens(server);
  const template = join(workDir, 'requests-overload.template');
  const info = await writeRequests(template, { requests: 12, batch: OVERLOAD.eventsPerBody, seed: 303 });
  const file = await addressedRequests(template, tokens, join(workDir, 'requests-overload.txt'));
  log(`overload: ${OVERLOAD.connections} senders of ${(info.rawBytes / 12 / 2 ** 20).toFixed(2)} MB bodies, SAWMILL_MEMORY_LIMIT=${OVERLOAD.memoryLimitMb}MB, ${PLAN.ceilingSeconds}s; then ${OVERLOAD.afterSeconds}s idle`);
  const rss = new RssSampler(pid, 50);
  const result = await runWrk({ url: server.url, requestsFile: file, apiKey: API_KEY, connections: OVERLOAD.connections, seconds: PLAN.ceilingSeconds });
  const after: number[] = [];
  for (let second = 1; second <= OVERLOAD.afterSeconds; second++) {
    await sleep(1000);
    after.push(rssBytes(pid));
  }
  const peak = rss.peak(); // the folds of what was acknowledged go on after the senders stop
  rss.stop();
  await stopSawmill(server);
  await rm(dataDir, { recursive: true, force: true });
  const bound = idle + OVERLOAD.memoryLimitMb * 2 ** 20;
  // From when on it stayed under the bound.
  let lastOver = -1;
  after.forEach((bytes, i) => bytes > bound && (lastOver = i));
  const within = lastOver === after.length - 1 ? -1 : lastOver + 1; // seconds after the load, -1: never
  log(`  ${fmt((result.requests - result.status_errors) / (result.duration_us / 1e6))} req/s accepted (${result.status_errors} refused), peak RSS ${(peak / 2 ** 20).toFixed(0)} MB, ${OVERLOAD.afterSeconds} s later ${(after.at(-1)! / 2 ** 20).toFixed(0)} MB (idle ${(idle / 2 ** 20).toFixed(0)} MB + limit = ${(bound / 2 ** 20).toFixed(0)} MB${within >= 0 ? `, under it from ${within} s on` : ', not reached'})`);
  return {
    connections: OVERLOAD.connections,
    body_bytes: Math.round(info.rawBytes / 12),
    memory_limit_mb: OVERLOAD.memoryLimitMb,
    accepted_requests: result.requests - result.status_errors,
    refused_requests: result.status_errors,
    idle_bytes: idle,
    peak_bytes: peak,
    after_bytes: after,
    bound_bytes: bound,
    seconds_to_bound: within >= 0 ? within : null,
  };
}

// ---- warehouse layout and bulk load (the engine ceiling) ----

interface SourceTable {
  source: string;
  token: string;
  view: string;
  segment: string;
  fields: RecordFields;
  /** The segment's promoted columns (src/warehouse/duckdb/promotion.ts) → DuckDB type. */
  hidden: Map<string, string>;
}

async function openDb(path: string, readOnly = false): Promise<{ instance: DuckDBInstance; connection: DuckDBConnection }> {
  const instance = await DuckDBInstance.create(path, {
    memory_limit: MEMORY_LIMIT,
    storage_compatibility_version: 'v1.5.0',
    ...QUERY_SETTINGS,
    ...(readOnly ? { access_mode: 'READ_ONLY' } : {}),
  });
  const connection = await instance.connect();
  await connection.run(`SET TimeZone = 'UTC'`);
  return { instance, connection };
}

async function sourceTables(connection: DuckDBConnection, tokens: Record<string, string>, names: string[]): Promise<SourceTable[]> {
  const tables = (await connection.runAndReadAll(`SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main' ORDER BY table_name`)).getRows().map(([name]) => String(name));
  return Promise.all(
    names.map(async (source) => {
      const view = viewName(tokens[source]!);
      const segment = tables.filter((table) => parseSegmentName(table)?.view === view).at(-1);
      if (!segment) throw new Error(`no segment table for ${source}`);
      const shape = await connection.runAndReadAll(`SELECT * FROM ${quoteIdent(segment)} LIMIT 0`);
      const columns = shape.columnNames().map((column, i) => [column, fieldTypeFromDuckdb(shape.columnTypes()[i]!)] as const).slice(3);
      const fields = new Map(columns.filter(([column]) => !isHiddenColumn(column)));
      const hidden = new Map(columns.filter(([column]) => isHiddenColumn(column)).map(([column, type]) => [column, duckdbType(type)]));
      return { source, token: tokens[source]!, view, segment, fields, hidden };
    }),
  );
}

const sqlString = (text: string) => `'${text.replaceAll("'", "''")}'`;

/**
 * The statement Sawmill runs per commit (src/warehouse/duckdb/adapter.ts insertFromFileSql, promoted columns included), with
 * the copy's time placement and id suffix: the staged base covers [0, WINDOW) in relative
 * microseconds; copy j of c lands in [from + j·WINDOW/c, from + (j+1)·WINDOW/c), in time order.
 */
function bulkInsertSql(table: SourceTable, file: string, fromMicros: number, copy: number, copies: number): string {
  const columns = [`'id': 'VARCHAR'`, `'timestamp': 'BIGINT'`, `'event_message': 'VARCHAR'`];
  for (const [name, type] of table.fields) columns.push(`${sqlString(name)}: ${sqlString(duckdbType(type))}`);
  const span = Math.floor((WINDOW_MS * 1000) / copies);
  const ts = `make_timestamp(CAST(${fromMicros + copy * span} + "timestamp" // ${copies} AS BIGINT))::TIMESTAMPTZ`;
  const id = `left("id", 32) || lpad(printf('%x', ${copy}::INTEGER), 4, '0')`;
  return (
    `INSERT INTO ${quoteIdent(table.segment)} BY NAME ` +
    `SELECT * REPLACE (${ts} AS "timestamp", ${id} AS "id")${hiddenSelectItems(table.fields, table.hidden).map((item) => `, ${item}`).join('')} ` +
    `FROM read_json(${sqlString(file)}, format = 'newline_delimited', columns = {${columns.join(', ')}}, maximum_object_size = 67108864)`
  );
}

// ---- endpoints ----

interface EndpointCase {
  name: string;
  kind: 'built-in' | 'user';
  params: Record<string, string>;
}

const USER_ENDPOINT_QUERY = `select req.path as path, count(*) as requests,
  countif(resp.status_code >= 500) as server_errors,
  approx_quantiles(resp.origin_time, 100)[offset(99)] as p99_origin_ms
from \`cloudflare.logs.prod\` as t
cross join unnest(t.metadata) as m
cross join unnest(m.request) as req
cross join unnest(m.response) as resp
where t.project = @project
  and t.timestamp > timestamp_sub(current_timestamp(), interval 7 day)
group by path
order by requests desc
limit 20`;

interface EndpointFigures {
  level: number;
  name: string;
  kind: string;
  params: Record<string, string>;
  rows: number;
  uncached: ReturnType<typeof summarize>;
  cached: ReturnType<typeof summarize>;
  /** The same cached requests as the server timed them (Fastify's responseTime in its log). */
  cached_in_server: ReturnType<typeof summarize>;
  /** The SQL prepared, bound and run on each call (connection.runAndReadAll with the parameters). */
  direct: ReturnType<typeof summarize>;
  direct_rows: number;
  /** (uncached p50 - direct p50) / direct p50 */
  overhead: number;
  /** The SQL prepared once and each call only bound and run, as the server's readers keep their statements. */
  direct_prepared: ReturnType<typeof summarize>;
  /** (uncached p50 - direct_prepared p50) / direct_prepared p50 */
  overhead_vs_prepared: number;
}

/** Response times (ms) the server logged for requests to `url`, oldest first (one log line per request: src/http/request-log.ts). */
async function serverTimes(logFile: string, url: URL): Promise<number[]> {
  const path = url.pathname + url.search;
  const times: number[] = [];
  for (const line of (await readFile(logFile, 'utf8')).split('\n')) {
    if (!line.startsWith('{') || !line.endsWith('}')) continue; // the server may be writing the last line
    const entry = JSON.parse(line) as { req?: { url?: string }; responseTime?: number };
    if (entry.req?.url === path && entry.responseTime !== undefined) times.push(entry.responseTime);
  }
  return times;
}

let timer: ChildProcess | undefined;

/** `runs` sequential GETs of `url`, timed by the client process (bench/http-timer.ts). */
async function timeHttp(url: string, runs: number): Promise<{ samples: number[]; rows: number }> {
  timer ??= fork(join(REPO, 'bench/http-timer.ts'), [], { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
  const child = timer;
  const answer = await new Promise<{ samples: number[]; rows: number; error?: string }>((resolve, reject) => {
    child.once('message', (message) => resolve(message as { samples: number[]; rows: number; error?: string }));
    child.once('exit', (code) => reject(new Error(`the HTTP timer exited with ${code}`)));
    child.send({ url, runs, headers: auth });
  });
  child.removeAllListeners('exit');
  if (answer.error) throw new Error(answer.error);
  return answer;
}

// ---- machine ----

async function machine(): Promise<Record<string, unknown>> {
  const { instance, connection } = await openDb(':memory:');
  const duckdb = String((await connection.runAndReadAll('SELECT version()')).getRows()[0]![0]);
  connection.closeSync();
  instance.closeSync();
  const pkg = (name: string) => JSON.parse(spawnSync('cat', [join(REPO, 'node_modules', name, 'package.json')], { encoding: 'utf8' }).stdout || '{}').version as string | undefined;
  const os = existsSync('/etc/os-release') ? /PRETTY_NAME="([^"]+)"/.exec(await readFile('/etc/os-release', 'utf8'))?.[1] : undefined;
  const wrk = spawnSync('wrk', ['--version'], { encoding: 'utf8' });
  return {
    cpu_model: cpus()[0]?.model,
    cores: cpus().length,
    memory_gib: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    free_memory_gib: Math.round((freemem() / 2 ** 30) * 10) / 10,
    os,
    kernel: release(),
    node: process.version,
    duckdb,
    duckdb_node_api: pkg('@duckdb/node-api'),
    fastify: pkg('fastify'),
    wrk: (wrk.stdout || wrk.stderr).split('\n')[0]?.trim(),
    git_commit: spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO, encoding: 'utf8' }).stdout.trim() || undefined,
    git_uncommitted_files: spawnSync('git', ['status', '--porcelain'], { cwd: REPO, encoding: 'utf8' }).stdout.split('\n').filter(Boolean).length,
  };
}

function ensurePerf(): void {
  if (!PERF) return;
  if (!findPerf()) throw new Error('--perf needs perf (Debian: apt-get install -y linux-perf)');
}

function ensureWrk(): string {
  const found = findWrk();
  if (found) {
    log(`load generator: wrk found at ${found}`);
    return found;
  }
  log('load generator: wrk not found; installing Debian wrk with apt-get install -y wrk');
  const install = spawnSync('sh', ['-c', 'apt-get install -y wrk || (apt-get update && apt-get install -y wrk)'], { stdio: 'inherit' });
  const after = findWrk();
  if (install.status !== 0 || !after) throw new Error('wrk is needed (Debian: apt-get install -y wrk) and could not be installed');
  log(`load generator: installed wrk at ${after}`);
  return after;
}

// ---- the run ----

/** The server runs as `npm start` runs it: compiled, so the figures include no TypeScript loader. */
function buildServer(): void {
  const build = spawnSync('npm', ['run', 'build'], { cwd: REPO, stdio: 'inherit' });
  if (build.status !== 0) throw new Error('npm run build failed');
}

async function main(): Promise<void> {
  ensureWrk();
  buildServer();
  ensurePerf();
  const load = loadAverage();
  if (load > 0.5) log(`WARNING: the machine is not idle (load average ${load}); other processes will show in the figures (see the other-CPU columns)`);
  const workDir = await mkdtemp(join(tmpdir(), 'sawmill-bench-'));
  log(`mode ${MODE}; work dir ${workDir}`);
  const result: Record<string, unknown> = { version: 1, mode: MODE, profiled: PROFILE || PERF, started_at: started.toISOString(), load_average_at_start: load };
  result.machine = await machine();
  result.config = {
    concurrency: CONCURRENCY,
    batch_size: BATCH,
    ingest_seconds: PLAN.ingestSeconds,
    idle_seconds: PLAN.idleSeconds,
    rounds: ROUNDS,
    trickle_per_s: TRICKLE_PER_S,
    trickle_seconds: PLAN.trickleSeconds,
    ceiling_seconds: PLAN.ceilingSeconds,
    warmup_seconds: PLAN.warmupSeconds,
    load_generator: 'wrk -t1 (one thread), separate process, same 2 cores as the server (not pinned)',
    server: 'node bin/service.cjs (npm start), defaults except PORT/HOST/SAWMILL_DATA_DIR/SAWMILL_API_KEY' + (LOG_LEVEL ? `/SAWMILL_LOG_LEVEL=${LOG_LEVEL}` : ''),
    memory_limit: MEMORY_LIMIT,
    levels: PLAN.levels,
    base_events_per_source: PLAN.basePerSource,
    uncached_runs: PLAN.uncachedRuns,
    uncached_warmup_rounds: PLAN.warmupRounds,
    cached_runs: PLAN.cachedRuns,
  };
  const profiles: Record<string, ProfileSummary> = {};
  const cleanups: Array<() => void> = [];

  try {
    // ---------- 1. ingest: the bare HTTP ceiling, then fresh servers of this code (and the baseline's), in turn ----------
    const batchTemplate = join(workDir, 'requests-batch.template');
    const singleTemplate = join(workDir, 'requests-single.template');
    const batchInfo = await writeRequests(batchTemplate, { requests: 400, batch: BATCH, seed: 101 });
    const singleInfo = await writeRequests(singleTemplate, { requests: 20_000, batch: 1, seed: 202 });
    result.generator = {
      batch_requests: 400,
      single_requests: 20_000,
      avg_event_bytes_batch: Math.round(batchInfo.rawBytes / batchInfo.events),
      avg_event_bytes_single: Math.round(singleInfo.rawBytes / singleInfo.events),
      avg_batch_body_bytes: Math.round(batchInfo.rawBytes / 400),
      mix: `${EDGE_SHARE * 100}% cloudflare.logs.prod, ${100 - EDGE_SHARE * 100}% deno-relay-logs`,
      top_project_share: new EventGenerator({ seed: 1, fromMs: 0, toMs: 1 }).topProject().share,
    };
    const rawPerEvent = { batch: batchInfo.rawBytes / batchInfo.events, single: singleInfo.rawBytes / singleInfo.events };

    // The same runs against each variant on a fresh server, in alternating order, ROUNDS times:
    // on a shared machine the spread between rounds is the noise the ratios live with.
    const baseline = BASELINE ? prepareBaseline(BASELINE, workDir, log) : undefined;
    cleanups.push(() => baseline?.remove());
    const variants: Variant[] = [{ key: 'current', label: 'Sawmill', repo: REPO }];
    if (baseline) variants.push({ key: 'baseline', label: `baseline ${baseline.commit}`, repo: baseline.dir });
    if (baseline) result.baseline = { rev: baseline.rev, commit: baseline.commit };
    if (BATCHED_ONLY) return await batchedRounds(variants, workDir, batchTemplate);

    log('HTTP ceiling: bare node:http server');
    const bareTokens = Object.fromEntries(Object.values(SOURCE_OF).map((name) => [name, '00000000-0000-4000-8000-000000000000']));
    const bareBatchFile = await addressedRequests(batchTemplate, bareTokens, join(workDir, 'requests-batch-bare.txt'));
    const bareSingleFile = await addressedRequests(singleTemplate, bareTokens, join(workDir, 'requests-single-bare.txt'));
    const bare = startChild(process.execPath, ['--import', 'tsx', 'bench/bare-server.ts', String(nextPort)], { logFile: join(workDir, 'bare.log') });
    const bareUrl = `http://127.0.0.1:${nextPort++}`;
    await waitForHttp(bareUrl, bare);
    const bareBatch = await measureLoad({ url: bareUrl, pid: bare.pid }, bareBatchFile, BATCH, PLAN.ceilingSeconds);
    const bareSingle = await measureLoad({ url: bareUrl, pid: bare.pid }, bareSingleFile, 1, PLAN.ceilingSeconds);
    await bare.stop();
    result.http_ceiling = { batch: bareBatch, single: bareSingle };
    log(`  batch ${fmt(bareBatch.events_per_s)} ev/s, single ${fmt(bareSingle.requests_per_s)} req/s`);

    const runs: IngestRun[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (const variant of round % 2 === 0 ? variants : [...variants].reverse()) {
        const first = round === 0 && variant.key === 'current';
        runs.push(await ingestRun(variant, round, workDir, { batch: batchTemplate, single: singleTemplate }, rawPerEvent, { profile: PROFILE && first, perf: PERF && first }, profiles));
      }
    }
    const current = runs.filter((run) => run.variant === 'current');
    const typical = medianRun(current);
    const ingest: Record<string, unknown> = {
      batch: { ...typical.batch, visibility: pooledVisibility(current) },
      single: medianRun(current, (run) => run.single.requests_per_s).single,
      trickle: medianRun(current, (run) => run.trickle.server_cores).trickle,
      idle: medianRun(current, (run) => run.idle.fresh_cores).idle,
      runs,
    };
    result.ingest = ingest;
    result.storage_http_ingest = current[0]!.storage;
    if (baseline) result.versus_baseline = versusBaseline(runs);

    log('engine ceiling: DuckDB CREATE TABLE AS SELECT * FROM read_json of the batched run\'s events, CHECKPOINT included');
    const bulk = await bulkLoadCeiling(bareBatchFile, workDir, QUICK ? 200_000 : 1_000_000, MEMORY_LIMIT);
    result.ingest_ceiling = bulk;
    log(`  ${fmt(bulk.events_per_s)} ev/s (${fmt(bulk.events)} events in ${bulk.seconds.toFixed(1)} s), ${bulk.bytes_per_event.toFixed(1)} B/event`);
    const bounded = await batchedRunWith(BOUNDED_SETTINGS, workDir, batchTemplate);
    const during_ingest_bounded = { setting: bounded.setting, bytes: bounded.bytes, events_per_s: bounded.figures.events_per_s };
    result.rss = {
      idle_fresh_bytes: Math.max(...current.map((run) => run.rss.idle_fresh_bytes)),
      during_ingest_bytes: Math.max(...current.map((run) => run.rss.peak_bytes)),
      during_ingest_bounded,
    };
    const oneThread = await batchedRunWith(ONE_THREAD_SETTINGS, workDir, batchTemplate);
    ingest.batch_with = { setting: oneThread.setting, ...oneThread.figures };
    result.overload = await overloadRun(workDir);
    if (INGEST_ONLY) return await finish(result, profiles);

    // ---------- 2. stored events: a fresh provisioned data dir, bulk-loaded per level ----------
    const queryDir = join(workDir, 'query-data');
    const snapshot = join(workDir, 'query-snapshot');
    let server = await startSawmill(queryDir, workDir);
    const qTokens = await sourceTokens(server);
    const builtins = await api<Array<{ name: string; query: string }>>(server, 'GET', '/api/endpoints');
    // Each case runs under two names: cache off (uncached) and cache on (cached). Built-ins keep their own settings for one of them.
    // They are saved before any event is stored, as a deployment's endpoints are while events arrive (promoted columns).
    const queryOf = (name: string) => (name === 'user.paths-by-volume' ? USER_ENDPOINT_QUERY : builtins.find((b) => b.name === name)!.query);
    const names: Record<string, { uncached: string; cached: string }> = {};
    for (const name of ['logs.all', 'functions.invocation-stats', 'usage.api-counts', 'user.paths-by-volume']) {
      const builtin = builtins.find((b) => b.name === name) as { cache_duration_seconds?: number } | undefined;
      const builtinCached = (builtin?.cache_duration_seconds ?? 0) > 0;
      const uncached = builtin && !builtinCached ? name : `bench.${name}.uncached`;
      const cached = builtin && builtinCached ? name : `bench.${name}.cached`;
      if (uncached !== name) await api(server, 'POST', '/api/endpoints', { name: uncached, query: queryOf(name), cache_duration_seconds: 0 });
      if (cached !== name) await api(server, 'POST', '/api/endpoints', { name: cached, query: queryOf(name), cache_duration_seconds: 900, proactive_requerying_seconds: 0 });
      names[name] = { uncached, cached };
    }
    await stopSawmill(server);
    await cp(queryDir, snapshot, { recursive: true });

    const sourceNames = [SOURCE_OF.edge, SOURCE_OF.relay];
    let tables: SourceTable[];
    {
      const { instance, connection } = await openDb(join(queryDir, 'sawmill.duckdb'));
      tables = await sourceTables(connection, qTokens, sourceNames);
      connection.closeSync();
      instance.closeSync();
    }
    log(`staging ${fmt(PLAN.basePerSource)} distinct events per source (normalised and shaped as Sawmill stages them)`);
    const stageStart = performance.now();
    const chunkSize = 250_000;
    const jobs = tables.flatMap((table, t) =>
      Array.from({ length: Math.ceil(PLAN.basePerSource / chunkSize) }, (_, c) => ({
        kind: (table.source === SOURCE_OF.edge ? 'edge' : 'relay') as EventKind,
        start: c * chunkSize,
        count: Math.min(chunkSize, PLAN.basePerSource - c * chunkSize),
        total: PLAN.basePerSource,
        fromMs: 0,
        toMs: WINDOW_MS,
        seed: 1000 + t * 7919,
        fields: table.fields,
        file: join(workDir, `stage-${t}-${c}.ndjson`),
      })),
    );
    const staged = await stageChunks(jobs);
    const stagedBy = (table: SourceTable) => staged.filter((_, i) => jobs[i]!.kind === (table.source === SOURCE_OF.edge ? 'edge' : 'relay'));
    log(`  staged in ${((performance.now() - stageStart) / 1000).toFixed(1)} s`);
    const topProject = new EventGenerator({ seed: 1, fromMs: 0, toMs: 1 }).topProject();

    const levels: Array<Record<string, unknown>> = [];
    const endpointFigures: EndpointFigures[] = [];
    const idleLoaded: Record<string, number> = {};
    const queryRss: Record<string, number> = {};
    const background: Record<string, number> = {};
    for (const [levelIndex, level] of PLAN.levels.entries()) {
      const copies = Math.max(1, Math.round(level / PLAN.basePerSource));
      await rm(queryDir, { recursive: true, force: true });
      await cp(snapshot, queryDir, { recursive: true });

      // Engine ceiling: the same events, the same tables, read_json in bulk, including the final CHECKPOINT.
      log(`level ${fmt(level)} per source: bulk load with read_json (${copies} time-shifted cop${copies === 1 ? 'y' : 'ies'} of the staged base)`);
      const dbPath = join(queryDir, 'sawmill.duckdb');
      const { instance, connection } = await openDb(dbPath);
      const fromMicros = (Date.now() - WINDOW_MS) * 1000;
      const t0 = performance.now();
      let loaded = 0;
      for (const table of tables) {
        for (let copy = 0; copy < copies; copy++) {
          for (const chunk of stagedBy(table)) {
            await connection.run(bulkInsertSql(table, chunk.file, fromMicros, copy, copies));
            loaded += chunk.events;
          }
        }
      }
      await connection.run('CHECKPOINT');
      const loadSeconds = (performance.now() - t0) / 1000;
      connection.closeSync();
      instance.closeSync();
      const rawBytes = sourceNames.reduce((sum, name) => sum + stagedBy(tables.find((t) => t.source === name)!).reduce((s, c: ChunkResult) => s + c.rawBytes, 0) * copies, 0);
      const storage = await storageOf(dbPath, qTokens, sourceNames);
      const levelFigures = {
        level,
        events_loaded: loaded,
        load_seconds: loadSeconds,
        load_events_per_s: loaded / loadSeconds,
        storage: { ...storage, raw_bytes_per_event: rawBytes / loaded, ratio: rawBytes / loaded / storage.bytes_per_event },
      };
      levels.push(levelFigures);
      log(`  ${fmt(loaded)} events in ${loadSeconds.toFixed(1)} s = ${fmt(loaded / loadSeconds)} ev/s; ${storage.bytes_per_event.toFixed(1)} B/event (raw ${(rawBytes / loaded).toFixed(0)} B, ${levelFigures.storage.ratio.toFixed(1)}x)`);

      // Direct DuckDB reads a byte copy of the loaded file (the server holds a lock on its own),
      // opened read-only in this process, by two instances: one prepares the SQL on every run, one
      // keeps it prepared. HTTP and the two direct runs take turns, each on its own engine, so that
      // whatever else the machine does weighs on all alike and every engine sits idle through the
      // other two's runs before its own (an engine that has just run answers faster).
      const directPath = join(workDir, 'direct.duckdb');
      await cp(dbPath, directPath);
      const direct = await openDb(directPath, true);
      const directKept = await openDb(directPath, true);
      const resolveTable = (name: string) => (qTokens[name] ? quoteIdent(viewName(qTokens[name]!)) : undefined);
      const promotions = new Map<string, Promotion>();
      for (const [view, reads] of await loadReads(direct.connection)) {
        const fields = tables.find((table) => table.view === view)?.fields;
        const promotion = fields && promotionOf(view, reads, fields);
        if (promotion) promotions.set(quoteIdent(view), promotion);
      }

      // Endpoints over HTTP and directly.
      server = await startSawmill(queryDir, workDir, PROFILE && levelIndex === 0 ? 'queries' : undefined);
      idleLoaded[String(level)] = await idleRss(server.child.pid);
      log(`  Sawmill up with ${fmt(level)} events per source, idle RSS ${(idleLoaded[String(level)]! / 2 ** 20).toFixed(0)} MB`);
      const cases: EndpointCase[] = [
        { name: 'logs.all', kind: 'built-in', params: { project: topProject.ref, project_tier: 'ENTERPRISE' } },
        { name: 'functions.invocation-stats', kind: 'built-in', params: { project: topProject.ref, interval: '7day' } },
        { name: 'usage.api-counts', kind: 'built-in', params: { project: topProject.ref, interval: 'daily' } },
        { name: 'user.paths-by-volume', kind: 'user', params: { project: topProject.ref } },
      ];
      const qrss = new RssSampler(server.child.pid);
      const queryMachine0 = machineCpu();
      const queryServer0 = cpuSeconds(server.child.pid);
      const querySelf0 = cpuSeconds(process.pid);
      const queryT0 = performance.now();
      const uncachedRuns = level >= 10_000_000 ? Math.max(10, Math.floor(PLAN.uncachedRuns / 2)) : PLAN.uncachedRuns;
      // A freshly started server answers its first few dozen queries slower (paths-by-volume at 1M,
      // medians of ten: 43, 34, 31, 29 ms over its first 40 requests, 25-33 after), with more page
      // faults per query, most of them in glibc's malloc. The direct engines run in this process,
      // which has been allocating for minutes.
      const warmupRounds = level >= 10_000_000 ? PLAN.warmupRounds / 2 : PLAN.warmupRounds;
      for (const c of cases) {
        const qs = new URLSearchParams(c.params).toString();
        const uncachedUrl = `${server.url}/api/endpoints/query/${encodeURIComponent(names[c.name]!.uncached)}?${qs}`;
        const cachedUrl = `${server.url}/api/endpoints/query/${encodeURIComponent(names[c.name]!.cached)}?${qs}`;
        // The SQL the server runs: with the promoted-column rewrite, as the file's promotions allow.
        const translation = translate(queryOf(c.name), promotingDialect((relation) => promotions.get(relation)), { resolveTable });
        const params = Object.fromEntries(translation.parameters.map((name) => [name, c.params[name] ?? null]));
        const httpSamples: number[] = [];
        const directSamples: number[] = [];
        const preparedSamples: number[] = [];
        let rows = 0;
        let directRows = 0;
        const prepared = await directKept.connection.prepare(translation.sql);
        const timed = async (samples: number[], read: () => Promise<DuckDBResultReader>) => {
          const t1 = performance.now();
          const reader = await read();
          samples.push(performance.now() - t1);
          return reader.currentRowCount;
        };
        const runHttp = async () => {
          const h = await timeHttp(uncachedUrl, 1);
          httpSamples.push(h.samples[0]!);
          rows = h.rows;
        };
        const runDirect = async () => {
          directRows = await timed(directSamples, () => direct.connection.runAndReadAll(translation.sql, params));
        };
        const runPrepared = async () => {
          prepared.bind(params);
          await timed(preparedSamples, () => prepared.runAndReadAll());
        };
        // Warm-up rounds, then rounds in turn, the order rotating from one round to the next.
        const turns = [runHttp, runDirect, runPrepared];
        for (let i = 0; i < warmupRounds + uncachedRuns; i++) {
          if (i === warmupRounds) for (const samples of [httpSamples, directSamples, preparedSamples]) samples.length = 0;
          for (let k = 0; k < turns.length; k++) await turns[(i + k) % turns.length]!();
        }
        prepared.destroySync();
        await timeHttp(cachedUrl, 1);
        const cached = await timeHttp(cachedUrl, PLAN.cachedRuns);
        const cachedInServer = (await serverTimes(join(workDir, 'server.log'), new URL(cachedUrl))).slice(-PLAN.cachedRuns);
        const uncached = summarize(httpSamples);
        const directSummary = summarize(directSamples);
        const preparedSummary = summarize(preparedSamples);
        endpointFigures.push({
          level,
          name: c.name,
          kind: c.kind,
          params: c.params,
          rows,
          uncached,
          cached: summarize(cached.samples),
          cached_in_server: summarize(cachedInServer),
          direct: directSummary,
          direct_rows: directRows,
          overhead: (uncached.p50 - directSummary.p50) / directSummary.p50,
          direct_prepared: preparedSummary,
          overhead_vs_prepared: (uncached.p50 - preparedSummary.p50) / preparedSummary.p50,
        });
        log(`  ${c.name}: uncached p50 ${uncached.p50.toFixed(1)} ms p99 ${uncached.p99.toFixed(1)} ms (${rows} rows); direct p50 ${directSummary.p50.toFixed(1)} ms (${directRows} rows), prepared once ${preparedSummary.p50.toFixed(1)} ms; cached p99 ${summarize(cached.samples).p99.toFixed(2)} ms`);
        if (rows === 0) log(`  WARNING: ${c.name} returned no rows`);
        if (rows !== directRows) log(`  WARNING: ${c.name} returned ${rows} rows over HTTP and ${directRows} directly`);
      }
      queryRss[String(level)] = qrss.peak();
      const querySeconds = (performance.now() - queryT0) / 1000;
      const serverQueryCpu = cpuSeconds(server.child.pid) - queryServer0;
      // The bench process runs the HTTP client and the direct queries: count it as ours, not as background.
      background[`queries_${level}`] = Math.max(0, (machineCpu().busy - queryMachine0.busy - serverQueryCpu - (cpuSeconds(process.pid) - querySelf0)) / querySeconds);
      qrss.stop();
      await stopSawmill(server);
      if (server.profileDir) profiles.queries = await summarizeDir(server.profileDir);
      for (const engine of [direct, directKept]) {
        engine.connection.closeSync();
        engine.instance.closeSync();
      }
      await rm(directPath, { force: true });
    }
    result.engine_ceiling_and_storage = levels;
    result.endpoints = endpointFigures;
    result.other_cpu_cores_during_queries = Object.fromEntries(Object.entries(background).map(([k, v]) => [k, Math.round(v * 100) / 100]));
    result.rss = { ...(result.rss as object), idle_loaded_bytes: idleLoaded, during_queries_bytes: queryRss };
    await finish(result, profiles);
  } finally {
    for (const cleanup of cleanups) cleanup();
    closeHttpAgent();
    timer?.disconnect();
    if (!flag('keep')) await rm(workDir, { recursive: true, force: true });
    else log(`kept ${workDir}`);
  }
}

async function finish(result: Record<string, unknown>, profiles: Record<string, ProfileSummary>): Promise<void> {
  {
    if (PROFILE) result.profiles = profiles;
    result.load_average_at_end = loadAverage();
    result.earlier_endpoints = await earlierEndpointRuns(3);
    result.targets = targets(result);
    result.duration_s = Math.round((Date.now() - started.getTime()) / 1000);

    // ---------- output ----------
    const resultsDir = join(REPO, 'bench/results');
    await mkdir(resultsDir, { recursive: true });
    const jsonPath = join(resultsDir, `${stamp}-${MODE}${PROFILE ? '-profiled' : ''}.json`);
    await writeFile(jsonPath, `${JSON.stringify(result, null, 2)}\n`);
    console.log(`\n${renderTable(result)}`);
    if (PROFILE) for (const [name, summary] of Object.entries(profiles)) console.log(`\nCPU profile (${name}), top self time:\n${summary.text}`);
    const writeDocs = flag('docs') || (!QUICK && !PROFILE && !INGEST_ONLY && !flag('no-docs'));
    if (writeDocs) {
      await writeFile(join(REPO, 'docs/benchmarks.md'), renderMarkdown(result, jsonPath.slice(REPO.length + 1)));
      log('docs/benchmarks.md regenerated');
    }
    log(`results: ${jsonPath} (${result.duration_s} s)`);
  }
}

/**
 * The settings that bound the server's memory under ingest, set lower than their defaults: the
 * same batched load on a fresh server, its peak RSS and throughput (docs/reliability.md).
 */
const BOUNDED_SETTINGS = { SAWMILL_MEMORY_LIMIT: '256MB', SAWMILL_MAX_QUEUED_EVENTS: '50000', SAWMILL_FOLD_MAX_EVENTS: '25000' };
/** DuckDB on one thread: a fold gains nothing from a second (src/warehouse/duckdb/adapter.ts), queries lose. */
const ONE_THREAD_SETTINGS = { SAWMILL_DUCKDB_THREADS: '1' };

/**
 * The batched load again, against a fresh server started with `settings`, as long as the default
 * runs: RSS grows through a run and the rate falls as it goes on, so a shorter run reads lower
 * and faster than they do.
 */
async function batchedRunWith(settings: Record<string, string>, workDir: string, template: string): Promise<{ setting: string; bytes: number; figures: IngestFigures }> {
  const dataDir = await mkdtemp(join(workDir, 'settings-data-'));
  const server = await startSawmill(dataDir, workDir, undefined, settings);
  const setting = Object.entries(settings).map(([name, value]) => `${name}=${value}`).join(', ');
  log(`Sawmill ingest with ${setting}: batches of ${BATCH}, c${CONCURRENCY}, ${PLAN.ingestSeconds}s`);
  const file = await addressedRequests(template, await sourceTokens(server), join(workDir, 'requests-settings.txt'));
  const rss = new RssSampler(server.child.pid);
  const figures = await measureLoad({ url: server.url, pid: server.child.pid }, file, BATCH, PLAN.ingestSeconds, rss);
  rss.stop();
  await stopSawmill(server);
  await rm(dataDir, { recursive: true, force: true });
  log(`  peak RSS ${(figures.rss_peak_bytes / 2 ** 20).toFixed(0)} MB, ${fmt(figures.events_per_s)} ev/s, p99 ${figures.p99_ms.toFixed(0)} ms`);
  return { setting, bytes: figures.rss_peak_bytes, figures };
}

/** --batched-only: each variant's batched run with its visibility probe on a fresh server, ROUNDS times in alternating order. */
async function batchedRounds(variants: Variant[], workDir: string, template: string): Promise<void> {
  for (let round = 0; round < ROUNDS; round++) {
    for (const variant of round % 2 === 0 ? variants : [...variants].reverse()) {
      const dataDir = await mkdtemp(join(workDir, `batched-${variant.key}-`));
      const server = await startSawmill(dataDir, workDir, undefined, {}, variant.repo);
      const tokens = await sourceTokens(server);
      const file = await addressedRequests(template, tokens, join(workDir, `requests-batched-${variant.key}.txt`));
      await api(server, 'POST', '/api/endpoints', { name: PROBE_ENDPOINT, query: probeEndpointQuery(SOURCE_OF.edge), cache_duration_seconds: 0 });
      const rss = new RssSampler(server.child.pid);
      const probe = () => new VisibilityProbe(server.url, auth, tokens[SOURCE_OF.edge]!);
      const figures = await measureLoad({ url: server.url, pid: server.child.pid }, file, BATCH, PLAN.ingestSeconds, rss, undefined, probe);
      rss.stop();
      const visible = figures.visibility!;
      log(
        `${variant.label}, round ${round + 1}: ${fmt(figures.events_per_s)} ev/s, ack p99 ${figures.p99_ms.toFixed(0)} ms, non-2xx ${figures.errors.status}, ` +
          `${(figures.server_cpu_s / figures.seconds).toFixed(2)} cores, visible p50 ${visible.p50.toFixed(0)} ms p99 ${visible.p99.toFixed(0)} ms (${visible.n} probes), peak RSS ${(figures.rss_peak_bytes / 2 ** 20).toFixed(0)} MB`,
      );
      log(`  per thread, cores: ${threadCores(figures)}`);
      await stopSawmill(server);
      await rm(dataDir, { recursive: true, force: true });
    }
  }
}

/** The main thread's cores, then the four busiest other threads', then the rest's. */
function threadCores(figures: IngestFigures): string {
  const cores = (seconds: number) => (seconds / figures.seconds).toFixed(2);
  const threads = Object.entries(figures.server_threads_cpu_s).sort(([, a], [, b]) => b - a);
  const main = threads.find(([name]) => name.endsWith('(main)'));
  const others = threads.filter((thread) => thread !== main);
  const rest = others.slice(4).reduce((sum, [, seconds]) => sum + seconds, 0);
  const busiest = others.slice(0, 4).map(([name, seconds]) => `${name} ${cores(seconds)}`);
  return [`main ${cores(main?.[1] ?? 0)}`, ...busiest, ...(others.length > 4 ? [`${others.length - 4} more ${cores(rest)}`] : [])].join(', ');
}

/** The endpoint figures of the last `count` full runs whose results are in bench/results. */
async function earlierEndpointRuns(count: number): Promise<Array<{ file: string; commit: string | undefined; endpoints: EndpointFigures[] }>> {
  const dir = join(REPO, 'bench/results');
  const files = (await readdir(dir)).filter((file) => file.endsWith('-full.json') && !file.startsWith(stamp)).sort();
  const runs: Array<{ file: string; commit: string | undefined; endpoints: EndpointFigures[] }> = [];
  for (const file of files.reverse()) {
    const earlier = JSON.parse(await readFile(join(dir, file), 'utf8')) as { endpoints?: EndpointFigures[]; machine?: { git_commit?: string } };
    const endpoints = (earlier.endpoints ?? []).map((e) => ({ level: e.level, name: e.name, uncached: { p50: e.uncached.p50 } }) as EndpointFigures);
    if (endpoints.length > 0) runs.push({ file, commit: earlier.machine?.git_commit, endpoints });
    if (runs.length === count) break;
  }
  return runs;
}

/** Bytes of every file under `dir`. */
function directoryBytes(dir: string): number {
  const du = spawnSync('du', ['-sb', dir], { encoding: 'utf8' });
  return Number(du.stdout.split('\t')[0]);
}

async function summarizeDir(dir: string): Promise<ProfileSummary> {
  const files = (await readdir(dir)).filter((file) => file.endsWith('.cpuprofile'));
  if (files.length === 0) throw new Error(`no .cpuprofile in ${dir}`);
  const profile = join(dir, files[0]!);
  const kept = join(REPO, 'bench/results', `${stamp}-${files[0]!.replace(/^CPU\./, '').replace(/\.\d+\.\d+\.cpuprofile$/, '')}-${dir.split('/').pop()}.cpuprofile`);
  await cp(profile, kept);
  return { ...(await summarizeProfile(profile, 25)), file: kept.slice(REPO.length + 1) };
}

async function storageOf(dbPath: string, tokens: Record<string, string>, names: string[]): Promise<{ bytes: number; events: number; bytes_per_event: number; wal_bytes: number }> {
  const { instance, connection } = await openDb(dbPath, true);
  let events = 0;
  for (const name of names) events += Number((await connection.runAndReadAll(`SELECT count(*) FROM ${quoteIdent(viewName(tokens[name]!))}`)).getRows()[0]![0]);
  connection.closeSync();
  instance.closeSync();
  const bytes = (await stat(dbPath)).size;
  const wal = existsSync(`${dbPath}.wal`) ? (await stat(`${dbPath}.wal`)).size : 0;
  return { bytes, events, bytes_per_event: bytes / events, wal_bytes: wal };
}

export interface Target {
  name: string;
  target: string;
  value: string;
  met: boolean;
}

function targets(r: Record<string, any>): Target[] {
  const out: Target[] = [];
  const add = (name: string, target: string, value: string, met: boolean) => out.push({ name, target, value, met });
  const bi = r.ingest.batch as IngestFigures;
  const si = r.ingest.single as IngestFigures;
  const bulk = r.ingest_ceiling as { events_per_s: number; bytes_per_event: number };
  const versus = r.versus_baseline as Record<string, { ratios: number[]; median: number }> | undefined;
  if (versus) {
    const batched = versus.batch_events_per_s!;
    const rounds = batched.ratios.map((ratio) => `${ratio.toFixed(2)}x`).join(', ');
    add(`batched ingest vs baseline ${r.baseline.commit}, side by side (median of ${batched.ratios.length} rounds)`, '>= 2.5x', `${batched.median.toFixed(2)}x (rounds: ${rounds})`, batched.median >= 2.5);
    // The issue's title: single events 3x more, half the CPU per event.
    const single = versus.single_requests_per_s!;
    add(`single-event requests vs baseline ${r.baseline.commit} (median of rounds)`, '>= 3x', `${single.median.toFixed(2)}x (rounds: ${single.ratios.map((ratio) => `${ratio.toFixed(2)}x`).join(', ')})`, single.median >= 3);
    const cpu = versus.server_cpu_us_per_batched_event!;
    add(`server CPU per batched event vs baseline ${r.baseline.commit} (median of rounds)`, '<= 0.5x', `${cpu.median.toFixed(2)}x (rounds: ${cpu.ratios.map((ratio) => `${ratio.toFixed(2)}x`).join(', ')})`, cpu.median <= 0.5);
  }
  add('batched ingest vs DuckDB bulk load (CTAS read_json)', '>= 50%', pct(bi.events_per_s / bulk.events_per_s), bi.events_per_s / bulk.events_per_s >= 0.5);
  if (bi.visibility) add('batched ingest: 2xx to queryable p99 (every round\'s probes)', '<= 2 s', `${(bi.visibility.p99 / 1000).toFixed(2)} s`, bi.visibility.p99 <= 2000 && bi.visibility.failures === 0);
  const bareSingle = r.http_ceiling.single as IngestFigures;
  add('single-event requests vs bare node:http', '>= 50%', pct(si.requests_per_s / bareSingle.requests_per_s), si.requests_per_s / bareSingle.requests_per_s >= 0.5);
  const trickle = r.ingest.trickle.server_cores as number;
  add(`server CPU at a trickle of ${TRICKLE_PER_S} single events/s`, '<= 0.02 cores', `${trickle.toFixed(4)} cores`, trickle <= 0.02);
  const idle = r.ingest.idle as IngestRun['idle'];
  add('server CPU idle (after start-up)', '<= 0.005 cores', `${idle.fresh_cores.toFixed(4)} cores (after the load: ${idle.after_load_cores.toFixed(4)})`, idle.fresh_cores <= 0.005);
  const s = r.storage_http_ingest as { ratio: number; data_dir_bytes_per_event: number };
  add('storage after HTTP ingest (data dir) vs bulk load', '<= 1.2x', `${(s.data_dir_bytes_per_event / bulk.bytes_per_event).toFixed(2)}x`, s.data_dir_bytes_per_event <= 1.2 * bulk.bytes_per_event);
  add('storage vs raw NDJSON (HTTP-ingested)', '>= 5x smaller', `${s.ratio.toFixed(1)}x`, s.ratio >= 5);
  const ingestRss = r.rss.during_ingest_bytes as number;
  add('peak RSS during ingest, defaults', '<= 512 MB', `${(ingestRss / 2 ** 20).toFixed(0)} MB`, ingestRss <= 512 * 2 ** 20);
  const idleRssBytes = r.rss.idle_fresh_bytes as number;
  add('idle RSS, fresh start', '< 150 MB', `${(idleRssBytes / 2 ** 20).toFixed(0)} MB`, idleRssBytes < 150 * 2 ** 20);
  const overload = r.overload as { after_bytes: number[]; bound_bytes: number; peak_bytes: number; seconds_to_bound: number | null } | undefined;
  if (overload) {
    const last = overload.after_bytes.at(-1)!;
    add(`RSS a minute after ${OVERLOAD.connections} senders of 1 MB bodies (SAWMILL_MEMORY_LIMIT=${OVERLOAD.memoryLimitMb}MB)`, '<= idle + limit', `${(last / 2 ** 20).toFixed(0)} MB of ${(overload.bound_bytes / 2 ** 20).toFixed(0)} MB (peak ${(overload.peak_bytes / 2 ** 20).toFixed(0)} MB)`, last <= overload.bound_bytes);
  }
  // Issue 19's absolute targets, kept for the record.
  add('batched ingest events/s', '>= 100,000', fmt(bi.events_per_s), bi.events_per_s >= 100_000);
  add('batched ingest ack p99', '<= 100 ms', `${bi.p99_ms.toFixed(1)} ms`, bi.p99_ms <= 100);
  add('single-event requests/s', '>= 10,000', fmt(si.requests_per_s), si.requests_per_s >= 10_000);
  if (!r.endpoints) return out;
  const engine = (r.engine_ceiling_and_storage as Array<{ level: number; load_events_per_s: number; storage: { ratio: number } }>)[0]!;
  for (const e of r.endpoints as EndpointFigures[]) {
    const limit = e.level >= 10_000_000 ? 300 : 50;
    add(`${e.name} uncached p50 @${short(e.level)}`, `< ${limit} ms`, `${e.uncached.p50.toFixed(1)} ms`, e.uncached.p50 < limit);
    add(`${e.name} overhead over direct DuckDB @${short(e.level)}`, '< 10%', pct(e.overhead), e.overhead < 0.1);
    add(`${e.name} cached p99 @${short(e.level)}`, '< 5 ms', `${e.cached.p99.toFixed(2)} ms`, e.cached.p99 < 5);
    // The spread of the last full runs: a change off the query path must keep the figure inside it.
    const earlier = ((r.earlier_endpoints ?? []) as Array<{ endpoints: EndpointFigures[] }>).flatMap((run) => run.endpoints.filter((x) => x.level === e.level && x.name === e.name).map((x) => x.uncached.p50));
    if (earlier.length > 1) {
      const [low, high] = [Math.min(...earlier), Math.max(...earlier)];
      add(`${e.name} uncached p50 @${short(e.level)} within the last ${earlier.length} full runs' spread`, `<= ${high.toFixed(1)} ms`, `${e.uncached.p50.toFixed(1)} ms (they: ${low.toFixed(1)}-${high.toFixed(1)} ms)`, e.uncached.p50 <= high);
    }
  }
  add(`storage vs raw NDJSON (bulk @${short(engine.level)})`, '>= 5x smaller', `${engine.storage.ratio.toFixed(1)}x`, engine.storage.ratio >= 5);
  for (const [level, bytes] of Object.entries(r.rss.idle_loaded_bytes as Record<string, number>)) {
    add(`idle RSS, restarted @${short(Number(level))}`, '< 150 MB', `${(bytes / 2 ** 20).toFixed(0)} MB`, bytes < 150 * 2 ** 20);
  }
  return out;
}

/** The ClickHouse path (issue 8) on chdb, beside the DuckDB figures: its own process and JSON file. */
async function clickhouse(): Promise<void> {
  if (flag('no-clickhouse') || INGEST_ONLY) return;
  const script = new URL('./clickhouse.ts', import.meta.url).pathname;
  const events = QUICK ? 50_000 : 200_000;
  console.log(`\n== ClickHouse path (chdb, ${events} events): bench/clickhouse.ts`);
  const run = spawnSync(process.execPath, ['--import', 'tsx', script, `--events=${events}`], { stdio: 'inherit' });
  if (run.status !== 0) throw new Error(`bench/clickhouse.ts exited with ${run.status}`);
}

/** One log_attributes key against the typed field it names (issue 21), on both warehouses: its own process and JSON file. */
async function logAttributes(): Promise<void> {
  if (flag('no-log-attributes') || INGEST_ONLY) return;
  const script = new URL('./log-attributes.ts', import.meta.url).pathname;
  const events = QUICK ? 200_000 : 1_000_000;
  console.log(`\n== log_attributes key vs typed field (${events} events): bench/log-attributes.ts`);
  const run = spawnSync(process.execPath, ['--import', 'tsx', script, `--events=${events}`], { stdio: 'inherit' });
  if (run.status !== 0) throw new Error(`bench/log-attributes.ts exited with ${run.status}`);
}

// Exit explicitly: DuckDB's native threads or a lingering keep-alive socket must not hold the run open.
main().then(clickhouse).then(logAttributes).then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
