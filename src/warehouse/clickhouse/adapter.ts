import { createHash } from 'node:crypto';
import { createClient, ClickHouseError, ClickHouseLogLevel, type ClickHouseClient, type ClickHouseSettings } from '@clickhouse/client';
import { AppError } from '../../errors.ts';
import { conform, fieldName, mergeFields, sameType } from '../schema.ts';
import type { LogRow, QueryOptions, RecordFields, ResultRow, Warehouse } from '../types.ts';
import {
  createDatabaseSql,
  createTableSql,
  createViewSql,
  dropSourceSql,
  layoutFromColumns,
  parseTableName,
  readFields,
  readsDirectly,
  retentionSql,
  tableName,
  viewName,
  wideningSql,
  writeColumn,
  type SourceLayout,
} from './layout.ts';
import { stringifyExact } from '../exact-json.ts';
import { rowsFromCompact } from './results.ts';
import { quoteIdent } from './types.ts';

export interface ClickHouseOptions {
  /**
   * `http(s)://host:8123` for a ClickHouse server, or `chdb:<path>` (`chdb::memory:`) for the
   * engine in-process through chdb: tests and single-machine trials only (one data path per
   * process, and no other process can reach it).
   */
  url: string;
  username?: string;
  password?: string;
  database: string;
  /** How often to re-read table schemas that other instances may have widened. */
  schemaRefreshMs?: number;
  /**
   * SAWMILL_CLICKHOUSE_CLUSTER: create and alter everything ON CLUSTER, store rows in a
   * ReplicatedMergeTree table per shard behind a Distributed table (layout.ts), and acknowledge
   * an insert only once the Distributed table has written it to its shards.
   */
  cluster?: string | undefined;
}

/**
 * Settings sent with every statement. Through chdb a setting is a session-wide SET, so every
 * statement states all of them rather than relying on what the previous one left behind.
 */
const SESSION_SETTINGS = {
  session_timezone: 'UTC',
  // A server quotes 64-bit integers in JSON by default, chdb does not: state it for both.
  output_format_json_quote_64bit_integers: 1,
  // Infinity and NaN as text ("inf", "nan"), which results.ts spells as the DuckDB warehouse does.
  output_format_json_quote_denormals: 1,
  output_format_json_named_tuples_as_objects: 1,
  // BigQuery semantics the translator relies on (see sql-generator.ts).
  join_use_nulls: 1,
  prefer_column_name_to_alias: 1,
  aggregate_functions_null_for_empty: 1,
  // ROLLUP, CUBE and GROUPING SETS leave NULL (not the type's default) where a key is aggregated away.
  group_by_use_nulls: 1,
  cast_keep_nullable: 1,
  cast_string_to_date_time_mode: 'best_effort',
  date_time_input_format: 'best_effort',
  formatdatetime_parsedatetime_m_is_month_name: 0,
  // toStartOfMonth and the like keep Date32 and DateTime64, so dates before 1970 survive them.
  enable_extended_results_for_datetime_functions: 1,
  function_json_value_return_type_allow_nullable: 1,
  enable_positional_arguments: 1,
  enable_named_columns_in_function_tuple: 1,
  // Works around a 26.7 failure zipping subcolumns of one array in ARRAY JOIN (array-join.ts).
  enable_unaligned_array_join: 1,
  max_execution_time: 0,
  max_result_rows: 0,
  result_overflow_mode: 'throw',
} as const;

const TIMEOUT_EXCEEDED = 159;
/** Parse and conversion failures: reported like DuckDB's "Could not convert". */
const CONVERSION_ERRORS = new Set([6, 27, 32, 38, 41, 69, 70, 72, 321]);

