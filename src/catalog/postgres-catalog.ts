import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { AppError } from '../errors.ts';
import { changed, newEndpoint, newSource, storedEndpoint } from './records.ts';
import type { AccessToken, Catalog, Endpoint, EndpointInput, Source, SourceInput } from './types.ts';

/**
 * The shared catalog of a scaled-out deployment: PostgreSQL holds sources, endpoints and access
 * tokens; every instance keeps an in-memory replica so the Catalog's reads stay synchronous (they
 * sit on the ingestion hot path). Writes go to PostgreSQL first and then into the local replica,
 * so an instance reads its own writes at once; triggers NOTIFY every change and the other
 * instances reload the changed row, typically within milliseconds. A full reload runs after
 * every reconnect of the listener and periodically, in case a notification was missed.
 */

const MIGRATIONS_DIR = join(import.meta.dirname, 'migrations');
const CHANNEL = 'sawmill_catalog';
/** Serialises migrations and first-start provisioning across instances. */
const LOCK_MIGRATE = 7_274_001;
const LOCK_FIRST_START = 7_274_002;
const UNIQUE_VIOLATION = '23505';

type Table = 'sawmill_sources' | 'sawmill_endpoints' | 'sawmill_access_tokens';
const TABLES: Table[] = ['sawmill_sources', 'sawmill_endpoints', 'sawmill_access_tokens'];

export interface PostgresCatalogOptions {
  /** postgres://user:password@host:5432/database */
  url: string;
  /** Full reload interval, a safety net behind LISTEN/NOTIFY. */
  resyncMs?: number;
  /** Told about listener failures (the replica keeps serving its last state meanwhile). */
  onError?: (error: unknown) => void;
}

/** Apply the ordered SQL files of src/catalog/migrations that this database has not seen. */
export async function migrate(pool: pg.Pool): Promise<string[]> {
  const client = await pool.connect();
  const applied: string[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [LOCK_MIGRATE]);
    await client.query(
      'CREATE TABLE IF NOT EXISTS sawmill_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const done = new Set((await client.query<{ version: number }>('SELECT version FROM sawmill_migrations')).rows.map((row) => row.version));
    const files = (await readdir(MIGRATIONS_DIR)).filter((file) => /^\d+_.+\.sql$/.test(file)).sort();
    for (const file of files) {
      const version = Number(file.split('_')[0]);
      if (done.has(version)) continue;
      const sql = await readFile(join(MIGRATIONS_DIR, file), 'utf8');
      await client.query('BEGIN');
      try {
        await client.query(sql);
        await client.query('INSERT INTO sawmill_migrations (version, name) VALUES ($1, $2)', [version, file]);
        await client.query('COMMIT');
        applied.push(file);
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      }
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [LOCK_MIGRATE]).catch(() => undefined);
    client.release();
  }
  return applied;
}

const byId = <T extends { id: number }>(a: T, b: T) => a.id - b.id;
const matches = (record: { id: number; token: string }, tokenOrId: string) => record.token === tokenOrId || String(record.id) === tokenOrId;

export class PostgresCatalog implements Catalog {
  private sources = new Map<number, Source>();
  private endpoints = new Map<number, Endpoint>();
  private tokens = new Map<number, AccessToken>();
  private listener: pg.Client | undefined;
  private resyncTimer: NodeJS.Timeout | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly changeListeners = new Set<(table: Table, id: number) => void>();

  private constructor(
    private readonly pool: pg.Pool,
    private readonly options: PostgresCatalogOptions,
  ) {}

  static async open(options: PostgresCatalogOptions): Promise<PostgresCatalog> {
    const pool = new pg.Pool({ connectionString: options.url, max: 8 });
    pool.on('error', (error) => options.onError?.(error));
    try {
      await migrate(pool);
      const catalog = new PostgresCatalog(pool, options);
      await catalog.listen();
      const resyncMs = options.resyncMs ?? 60_000;
      if (resyncMs > 0) {
        catalog.resyncTimer = setInterval(() => void catalog.reloadAll().catch((error: unknown) => options.onError?.(error)), resyncMs);
        catalog.resyncTimer.unref();
      }
      return catalog;
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw error;
    }
  }

