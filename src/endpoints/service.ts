import { canQuery, type Principal } from '../catalog/access.ts';
import type { Catalog, Endpoint, EndpointInput } from '../catalog/types.ts';
import { AppError } from '../errors.ts';
import { invalidSql, shapeOfSource, translate, type SqlDialect, type Translation } from '../sql/index.ts';
import type { NestedReads, RecordFields, Warehouse } from '../warehouse/types.ts';
import { ByteLru, digestKey, stringBytes } from './byte-lru.ts';
import { ResultCache } from './cache.ts';
import { checkQuery, translateQuery, type LanguageContext, type WrittenQuery } from './languages.ts';
import { lqlToSql, splitLql } from './lql-endpoint.ts';
import { nestedReads } from './nested-reads.ts';
import { isUnifiedLogsEndpoint, logsWindow, refuseCountStar, WINDOW } from './unified-logs.ts';
import { UNIFIED_LOGS_TABLE } from '../sql/unified-logs.ts';

export interface EndpointServiceOptions {
  queryTimeoutMs: number;
  cacheMaxBytes: number;
  /** Resolves once every acknowledged event can be read (EventWriter.visible), so a source's fields are current. */
  visible?: () => Promise<void>;
  /** Resolves when a query may run (EventWriter.readBarrier): the fields of events just sent, unless under load. */
  readBarrier?: () => Promise<void>;
  /** Told when the warehouse could not keep copies of what an endpoint reads: it still answers, more slowly. */
  onPromotionFailed?: (error: unknown, sourceId: string) => void;
}

/** Translations (and endpoints' reads) kept, least recently used dropped first (sandboxed consumer SQL varies freely). */
const MAX_MEMOS = 1000;
/** Bytes the kept translations may hold, keys included (docs/security.md). */
export const MAX_MEMO_BYTES = 16 * 1024 * 1024;
/** Longest `sql` a sandboxed caller may send, in characters: as long as a saved endpoint's query may be. */
export const MAX_CONSUMER_SQL = 100_000;

const replyBody = (rows: string) => `{"result":${rows}}`;

const unionOf = (a: NestedReads | undefined, b: NestedReads): NestedReads => ({
  records: [...new Set([...(a?.records ?? []), ...b.records])],
  leaves: [...new Set([...(a?.leaves ?? []), ...b.leaves])],
});

/** Every field path of a schema with its kind: changes when a field is added or its type changes. */
function fieldsKey(fields: RecordFields | undefined): string {
  if (!fields) return '';
  return [...fields].map(([name, type]) => `${name}:${type.kind}${type.kind === 'record' ? `(${fieldsKey(type.fields)})` : type.kind === 'list' ? type.element.kind : ''}`).join(',');
}

/** How the translation memo records an endpoint read as a table (not a source name: those have no NUL). */
const ENDPOINT_READ = '\u0000endpoint ';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Request names that are never an endpoint's own `@` parameters. */
const TRANSPORT_NAMES = new Set(['api_key']);

/**
 * A run's reply, and how its request met the query's `@` parameters. As in Logflare, a parameter
 * the query uses and the request lacks is NULL and one it does not use is ignored; the console and
 * the CLI tell people which (routes/endpoints.ts sends both as headers).
 */
export interface EndpointRun {
  /** `{"result": [...]}`, serialised. */
  body: string;
  /** Parameters the query uses that the request did not give: they ran as NULL. */
  missing: string[];
  /** Names the request gave that the query does not use: ignored. */
  unknown: string[];
}

function parameterUsage(used: readonly string[], given: Record<string, string>, understood: (name: string) => boolean): Omit<EndpointRun, 'body'> {
  return {
    missing: used.filter((name) => given[name] === undefined),
    unknown: Object.keys(given).filter((name) => !used.includes(name) && !TRANSPORT_NAMES.has(name) && !understood(name)),
  };
}

/** Runs saved queries (BigQuery SQL, ClickHouse SQL or LQL) against the warehouse, with per-endpoint caching and warming. */
export class EndpointService {
  private readonly cache: ResultCache;
  private readonly warmers = new Map<number, NodeJS.Timeout>();
  private readonly translations = new ByteLru<{ translation: Translation; resolved: Array<[string, string | undefined]> }>(MAX_MEMO_BYTES, MAX_MEMOS);
  private readonly reads = new Map<string, Map<string, NestedReads>>();
  /** Runs of caching endpoints the cache answered, and those it did not (for /metrics). */
  cacheHits = 0;
  cacheMisses = 0;

