/** The stdout table and docs/benchmarks.md, both rendered from a results JSON. */

export const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
export const pct = (x: number) => `${(x * 100).toFixed(0)}%`;
export const short = (n: number) => (n >= 1_000_000 ? `${n / 1_000_000}M` : `${n / 1000}k`);
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;
const ms = (x: number) => (x < 10 ? x.toFixed(2) : x.toFixed(1));

// The JSON is our own output; read it loosely.
type R = Record<string, any>;

function rows(r: R): { ingest: string[][]; versus: string[][]; endpoints: string[][]; storage: string[][]; memory: string[][]; targets: string[][] } {
  const ingest: string[][] = [['run', 'events/s', 'requests/s', 'ack p50', 'ack p99', 'visible p50 / p99', 'non-2xx', 'ceiling', 'ratio', 'server CPU', 'µs CPU/event', 'wrk CPU', 'other procs CPU']];
  const bulk = r.ingest_ceiling;
  const levels: R[] = r.engine_ceiling_and_storage ?? [];
  const loadRow = (label: string, s: R, ceiling: 'batch' | 'single') => {
    const batch = ceiling === 'batch';
    const bare = r.http_ceiling[ceiling];
    const ceilingLabel = batch ? `bulk load ${fmt(bulk.events_per_s)} ev/s; bare HTTP ${fmt(bare.events_per_s)} ev/s` : `bare HTTP ${fmt(bare.requests_per_s)} req/s`;
    const ratio = batch ? `${pct(s.events_per_s / bulk.events_per_s)} of bulk load; ${pct(s.events_per_s / bare.events_per_s)} of HTTP` : pct(s.requests_per_s / bare.requests_per_s);
    const visible = s.visibility ? `${(s.visibility.p50 / 1000).toFixed(2)} s / ${(s.visibility.p99 / 1000).toFixed(2)} s (${s.visibility.n} probes${s.visibility.failures ? `, ${s.visibility.failures} unseen` : ''})` : '';
    ingest.push([
      label,
      fmt(s.events_per_s),
      fmt(s.requests_per_s),
      `${ms(s.p50_ms)} ms`,
      `${ms(s.p99_ms)} ms`,
      visible,
      String(s.errors.status + s.errors.timeout),
      ceilingLabel,
      ratio,
      `${(s.server_cpu_s / s.seconds).toFixed(2)} cores`,
      s.events > 0 ? ((s.server_cpu_s / s.events) * 1e6).toFixed(1) : '',
      `${(s.generator_cpu_s / s.seconds).toFixed(2)} cores`,
      `${(s.other_cpu_cores ?? 0).toFixed(2)} cores`,
    ]);
  };
  const runs: R[] = r.ingest.runs ?? [];
  const runName = (run: R) => `${run.label}${r.config.rounds > 1 ? ` (round ${run.round + 1})` : ''}`;
  for (const run of runs) loadRow(`${runName(run)}, batches of 100, c${r.config.concurrency}`, run.batch, 'batch');
  if (r.ingest.batch_with) loadRow(`Sawmill, batches of 100, ${r.ingest.batch_with.setting}, c${r.config.concurrency}`, r.ingest.batch_with, 'batch');
  for (const run of runs) loadRow(`${runName(run)}, single events, c${r.config.concurrency}`, run.single, 'single');
  for (const run of runs) {
    const t = run.trickle;
    ingest.push([`${runName(run)}, a trickle of single events (idle before / after: ${run.idle.fresh_cores.toFixed(4)} / ${run.idle.after_load_cores.toFixed(4)} cores)`, fmt(t.events_per_s), fmt(t.events_per_s), '', '', '', String(t.non_2xx), '', '', `${t.server_cores.toFixed(4)} cores`, ((t.server_cores / t.events_per_s) * 1e6).toFixed(0), '', '']);
  }
  for (const [label, key] of [
    ['bare node:http, batches of 100', 'batch'],
    ['bare node:http, single events', 'single'],
  ] as const) {
    const s = r.http_ceiling[key];
    ingest.push([label, fmt(s.events_per_s), fmt(s.requests_per_s), `${ms(s.p50_ms)} ms`, `${ms(s.p99_ms)} ms`, '', String(s.errors.status + s.errors.timeout), '(ceiling)', '', `${(s.server_cpu_s / s.seconds).toFixed(2)} cores`, ((s.server_cpu_s / s.events) * 1e6).toFixed(1), `${(s.generator_cpu_s / s.seconds).toFixed(2)} cores`, `${(s.other_cpu_cores ?? 0).toFixed(2)} cores`]);
  }
  ingest.push([`DuckDB CREATE TABLE AS read_json of the batched run's events (${fmt(bulk.events)})`, fmt(bulk.events_per_s), '', '', '', '', '', `(ceiling; ${bulk.seconds.toFixed(1)} s incl. CHECKPOINT)`, '', '', '', '', '']);
  for (const level of levels) {
    ingest.push([`DuckDB INSERT from read_json into Sawmill's tables, ${short(level.level)}/source`, fmt(level.load_events_per_s), '', '', '', '', '', `(${level.load_seconds.toFixed(1)} s incl. CHECKPOINT)`, '', '', '', '', '']);
  }

  const versus: string[][] = [['figure', 'this code, per round', `baseline ${r.baseline?.commit ?? ''}, per round`, 'ratio per round', 'median ratio']];
  const names: Record<string, string> = {
    batch_events_per_s: 'batched ingest, events/s',
    single_requests_per_s: 'single-event requests/s',
    server_cpu_us_per_batched_event: 'server CPU per batched event, µs',
    server_cpu_us_per_single_event: 'server CPU per single-event request, µs',
    trickle_cores: `server CPU at ${r.config.trickle_per_s} single events/s, cores`,
    idle_cores: 'server CPU idle after start-up, cores',
  };
  const figure = (x: number) => (x >= 100 ? fmt(x) : x >= 1 ? x.toFixed(1) : x.toFixed(4));
  for (const [key, v] of Object.entries((r.versus_baseline ?? {}) as Record<string, R>)) {
    versus.push([names[key] ?? key, v.current.map(figure).join(', '), v.baseline.map(figure).join(', '), v.ratios.map((x: number) => `${x.toFixed(2)}x`).join(', '), `${v.median.toFixed(2)}x`]);
  }

  const endpoints: string[][] = [['endpoint', 'stored', 'rows', 'uncached p50', 'uncached p99', 'direct DuckDB p50', 'overhead', 'direct, prepared once, p50', 'overhead over it', 'cached p50', 'cached p99', 'cached p99 in server']];
  for (const e of r.endpoints ?? []) {
    endpoints.push([`${e.name} (${e.kind})`, `${short(e.level)}/source`, String(e.rows), `${ms(e.uncached.p50)} ms`, `${ms(e.uncached.p99)} ms`, `${ms(e.direct.p50)} ms`, pct(e.overhead), e.direct_prepared ? `${ms(e.direct_prepared.p50)} ms` : '', e.overhead_vs_prepared === undefined ? '' : pct(e.overhead_vs_prepared), `${ms(e.cached.p50)} ms`, `${ms(e.cached.p99)} ms`, e.cached_in_server ? `${ms(e.cached_in_server.p99)} ms` : '']);
  }

  const storage: string[][] = [['data', 'events', 'file', 'B/event', 'raw NDJSON B/event', 'smaller by']];
  const stored = runs.length > 0 ? runs.map((run) => [runName(run), run.storage] as const) : [['Sawmill', r.storage_http_ingest] as const];
  for (const [label, hi] of stored) {
    storage.push([`${label}: the whole data dir after the HTTP ingest runs and stop`, fmt(hi.events), mb(hi.data_dir_bytes), hi.data_dir_bytes_per_event.toFixed(1), hi.raw_bytes_per_event.toFixed(0), `${hi.ratio.toFixed(1)}x`]);
    storage.push(['  of which the DuckDB file', fmt(hi.events), mb(hi.bytes), hi.bytes_per_event.toFixed(1), '', '']);
  }
  storage.push([`DuckDB CREATE TABLE AS read_json (ceiling)`, fmt(bulk.events), '', bulk.bytes_per_event.toFixed(1), bulk.raw_bytes_per_event.toFixed(0), `${(bulk.raw_bytes_per_event / bulk.bytes_per_event).toFixed(1)}x`]);
  for (const level of levels) {
    const s = level.storage;
    storage.push([`bulk-loaded, ${short(level.level)}/source`, fmt(s.events), mb(s.bytes), s.bytes_per_event.toFixed(1), s.raw_bytes_per_event.toFixed(0), `${s.ratio.toFixed(1)}x`]);
  }

  const memory: string[][] = [['state', 'RSS']];
  memory.push(['idle (10 s without requests), fresh start (empty)', mb(r.rss.idle_fresh_bytes)]);
  memory.push(['peak during the ingest runs', mb(r.rss.during_ingest_bytes)]);
  if (r.rss.during_ingest_bounded) memory.push([`peak during the batched run with ${r.rss.during_ingest_bounded.setting}`, mb(r.rss.during_ingest_bounded.bytes)]);
  for (const [level, bytes] of Object.entries((r.rss.idle_loaded_bytes ?? {}) as Record<string, number>)) memory.push([`idle (10 s without requests), restarted with ${short(Number(level))}/source`, mb(bytes)]);
  for (const [level, bytes] of Object.entries((r.rss.during_queries_bytes ?? {}) as Record<string, number>)) memory.push([`peak during the endpoint queries, ${short(Number(level))}/source`, mb(bytes)]);

  const o = r.overload;
  if (o) {
    memory.push([`peak with ${o.connections} senders of ${(o.body_bytes / 2 ** 20).toFixed(1)} MB bodies, SAWMILL_MEMORY_LIMIT=${o.memory_limit_mb}MB (idle ${mb(o.idle_bytes)})`, mb(o.peak_bytes)]);
    memory.push([`  ${o.after_bytes.length} s after that load (bound: idle + limit = ${mb(o.bound_bytes)}${o.seconds_to_bound !== null ? `, under it from ${o.seconds_to_bound} s on` : ', not reached'})`, mb(o.after_bytes.at(-1))]);
  }
  const other = r.other_cpu_cores_during_queries ?? {};
  for (const [key, cores] of Object.entries(other as Record<string, number>)) memory.push([`(other processes' CPU during ${key.replaceAll('_', ' ')})`, `${cores.toFixed(2)} cores`]);

  const targets: string[][] = [['target', 'wanted', 'measured', '']];
  for (const t of r.targets) targets.push([t.name, t.target, t.value, t.met ? 'met' : 'MISSED']);
  return { ingest, versus, endpoints, storage, memory, targets };
}

