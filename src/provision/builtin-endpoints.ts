import type { EndpointInput } from '../catalog/types.ts';

/**
 * The endpoints a Supabase stack calls, written in BigQuery's dialect and run through the same
 * translator as every user endpoint. `logs.all`, `functions.invocation-stats` and
 * `usage.api-counts` are the three Logflare provisions, with its caching and limits;
 * `functions.combined-stats` and `service-health` are the two more that Studio asks for (the Edge
 * Functions and Observability pages), which Logflare does not provision: their result columns are
 * the ones Studio reads (apps/studio/data/analytics in the supabase repository).
 */

/** The retention window of a project tier, counted back from now. */
const RETENTION_CUTOFF = `case
      when @project_tier = 'PRO' then timestamp_sub(current_timestamp(), interval 7 day)
      when @project_tier in ('PAYG', 'ENTERPRISE') then timestamp_sub(current_timestamp(), interval 90 day)
      else timestamp_sub(current_timestamp(), interval 1 day)
    end`;

const TIME_FILTERS = `t.timestamp > ${RETENTION_CUTOFF}
    and (nullif(@iso_timestamp_start, '') is null or t.timestamp > cast(nullif(@iso_timestamp_start, '') as timestamp))
    and (nullif(@iso_timestamp_end, '') is null or t.timestamp <= cast(nullif(@iso_timestamp_end, '') as timestamp))`;

/** A view of one log kind, restricted to the project and the time window. */
function logView(name: string, source: string, projectFilter: string): string {
  return `${name} as (
  select t.id, t.timestamp, t.event_message, t.metadata
  from \`${source}\` as t
  cross join unnest(t.metadata) as m
  where ${projectFilter}
    and ${TIME_FILTERS}
)`;
}

const LOGS_ALL = `with
${[
  logView('edge_logs', 'cloudflare.logs.prod', 't.project = @project'),
  logView('postgres_logs', 'postgres.logs', 't.project = @project'),
  logView('function_edge_logs', 'deno-relay-logs', 'm.project_ref = @project'),
  logView('function_logs', 'deno-subhosting-events', 'm.project_ref = @project'),
  logView('auth_logs', 'gotrue.logs.prod', 't.project = @project'),
  logView('realtime_logs', 'realtime.logs.prod', 'm.project = @project'),
  logView('storage_logs', 'storage.logs.prod.2', 'm.project = @project'),
  logView('postgrest_logs', 'postgREST.logs.prod', 't.project = @project'),
  logView('pgbouncer_logs', 'pgbouncer.logs.prod', 't.project = @project'),
].join(',\n')}
select id, timestamp, event_message, metadata
from edge_logs
order by timestamp desc
limit 100`;

const INVOCATION_STATS = `with invocations as (
  select
    t.id,
    m.execution_time_ms,
    r.status_code,
    case
      when @interval = '5min' then timestamp_trunc(t.timestamp, second)
      when @interval in ('15min', '1hr') then timestamp_trunc(t.timestamp, minute)
      when @interval = '7day' then timestamp_trunc(t.timestamp, day)
      else timestamp_trunc(t.timestamp, hour)
    end as bucket
  from \`deno-relay-logs\` as t
  cross join unnest(t.metadata) as m
  cross join unnest(m.response) as r
  where m.project_ref = @project
    and (nullif(@function_id, '') is null or m.function_id = @function_id)
    and t.timestamp <= current_timestamp()
    and t.timestamp >= case
      when @interval = '5min' then timestamp_sub(timestamp_trunc(current_timestamp(), second), interval 5 minute)
      when @interval = '15min' then timestamp_sub(timestamp_trunc(current_timestamp(), minute), interval 15 minute)
      when @interval = '1hr' then timestamp_sub(timestamp_trunc(current_timestamp(), minute), interval 1 hour)
      when @interval = '7day' then timestamp_sub(timestamp_trunc(current_timestamp(), day), interval 7 day)
      else timestamp_sub(timestamp_trunc(current_timestamp(), hour), interval 1 day)
    end
)
select
  bucket as timestamp,
  min(execution_time_ms) as min_execution_time,
  max(execution_time_ms) as max_execution_time,
  avg(execution_time_ms) as avg_execution_time,
  approx_quantiles(execution_time_ms, 100)[offset(95)] as p95_execution_time,
  approx_quantiles(execution_time_ms, 100)[offset(99)] as p99_execution_time,
  count(id) as count,
  countif(status_code >= 400) as error_count
from invocations
group by bucket
order by timestamp asc`;