  constructor(
    private readonly catalog: Catalog,
    private readonly warehouse: Warehouse,
    private readonly dialect: SqlDialect,
    private readonly options: EndpointServiceOptions,
  ) {
    this.cache = new ResultCache(options.cacheMaxBytes);
  }

  /** Bytes the result cache and the translation memo hold, as counted against their bounds. */
  get memoryBytes(): { cache: number; translations: number } {
    return { cache: this.cache.bytes, translations: this.translations.bytes };
  }

  /** The endpoint named by a path segment: a canonical UUID is a token, anything else a name. */
  find(ownerId: number, tokenOrName: string): Endpoint | undefined {
    return UUID.test(tokenOrName) ? this.catalog.getEndpoint(ownerId, tokenOrName.toLowerCase()) : this.catalog.endpointByName(ownerId, tokenOrName);
  }

  /**
   * A caller without a key may run an endpoint whose `enable_auth` is off, addressed by its token
   * (names are only unique per owner).
   */
  publicPrincipal(tokenOrName: string): Principal | undefined {
    const endpoint = UUID.test(tokenOrName) ? this.catalog.endpointByToken(tokenOrName.toLowerCase()) : undefined;
    return endpoint && !endpoint.enable_auth ? { ownerId: endpoint.owner_id, scopes: [`query:endpoint:${endpoint.id}`] } : undefined;
  }

  /** Run an endpoint: the reply body and how the request's parameters were used. */
  async run(principal: Principal, tokenOrName: string, given: Record<string, string>): Promise<EndpointRun> {
    const endpoint = this.find(principal.ownerId, tokenOrName);
    if (!endpoint) throw new AppError(404, 'not_found', `endpoint "${tokenOrName}" not found`);
    if (!canQuery(principal, endpoint)) throw new AppError(403, 'forbidden', 'this key may not query this endpoint');
    if (given.sql !== undefined && given.sql.length > MAX_CONSUMER_SQL) {
      throw new AppError(413, 'sql_too_long', `sql is ${given.sql.length} characters long; a sandboxed query may have at most ${MAX_CONSUMER_SQL}`);
    }
    // LQL becomes SQL over the fields the source has; uncached, the query waits for the same events anyway.
    if (endpoint.language === 'lql' && endpoint.cache_duration_seconds <= 0) await this.options.readBarrier?.();
    const translation = this.translate(endpoint, given.sql);
    for (const name of translation.endpoints ?? []) {
      const read = this.catalog.endpointByName(endpoint.owner_id, name);
      if (!read || !canQuery(principal, read)) throw new AppError(403, 'forbidden', `this key may not query endpoint "${name}", which this endpoint reads`);
    }
    const unified = isUnifiedLogsEndpoint(endpoint);
    const request = unified ? { ...given, ...logsWindow(given) } : given;
    const usage = parameterUsage(translation.parameters, request, (name) =>
      name === 'sql' ? unified || endpoint.sandboxable : unified && (name === WINDOW.start || name === WINDOW.end),
    );
    return { body: await this.runTranslated(endpoint, translation, request), ...usage };
  }