function plain(table: string[][]): string {
  const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => (row[i] ?? '').length)));
  return table.map((row) => row.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n');
}

function markdown(table: string[][]): string {
  const [head, ...body] = table;
  return [`| ${head!.join(' | ')} |`, `|${head!.map(() => '---').join('|')}|`, ...body.map((row) => `| ${row.join(' | ')} |`)].join('\n');
}

export function renderTable(r: R): string {
  const t = rows(r);
  const met = r.targets.filter((x: R) => x.met).length;
  return [
    `Sawmill benchmarks (${r.mode}${r.profiled ? ', PROFILED: figures include profiler overhead' : ''}), ${r.machine.cores} cores, ${r.machine.node}, ${r.machine.duckdb}; load average ${r.load_average_at_start} at start, ${r.load_average_at_end} at end`,
    '',
    'INGEST (wrk in a separate process on the same cores)',
    plain(t.ingest),
    '',
    ...(r.versus_baseline ? [`THIS CODE AGAINST BASELINE ${r.baseline.commit}, SIDE BY SIDE`, plain(t.versus), ''] : []),
    ...(r.endpoints ? ['ENDPOINTS (sequential requests, keep-alive)', plain(t.endpoints), ''] : []),
    'STORAGE',
    plain(t.storage),
    '',
    'MEMORY (server RSS)',
    plain(t.memory),
    '',
    `TARGETS: ${met} of ${r.targets.length} met`,
    plain(t.targets),
  ].join('\n');
}