export class ClickHouseWarehouse implements Warehouse {
  readonly engine = 'clickhouse';
  private readonly layouts = new Map<string, SourceLayout>();
  private readonly retention = new Map<string, number | null>();
  private schemaTimer: NodeJS.Timeout | undefined;
  /** DDL of one source at a time in this process; other instances are handled by idempotent DDL. */
  private ddlChain: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly client: ClickHouseClient,
    private readonly database: string,
    /** In-process chdb, whose output buffer needs clearing after a failed query. */
    private readonly inProcess: boolean,
    private readonly cluster: string | undefined,
  ) {}

  /** What every DDL statement of layout.ts needs. */
  private get ddlOptions() {
    return { database: this.database, cluster: this.cluster };
  }

  static async open(options: ClickHouseOptions): Promise<ClickHouseWarehouse> {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(options.database)) throw new Error(`invalid ClickHouse database name "${options.database}"`);
    const client = await connect(options);
    const warehouse = new ClickHouseWarehouse(client, options.database, options.url.startsWith('chdb:'), options.cluster || undefined);
    await warehouse.command(createDatabaseSql(options.database, warehouse.cluster));
    await warehouse.refreshAll();
    const refreshMs = options.schemaRefreshMs ?? 10_000;
    if (refreshMs > 0) {
      warehouse.schemaTimer = setInterval(() => void warehouse.refreshAll().catch(() => undefined), refreshMs);
      warehouse.schemaTimer.unref();
    }
    return warehouse;
  }

  schema(sourceId: string): RecordFields {
    const layout = this.layouts.get(viewName(sourceId));
    return layout ? readFields(layout) : new Map();
  }

  /**
   * The table itself while its columns are the view's (subcolumn reads work only on a table, see
   * readsDirectly), else the view. queryCompact re-checks a table read this way after the query.
   */
  relation(sourceId: string): string {
    const view = viewName(sourceId);
    const layout = this.layouts.get(view);
    return this.qualified(layout && readsDirectly(layout) ? layout.table : view);
  }

  private qualified(name: string): string {
    return `${quoteIdent(this.database)}.${quoteIdent(name)}`;
  }

  createSource(sourceId: string): Promise<void> {
    return this.ddl(async () => {
      const view = viewName(sourceId);
      if (this.layouts.has(view)) return;
      const layout: SourceLayout = { view, table: tableName(view), fields: new Map() };
      for (const statement of createTableSql(layout, { ...this.ddlOptions, retentionDays: this.retention.get(view) ?? null })) await this.command(statement);
      await this.refresh(view);
      await this.command(createViewSql(this.layouts.get(view)!, this.ddlOptions));
    });
  }

  /** Keep a source's events `days` days (null: forever), by TTL; expired days are dropped whole. */
  setRetention(sourceId: string, days: number | null): Promise<void> {
    return this.ddl(async () => {
      const view = viewName(sourceId);
      this.retention.set(view, days);
      const layout = this.layouts.get(view);
      if (!layout) return;
      await this.command(retentionSql(layout, this.ddlOptions, days)).catch((error: unknown) => {
        // REMOVE TTL on a table that never had one is not an error worth failing a request for.
        if (days !== null) throw error;
      });
    });
  }

  dropSource(sourceId: string): Promise<void> {
    return this.ddl(async () => {
      const view = viewName(sourceId);
      for (const statement of dropSourceSql(view, this.ddlOptions)) await this.command(statement);
      this.layouts.delete(view);
    });
  }

  /**
   * One insert per source, acknowledged by ClickHouse before this resolves: async inserts that
   * wait for the flush (the server batches small inserts from many instances into one part).
   * ClickHouse has no transaction across tables; each insert carries a deduplication token made
   * from its rows, so the writer's retry of a partly failed commit does not store a source twice.
   */
  async append(batches: ReadonlyArray<{ sourceId: string; schema: RecordFields; rows: LogRow[] }>): Promise<void> {
    // Every DDL first: a commit that cannot widen a table fails before any source is inserted.
    const layouts: SourceLayout[] = [];
    for (const batch of batches) layouts.push(await this.widen(batch.sourceId, batch.schema));
    for (const [index, batch] of batches.entries()) {
      const layout = layouts[index]!;
      if (batch.rows.length === 0) continue;
      const records = this.encode(layout, batch.rows);
      const token = createHash('sha256').update(layout.table);
      for (const record of records) token.update(JSON.stringify(record)).update('\n');
      await this.client.insert({
        table: `${quoteIdent(this.database)}.${quoteIdent(layout.table)}`,
        values: records,
        format: 'JSONEachRow',
        clickhouse_settings: {
          ...this.settings(),
          async_insert: 1,
          wait_for_async_insert: 1,
          async_insert_deduplicate: 1,
          insert_deduplicate: 1,
          insert_deduplication_token: token.digest('hex'),
          // A Distributed table otherwise queues the rows on this node and answers at once.
          ...(this.cluster ? { distributed_foreground_insert: 1 } : {}),
        },
      });
    }
  }

  async query(sql: string, params: Record<string, string | null>, options: QueryOptions): Promise<ResultRow[]> {
    return rowsFromCompact(await this.queryCompact(sql, params, options)).slice(0, options.maxRows) as ResultRow[];
  }

  /** The reply's JSON text, integers beyond 2^53 exact. */
  async queryJson(sql: string, params: Record<string, string | null>, options: QueryOptions): Promise<string> {
    return stringifyExact(rowsFromCompact(await this.queryCompact(sql, params, options), true).slice(0, options.maxRows));
  }

  /** The raw result: column names, ClickHouse types, then one value array per row. */
  async queryCompact(sql: string, params: Record<string, string | null>, options: QueryOptions): Promise<unknown[][]> {
    const tables = this.tablesReadDirectly(sql);
    const rows = await this.runQuery(sql, params, options);
    if (tables.length === 0) return rows;
    // Another instance may have added a generation since the SQL was translated; its rows would
    // read as empty from the table. Columns are only added, so "still direct" means "direct
    // throughout". Otherwise the same SQL reads the views, which have the same columns.
    await Promise.all(tables.map((layout) => this.refresh(layout.view)));
    const changed = tables.filter((layout) => !this.layouts.get(layout.view) || !readsDirectly(this.layouts.get(layout.view)!));
    if (changed.length === 0) return rows;
    const throughViews = changed.reduce((text, layout) => text.replaceAll(this.qualified(layout.table), this.qualified(layout.view)), sql);
    return this.runQuery(throughViews, params, options);
  }

  private tablesReadDirectly(sql: string): SourceLayout[] {
    return [...this.layouts.values()].filter((layout) => sql.includes(this.qualified(layout.table)));
  }

  private async runQuery(sql: string, params: Record<string, string | null>, options: QueryOptions): Promise<unknown[][]> {
    try {
      const result = await this.client.query({
        query: sql,
        format: 'JSONCompactEachRowWithNamesAndTypes',
        query_params: params,
        abort_signal: AbortSignal.timeout(options.timeoutMs + 2000),
        clickhouse_settings: {
          ...this.settings(),
          max_execution_time: Math.max(options.timeoutMs / 1000, 0.001),
          timeout_overflow_mode: 'throw',
          // Stop producing rows past the limit (the result may still hold a block more).
          max_result_rows: String(options.maxRows),
          result_overflow_mode: 'break',
        },
      });
      return (await result.json()) as unknown as unknown[][];
    } catch (error) {
      if (this.inProcess) await this.clearChdbOutput();
      throw queryError(error, options.timeoutMs);
    }
  }

  /**
   * chdb 3.4 keeps what a query wrote before it failed at run time (its header, say) and hands it
   * to the next query as part of that query's result. A throwaway query takes it instead.
   */
  private async clearChdbOutput(): Promise<void> {
    await this.client
      .query({ query: 'SELECT 1', format: 'JSONCompactEachRowWithNamesAndTypes', clickhouse_settings: this.settings() })
      .then((result) => result.text())
      .catch(() => undefined);
  }

  async close(): Promise<void> {
    clearInterval(this.schemaTimer);
    await this.ddlChain.catch(() => undefined);
    await this.client.close();
  }

  // ---- schema ------------------------------------------------------------------------------

  /**
   * Make the source's table hold `schema`: ADD COLUMN for new fields and new generations
   * (metadata-only), then the view. Re-reads the columns first and after, because another
   * instance may have widened the same table meanwhile.
   */
  private widen(sourceId: string, schema: RecordFields): Promise<SourceLayout> {
    const view = viewName(sourceId);
    const known = this.layouts.get(view);
    if (known && covers(known, schema)) return Promise.resolve(known);
    return this.ddl(async () => {
      let layout = (await this.refresh(view)) ?? (await this.createMissing(view));
      for (let attempt = 0; attempt < 5 && !covers(layout, schema); attempt++) {
        const target = mergeFields(readFields(layout), schema);
        for (const statement of wideningSql(layout, this.ddlOptions, target)) await this.command(statement);
        layout = (await this.refresh(view))!;
        await this.command(createViewSql(layout, this.ddlOptions));
      }
      if (!covers(layout, schema)) throw new Error(`could not widen ${view}`);
      return layout;
    });
  }

  /** A source created by another instance (or before a crash) gets its table here. */
  private async createMissing(view: string): Promise<SourceLayout> {
    const layout: SourceLayout = { view, table: tableName(view), fields: new Map() };
    for (const statement of createTableSql(layout, { ...this.ddlOptions, retentionDays: this.retention.get(view) ?? null })) await this.command(statement);
    const created = (await this.refresh(view))!;
    await this.command(createViewSql(created, this.ddlOptions));
    return created;
  }

  private async refresh(view: string): Promise<SourceLayout | undefined> {
    const columns = await this.select<{ name: string; type: string }>(
      `SELECT name, type FROM system.columns WHERE database = {database:String} AND table = {table:String} ORDER BY position`,
      { database: this.database, table: tableName(view) },
    );
    if (columns.length === 0) {
      this.layouts.delete(view);
      return undefined;
    }
    const layout = layoutFromColumns(view, columns);
    this.layouts.set(view, layout);
    return layout;
  }

  private async refreshAll(): Promise<void> {
    const columns = await this.select<{ table: string; name: string; type: string }>(
      `SELECT table, name, type FROM system.columns WHERE database = {database:String} AND table LIKE 'src\\_%\\_data' ORDER BY table, position`,
      { database: this.database },
    );
    const byView = new Map<string, Array<{ name: string; type: string }>>();
    for (const column of columns) {
      const view = parseTableName(column.table);
      if (!view) continue;
      const list = byView.get(view) ?? [];
      list.push(column);
      byView.set(view, list);
    }
    for (const [view, list] of byView) this.layouts.set(view, layoutFromColumns(view, list));
    for (const view of [...this.layouts.keys()]) if (!byView.has(view)) this.layouts.delete(view);
  }

  private encode(layout: SourceLayout, rows: LogRow[]): Record<string, unknown>[] {
    const targets = new Map([...layout.fields].map(([name, field]) => [name, { type: field.type, column: writeColumn(field)! }]));
    return rows.map((row) => {
      const record: Record<string, unknown> = { id: row.id, timestamp: row.timestamp, event_message: row.event_message };
      for (const [key, value] of Object.entries(row.fields)) {
        const target = targets.get(fieldName(layout.fields as unknown as RecordFields, key));
        if (target) record[target.column] = conform(value, target.type);
      }
      return record;
    });
  }

  // ---- plumbing ----------------------------------------------------------------------------

  private settings(): ClickHouseSettings {
    return { ...SESSION_SETTINGS } as unknown as ClickHouseSettings;
  }

  private async command(sql: string): Promise<void> {
    await this.client.command({ query: sql, clickhouse_settings: { ...this.settings(), alter_sync: '2' } });
  }

  private async select<T>(sql: string, params: Record<string, string>): Promise<T[]> {
    const result = await this.client.query({ query: sql, format: 'JSONEachRow', query_params: params, clickhouse_settings: this.settings() });
    return (await result.json()) as T[];
  }

  private ddl<T>(work: () => Promise<T>): Promise<T> {
    const result = this.ddlChain.then(work);
    this.ddlChain = result.catch(() => undefined);
    return result;
  }
}