  private async runTranslated(endpoint: Endpoint, translation: Translation, request: Record<string, string>): Promise<string> {
    const params = Object.fromEntries(translation.parameters.map((name) => [name, request[name] ?? null]));
    const timeoutMs = endpoint.query_timeout_ms ?? this.options.queryTimeoutMs;
    const execute = async () => replyBody(await this.warehouse.queryJson(translation.sql, params, { timeoutMs, maxRows: endpoint.max_limit }));
    if (endpoint.cache_duration_seconds <= 0) return execute();

    // updated_at in the key: an endpoint changed by another instance never serves its old rows.
    const sandboxed = request.sql !== undefined && endpoint.sandboxable;
    const key = ResultCache.key(endpoint.id, {
      ...params,
      ...(sandboxed ? { sql: request.sql! } : {}),
      '\u0000version': endpoint.updated_at,
      '\u0000language': endpoint.language,
      // The endpoints it reads: their rows change with their definitions.
      ...(translation.endpoints ? { '\u0000reads': translation.endpoints.map((name) => this.version(endpoint.owner_id, name)).join('\u0000') } : {}),
    });
    const cached = this.cache.get(key);
    if (cached) {
      this.cacheHits++;
      return cached;
    }
    this.cacheMisses++;
    const body = await execute();
    // Warming runs the query again, so its entry keeps the parameters and the SQL (and counts them).
    const retainedBytes = stringBytes(translation.sql) + Object.values(params).reduce((sum, value) => sum + stringBytes(value ?? ''), 0);
    this.cache.set(key, body, endpoint.cache_duration_seconds * 1000, endpoint.proactive_requerying_seconds > 0 ? { run: execute, retainedBytes } : undefined);
    this.scheduleWarming(endpoint);
    return body;
  }

  /**
   * Run a query that is not saved (the console's draft), as an endpoint of `ownerId` would run
   * it: the owner's sources only, `@name` parameters from `request`, never cached.
   */
  async preview(ownerId: number, draft: WrittenQuery, request: Record<string, string>, maxRows: number): Promise<EndpointRun> {
    const translation = await this.withCurrentFields(() => {
      checkQuery(draft, this.dialect, this.context(ownerId));
      return translateQuery(draft, undefined, this.dialect, this.context(ownerId));
    });
    const params = Object.fromEntries(translation.parameters.map((name) => [name, request[name] ?? null]));
    const body = replyBody(await this.warehouse.queryJson(translation.sql, params, { timeoutMs: this.options.queryTimeoutMs, maxRows }));
    return { body, ...parameterUsage(translation.parameters, request, () => false) };
  }

  /**
   * Check a query before it is saved: it must parse, be a single SELECT, read only the owner's
   * sources, and every name must resolve against their columns (src/sql/analyze.ts); LQL must
   * name one of the owner's sources and fields it has. Refusals are 422 with the position of the
   * problem when known.
   */
  async validate(ownerId: number, written: WrittenQuery, name?: string): Promise<void> {
    try {
      await this.withCurrentFields(() => checkQuery(written, this.dialect, this.context(ownerId, name)));
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      const { line, column } = error.details ?? {};
      const position = typeof line === 'number' && typeof column === 'number' ? { line, column } : {};
      throw new AppError(422, 'unprocessable', error.message, { errors: { query: [error.message] }, ...position });
    }
  }

  /**
   * `check` against the sources' fields as they are; when it refuses, once more after every
   * acknowledged event is folded in (a field sent a moment ago counts). Waiting only then keeps
   * saving a query from forcing a fold.
   */
  private async withCurrentFields<T>(check: () => T): Promise<T> {
    try {
      return check();
    } catch (error) {
      if (!(error instanceof AppError) || !this.options.visible) throw error;
      await this.options.visible();
      return check();
    }
  }

  async create(ownerId: number, input: EndpointInput): Promise<Endpoint> {
    await this.validate(ownerId, { query: input.query, language: input.language ?? 'bq_sql' }, input.name);
    const endpoint = await this.catalog.createEndpoint(ownerId, input);
    await this.promote(ownerId);
    return endpoint;
  }

  async update(endpoint: Endpoint, changes: Partial<EndpointInput>): Promise<Endpoint> {
    const rewritten = changes.query !== undefined || (changes.language !== undefined && changes.language !== endpoint.language);
    if (rewritten) await this.validate(endpoint.owner_id, { query: changes.query ?? endpoint.query, language: changes.language ?? endpoint.language }, changes.name ?? endpoint.name);
    const updated = await this.catalog.updateEndpoint(endpoint, changes);
    this.forget(endpoint.id);
    if (rewritten) await this.promote(updated.owner_id);
    return updated;
  }

  async delete(endpoint: Endpoint): Promise<void> {
    await this.catalog.deleteEndpoint(endpoint);
    this.forget(endpoint.id);
    await this.promote(endpoint.owner_id);
  }