export function renderMarkdown(r: R, jsonPath: string): string {
  const t = rows(r);
  const m = r.machine;
  const met = r.targets.filter((x: R) => x.met).length;
  return `# Benchmarks

<!-- Generated by \`npm run bench\` (bench/run.ts); do not edit by hand. -->

Latest ${r.mode} run: ${r.started_at} (${r.duration_s} s). Raw figures: \`${jsonPath}\`.
Load average ${r.load_average_at_start} at the start and ${r.load_average_at_end} at the end of the run; the
"other procs CPU" figures show how much of the 2 cores other processes took during each measurement.

**Machine:** ${m.cores} cores (${m.cpu_model}), ${m.memory_gib} GiB RAM, ${m.os}, Linux ${m.kernel};
Node ${m.node}, ${m.duckdb} (@duckdb/node-api ${m.duckdb_node_api}), fastify ${m.fastify}, ${m.wrk}.
Code: commit ${m.git_commit ?? '?'}${m.git_uncommitted_files ? ` plus ${m.git_uncommitted_files} uncommitted files` : ''}.

## How it is measured

* The real server (\`node bin/service.cjs\`, as \`npm start\` and the image run it) runs as a child process on 127.0.0.1 with a temp
  data dir and default settings (DuckDB memory limit ${r.config.memory_limit}).
* **Ingest:** Debian \`wrk\` (one thread, ${r.config.concurrency} keep-alive connections, Lua body script
  \`bench/wrk.lua\`) in its own process, ${r.config.ingest_seconds} s per run after ${r.config.warmup_seconds} s of warm-up.
  ${r.generator.mix}; ${r.generator.batch_requests} distinct batches of ${r.config.batch_size} events
  (${fmt(r.generator.avg_batch_body_bytes)} B bodies) and ${fmt(r.generator.single_requests)} distinct single events, sent in rotation.
  Events average ${r.generator.avg_event_bytes_batch} B (300–1,500 B each), generated from the Supabase samples by
  \`bench/generator.ts\` (seeded: 50 projects with zipf-like traffic, the busiest ${pct(r.generator.top_project_share)}).
  An acknowledgement is Sawmill's 200, sent once the request's events are fsynced to its journal (they are
  folded into DuckDB behind it and become queryable within \`SAWMILL_VISIBILITY_MS\`; see docs/reliability.md).
  **Visibility:** during the batched run, \`bench/visibility-probe.ts\` sends one probe event at a time (stamped 30
  minutes ahead, so the endpoint that looks for it skips every row group without one) and polls an uncached endpoint
  every 50 ms until it returns the probe; the figure is the time from the probe's 2xx to that answer.
  **The machine has ${m.cores} cores and the server, DuckDB's threads and wrk share them** (not pinned); the CPU
  columns say how much each process used.
  The trickle row is the same server afterwards, once it has settled (under 0.02 cores for 5 s running: the folds and the
  checkpoint after the load take a few seconds, which counted as the trickle's before), taking ${r.config.trickle_per_s} single events a second, one at a time, from the
  suite's process for ${r.config.trickle_seconds} s: what a quiet deployment costs in CPU. Idle CPU is the server's CPU over
  ${r.config.idle_seconds} s with nothing sent, once after start-up (after the idle RSS) and once 5 s after the trickle.
  ${r.baseline ? `**Baseline:** the same runs against commit ${r.baseline.commit} (\`--baseline=${r.baseline.rev}\`), checked out in a temporary
  git worktree and built the same way (bench/baseline.ts); ` : ''}each variant runs on a fresh server ${r.config.rounds} time(s), the order
  alternating, and the tables give every run; the summary figures (targets) are the median run's, visibility pools every round's probes.
* **Overload:** a fresh server with \`SAWMILL_MEMORY_LIMIT=${r.overload?.memory_limit_mb ?? 512}MB\` takes ${r.overload?.connections ?? 64} wrk connections of bodies of about
  1 MB (900 events) for ${r.config.ceiling_seconds} s; its RSS is then sampled every second for a minute with nothing sent.
* **HTTP ceiling:** \`bench/bare-server.ts\`, a bare node:http server that reads and \`JSON.parse\`s the same
  requests and answers 200, measured the same way.
* **Ingest ceiling (bulk load):** \`bench/ingest-ceiling.ts\`: the events of the batched run's requests as one
  NDJSON file (repeated to ${fmt(r.ingest_ceiling?.events ?? 0)} events), loaded by DuckDB with \`CREATE TABLE … AS SELECT * FROM
  read_json(…)\` into a file database (schema detected by DuckDB, 2 threads), CHECKPOINT included. Storage after HTTP
  ingest is the whole data dir after a clean stop (DuckDB file, catalog, what is left of the journal) over the events stored.
* **Memory bounds:** a second batched run (${r.config.ingest_seconds} s, as long as the others) on a fresh server with lower bounds
  (${r.rss?.during_ingest_bounded?.setting ?? ''}) gives the peak RSS those settings hold. A third one runs with
  \`SAWMILL_DUCKDB_THREADS=1\`: a fold gains no speed from a second DuckDB thread and spends CPU the HTTP side needs
  (the endpoint figures are with the default, one thread per core).
* **Engine, into Sawmill's tables:** DuckDB bulk-loading the same kind of events, staged as NDJSON exactly as Sawmill stages a
  commit (same normalisation and column shaping), with the same \`INSERT … FROM read_json\` into the same segment
  tables, one statement per 250k events, including the final CHECKPOINT. This is also how the stored events for
  the endpoint runs are loaded (server stopped): ${fmt(r.config.base_events_per_source)} distinct events per
  source, repeated as time-shifted copies (ids made unique) to reach each level, spread over 14 days in time order.
  The endpoints are saved before the load, so it also fills the typed copies of the nested fields they read, as
  the server's commits do (README, "Query them").
* **Endpoints:** at each level the two queried sources (\`cloudflare.logs.prod\`, \`deno-relay-logs\`) each hold that
  many events. Requests are sequential over keep-alive, sent and timed by a small client process of their own
  (\`bench/http-timer.ts\`; timed inside the suite's process, which holds the generated events and a DuckDB,
  they carried its pauses: logs.all cached p99 6-9 ms there, 2.6 ms from the client process); uncached = an endpoint with cache off
  (${r.config.uncached_runs} runs after ${r.config.uncached_warmup_rounds ?? 2} warm-up rounds, half of each at 10M; a freshly started server answers
  its first few dozen queries slower, while its malloc arenas grow), cached = the same query with the cache on
  (${r.config.cached_runs} runs after one fill). Parameters: the busiest project; logs.all with tier ENTERPRISE,
  invocation-stats with interval 7day, api-counts with interval daily; the user endpoint ranks paths over 7 days.
  **Direct DuckDB** runs the translated SQL of the same endpoint on the same file with @duckdb/node-api
  (read-only, same memory limit and query settings; the SQL the server runs, promoted-column rewrite included),
  so the overhead column is translation + HTTP + result conversion. The server's readers keep each statement they
  prepare and only bind and run it again (DuckDB prepares the built-ins in 1.2-1.7 ms), which a direct run that
  prepares its SQL every time does not: "direct, prepared once" runs the same SQL that way too, and the overhead
  over it is what the server adds to DuckDB's own work. The HTTP request and the two direct runs take turns, each
  on its own DuckDB instance, the order rotating per round: every engine sits idle through the other two's runs
  before its own, as an engine that has just run answers faster. "Cached p99 in server" is the same cached
  requests as the server itself timed them (Fastify's responseTime in its log): the rest of the cached time is
  the client, the loopback and the scheduling of both processes on 2 cores.
* Storage of bulk loads is the DuckDB file size after CHECKPOINT over the events stored; raw is the compact NDJSON the senders sent.

## Results

### Ingest
${markdown(t.ingest)}
${r.versus_baseline ? `
### This code against the baseline (${r.baseline.rev} = ${r.baseline.commit}), side by side
Each round started a fresh server of each variant, the order alternating; the spread of the per-round figures is the
noise of this shared machine during the run.

${markdown(t.versus)}
` : ''}
### Endpoints
${markdown(t.endpoints)}

### Storage
${markdown(t.storage)}

### Memory (server RSS)
${markdown(t.memory)}

## Targets: ${met} of ${r.targets.length} met
${markdown(t.targets)}

Findings on the missed targets (per-thread profiles) are in docs/reliability.md ("Where ingest time goes") and the
issue reports; re-run with \`npm run bench -- --quick --profile\` (V8 profile of the main thread) or \`--perf\` (every thread,
DuckDB's included) to get them.

## Run it

\`\`\`sh
npm run bench              # full: 1M and 10M events per source, 15-25 minutes
npm run bench -- --quick   # under 3 minutes, 1M events per source
npm run bench -- --quick --profile   # the server runs with --cpu-prof; summaries in the JSON
npm run bench -- --baseline=<commit> # the ingest runs also against that commit, side by side (3 rounds; --rounds=N)
npm run bench -- --ingest-only       # section 1 only: ingest, its ceilings, storage and memory
\`\`\`

The suite needs Debian's \`wrk\`; it installs it with \`apt-get install -y wrk\` when missing (and says so).
It is never run in CI.
`;
}