/** True when every field of `schema` is readable and writable in `layout` with its type. */
function covers(layout: SourceLayout, schema: RecordFields): boolean {
  for (const [name, type] of schema) {
    const field = layout.fields.get(fieldName(new Map([...layout.fields].map(([key, value]) => [key, value.type])), name));
    if (!field || !writeColumn(field)) return false;
    if (!sameType(mergeFields(new Map([[name, field.type]]), new Map([[name, type]])).get(name)!, field.type)) return false;
  }
  return true;
}

async function connect(options: ClickHouseOptions): Promise<ClickHouseClient> {
  if (options.url.startsWith('chdb:')) {
    // Loaded only when asked for: the engine library is large and only tests need it in-process.
    const { createChdbConnection } = (await import('chdb/connection')) as typeof import('chdb/connection');
    return createClient({ connection: createChdbConnection({ path: options.url.slice('chdb:'.length) || ':memory:' }) } as Parameters<typeof createClient>[0]);
  }
  return createClient({
    url: options.url,
    ...(options.username ? { username: options.username } : {}),
    ...(options.password ? { password: options.password } : {}),
    database: options.database,
    request_timeout: 300_000,
    // The client's own log is plain text outside Sawmill's log format: a warning about this timeout
    // at every start, and each failed request dumped with its settings. Every error it would log
    // reaches Sawmill as a rejection, which says it once, in its own log or in the CLI's one line.
    log: { level: ClickHouseLogLevel.OFF },
  });
}

function queryError(error: unknown, timeoutMs: number): AppError {
  if (error instanceof AppError) return error;
  // Duck-typed: chdb's connection raises the ClickHouseError of its own copy of client-common.
  const rawCode = error instanceof ClickHouseError || (error instanceof Error && 'code' in error) ? (error as { code: unknown }).code : undefined;
  const code = rawCode === undefined || rawCode === null || rawCode === '' ? undefined : Number(rawCode);
  const aborted = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
  if (code === TIMEOUT_EXCEEDED || aborted) return new AppError(504, 'query_timeout', `query cancelled after ${timeoutMs} ms`);
  const message = clickhouseMessage(error);
  if (code !== undefined && CONVERSION_ERRORS.has(code)) return new AppError(400, 'query_failed', `Could not convert: ${message}`);
  return new AppError(400, 'query_failed', message);
}

/** The first line of ClickHouse's message, without the echo of the whole query. */
function clickhouseMessage(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n')[0]!.replace(/:? In scope .*$/s, '').replace(/\s*\(version [^)]*\)\s*$/, '').trim();
}