const API_COUNTS = `select
  datetime(case
    when @interval = 'minutely' then timestamp_trunc(t.timestamp, minute)
    when @interval = 'hourly' then timestamp_trunc(t.timestamp, hour)
    else timestamp_trunc(t.timestamp, day)
  end, 'UTC') as timestamp,
  countif(req.path like '%/rest%') as total_rest_requests,
  countif(req.path like '%/storage%') as total_storage_requests,
  countif(req.path like '%/auth%') as total_auth_requests,
  countif(req.path like '%/realtime%') as total_realtime_requests
from \`cloudflare.logs.prod\` as t
cross join unnest(t.metadata) as m
cross join unnest(m.request) as req
where regexp_contains(req.url, @project)
  and (
    (@interval = 'hourly' and t.timestamp > timestamp_sub(current_timestamp(), interval 1 hour))
    or (@interval = 'daily' and t.timestamp > timestamp_sub(current_timestamp(), interval 7 day))
    or (@interval = 'minutely' and t.timestamp > timestamp_sub(current_timestamp(), interval 60 minute))
  )
group by timestamp
order by timestamp asc`;

/**
 * Edge Functions page: per-bucket invocations by status class and execution time (from the
 * function edge logs), worker log counts by level, and the CPU time and memory of the function's
 * workers (from the function logs) of one function. The edge runtime reports a worker's CPU time
 * (ms) when it ends, in its Shutdown or UncaughtException event, and its memory (bytes: total,
 * V8 heap, external) in the Shutdown event; averages are over the events that carry them, memory
 * in megabytes (MiB) as Studio shows it, and 0 in a bucket without any.
 * Studio's intervals are 15min, 1hr, 3hr and 1day: the window starts that long before the start
 * of the current minute, hour, hour or day, as Studio's chart does; unknown intervals behave as 1day.
 * Timestamps are DATETIME strings in UTC, which Studio's chart parses at any number of points.
 */
const combinedBucket = (column: string) => `case
      when @interval in ('15min', '1hr') then timestamp_trunc(${column}, minute)
      when @interval = '7day' then timestamp_trunc(${column}, day)
      else timestamp_trunc(${column}, hour)
    end`;

const COMBINED_WINDOW_START = `case
      when @interval = '15min' then timestamp_sub(timestamp_trunc(current_timestamp(), minute), interval 15 minute)
      when @interval = '1hr' then timestamp_sub(timestamp_trunc(current_timestamp(), hour), interval 1 hour)
      when @interval = '3hr' then timestamp_sub(timestamp_trunc(current_timestamp(), hour), interval 3 hour)
      when @interval = '7day' then timestamp_sub(timestamp_trunc(current_timestamp(), day), interval 7 day)
      else timestamp_sub(timestamp_trunc(current_timestamp(), day), interval 1 day)
    end`;

const BYTES_PER_MB = 1024 * 1024;

const FUNCTION_FILTER = `m.project_ref = @project
    and (nullif(@function_id, '') is null or m.function_id = @function_id)
    and t.timestamp >= ${COMBINED_WINDOW_START}
    and t.timestamp <= current_timestamp()`;