  /** Be told when another instance (or this one) changes an endpoint, source or token. */
  onChange(listener: (kind: 'source' | 'endpoint' | 'access_token', id: number) => void): () => void {
    const wrapped = (table: Table, id: number) =>
      listener(table === 'sawmill_sources' ? 'source' : table === 'sawmill_endpoints' ? 'endpoint' : 'access_token', id);
    this.changeListeners.add(wrapped);
    return () => this.changeListeners.delete(wrapped);
  }

  /**
   * Run `work` once per deployment (first start: provisioning), whichever instance gets there
   * first; the others wait for it and then skip.
   */
  async once(flag: string, work: () => Promise<void>): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query('SELECT pg_advisory_lock($1)', [LOCK_FIRST_START]);
      const seen = await client.query('SELECT 1 FROM sawmill_flags WHERE name = $1', [flag]);
      if (seen.rowCount === 0) {
        await work();
        await client.query('INSERT INTO sawmill_flags (name) VALUES ($1) ON CONFLICT DO NOTHING', [flag]);
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [LOCK_FIRST_START]).catch(() => undefined);
      client.release();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.resyncTimer);
    clearTimeout(this.reconnectTimer);
    await this.listener?.end().catch(() => undefined);
    await this.pool.end();
  }

  // ---- reads: the replica ------------------------------------------------------------------

  listSources(ownerId?: number): Source[] {
    return [...this.sources.values()].filter((source) => ownerId === undefined || source.owner_id === ownerId).sort(byId);
  }

  getSource(ownerId: number, tokenOrId: string): Source | undefined {
    return [...this.sources.values()].find((source) => source.owner_id === ownerId && matches(source, tokenOrId));
  }

  sourceByToken(token: string): Source | undefined {
    return [...this.sources.values()].find((source) => source.token === token);
  }

  sourceByName(ownerId: number, name: string): Source | undefined {
    return [...this.sources.values()].find((source) => source.owner_id === ownerId && source.name === name);
  }

  listEndpoints(ownerId: number): Endpoint[] {
    return [...this.endpoints.values()].filter((endpoint) => endpoint.owner_id === ownerId).sort(byId);
  }

  getEndpoint(ownerId: number, tokenOrId: string): Endpoint | undefined {
    return [...this.endpoints.values()].find((endpoint) => endpoint.owner_id === ownerId && matches(endpoint, tokenOrId));
  }

  endpointByName(ownerId: number, name: string): Endpoint | undefined {
    return [...this.endpoints.values()].find((endpoint) => endpoint.owner_id === ownerId && endpoint.name === name);
  }

  endpointByToken(token: string): Endpoint | undefined {
    return [...this.endpoints.values()].find((endpoint) => endpoint.token === token);
  }

  listAccessTokens(ownerId: number): AccessToken[] {
    return [...this.tokens.values()].filter((token) => token.owner_id === ownerId).sort(byId);
  }

  accessTokenByHash(keyHash: string): AccessToken | undefined {
    return [...this.tokens.values()].find((token) => token.key_hash === keyHash);
  }

  // ---- writes: PostgreSQL first, then the replica ------------------------------------------

  async createSource(ownerId: number, input: SourceInput): Promise<Source> {
    const source = newSource(await this.nextId(), ownerId, input);
    await this.write('source', () =>
      this.pool.query('INSERT INTO sawmill_sources (id, token, owner_id, name, record) VALUES ($1, $2, $3, $4, $5)', [source.id, source.token, ownerId, source.name, source]),
    );
    this.sources.set(source.id, source);
    return source;
  }

  async updateSource(source: Source, changes: Partial<SourceInput>): Promise<Source> {
    const updated = changed(source, changes);
    await this.write('source', () => this.pool.query('UPDATE sawmill_sources SET name = $2, record = $3 WHERE id = $1', [source.id, updated.name, updated]));
    this.sources.set(updated.id, updated);
    return updated;
  }

  async deleteSource(source: Source): Promise<void> {
    await this.pool.query('DELETE FROM sawmill_sources WHERE id = $1', [source.id]);
    this.sources.delete(source.id);
  }

  async createEndpoint(ownerId: number, input: EndpointInput): Promise<Endpoint> {
    const endpoint = newEndpoint(await this.nextId(), ownerId, input);
    await this.write('endpoint', () =>
      this.pool.query('INSERT INTO sawmill_endpoints (id, token, owner_id, name, record) VALUES ($1, $2, $3, $4, $5)', [
        endpoint.id,
        endpoint.token,
        ownerId,
        endpoint.name,
        endpoint,
      ]),
    );
    this.endpoints.set(endpoint.id, endpoint);
    return endpoint;
  }

  async updateEndpoint(endpoint: Endpoint, changes: Partial<EndpointInput>): Promise<Endpoint> {
    const updated = changed(endpoint, changes);
    await this.write('endpoint', () => this.pool.query('UPDATE sawmill_endpoints SET name = $2, record = $3 WHERE id = $1', [endpoint.id, updated.name, updated]));
    this.endpoints.set(updated.id, updated);
    return updated;
  }

  async deleteEndpoint(endpoint: Endpoint): Promise<void> {
    await this.pool.query('DELETE FROM sawmill_endpoints WHERE id = $1', [endpoint.id]);
    this.endpoints.delete(endpoint.id);
  }

  async createAccessToken(ownerId: number, keyHash: string, scopes: string[], description: string | null): Promise<AccessToken> {
    const token: AccessToken = { id: await this.nextId(), owner_id: ownerId, key_hash: keyHash, scopes, description, inserted_at: new Date().toISOString() };
    await this.pool.query('INSERT INTO sawmill_access_tokens (id, owner_id, key_hash, record) VALUES ($1, $2, $3, $4)', [token.id, ownerId, keyHash, token]);
    this.tokens.set(token.id, token);
    return token;
  }

  async deleteAccessToken(token: AccessToken): Promise<void> {
    await this.pool.query('DELETE FROM sawmill_access_tokens WHERE id = $1', [token.id]);
    this.tokens.delete(token.id);
  }

  // ---- replication -------------------------------------------------------------------------

  private async nextId(): Promise<number> {
    const result = await this.pool.query<{ id: string }>("SELECT nextval('sawmill_catalog_ids') AS id");
    return Number(result.rows[0]!.id);
  }

  /** A name taken by another record is the same 422 the file catalog gives. */
  private async write(kind: 'source' | 'endpoint', statement: () => Promise<unknown>): Promise<void> {
    try {
      await statement();
    } catch (error) {
      if ((error as { code?: string }).code === UNIQUE_VIOLATION) {
        throw new AppError(422, 'unprocessable', `${kind} name is already taken`, { errors: { name: ['has already been taken'] } });
      }
      throw error;
    }
  }

  /** LISTEN on a dedicated connection, then load everything (so no change falls in between). */
  private async listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.options.url });
    client.on('notification', (message) => {
      const [table, id] = (message.payload ?? '').split(':');
      if (!TABLES.includes(table as Table) || !id) return;
      void this.reloadRow(table as Table, Number(id)).catch((error: unknown) => this.options.onError?.(error));
    });
    client.on('error', (error) => {
      this.options.onError?.(error);
      this.scheduleReconnect();
    });
    client.on('end', () => this.scheduleReconnect());
    await client.connect();
    await client.query(`LISTEN ${CHANNEL}`);
    this.listener = client;
    await this.reloadAll();
  }

  private scheduleReconnect(): void {
    if (this.closed || this.reconnectTimer) return;
    this.listener = undefined;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      this.listen().catch((error: unknown) => {
        this.options.onError?.(error);
        this.scheduleReconnect();
      });
    }, 1000);
    this.reconnectTimer.unref();
  }

  private async reloadAll(): Promise<void> {
    const [sources, endpoints, tokens] = await Promise.all(
      TABLES.map((table) => this.pool.query<{ record: unknown }>(`SELECT record FROM ${table} ORDER BY id`)),
    );
    this.sources = new Map(sources!.rows.map(({ record }) => [(record as Source).id, record as Source]));
    this.endpoints = new Map(endpoints!.rows.map(({ record }) => [(record as Endpoint).id, storedEndpoint(record as Endpoint)]));
    this.tokens = new Map(tokens!.rows.map(({ record }) => [(record as AccessToken).id, record as AccessToken]));
  }

  private async reloadRow(table: Table, id: number): Promise<void> {
    const result = await this.pool.query<{ record: unknown }>(`SELECT record FROM ${table} WHERE id = $1`, [id]);
    const record = result.rows[0]?.record;
    const map: Map<number, unknown> = table === 'sawmill_sources' ? this.sources : table === 'sawmill_endpoints' ? this.endpoints : this.tokens;
    if (record === undefined) map.delete(id);
    else map.set(id, table === 'sawmill_endpoints' ? storedEndpoint(record as Endpoint) : record);
    for (const listener of this.changeListeners) listener(table, id);
  }
}
