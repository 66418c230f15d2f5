/**
 * `sawmill migrate-to-clickhouse`: copies the events of a stopped DuckDB data dir into ClickHouse
 * (docs/scale-out.md), through the same ClickHouse warehouse code live ingestion uses, so the
 * tables are created and widened exactly as they would be for new traffic. A source's table is
 * named after its token, so the catalog in the data dir (or one copied from it) finds them.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { FileCatalog } from '../catalog/file-catalog.ts';
import type { Source } from '../catalog/types.ts';
import { loadConfig, type Config } from '../config.ts';
import { openDataDir } from '../data-format.ts';
import { Journal, type JournalRecord } from '../pipeline/journal.ts';
import { startupMessage } from '../startup.ts';
import { tableName, viewName } from '../warehouse/clickhouse/layout.ts';
import { openClickHouse } from '../warehouse/clickhouse/open.ts';
import { openDuckDb } from '../warehouse/duckdb/open.ts';
import { planRows } from '../warehouse/schema.ts';
import { rowsOfStaged } from '../warehouse/staged-rows.ts';
import type { JsonValue, LogRow, ResultRow, Warehouse } from '../warehouse/types.ts';
import { CliError } from './client.ts';
import type { CommandContext } from './main.ts';

/** Events read from DuckDB and inserted into ClickHouse at a time. */
export const PAGE_EVENTS = 10_000;
const READ_OPTIONS = { timeoutMs: 600_000, maxRows: Number.MAX_SAFE_INTEGER };

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** `2026-11-20T10:00:00.250001Z`: microseconds since the epoch as text DuckDB casts exactly. */
export function isoMicros(micros: number): string {
  const seconds = Math.floor(micros / 1_000_000);
  const fraction = String(micros - seconds * 1_000_000).padStart(6, '0');
  return `${new Date(seconds * 1000).toISOString().slice(0, 19)}.${fraction}Z`;
}

/** A stored value without its NULLs (query results carry a NULL for every field a record lacks). */
function withoutNulls(value: unknown): JsonValue | undefined {
  if (value === null || value === undefined) return undefined;
  if (Array.isArray(value)) return value.map(withoutNulls).filter((item): item is JsonValue => item !== undefined);
  if (typeof value === 'object') {
    const out: { [key: string]: JsonValue } = {};
    for (const [key, item] of Object.entries(value)) {
      const kept = withoutNulls(item);
      if (kept !== undefined) out[key] = kept;
    }
    return out;
  }
  return value as JsonValue;
}

function logRow(row: ResultRow, fields: readonly string[]): LogRow {
  const out: LogRow = { id: String(row.id), timestamp: Number(row.timestamp), event_message: String(row.event_message ?? ''), fields: {} };
  for (const name of fields) {
    const value = withoutNulls(row[name]);
    if (value !== undefined) out.fields[name] = value;
  }
  return out;
}

/**
 * A source's stored events, oldest first, a page at a time. Pages end where the time changes
 * (every event of the last time read is in the page), so no event is read twice or skipped
 * whatever the ids are: events of one request share a time, and ids may repeat.
 */
async function* storedPages(duckdb: Warehouse, source: Source): AsyncGenerator<LogRow[]> {
  const fields = [...duckdb.schema(source.token).keys()];
  const columns = ['id', 'timestamp', 'event_message', ...fields].map(quote).join(', ');
  const relation = duckdb.relation(source.token);
  const read = async (where: string, params: Record<string, string>, limit = '') =>
    (await duckdb.query(`select ${columns} from ${relation} ${where} order by "timestamp", "id"${limit}`, params, READ_OPTIONS)).map((row) => logRow(row, fields));
  let after: string | undefined;
  for (;;) {
    const page = await read(after === undefined ? '' : 'where "timestamp" > $after::TIMESTAMPTZ', after === undefined ? {} : { after }, ` limit ${PAGE_EVENTS}`);
    if (page.length === 0) return;
    const last = page.at(-1)!.timestamp;
    after = isoMicros(last);
    if (page.length < PAGE_EVENTS) {
      yield page;
      return;
    }
    // The page may have cut the last time's events in two: take that time's events whole.
    yield [...page.filter((row) => row.timestamp < last), ...(await read('where "timestamp" = $after::TIMESTAMPTZ', { after }))];
  }
}

/**
 * Events acknowledged but not yet folded into the DuckDB file (a Sawmill that did not stop
 * cleanly leaves them in its journal), by source.
 */
