/**
 * The ClickHouse path measured on chdb 26.7 in-process (issue 8), beside the DuckDB suite in
 * run.ts. Standalone: `node --import tsx bench/clickhouse.ts [--events=200000] [--batch=10000]`.
 *
 * Same generated edge events (bench/generator.ts) in two layouts:
 * - typed: Sawmill's own layout and write path (ClickHouseWarehouse.append: repeated records as
 *   Array(named Tuple), ZSTD, day partitions), queried through the translator: as printed today
 *   (leaf-subcolumn ARRAY JOINs, reading the table itself), and, in the same run, as printed before
 *   (whole-record ARRAY JOINs through the view) and leaf subcolumns through the view (what a source
 *   whose fields have several generations gets);
 * - json:  the event's fields in one `JSON` column (ClickHouse's dynamic JSON type), queried by
 *   hand-written ClickHouse SQL.
 * Reports ingest rate, compressed bytes per event (after OPTIMIZE FINAL), and the median of five
 * warm runs of Q1 (hourly stats with p95 and an error count for the largest project over the
 * last 7 days, usage.api-counts' shape) and Q2 (a full scan: per-project count and p99).
 * Writes bench/results/<timestamp>-clickhouse.json. Never part of CI.
 */

import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@clickhouse/client';
import { createChdbConnection } from 'chdb/connection';
import { translate } from '../src/sql/index.ts';
import { schemaForRows } from '../src/warehouse/schema.ts';
import { ClickHouseWarehouse } from '../src/warehouse/clickhouse/adapter.ts';
import { clickhouseDialect, wholeRecordDialect } from '../src/warehouse/clickhouse/sql-generator.ts';
import type { SqlDialect } from '../src/sql/index.ts';
import type { JsonValue, LogRow } from '../src/warehouse/types.ts';
import { EventGenerator } from './generator.ts';