  /** Drop an endpoint's cached results and warming (it changed, possibly on another instance). */
  invalidate(endpointId: number): void {
    this.forget(endpointId);
  }

  /** Tell the warehouse what every saved endpoint reads (at start-up: endpoints saved before, built-ins). */
  async promoteSaved(): Promise<void> {
    const owners = new Set(this.catalog.listSources().map((source) => source.owner_id));
    for (const owner of owners) await this.promote(owner);
  }

  /**
   * Let the warehouse keep typed copies of the nested fields the owner's saved endpoints read, and
   * only those (Warehouse.promote): after an endpoint changes, and after a source is created, as
   * endpoints name sources by name and one deleted may be created again. Only a speed-up: an
   * endpoint or source is saved or deleted either way, and a failure here must not undo that.
   */
  async promote(ownerId: number): Promise<void> {
    if (!this.warehouse.promote) return;
    const bySource = new Map<string, NestedReads>();
    for (const endpoint of this.catalog.listEndpoints(ownerId)) {
      for (const [name, read] of this.readsOf(endpoint)) {
        const source = this.catalog.sourceByName(ownerId, name);
        if (source) bySource.set(source.token, unionOf(bySource.get(source.token), read));
      }
    }
    for (const source of this.catalog.listSources(ownerId)) {
      const reads = bySource.get(source.token) ?? { records: [], leaves: [] };
      await this.warehouse.promote(source.token, reads).catch((error: unknown) => this.options.onPromotionFailed?.(error, source.token));
    }
  }

  stop(): void {
    this.cache.stop();
    for (const timer of this.warmers.values()) clearInterval(timer);
    this.warmers.clear();
  }

  /**
   * Translating costs milliseconds (12 ms for logs.all), so a translation is reused while the
   * endpoint is unchanged and every table it named still resolves to the same relation.
   */
  private translate(endpoint: Endpoint, consumerSql: string | undefined): Translation {
    if (isUnifiedLogsEndpoint(endpoint)) return this.translateUnifiedLogs(endpoint, consumerSql);
    const sandboxed = consumerSql !== undefined && endpoint.sandboxable;
    const epoch = this.warehouse.translationEpoch?.() ?? 0;
    const context = this.context(endpoint.owner_id);
    // LQL's SQL depends on the fields the source has (`level` may be top-level or in metadata), which grow.
    const fields = endpoint.language === 'lql' ? fieldsKey(context.sourceSchema(splitLql(endpoint.query).source)) : '';
    const key = digestKey(`${endpoint.id}\u0000${endpoint.updated_at}\u0000${endpoint.language}\u0000${epoch}\u0000${fields}\u0000${sandboxed ? consumerSql : ''}`);
    const memo = this.translations.get(key);
    const current = ([name, relation]: [string, string | undefined]) =>
      (name.startsWith(ENDPOINT_READ) ? this.version(endpoint.owner_id, name.slice(ENDPOINT_READ.length)) : context.resolveTable(name)) === relation;
    if (memo && memo.resolved.every(current)) return memo.translation;

    // What each name resolved to: a source's relation, or the version of an endpoint read as a table.
    const resolved: Array<[string, string | undefined]> = [];
    const recording: LanguageContext = {
      ...context,
      resolveTable: (name: string) => {
        const relation = context.resolveTable(name);
        resolved.push([name, relation]);
        return relation;
      },
      endpointQuery: (name: string) => {
        resolved.push([`${ENDPOINT_READ}${name}`, this.version(endpoint.owner_id, name)]);
        return context.endpointQuery?.(name);
      },
    };
    const translation = translateQuery(endpoint, sandboxed ? consumerSql : undefined, this.dialect, { ...recording, endpointName: endpoint.name });
    // The unified `logs` table spans every source, which may be added or widened at any time.
    if (resolved.some(([name]) => name.toLowerCase() === UNIFIED_LOGS_TABLE)) return translation;
    const bytes = stringBytes(translation.sql) + [...translation.parameters, ...resolved.flat()].reduce((sum, text) => sum + stringBytes(text ?? ''), 0);
    this.translations.set(key, { translation, resolved }, bytes);
    return translation;
  }

