import { resolve } from 'node:path';
import { LOG_FORMATS, LOG_LEVELS, type LogFormat } from './http/log-format.ts';
import { DEFAULT_MAX_EVENTS_PER_FOLD } from './pipeline/writer.ts';

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** The private key from the environment (everything), if configured. */
  privateKey: string | undefined;
  /** An ingest-only key from the environment, if configured. */
  ingestKey: string | undefined;
  /** The variables the two keys came from (SAWMILL_API_KEY or its alias, ...), for the start's log. */
  privateKeyVariable?: string | undefined;
  ingestKeyVariable?: string | undefined;
  /** Largest accepted request body, compressed or not. */
  maxBodyBytes: number;
  /**
   * Largest request line and headers together. Node's default (16 KiB) answers 431 to Studio,
   * which sends its whole SQL in the query string of a GET.
   */
  maxHeaderBytes: number;
  /** Most events one ingestion request may hold (413 past it). */
  maxEventsPerRequest: number;
  /** Events waiting for the writer beyond which ingestion answers 429. */
  maxQueuedEvents: number;
  /** Longest the writer waits to group concurrent requests into one warehouse commit (ClickHouse). */
  commitIntervalMs: number;
  /**
   * Longest acknowledged events wait in the journal for company before they are folded into DuckDB
   * while few wait and no live tail watches (queries fold them first); otherwise the visibility bound governs.
   */
  foldIntervalMs: number;
  /** Under load, the longest from an event's acknowledgement until queries can read it (docs/reliability.md). */
  visibilityMs: number;
  /** Most events folded into DuckDB in one transaction. */
  maxEventsPerFold: number;
  /** DuckDB queries run at once (reader connections); fewer when libuv's threadpool is small (docs/reliability.md). */
  queryConcurrency: number;
  /** DuckDB queries that may wait for a reader before queries answer 429. */
  queryQueue: number;
  /** Queries one caller (a key other than the private key, or an address without a key) runs at once. */
  callerConcurrency: number;
  /** Queries one such caller may start per second, with a burst of twice that. */
  callerQueryRate: number;
  /** Live tails one caller (a key, the private key included, or an address) may hold open at once. */
  callerTails: number;
  /** Bytes the endpoint result cache may hold, keys and kept parameters included. */
  cacheMaxBytes: number;
  /** Endpoint query deadline, unless the endpoint sets its own `query_timeout_ms`. */
  queryTimeoutMs: number;
  /** Most fields a source may have, nested ones included; new fields past it go to `_overflow`. */
  maxFieldsPerSource: number;
  /** Days a new source keeps its events unless created with its own `retention_days`; null: forever. */
  defaultRetentionDays: number | null;
  /** Time a client has to send a request's headers (slowloris protection). */
  headersTimeoutMs: number;
  /** Time a client has to send a whole request, body included. */
  requestTimeoutMs: number;
  /** DuckDB memory limit, e.g. "2GB". */
  memoryLimit: string;
  /** DuckDB worker threads; undefined leaves DuckDB's default (one per core). */
  duckdbThreads: number | undefined;
  logLevel: string;
  /** SAWMILL_LOG_FORMAT: `json` (one JSON object a line, the default) or `pretty` (a line for people). */
  logFormat: LogFormat;
  /** Where events live: the embedded DuckDB file (default) or ClickHouse (docs/scale-out.md). */
  warehouse: 'duckdb' | 'clickhouse';
  clickhouse: { url: string; username: string | undefined; password: string | undefined; database: string; cluster?: string | undefined };
  /** A PostgreSQL URL for the shared catalog of several instances; unset keeps catalog.json. */
  catalogUrl: string | undefined;
}

function warehouseKind(env: Env): Config['warehouse'] {
  const kind = env.SAWMILL_WAREHOUSE || 'duckdb';
  if (kind !== 'duckdb' && kind !== 'clickhouse') throw new Error(`SAWMILL_WAREHOUSE must be duckdb or clickhouse, got "${kind}"`);
  return kind;
}

type Env = Record<string, string | undefined>;

/** The log's settings alone, read first: so that what else is wrong with the settings is said in the log's format. */
export function logSettings(env: Env): Pick<Config, 'logLevel' | 'logFormat'> {
  const format = env.SAWMILL_LOG_FORMAT || 'json';
  if (!(LOG_FORMATS as readonly string[]).includes(format)) throw new Error(`SAWMILL_LOG_FORMAT must be ${LOG_FORMATS.join(' or ')}, got "${format}"`);
  const level = env.SAWMILL_LOG_LEVEL || 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(level)) throw new Error(`SAWMILL_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${level}"`);
  return { logLevel: level, logFormat: format as LogFormat };
}

function integer(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return value;
}

function positive(env: Env, name: string, fallback: number): number {
  const value = integer(env, name, fallback);
  if (value < 1) throw new Error(`${name} must be at least 1, got ${value}`);
  return value;
}