const COMBINED_STATS = `with invocations as (
  select
    ${combinedBucket('t.timestamp')} as bucket,
    r.status_code,
    m.execution_time_ms
  from \`deno-relay-logs\` as t
  cross join unnest(t.metadata) as m
  left join unnest(m.response) as r
  where ${FUNCTION_FILTER}
),
worker_logs as (
  select
    ${combinedBucket('t.timestamp')} as bucket,
    m.level
  from \`deno-subhosting-events\` as t
  cross join unnest(t.metadata) as m
  where ${FUNCTION_FILTER}
),
worker_resources as (
  select
    ${combinedBucket('t.timestamp')} as bucket,
    m.cpu_time_used,
    mem.total as memory_bytes,
    mem.heap as heap_bytes,
    mem.external as external_bytes
  from \`deno-subhosting-events\` as t
  cross join unnest(t.metadata) as m
  left join unnest(m.memory_used) as mem
  where ${FUNCTION_FILTER}
    and (m.cpu_time_used is not null or mem.total is not null)
),
invocation_stats as (
  select
    bucket,
    count(*) as requests_count,
    countif(status_code < 300) as success_count,
    countif(status_code >= 300 and status_code < 400) as redirect_count,
    countif(status_code >= 400 and status_code < 500) as client_err_count,
    countif(status_code >= 500) as server_err_count,
    avg(execution_time_ms) as avg_execution_time,
    max(execution_time_ms) as max_execution_time
  from invocations
  group by bucket
),
log_stats as (
  select
    bucket,
    count(*) as log_count,
    countif(level in ('info', 'log', 'debug')) as log_info_count,
    countif(level in ('warn', 'warning')) as log_warn_count,
    countif(level in ('error', 'fatal')) as log_error_count
  from worker_logs
  group by bucket
),
resource_stats as (
  select
    bucket,
    avg(cpu_time_used) as avg_cpu_time_used,
    max(cpu_time_used) as max_cpu_time_used,
    avg(memory_bytes) / ${BYTES_PER_MB} as avg_memory_used,
    avg(heap_bytes) / ${BYTES_PER_MB} as avg_heap_memory_used,
    avg(external_bytes) / ${BYTES_PER_MB} as avg_external_memory_used
  from worker_resources
  group by bucket
)
select
  datetime(coalesce(i.bucket, l.bucket, u.bucket), 'UTC') as timestamp,
  coalesce(i.requests_count, 0) as requests_count,
  coalesce(i.success_count, 0) as success_count,
  coalesce(i.redirect_count, 0) as redirect_count,
  coalesce(i.client_err_count, 0) as client_err_count,
  coalesce(i.server_err_count, 0) as server_err_count,
  coalesce(i.avg_execution_time, 0) as avg_execution_time,
  coalesce(i.max_execution_time, 0) as max_execution_time,
  coalesce(l.log_count, 0) as log_count,
  coalesce(l.log_info_count, 0) as log_info_count,
  coalesce(l.log_warn_count, 0) as log_warn_count,
  coalesce(l.log_error_count, 0) as log_error_count,
  coalesce(u.avg_cpu_time_used, 0) as avg_cpu_time_used,
  coalesce(u.max_cpu_time_used, 0) as max_cpu_time_used,
  coalesce(u.avg_memory_used, 0) as avg_memory_used,
  coalesce(u.avg_heap_memory_used, 0) as avg_heap_memory_used,
  coalesce(u.avg_external_memory_used, 0) as avg_external_memory_used
from invocation_stats as i
full outer join log_stats as l on i.bucket = l.bucket
full outer join resource_stats as u on u.bucket = coalesce(i.bucket, l.bucket)
order by timestamp asc`;

/**
 * Observability page: per-bucket ok, warning and error counts of each service Studio lists. The
 * error and warning rules are Studio's own for its logs explorer (HTTP 5xx and 4xx at the gateway
 * and in function edge logs, Postgres severities, auth level or status, function log levels);
 * realtime and storage go by their log level; PostgREST has no level, so its events count as ok.
 * Services the stack has no logs for (Supavisor, ETL) answer zeros.
 */
interface HealthSource {
  service: string;
  source: string;
  /** The project filter, over `t` (the event) and `m` (its metadata). */
  project: string;
  /** Further joins the status needs. */
  joins?: string;
  /** An expression giving 'error', 'warning' or 'ok'. */
  status: string;
}

const httpStatus = (column: string) => `case when ${column} >= 500 then 'error' when ${column} >= 400 then 'warning' else 'ok' end`;
const levelStatus = (errors: string, warnings: string) => `case when m.level in (${errors}) then 'error' when m.level in (${warnings}) then 'warning' else 'ok' end`;

