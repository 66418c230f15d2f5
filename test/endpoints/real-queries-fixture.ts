/**
 * Events shaped like ../shared/samples/supabase/ for replaying the real queries
 * (../shared/reference/real-queries/queries.json), and the rows each `oracle` of that file names,
 * computed here from the same events.
 */

import { sample } from '../support/samples.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** Two hours ago, on the hour: events fall into two hour buckets, all inside every retention window. */
export const T0 = Math.floor(Date.now() / HOUR) * HOUR - 2 * HOUR;
const at = (minutes: number) => T0 + minutes * MINUTE;
const iso = (ms: number) => new Date(ms).toISOString();

// ---- event descriptions -----------------------------------------------------------------------

interface Edge {
  id: string;
  time: number;
  method: string;
  path: string;
  search: string;
  status: number;
  originTime: number;
  country: string;
  realIp?: string;
  requestLength?: string;
  responseLength: string;
  cacheStatus: string;
  errorCode?: string;
}

export const EDGE: Edge[] = [
  { id: 'rs-edge-01', time: at(5), method: 'GET', path: '/rest/v1/items', search: '?select=*', status: 200, originTime: 102, country: 'DE', realIp: '10.0.0.1', requestLength: '100', responseLength: '2000', cacheStatus: 'HIT' },
  { id: 'rs-edge-02', time: at(6), method: 'POST', path: '/auth/v1/token', search: '', status: 400, originTime: 1500, country: 'US', requestLength: '50', responseLength: '300', cacheStatus: 'DYNAMIC', errorCode: 'invalid_credentials' },
  { id: 'rs-edge-03', time: at(65), method: 'GET', path: '/storage/v1/object/public/a.png', search: '', status: 200, originTime: 30, country: 'DE', realIp: '10.0.0.2', responseLength: '5000', cacheStatus: 'MISS' },
  { id: 'rs-edge-04', time: at(66), method: 'GET', path: '/storage/v1/object/b.png', search: '', status: 500, originTime: 2500, country: 'FR', realIp: '10.0.0.3', responseLength: '10', cacheStatus: 'HIT' },
  { id: 'rs-edge-05', time: at(67), method: 'GET', path: '/rest/v1/rpc/f', search: '?x=1', status: 503, originTime: 1200, country: 'US', realIp: '10.0.0.1', responseLength: '20', cacheStatus: 'MISS' },
];

interface Pg {
  id: string;
  time: number;
  severity: string;
  user: string;
  message: string;
}

export const PG: Pg[] = [
  { id: 'rs-pg-01', time: at(10), severity: 'LOG', user: 'postgres', message: 'COMMIT' },
  { id: 'rs-pg-02', time: at(11), severity: 'ERROR', user: 'authenticator', message: 'relation "items" does not exist' },
  { id: 'rs-pg-03', time: at(70), severity: 'FATAL', user: 'postgres', message: 'connection received: host=10.0.0.1 port=12345 hello world.' },
  { id: 'rs-pg-04', time: at(71), severity: 'LOG', user: 'supabase_admin', message: 'COMMIT; column is present; started host authenticated' },
];

interface Relay {
  id: string;
  time: number;
  functionId: string;
  executionMs: number;
  status: number;
  region?: string;
}

export const RELAY: Relay[] = [
  { id: 'rs-fn-01', time: at(15), functionId: 'fn-a', executionMs: 10, status: 200, region: 'eu-west-1' },
  { id: 'rs-fn-02', time: at(16), functionId: 'fn-a', executionMs: 30, status: 500 },
  { id: 'rs-fn-03', time: at(75), functionId: 'a1f0c2d4-0000-4000-8000-00000000000a', executionMs: 50, status: 200, region: 'us-east-1' },
];

interface Auth {
  id: string;
  time: number;
  level: string;
  status: string;
  path: string;
  /** The JSON text of event_message. */
  message: Record<string, unknown>;
}

export const AUTH: Auth[] = [
  {
    id: 'rs-auth-01', time: at(20), level: 'info', status: '200', path: '/token',
    message: { level: 'info', msg: 'login', action: 'login', metering: true, login_method: 'password', provider: '', duration: 2_000_000, auth_event: { action: 'login', actor_id: 'u1' } },
  },
  {
    id: 'rs-auth-02', time: at(21), level: 'error', status: '401', path: '/token',
    message: { level: 'error', msg: 'login', action: 'login', metering: true, login_method: 'oauth', provider: 'google', duration: 4_000_000, auth_event: { action: 'login', actor_id: 'u2' } },
  },
  { id: 'rs-auth-03', time: at(80), level: 'info', status: '200', path: '/signup', message: { level: 'info', msg: 'signup', auth_event: { action: 'user_signedup', actor_id: 'u3' } } },
  { id: 'rs-auth-04', time: at(81), level: 'warning', status: '200', path: '/recover', message: { level: 'warning', msg: 'recover', auth_event: { action: 'user_recovery_requested', actor_id: 'u1' } } },
];