  /**
   * `logs.all.otel` and `logs` (src/endpoints/unified-logs.ts): the caller's `sql`, or the
   * endpoint's query, in ClickHouse SQL over the unified `logs` table alone, bounded by the
   * request's window. Not
   * memoised: the table spans every source, which may be added or widened at any time.
   */
  private translateUnifiedLogs(endpoint: Endpoint, consumerSql: string | undefined): Translation {
    const sql = consumerSql ?? endpoint.query;
    refuseCountStar(sql);
    // The caller writes in the endpoint's language, as for any sandboxed endpoint: Supabase's are ClickHouse SQL.
    const language = endpoint.language === 'bq_sql' ? 'bq_sql' : 'ch_sql';
    return translate(sql, this.dialect, { ...this.context(endpoint.owner_id), unifiedLogs: { only: true, window: WINDOW, refuseStar: true } }, language);
  }

  /** An endpoint's version (it changes whenever its definition does), or undefined when there is none by that name. */
  private version(ownerId: number, name: string): string | undefined {
    const read = this.catalog.endpointByName(ownerId, name);
    return read ? `${read.id}:${read.updated_at}` : undefined;
  }

  /** What the owner's queries may read: the owner's sources, and their endpoints as tables (`name`: the one being saved). */
  private context(ownerId: number, name?: string): LanguageContext {
    const sourceSchema = (source: string) => {
      const found = this.catalog.sourceByName(ownerId, source);
      return found ? this.warehouse.schema(found.token) : undefined;
    };
    return {
      ...(name === undefined ? {} : { endpointName: name }),
      endpointQuery: (table: string) => {
        const read = this.catalog.endpointByName(ownerId, table);
        if (!read) return undefined;
        if (isUnifiedLogsEndpoint(read)) throw invalidSql(`endpoint ${table} reads the unified logs table over a time window and cannot be read as a table`);
        return read.language === 'lql' ? { query: lqlToSql(read.query, sourceSchema), language: 'bq_sql' } : { query: read.query, language: read.language };
      },
      resolveTable: (name: string) => {
        const source = this.catalog.sourceByName(ownerId, name);
        return source ? this.warehouse.relation(source.token) : undefined;
      },
      tableShape: (name: string) => {
        const source = this.catalog.sourceByName(ownerId, name);
        return source ? shapeOfSource(this.warehouse.schema(source.token)) : undefined;
      },
      tableNames: () => this.catalog.listSources(ownerId).map((source) => source.name),
      sourceSchema,
    };
  }

  /** What an endpoint's query reads through UNNEST chains, by source name; kept while the endpoint is unchanged. */
  private readsOf(endpoint: Endpoint): Map<string, NestedReads> {
    const key = `${endpoint.id}\u0000${endpoint.updated_at}`;
    let reads = this.reads.get(key);
    if (!reads) {
      try {
        reads = this.readsOfQuery(endpoint);
      } catch {
        reads = new Map(); // a query another dialect accepted but this translator does not: nothing to promote
      }
      this.reads.set(key, reads);
      if (this.reads.size > MAX_MEMOS) this.reads.delete(this.reads.keys().next().value!);
    }
    return reads;
  }

  /** ClickHouse SQL is not scanned for UNNEST chains (./nested-reads.ts reads BigQuery SQL): its endpoints run without the copies. */
  private readsOfQuery(endpoint: Endpoint): Map<string, NestedReads> {
    if (endpoint.language === 'ch_sql') return new Map();
    if (endpoint.language === 'lql') return nestedReads(lqlToSql(endpoint.query, this.context(endpoint.owner_id).sourceSchema));
    return nestedReads(endpoint.query);
  }

  private scheduleWarming(endpoint: Endpoint): void {
    if (endpoint.proactive_requerying_seconds <= 0 || this.warmers.has(endpoint.id)) return;
    const ttlMs = endpoint.cache_duration_seconds * 1000;
    const timer = setInterval(() => void this.cache.warm(endpoint.id, ttlMs), endpoint.proactive_requerying_seconds * 1000);
    timer.unref();
    this.warmers.set(endpoint.id, timer);
  }

  private forget(endpointId: number): void {
    this.cache.dropEndpoint(endpointId);
    clearInterval(this.warmers.get(endpointId));
    this.warmers.delete(endpointId);
  }
}