const HEALTH_SOURCES: HealthSource[] = [
  { service: 'edge_logs', source: 'cloudflare.logs.prod', project: 't.project = @project', joins: 'left join unnest(m.response) as r', status: httpStatus('r.status_code') },
  {
    service: 'postgres_logs',
    source: 'postgres.logs',
    project: 't.project = @project',
    joins: 'left join unnest(m.parsed) as p',
    status: `case when p.error_severity in ('ERROR', 'FATAL', 'PANIC') then 'error' when p.error_severity = 'WARNING' then 'warning' else 'ok' end`,
  },
  {
    service: 'auth_logs',
    source: 'gotrue.logs.prod',
    project: 't.project = @project',
    status: `case when m.level = 'error' or safe_cast(m.status as int64) >= 400 then 'error' when m.level = 'warning' then 'warning' else 'ok' end`,
  },
  { service: 'function_edge_logs', source: 'deno-relay-logs', project: 'm.project_ref = @project', joins: 'left join unnest(m.response) as r', status: httpStatus('r.status_code') },
  { service: 'function_logs', source: 'deno-subhosting-events', project: 'm.project_ref = @project', status: levelStatus(`'error', 'fatal'`, `'warning', 'warn'`) },
  { service: 'realtime_logs', source: 'realtime.logs.prod', project: 'm.project = @project', status: levelStatus(`'error', 'critical', 'alert', 'emergency'`, `'warning', 'warn'`) },
  { service: 'storage_logs', source: 'storage.logs.prod.2', project: 'm.project = @project', status: levelStatus(`'error', 'fatal'`, `'warning', 'warn'`) },
  { service: 'postgrest_logs', source: 'postgREST.logs.prod', project: 't.project = @project', status: `'ok'` },
];

/** The services in Studio's result row, in its order; those without a source answer zeros. */
const HEALTH_SERVICES = [
  'postgres_logs',
  'auth_logs',
  'function_edge_logs',
  'storage_logs',
  'realtime_logs',
  'postgrest_logs',
  'edge_logs',
  'supavisor_logs',
  'function_logs',
  'etl_replication_logs',
];

/** Service-health buckets: the `granularity` parameter names the unit (minute, hour or day; hour if unknown). */
const healthBucket = (column: string) => `case
      when @granularity = 'minute' then timestamp_trunc(${column}, minute)
      when @granularity = 'day' then timestamp_trunc(${column}, day)
      else timestamp_trunc(${column}, hour)
    end`;

const HEALTH_WINDOW = `t.timestamp >= coalesce(cast(nullif(@iso_timestamp_start, '') as timestamp), timestamp_sub(current_timestamp(), interval 1 day))
    and t.timestamp <= coalesce(cast(nullif(@iso_timestamp_end, '') as timestamp), current_timestamp())`;

function healthEvents({ service, source, project, joins, status }: HealthSource): string {
  return `select '${service}' as service, t.timestamp as event_time, ${status} as status
  from \`${source}\` as t
  left join unnest(t.metadata) as m${joins ? `\n  ${joins}` : ''}
  where ${project}
    and ${HEALTH_WINDOW}`;
}

const HEALTH_STATUSES = ['ok', 'warning', 'error'] as const;

/** One service's counts in a bucket, as plain columns `<service>_<status>` and `<service>_total`. */
function healthCounts({ service }: HealthSource): string {
  const counts = HEALTH_STATUSES.map((status) => `countif(service = '${service}' and status = '${status}') as ${service}_${status}`);
  return [...counts, `countif(service = '${service}') as ${service}_total`].join(',\n    ');
}

/** One service's field of the result row: `{ok, warning, error, total}`, zeros for services without a source. */
function healthField(service: string): string {
  const columns = HEALTH_SOURCES.some((source) => source.service === service)
    ? [...HEALTH_STATUSES, 'total'].map((count) => `${service}_${count} as ${count}`)
    : [...HEALTH_STATUSES, 'total'].map((count) => `0 as ${count}`);
  return `struct(${columns.join(', ')}) as ${service}`;
}

// The counts are built in their own step and the structs over plain columns: a STRUCT around
// aggregates is valid BigQuery, but the ClickHouse translation of it fails today.
const SERVICE_HEALTH = `with service_events as (
  ${HEALTH_SOURCES.map(healthEvents).join('\n  union all\n  ')}
),
bucket_counts as (
  select
    datetime(${healthBucket('event_time')}, 'UTC') as timestamp,
    ${HEALTH_SOURCES.map(healthCounts).join(',\n    ')}
  from service_events
  group by timestamp
)
select
  timestamp,
  ${HEALTH_SERVICES.map(healthField).join(',\n  ')}
from bucket_counts
order by timestamp asc`;