// ---- events as sent, per provisioned source ----------------------------------------------------

function edgeEvent(edge: Edge) {
  const base = sample('cloudflare.logs.prod');
  const headers = { ...base.metadata.request.headers, content_length: edge.requestLength, x_real_ip: edge.realIp };
  const request = { ...base.metadata.request, method: edge.method, path: edge.path, search: edge.search, headers, cf: { ...base.metadata.request.cf, country: edge.country } };
  const responseHeaders = { ...base.metadata.response.headers, content_length: edge.responseLength, cf_cache_status: edge.cacheStatus, x_sb_error_code: edge.errorCode };
  const response = { ...base.metadata.response, status_code: edge.status, origin_time: edge.originTime, headers: responseHeaders };
  return { ...base, id: edge.id, timestamp: iso(edge.time), event_message: `${edge.method} | ${edge.status} | ${edge.path} v1`, metadata: { ...base.metadata, request, response } };
}

function pgEvent(pg: Pg) {
  const base = sample('postgres.logs');
  return { ...base, id: pg.id, timestamp: iso(pg.time), event_message: pg.message, metadata: { ...base.metadata, parsed: { ...base.metadata.parsed, error_severity: pg.severity, user_name: pg.user } } };
}

function relayEvent(relay: Relay) {
  const base = sample('deno-relay-logs');
  const response = { ...base.metadata.response, status_code: relay.status, headers: { ...base.metadata.response.headers, x_sb_edge_region: relay.region } };
  const metadata = { ...base.metadata, function_id: relay.functionId, execution_time_ms: relay.executionMs, response };
  return { ...base, id: relay.id, timestamp: iso(relay.time), metadata };
}

function authEvent(auth: Auth) {
  const base = sample('gotrue.logs.prod');
  const metadata = { ...base.metadata, level: auth.level, status: auth.status, path: auth.path };
  return { ...base, id: auth.id, timestamp: iso(auth.time), event_message: JSON.stringify(auth.message), metadata };
}

function plain(source: string, id: string, minutes: number, overrides: Record<string, unknown> = {}): Record<string, any> {
  return { ...sample(source), id, timestamp: iso(at(minutes)), ...overrides };
}

/** What each provisioned Supabase source receives, and the short name Studio reads it by. */
export const SUPABASE_EVENTS: Array<{ source: string; view: string; events: object[] }> = [
  { source: 'cloudflare.logs.prod', view: 'edge_logs', events: EDGE.map(edgeEvent) },
  { source: 'postgres.logs', view: 'postgres_logs', events: PG.map(pgEvent) },
  { source: 'deno-relay-logs', view: 'function_edge_logs', events: RELAY.map(relayEvent) },
  {
    source: 'deno-subhosting-events',
    view: 'function_logs',
    events: [
      plain('deno-subhosting-events', 'rs-fl-01', 30),
      (() => {
        const event = plain('deno-subhosting-events', 'rs-fl-02', 31);
        return { ...event, metadata: { ...(event.metadata as object), level: 'error' } };
      })(),
    ],
  },
  { source: 'gotrue.logs.prod', view: 'auth_logs', events: AUTH.map(authEvent) },
  { source: 'realtime.logs.prod', view: 'realtime_logs', events: [plain('realtime.logs.prod', 'rs-rt-01', 40)] },
  { source: 'storage.logs.prod.2', view: 'storage_logs', events: [plain('storage.logs.prod.2', 'rs-st-01', 41)] },
  { source: 'postgREST.logs.prod', view: 'postgrest_logs', events: [plain('postgREST.logs.prod', 'rs-pr-01', 42)] },
  { source: 'pgbouncer.logs.prod', view: 'pgbouncer_logs', events: [plain('pgbouncer.logs.prod', 'rs-pb-01', 43)] },
];

