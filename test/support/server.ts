import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type Config } from '../../src/config.ts';
import { startServer, type RunningServer } from '../../src/server.ts';

export const PRIVATE_KEY = 'test-private-key-0123456789';
export const INGEST_KEY = 'test-ingest-key-0123456789';

export interface Reply {
  status: number;
  headers: Headers;
  body: any;
}

export interface TestServer extends RunningServer {
  dataDir: string;
  /** Send a request with the private key unless `key` says otherwise (null: no key). */
  request(method: string, path: string, options?: { body?: unknown; headers?: Record<string, string>; key?: string | null }): Promise<Reply>;
  /** Close the server (keeping its data dir unless `removeData`). */
  stop(options?: { removeData?: boolean }): Promise<void>;
}

/**
 * With SAWMILL_TEST_WAREHOUSE=clickhouse (set by the *-clickhouse test files) the server stores
 * events in ClickHouse: chdb in-process, one data path per test process, one database per server.
 */
let chdbDir: string | undefined;
async function warehouseOverrides(): Promise<Partial<Config>> {
  if (process.env.SAWMILL_TEST_WAREHOUSE !== 'clickhouse') return {};
  if (!chdbDir) {
    const dir = (chdbDir = await mkdtemp(join(tmpdir(), 'sawmill-chdb-')));
    // chdb lives as long as the test process: its data path goes with the process.
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  const database = `test_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  return { warehouse: 'clickhouse', clickhouse: { url: `chdb:${chdbDir}`, username: undefined, password: undefined, database } };
}

/** A real Sawmill on 127.0.0.1 with a fresh (or the given) data dir. */
export async function startTestServer(overrides: Partial<Config> = {}): Promise<TestServer> {
  const dataDir = overrides.dataDir ?? (await mkdtemp(join(tmpdir(), 'sawmill-test-')));
  const config: Config = {
    ...loadConfig({}),
    ...(await warehouseOverrides()),
    port: 0,
    host: '127.0.0.1',
    privateKey: PRIVATE_KEY,
    ingestKey: INGEST_KEY,
    logLevel: 'silent',
    memoryLimit: '1GB',
    ...overrides,
    dataDir,
  };
  const server = await startServer(config);
  const request: TestServer['request'] = async (method, path, options = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    const key = options.key === undefined ? PRIVATE_KEY : options.key;
    if (key !== null) headers['x-api-key'] = key;
    let body: BodyInit | undefined;
    if (options.body instanceof Uint8Array || typeof options.body === 'string') body = options.body as BodyInit;
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(server.url + path, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // Left as text so a test can show what came back.
    }
    return { status: response.status, headers: response.headers, body: parsed };
  };
  const stop: TestServer['stop'] = async ({ removeData = false } = {}) => {
    await server.close();
    if (removeData) await rm(dataDir, { recursive: true, force: true });
  };
  return { ...server, dataDir, request, stop };
}