/**
 * Built-in endpoints by the data format that first had them (src/data-format.ts): a data dir of an
 * older format lacks them, and gets them once, on upgrade.
 */
const ADDED_IN_FORMAT: Record<number, string[]> = {
  1: ['functions.combined-stats', 'service-health'],
  2: ['logs.all.otel', 'logs'],
};

/** The built-in endpoints a data dir of `format` lacks. */
export function builtinsAddedAfter(format: number): string[] {
  return Object.entries(ADDED_IN_FORMAT).flatMap(([added, names]) => (Number(added) > format ? names : []));
}

/**
 * Built-in endpoints provisioned not sandboxable before a format: Logflare's own Supabase seed
 * makes `logs.all` and `usage.api-counts` sandboxable, and Studio's Logs Explorer sends its SQL as
 * `logs.all?sql=…`, which a not sandboxable endpoint ignores.
 */
const SANDBOXABLE_SINCE_FORMAT: Record<number, string[]> = {
  3: ['logs.all', 'usage.api-counts'],
};

/**
 * Built-in endpoints whose query changed in a format: `functions.combined-stats` answers the CPU
 * time and memory fields Studio's Edge Function page reads from format 4.
 */
const QUERY_CHANGED_IN_FORMAT: Record<number, string[]> = {
  4: ['functions.combined-stats'],
};

/** The built-in endpoints a data dir of `format` holds with an older query. */
export function builtinsChangedAfter(format: number): string[] {
  return Object.entries(QUERY_CHANGED_IN_FORMAT).flatMap(([changed, names]) => (Number(changed) > format ? names : []));
}

/** The built-in endpoints a data dir of `format` holds as not sandboxable, which are sandboxable now. */
export function builtinsSandboxableAfter(format: number): string[] {
  return Object.entries(SANDBOXABLE_SINCE_FORMAT).flatMap(([since, names]) => (Number(since) > format ? names : []));
}

/**
 * Supabase's ClickHouse logs endpoints (src/endpoints/unified-logs.ts): Studio's Logs Explorer
 * (`logs.all.otel`) and the Management API (`logs`). Callers send `sql` over the unified `logs`
 * table; without it, the recent API gateway requests, as Supabase answers.
 */
const RECENT_EDGE_LOGS = `select id, timestamp, event_message
from logs
where source = 'edge_logs'
order by timestamp desc
limit 100`;

export const BUILTIN_ENDPOINTS: EndpointInput[] = [
  // Sandboxable as in Logflare's Supabase seed: Studio's Logs Explorer sends its own SQL to logs.all.
  { name: 'logs.all', query: LOGS_ALL, max_limit: 1000, cache_duration_seconds: 0, proactive_requerying_seconds: 0, sandboxable: true },
  { name: 'functions.invocation-stats', query: INVOCATION_STATS, max_limit: 1000, cache_duration_seconds: 900, proactive_requerying_seconds: 300, sandboxable: false },
  { name: 'usage.api-counts', query: API_COUNTS, max_limit: 1000, cache_duration_seconds: 900, proactive_requerying_seconds: 300, sandboxable: true },
  // Uncached: both pages show the last minutes and offer a refresh button.
  { name: 'functions.combined-stats', query: COMBINED_STATS, max_limit: 10_000, cache_duration_seconds: 0, proactive_requerying_seconds: 0, sandboxable: false },
  { name: 'service-health', query: SERVICE_HEALTH, max_limit: 10_000, cache_duration_seconds: 0, proactive_requerying_seconds: 0, sandboxable: false },
  // Uncached: every call names its own window, by default the last minute.
  { name: 'logs.all.otel', language: 'ch_sql', query: RECENT_EDGE_LOGS, max_limit: 1000, cache_duration_seconds: 0, proactive_requerying_seconds: 0, sandboxable: true },
  { name: 'logs', language: 'ch_sql', query: RECENT_EDGE_LOGS, max_limit: 1000, cache_duration_seconds: 0, proactive_requerying_seconds: 0, sandboxable: true },
];