/** Logflare's test tables, as sources. */
export const LOGFLARE_EVENTS: Array<{ source: string; events: object[] }> = [
  {
    source: 'my_table',
    events: [
      { id: 'lf-1', event_message: 'one', timestamp: iso(at(1)), val: 10, abc: 'x', col: [1, 2], d: 1, n: 5, a: 123, b: 7 },
      { id: 'lf-2', event_message: 'two', timestamp: iso(at(2)), val: 3, abc: 'y', col: [3], d: 2, n: 6, a: 4, b: 1 },
    ],
  },
  { source: 'other_table', events: [{ id: 'lf-3', event_message: 'three', timestamp: iso(at(3)), e: 1 }] },
];

// ---- oracles ----------------------------------------------------------------------------------

type Row = Record<string, unknown>;
const micros = (ms: number) => ms * 1000;
/** DATETIME as the endpoints print it: ISO without zone. */
const datetime = (ms: number) => new Date(ms).toISOString().replace(/\.000Z$/, '').replace(/Z$/, '');
const trunc = (ms: number, unit: number) => Math.floor(ms / unit) * unit;
const DAY = 24 * HOUR;

function countBy<T>(items: T[], key: (item: T) => Row): Row[] {
  const groups = new Map<string, { row: Row; count: number }>();
  for (const item of items) {
    const row = key(item);
    const id = JSON.stringify(row);
    const group = groups.get(id) ?? { row, count: 0 };
    group.count++;
    groups.set(id, group);
  }
  return [...groups.values()].map(({ row, count }) => ({ ...row, count }));
}

const byDesc = <T>(items: T[], key: (item: T) => number) => [...items].sort((a, b) => key(b) - key(a));
const edgeMessage = (edge: Edge) => `${edge.method} | ${edge.status} | ${edge.path} v1`;
const edgeById = (id: string) => EDGE.find((edge) => edge.id === id)!;
const isCacheMiss = (edge: Edge) => ['MISS', 'NONE/UNKNOWN', 'EXPIRED', 'BYPASS', 'DYNAMIC'].includes(edge.cacheStatus);
const isCacheHit = (edge: Edge) => ['HIT', 'STALE', 'REVALIDATED', 'UPDATING'].includes(edge.cacheStatus);
const pgErrors = PG.filter((pg) => ['ERROR', 'FATAL', 'PANIC'].includes(pg.severity));
const hourly = (unitMs: number, edges = EDGE) => countBy(edges, (edge) => ({ timestamp: micros(trunc(edge.time, unitMs)) }));
const hourlyDatetime = (edges: Edge[]) => countBy(edges, (edge) => ({ timestamp: datetime(trunc(edge.time, HOUR)) }));
const sumMb = (values: Array<string | undefined>) => values.reduce((sum, value) => sum + Number(value ?? '0'), 0) / 1_000_000;

/**
 * The metadata of an edge event as endpoints return it: every record a one-element array, and a
 * field some other edge event has (every builder sets the same keys) NULL where this one lacks it.
 */
function nestedRecords(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(nestedRecords);
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).map(([key, field]) => [key, field === undefined ? null : field] as const);
    return [Object.fromEntries(entries.map(([key, field]) => [key, field && typeof field === 'object' && !Array.isArray(field) ? nestedRecords(field) : field]))];
  }
  return value;
}
const edgeMetadata = (edge: Edge) => nestedRecords(edgeEvent(edge).metadata);

