import { resolve } from 'node:path';

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** The private key from the environment (everything), if configured. */
  privateKey: string | undefined;
  /** An ingest-only key from the environment, if configured. */
  ingestKey: string | undefined;
  /** Largest accepted request body, compressed or not. */
  maxBodyBytes: number;
  /** Events waiting for the writer beyond which ingestion answers 429. */
  maxQueuedEvents: number;
  /** Longest the writer waits to group concurrent requests into one commit. */
  commitIntervalMs: number;
  queryTimeoutMs: number;
  /** DuckDB memory limit, e.g. "2GB". */
  memoryLimit: string;
  logLevel: string;
}

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return value;
}

export function loadConfig(env: Env = process.env): Config {
  return {
    port: integer(env, 'PORT', 4000),
    host: env.HOST || '127.0.0.1',
    dataDir: resolve(env.SAWMILL_DATA_DIR || './data'),
    privateKey: env.SAWMILL_API_KEY || env.LOGFLARE_PRIVATE_ACCESS_TOKEN || undefined,
    ingestKey: env.SAWMILL_INGEST_KEY || env.LOGFLARE_PUBLIC_ACCESS_TOKEN || undefined,
    maxBodyBytes: integer(env, 'SAWMILL_MAX_BODY_BYTES', 12 * 1024 * 1024),
    maxQueuedEvents: integer(env, 'SAWMILL_MAX_QUEUED_EVENTS', 200_000),
    commitIntervalMs: integer(env, 'SAWMILL_COMMIT_INTERVAL_MS', 5),
    queryTimeoutMs: integer(env, 'SAWMILL_QUERY_TIMEOUT_MS', 30_000),
    memoryLimit: env.SAWMILL_MEMORY_LIMIT || '2GB',
    logLevel: env.SAWMILL_LOG_LEVEL || 'info',
  };
}