/** Node refuses a header deadline later than the whole-request one, so say so by name. */
function timeouts(env: Env): Pick<Config, 'headersTimeoutMs' | 'requestTimeoutMs'> {
  const headersTimeoutMs = integer(env, 'SAWMILL_HEADERS_TIMEOUT_MS', 10_000);
  const requestTimeoutMs = integer(env, 'SAWMILL_REQUEST_TIMEOUT_MS', 60_000);
  if (headersTimeoutMs < 1 || requestTimeoutMs < 1) throw new Error('SAWMILL_HEADERS_TIMEOUT_MS and SAWMILL_REQUEST_TIMEOUT_MS must be at least 1');
  if (headersTimeoutMs > requestTimeoutMs) {
    throw new Error(`SAWMILL_HEADERS_TIMEOUT_MS (${headersTimeoutMs}) must not exceed SAWMILL_REQUEST_TIMEOUT_MS (${requestTimeoutMs})`);
  }
  return { headersTimeoutMs, requestTimeoutMs };
}

function retentionDays(env: Env): number | null {
  const raw = env.SAWMILL_DEFAULT_RETENTION_DAYS;
  if (raw === undefined || raw === '' || raw === 'forever') return null;
  const days = Number(raw);
  if (!Number.isInteger(days) || days < 1) throw new Error(`SAWMILL_DEFAULT_RETENTION_DAYS must be a whole number of days (1 or more) or "forever", got "${raw}"`);
  return days;
}

export function loadConfig(env: Env = process.env): Config {
  return {
    port: integer(env, 'PORT', 4000),
    host: env.HOST || '127.0.0.1',
    dataDir: resolve(env.SAWMILL_DATA_DIR || './data'),
    // An empty value is no key: the one in force before stays (src/keys-in-force.ts).
    privateKey: env.SAWMILL_API_KEY || env.LOGFLARE_PRIVATE_ACCESS_TOKEN || undefined,
    ingestKey: env.SAWMILL_INGEST_KEY || env.LOGFLARE_PUBLIC_ACCESS_TOKEN || undefined,
    privateKeyVariable: env.SAWMILL_API_KEY ? 'SAWMILL_API_KEY' : env.LOGFLARE_PRIVATE_ACCESS_TOKEN ? 'LOGFLARE_PRIVATE_ACCESS_TOKEN' : undefined,
    ingestKeyVariable: env.SAWMILL_INGEST_KEY ? 'SAWMILL_INGEST_KEY' : env.LOGFLARE_PUBLIC_ACCESS_TOKEN ? 'LOGFLARE_PUBLIC_ACCESS_TOKEN' : undefined,
    maxBodyBytes: integer(env, 'SAWMILL_MAX_BODY_BYTES', 12 * 1024 * 1024),
    maxHeaderBytes: integer(env, 'SAWMILL_MAX_HEADER_BYTES', 512 * 1024),
    maxEventsPerRequest: positive(env, 'SAWMILL_MAX_EVENTS_PER_REQUEST', 100_000),
    maxQueuedEvents: integer(env, 'SAWMILL_MAX_QUEUED_EVENTS', 250_000),
    commitIntervalMs: integer(env, 'SAWMILL_COMMIT_INTERVAL_MS', 5),
    foldIntervalMs: integer(env, 'SAWMILL_FOLD_INTERVAL_MS', 10_000),
    visibilityMs: positive(env, 'SAWMILL_VISIBILITY_MS', 2000),
    maxEventsPerFold: positive(env, 'SAWMILL_FOLD_MAX_EVENTS', DEFAULT_MAX_EVENTS_PER_FOLD),
    queryConcurrency: positive(env, 'SAWMILL_QUERY_CONCURRENCY', 4),
    queryQueue: integer(env, 'SAWMILL_QUERY_QUEUE', 64),
    queryTimeoutMs: integer(env, 'SAWMILL_QUERY_TIMEOUT_MS', 30_000),
    cacheMaxBytes: integer(env, 'SAWMILL_CACHE_MAX_BYTES', 64 * 1024 * 1024),
    callerConcurrency: positive(env, 'SAWMILL_CALLER_CONCURRENCY', 2),
    callerQueryRate: positive(env, 'SAWMILL_CALLER_QUERY_RATE', 10),
    callerTails: positive(env, 'SAWMILL_CALLER_TAILS', 10),
    maxFieldsPerSource: integer(env, 'SAWMILL_MAX_FIELDS_PER_SOURCE', 1000),
    defaultRetentionDays: retentionDays(env),
    ...timeouts(env),
    memoryLimit: env.SAWMILL_MEMORY_LIMIT || '2GB',
    duckdbThreads: env.SAWMILL_DUCKDB_THREADS ? positive(env, 'SAWMILL_DUCKDB_THREADS', 1) : undefined,
    ...logSettings(env),
    warehouse: warehouseKind(env),
    clickhouse: {
      url: env.SAWMILL_CLICKHOUSE_URL || 'http://127.0.0.1:8123',
      username: env.SAWMILL_CLICKHOUSE_USER || undefined,
      password: env.SAWMILL_CLICKHOUSE_PASSWORD || undefined,
      database: env.SAWMILL_CLICKHOUSE_DATABASE || 'sawmill',
      cluster: env.SAWMILL_CLICKHOUSE_CLUSTER || undefined,
    },
    catalogUrl: env.SAWMILL_CATALOG_URL || undefined,
  };
}
