/**
 * What one `log_attributes` key costs (issue 21): the unified `logs` table reads a key from the
 * typed field it names (src/sql/unified-logs.ts), so `log_attributes['request.method']` should
 * cost what reading `metadata.request.method` from the source directly costs. Measured on both
 * warehouses over the same generated edge events (bench/generator.ts), written through each
 * adapter's own append path:
 *
 * - typed: BigQuery SQL over the source, `cross join unnest(t.metadata) m cross join unnest(m.request) r`,
 *   grouped by `r.method`;
 * - attribute: ClickHouse SQL over `logs`, grouped by `log_attributes['request.method']`.
 *
 * Both answer the same rows (checked). Reports the median of five warm runs of each and their
 * ratio; the target is attribute ≤ 1.5 × typed. Run by `npm run bench` after the other stages
 * (1M events; 200k with --quick; skipped with --no-log-attributes). Standalone:
 *   node --import tsx bench/log-attributes.ts [--events=1000000] [--engines=duckdb,clickhouse]
 * Writes bench/results/<timestamp>-log-attributes.json. Never part of CI.
 */

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { shapeOfSource, translate, type SqlDialect, type TranslateContext } from '../src/sql/index.ts';
import { ClickHouseWarehouse } from '../src/warehouse/clickhouse/adapter.ts';
import { clickhouseDialect } from '../src/warehouse/clickhouse/sql-generator.ts';
import { DuckDbWarehouse } from '../src/warehouse/duckdb/adapter.ts';
import { duckdbDialect } from '../src/warehouse/duckdb/sql-generator.ts';
import { schemaForRows } from '../src/warehouse/schema.ts';
import type { JsonValue, LogRow, Warehouse } from '../src/warehouse/types.ts';
import { EventGenerator } from './generator.ts';

const option = (name: string) => process.argv.find((arg) => arg.startsWith(`--${name}=`))?.split('=')[1];
const EVENTS = Number(option('events') ?? 1_000_000);
const ENGINES = (option('engines') ?? 'duckdb,clickhouse').split(',');
const BATCH = 20_000;
const RUNS = 6;
const DAY = 86_400_000;
const SOURCE = 'cloudflare.logs.prod';
const SOURCE_ID = '00000000-0000-4000-8000-0000000000a7';

const TYPED = `select r.method as method, count(*) as n
from \`${SOURCE}\` as t
cross join unnest(t.metadata) as m
cross join unnest(m.request) as r
group by method
order by method`;
const ATTRIBUTE = `select log_attributes['request.method'] as method, count() as n
from logs
where source = 'edge_logs'
group by method
order by method`;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

function generatedRows(): LogRow[] {
  const now = Date.now();
  const generator = new EventGenerator({ seed: 21, fromMs: now - 14 * DAY, toMs: now });
  return Array.from({ length: EVENTS }, (_, index) => {
    const { id, timestamp, event_message, ...fields } = generator.event('edge', index, EVENTS) as Record<string, JsonValue>;
    return { id: String(id ?? `e${index}`), timestamp: Date.parse(String(timestamp)) * 1000, event_message: String(event_message ?? ''), fields: fields as LogRow['fields'] };
  });
}

interface EngineResult {
  engine: string;
  events: number;
  typedMs: number;
  attributeMs: number;
  ratio: number;
  rows: number;
}

async function measure(engine: string, warehouse: Warehouse, dialect: SqlDialect, rows: LogRow[]): Promise<EngineResult> {
  await warehouse.createSource(SOURCE_ID);
  for (let start = 0; start < rows.length; start += BATCH) {
    const batch = rows.slice(start, start + BATCH);
    await warehouse.append([{ sourceId: SOURCE_ID, schema: schemaForRows(warehouse.schema(SOURCE_ID), batch), rows: batch }]);
  }
  const ctx: TranslateContext = {
    resolveTable: (name) => (name === SOURCE ? warehouse.relation(SOURCE_ID) : undefined),
    tableShape: (name) => (name === SOURCE ? shapeOfSource(warehouse.schema(SOURCE_ID)) : undefined),
    tableNames: () => [SOURCE],
  };
  const typed = translate(TYPED, dialect, ctx).sql;
  const attribute = translate(ATTRIBUTE, dialect, ctx, 'ch_sql').sql;
  const run = async (sql: string) => {
    const started = performance.now();
    const result = await warehouse.query(sql, {}, { timeoutMs: 600_000, maxRows: 1000 });
    return { ms: performance.now() - started, result };
  };
  const times = { typed: [] as number[], attribute: [] as number[] };
  let answers: { typed: unknown; attribute: unknown } = { typed: undefined, attribute: undefined };
  // Alternating, the first round a warm-up: both see the same caches and the same load.
  for (let round = 0; round < RUNS; round++) {
    const a = await run(typed);
    const b = await run(attribute);
    if (round > 0) {
      times.typed.push(a.ms);
      times.attribute.push(b.ms);
    }
    answers = { typed: a.result, attribute: b.result };
  }
  const same = JSON.stringify(answers.typed) === JSON.stringify(answers.attribute);
  if (!same) throw new Error(`${engine}: the two queries disagree:\n${JSON.stringify(answers.typed)}\n${JSON.stringify(answers.attribute)}`);
  const typedMs = median(times.typed);
  const attributeMs = median(times.attribute);
  const result = { engine, events: rows.length, typedMs, attributeMs, ratio: attributeMs / typedMs, rows: (answers.typed as unknown[]).length };
  console.log(`${engine}: typed ${typedMs.toFixed(1)} ms, log_attributes ${attributeMs.toFixed(1)} ms, ratio ${result.ratio.toFixed(2)} (runs: typed ${times.typed.map((ms) => ms.toFixed(0)).join(' ')}; attribute ${times.attribute.map((ms) => ms.toFixed(0)).join(' ')})`);
  return result;
}

const rows = generatedRows();
const results: EngineResult[] = [];
for (const engine of ENGINES) {
  const dir = mkdtempSync(join(tmpdir(), `sawmill-bench-attributes-${engine}-`));
  try {
    if (engine === 'duckdb') {
      const warehouse = await DuckDbWarehouse.open({ path: join(dir, 'bench.duckdb'), stagingDir: join(dir, 'staging'), memoryLimit: '2GB', readConnections: 1, maxQueuedQueries: 4 });
      try {
        results.push(await measure('duckdb', warehouse, duckdbDialect, rows));
      } finally {
        await warehouse.close();
      }
    } else if (engine === 'clickhouse') {
      const warehouse = await ClickHouseWarehouse.open({ url: `chdb:${dir}`, database: 'bench', schemaRefreshMs: 0 });
      try {
        results.push(await measure('clickhouse (chdb)', warehouse, clickhouseDialect, rows));
      } finally {
        await warehouse.close();
      }
    } else throw new Error(`unknown engine ${engine}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

console.table(
  Object.fromEntries(
    results.map((result) => [
      result.engine,
      { events: result.events, 'typed field ms': result.typedMs.toFixed(1), "log_attributes['request.method'] ms": result.attributeMs.toFixed(1), ratio: result.ratio.toFixed(2), 'within 1.5×': result.ratio <= 1.5 },
    ]),
  ),
);
const at = new Date().toISOString();
mkdirSync(join(import.meta.dirname, 'results'), { recursive: true });
writeFileSync(join(import.meta.dirname, 'results', `${at.replaceAll(':', '-')}-log-attributes.json`), `${JSON.stringify({ at, typedSql: TYPED, attributeSql: ATTRIBUTE, results }, null, 2)}\n`);