async function unfoldedEvents(dataDir: string, duckdb: Warehouse): Promise<Map<string, LogRow[]>> {
  const bySource = new Map<string, LogRow[]>();
  const journalDir = join(dataDir, 'journal');
  if (!existsSync(journalDir) || !duckdb.committedPosition) return bySource;
  const { journal, unfolded } = await Journal.open(journalDir, await duckdb.committedPosition());
  await journal.close();
  for (const record of unfolded as JournalRecord[]) {
    const rows = [...record.rows, ...(record.staged ? rowsOfStaged(record.staged) : [])];
    bySource.set(record.sourceId, [...(bySource.get(record.sourceId) ?? []), ...rows]);
  }
  return bySource;
}

function chosenSources(catalog: FileCatalog, wanted: string[]): Source[] {
  const sources = catalog.listSources();
  if (wanted.length === 0) return sources;
  return wanted.map((name) => {
    const source = sources.find((item) => item.name === name || item.token === name.toLowerCase());
    if (!source) throw new CliError(`no source "${name}" in this data dir (sawmill sources list shows them while the service runs)`);
    return source;
  });
}

const count = (value: number) => value.toLocaleString('en-US');

export async function migrateCommand({ values, out, err }: Pick<CommandContext, 'values' | 'out' | 'err'>): Promise<void> {
  const dataDir = resolve(typeof values['data-dir'] === 'string' ? values['data-dir'] : process.env.SAWMILL_DATA_DIR || './data');
  if (!existsSync(join(dataDir, 'sawmill.duckdb'))) throw new CliError(`no DuckDB data dir at ${dataDir} (no sawmill.duckdb): pass --data-dir or set SAWMILL_DATA_DIR`);
  if (!existsSync(join(dataDir, 'catalog.json'))) throw new CliError(`no catalog.json in ${dataDir}: this command reads the sources of a data dir with its own catalog`);
  const config: Config = { ...loadConfig(process.env), dataDir, logLevel: 'silent' };

  let duckdb: Warehouse | undefined;
  let clickhouse: Warehouse | undefined;
  try {
    await openDataDir(dataDir);
    const catalog = await FileCatalog.open(dataDir);
    const sources = chosenSources(catalog, (values.source as string[] | undefined) ?? []);
    // Fails while a Sawmill runs on the data dir: DuckDB lets one process have the file.
    duckdb = (await openDuckDb(config, { log: { warn: err } })).warehouse;
    const unfolded = await unfoldedEvents(dataDir, duckdb);
    clickhouse = (await openClickHouse(config)).warehouse;
    const { database } = config.clickhouse;
    out(`copying into ClickHouse database ${database}: each source's events go to the table src_<its token without dashes>_data`);
    let total = 0;
    for (const source of sources) {
      await clickhouse.createSource(source.token);
      if (source.retention_days !== null) await clickhouse.setRetention?.(source.token, source.retention_days);
      let copied = 0;
      const store = async (rows: LogRow[]) => {
        const planned = planRows(clickhouse!.schema(source.token), rows, { maxFields: config.maxFieldsPerSource });
        await clickhouse!.append([{ sourceId: source.token, schema: planned.schema, rows: planned.rows }]);
        copied += rows.length;
        if (copied % 100_000 < rows.length) err(`${source.name}: ${count(copied)} events…`);
      };
      for await (const page of storedPages(duckdb, source)) await store(page);
      const journaled = unfolded.get(source.token) ?? [];
      for (let start = 0; start < journaled.length; start += PAGE_EVENTS) await store(journaled.slice(start, start + PAGE_EVENTS));
      total += copied;
      out(`${source.name}: ${count(copied)} events -> ${database}.${tableName(viewName(source.token))}`);
    }
    out(
      `copied ${count(total)} events of ${sources.length} source${sources.length === 1 ? '' : 's'}. ` +
        `Start Sawmill on ${dataDir} with SAWMILL_WAREHOUSE=clickhouse and the same SAWMILL_CLICKHOUSE_* settings; the DuckDB file stays as it was.`,
    );
  } catch (error) {
    if (error instanceof CliError) throw error;
    // DuckDB's lock (another Sawmill runs on the data dir) and the data dir's format are worded for people there.
    throw new CliError(startupMessage(error, { dataDir, host: '', port: 0 }).replace(/^could not start: /, 'migration stopped: '));
  } finally {
    await duckdb?.close();
    await clickhouse?.close();
  }
}