export const ORACLES: Record<string, () => Row[]> = {
  commits_by_user: () => countBy(PG.filter((pg) => pg.message.includes('COMMIT')), (pg) => ({ user_name: pg.user })),
  metadata_ip: () => EDGE.filter((edge) => edge.realIp).map((edge) => ({ timestamp: datetime(edge.time), x_real_ip: edge.realIp })),
  requests_by_country: () => countBy(EDGE, (edge) => ({ country: edge.country })),
  slow_responses: () => EDGE.filter((edge) => edge.originTime > 1000).map((edge) => ({ timestamp: datetime(edge.time), event_message: edgeMessage(edge), origin_time: edge.originTime })),
  edge_5xx: () => EDGE.filter((edge) => edge.status >= 500).map((edge) => ({ timestamp: datetime(edge.time), event_message: edgeMessage(edge), status_code: edge.status })),
  top_paths: () => countBy(EDGE, (edge) => ({ path: edge.path, params: edge.search })).map(({ count, ...row }) => ({ ...row, c: count })),
  rest_requests: () => EDGE.filter((edge) => edge.path.includes('rest/v1')).map((edge) => ({ timestamp: datetime(edge.time), event_message: edgeMessage(edge) })),
  pg_errors: () => pgErrors.map((pg) => ({ timestamp: datetime(pg.time), error_severity: pg.severity, event_message: pg.message })),
  pg_errors_by_user: () => countBy(pgErrors, (pg) => ({ user_name: pg.user, error_severity: pg.severity })),
  storage_object_requests: () =>
    countBy(EDGE.filter((edge) => edge.path.includes('storage/v1/object/')), (edge) => ({ http_verb: edge.method, filepath: edge.path })).map(({ count, ...row }) => ({ ...row, num_requests: count })),
  edge_default: () =>
    EDGE.map((edge) => ({ id: edge.id, timestamp: micros(edge.time), event_message: edgeMessage(edge), method: edge.method, path: edge.path, status_code: edge.status })),
  edge_ui: () => ORACLES.edge_default!(),
  edge_count: () => [{ count: EDGE.length }],
  pg_error_count: () => [{ count: pgErrors.length }],
  edge_chart_minute: () => hourly(MINUTE),
  edge_chart_hour: () => hourly(HOUR),
  edge_chart_day: () => hourly(DAY),
  single_edge: () => {
    const edge = edgeById('rs-edge-01');
    return [{ id: edge.id, timestamp: micros(edge.time), event_message: edgeMessage(edge), metadata: edgeMetadata(edge) }];
  },
  edge_plain: () => EDGE.map((edge) => ({ timestamp: micros(edge.time), event_message: edgeMessage(edge), metadata: edgeMetadata(edge) })),
  api_total_requests: () => hourlyDatetime(EDGE),
  api_error_counts: () => hourlyDatetime(EDGE.filter((edge) => edge.status >= 400)),
  api_network_traffic: () => {
    const hours = [...new Set(EDGE.map((edge) => trunc(edge.time, HOUR)))];
    return hours.map((hour) => {
      const edges = EDGE.filter((edge) => trunc(edge.time, HOUR) === hour);
      return { timestamp: datetime(hour), ingress_mb: sumMb(edges.map((edge) => edge.requestLength)), egress_mb: sumMb(edges.map((edge) => edge.responseLength)) };
    });
  },
  storage_cache_hit_rate: () => {
    const storage = EDGE.filter((edge) => edge.path.startsWith('/storage/v1/object') && edge.method === 'GET');
    const hours = [...new Set(storage.map((edge) => trunc(edge.time, HOUR)))];
    return hours.map((hour) => {
      const edges = storage.filter((edge) => trunc(edge.time, HOUR) === hour);
      return { timestamp: micros(hour), hit_count: edges.filter(isCacheHit).length, miss_count: edges.filter(isCacheMiss).length };
    });
  },
  auth_sign_in_attempts: () =>
    countBy(
      AUTH.filter((auth) => auth.message.action === 'login' && auth.message.metering === true),
      (auth) => ({
        timestamp: micros(trunc(auth.time, HOUR)),
        login_type_provider: auth.message.provider ? `${String(auth.message.login_method)} (${String(auth.message.provider)})` : auth.message.login_method,
      }),
    ),
  auth_signups: () =>
    countBy(AUTH.filter((auth) => (auth.message.auth_event as Row).action === 'user_signedup'), (auth) => ({ timestamp: micros(trunc(auth.time, HOUR)) })),
  auth_errors_by_status: () =>
    countBy(EDGE.filter((edge) => edge.path.includes('auth/v1') && edge.status >= 400 && edge.status <= 599), (edge) => ({
      timestamp: micros(trunc(edge.time, HOUR)),
      status_code: edge.status,
    })).map(({ timestamp, count, status_code }) => ({ timestamp, count, status_code })),
  edgefn_invocations: () => countBy(RELAY, (relay) => ({ timestamp: micros(trunc(relay.time, HOUR)), function_id: relay.functionId })),
  edgefn_execution_time: () => {
    const groups = countBy(RELAY, (relay) => ({ timestamp: micros(trunc(relay.time, HOUR)), function_id: relay.functionId }));
    return groups.map(({ count: _count, ...group }) => {
      const times = RELAY.filter((relay) => micros(trunc(relay.time, HOUR)) === group.timestamp && relay.functionId === group.function_id).map((relay) => relay.executionMs);
      return { ...group, avg_execution_time: times.reduce((sum, time) => sum + time, 0) / times.length };
    });
  },
  docs_ip_get: () => EDGE.filter((edge) => edge.realIp && edge.method === 'GET').map((edge) => ({ f0_: datetime(edge.time), x_real_ip: edge.realIp })),
};

export { byDesc };
