import type { EndpointInput } from '../catalog/types.ts';

/**
 * The three endpoints a Supabase stack calls, written in BigQuery's dialect and run through the
 * same translator as every user endpoint. Caching and limits follow the Logflare deployment.
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

export const BUILTIN_ENDPOINTS: EndpointInput[] = [
  { name: 'logs.all', query: LOGS_ALL, max_limit: 1000, cache_duration_seconds: 0, proactive_requerying_seconds: 0, sandboxable: false },
  { name: 'functions.invocation-stats', query: INVOCATION_STATS, max_limit: 1000, cache_duration_seconds: 900, proactive_requerying_seconds: 300, sandboxable: false },
  { name: 'usage.api-counts', query: API_COUNTS, max_limit: 1000, cache_duration_seconds: 900, proactive_requerying_seconds: 300, sandboxable: false },
];