const option = (name: string, fallback: number) => Number(process.argv.find((arg) => arg.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const EVENTS = option('events', 200_000);
const BATCH = option('batch', 10_000);
const DAY = 86_400_000;
const now = Date.now();

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await work();
  return { ms: performance.now() - start, value };
}

const generator = new EventGenerator({ seed: 8, fromMs: now - 14 * DAY, toMs: now });
const events = Array.from({ length: EVENTS }, (_, index) => generator.event('edge', index, EVENTS));
const project = generator.topProject().ref;
const rows: LogRow[] = events.map((event, index) => {
  const { id, timestamp, event_message, ...fields } = event as Record<string, JsonValue>;
  return { id: String(id ?? `e${index}`), timestamp: Date.parse(String(timestamp)) * 1000, event_message: String(event_message ?? ''), fields: fields as LogRow['fields'] };
});
const rawBytes = events.reduce((sum, event) => sum + JSON.stringify(event).length, 0) / EVENTS;

const dir = mkdtempSync(join(tmpdir(), 'sawmill-bench-ch-'));
const warehouse = await ClickHouseWarehouse.open({ url: `chdb:${dir}`, database: 'bench', schemaRefreshMs: 0 });
const client = createClient({ connection: createChdbConnection({ path: dir }) } as Parameters<typeof createClient>[0]);
const settings = { session_timezone: 'UTC', output_format_json_quote_64bit_integers: 1, max_result_rows: '0', result_overflow_mode: 'throw', max_execution_time: 0 } as const;
const scalar = async (sql: string) => ((await (await client.query({ query: sql, format: 'JSONEachRow', clickhouse_settings: settings as never })).json()) as Record<string, unknown>[])[0]!;
const storedBytes = async (table: string) =>
  Number((await scalar(`SELECT sum(data_compressed_bytes) AS b FROM system.parts WHERE database = 'bench' AND table = '${table}' AND active`)).b);

// ---- typed (Sawmill's layout, through the adapter) ----
const sourceId = '00000000-0000-4000-8000-0000000000b1';
await warehouse.createSource(sourceId);
const typedIngest = await timed(async () => {
  for (let start = 0; start < rows.length; start += BATCH) {
    const batch = rows.slice(start, start + BATCH);
    await warehouse.append([{ sourceId, schema: schemaForRows(warehouse.schema(sourceId), batch), rows: batch }]);
  }
});
const typedTable = warehouse.relation(sourceId).split('.')[1]!.replaceAll('`', '').replace(/(_data)?$/, '_data');
await client.command({ query: `OPTIMIZE TABLE bench.\`${typedTable}\` FINAL`, clickhouse_settings: settings as never });
const resolveTable = () => warehouse.relation(sourceId);
const viewRelation = warehouse.relation(sourceId).replace(/_data`$/, '`');
const Q1 = `select timestamp_trunc(t.timestamp, hour) as hour, count(*) as n, min(r.origin_time) as mn, max(r.origin_time) as mx, avg(r.origin_time) as av,
     approx_quantiles(r.origin_time, 100)[offset(95)] as p95, countif(r.status_code >= 400) as errors
   from \`edge\` t cross join unnest(t.metadata) m cross join unnest(m.response) r
   where t.project = @project and t.timestamp > timestamp_sub(current_timestamp(), interval 7 day)
   group by hour order by hour`;
const Q2 = `select t.project, count(*) as n, approx_quantiles(r.origin_time, 100)[offset(99)] as p99
   from \`edge\` t cross join unnest(t.metadata) m cross join unnest(m.response) r group by 1 order by n desc limit 10`;
const translated = (sql: string, dialect: SqlDialect, relation: () => string) => translate(sql, dialect, { resolveTable: relation }).sql;
const runTyped = async (sql: string) => {
  const times: number[] = [];
  let count = 0;
  for (let i = 0; i < 6; i++) {
    const run = await timed(() => warehouse.query(sql, { project }, { timeoutMs: 120_000, maxRows: 100_000 }));
    if (i > 0) times.push(run.ms);
    count = run.value.length;
  }
  return { ms: median(times), rows: count };
};
const typed = {
  ingestEventsPerSecond: Math.round(EVENTS / (typedIngest.ms / 1000)),
  bytesPerEvent: (await storedBytes(typedTable)) / EVENTS,
  q1: await runTyped(translated(Q1, clickhouseDialect, resolveTable)),
  q2: await runTyped(translated(Q2, clickhouseDialect, resolveTable)),
  // The same queries as the generator printed them before leaf-subcolumn ARRAY JOINs.
  q1WholeRecords: await runTyped(translated(Q1, wholeRecordDialect, () => viewRelation)),
  q2WholeRecords: await runTyped(translated(Q2, wholeRecordDialect, () => viewRelation)),
  // Leaf subcolumns through the view: ClickHouse 26.7 reads whole columns through a view.
  q1LeavesThroughView: await runTyped(translated(Q1, clickhouseDialect, () => viewRelation)),
  q2LeavesThroughView: await runTyped(translated(Q2, clickhouseDialect, () => viewRelation)),
  // The same Q1 by hand, ARRAY JOINing only the record subcolumn it reads (metadata.response)
  // instead of whole records: what a subcolumn-pruning generator would print.
  q1Subcolumns: await runTyped(
    `SELECT toStartOfHour(timestamp) AS hour, count() AS n, min(r.origin_time), max(r.origin_time), avg(r.origin_time), quantile(0.95)(r.origin_time),
       countIf(r.status_code >= 400) FROM bench.\`${typedTable}\` ARRAY JOIN metadata.response AS responses ARRAY JOIN responses AS r
     WHERE project = {project:Nullable(String)} AND timestamp > now64(6, 'UTC') - INTERVAL 7 DAY GROUP BY hour ORDER BY hour`,
  ),
};

// ---- json (one dynamic JSON column) ----
await client.command({
  query: `CREATE TABLE bench.json_events (id String CODEC(ZSTD(1)), timestamp DateTime64(6, 'UTC') CODEC(Delta(8), ZSTD(1)), event_message String CODEC(ZSTD(1)), project LowCardinality(String), metadata JSON CODEC(ZSTD(1)))
          ENGINE = MergeTree PARTITION BY toDate(timestamp) ORDER BY timestamp`,
  clickhouse_settings: settings as never,
});
const jsonIngest = await timed(async () => {
  for (let start = 0; start < rows.length; start += BATCH) {
    const values = rows.slice(start, start + BATCH).map((row) => ({ id: row.id, timestamp: row.timestamp, event_message: row.event_message, project: row.fields.project ?? '', metadata: row.fields.metadata ?? {} }));
    await client.insert({ table: 'bench.json_events', values, format: 'JSONEachRow', clickhouse_settings: { ...settings, async_insert: 1, wait_for_async_insert: 1 } as never });
  }
});
await client.command({ query: 'OPTIMIZE TABLE bench.json_events FINAL', clickhouse_settings: settings as never });
const runJson = async (sql: string) => {
  const times: number[] = [];
  let count = 0;
  for (let i = 0; i < 6; i++) {
    const run = await timed(async () => (await client.query({ query: sql, format: 'JSONEachRow', query_params: { project }, clickhouse_settings: settings as never })).json());
    if (i > 0) times.push(run.ms);
    count = (run.value as unknown[]).length;
  }
  return { ms: median(times), rows: count };
};
const origin = 'metadata.response.origin_time::Nullable(Int64)';
const json = {
  ingestEventsPerSecond: Math.round(EVENTS / (jsonIngest.ms / 1000)),
  bytesPerEvent: (await storedBytes('json_events')) / EVENTS,
  q1: await runJson(
    `SELECT toStartOfHour(timestamp) AS hour, count() AS n, min(${origin}), max(${origin}), avg(${origin}), quantile(0.95)(${origin}),
       countIf(metadata.response.status_code::Nullable(Int64) >= 400) FROM bench.json_events
     WHERE project = {project:String} AND timestamp > now64(6, 'UTC') - INTERVAL 7 DAY GROUP BY hour ORDER BY hour`,
  ),
  q2: await runJson(`SELECT project, count() AS n, quantile(0.99)(${origin}) FROM bench.json_events GROUP BY project ORDER BY n DESC LIMIT 10`),
};

const result = { at: new Date().toISOString(), engine: 'chdb 26.7 (in-process)', events: EVENTS, batch: BATCH, rawJsonBytesPerEvent: rawBytes, typed, json };
console.log(JSON.stringify(result, null, 2));
console.table({
  'typed, before (whole records, view)': { 'Q1 ms': typed.q1WholeRecords.ms.toFixed(1), 'Q2 ms': typed.q2WholeRecords.ms.toFixed(1) },
  'typed, leaf subcolumns through the view': { 'Q1 ms': typed.q1LeavesThroughView.ms.toFixed(1), 'Q2 ms': typed.q2LeavesThroughView.ms.toFixed(1) },
  typed: { 'ingest ev/s': typed.ingestEventsPerSecond, 'B/event': typed.bytesPerEvent.toFixed(1), 'Q1 ms': typed.q1.ms.toFixed(1), 'Q2 ms': typed.q2.ms.toFixed(1) },
  'typed, subcolumns (hand SQL)': { 'Q1 ms': typed.q1Subcolumns.ms.toFixed(1) },
  json: { 'ingest ev/s': json.ingestEventsPerSecond, 'B/event': json.bytesPerEvent.toFixed(1), 'Q1 ms': json.q1.ms.toFixed(1), 'Q2 ms': json.q2.ms.toFixed(1) },
});
mkdirSync(join(import.meta.dirname, 'results'), { recursive: true });
writeFileSync(join(import.meta.dirname, 'results', `${result.at.replaceAll(':', '-')}-clickhouse.json`), `${JSON.stringify(result, null, 2)}\n`);

await client.close();
await warehouse.close();
rmSync(dir, { recursive: true, force: true });
