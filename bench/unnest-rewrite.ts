/**
 * Measures the translator's select-list unnest rewrite against the literal FROM-clause form on
 * ~1M generated relay events (engines.md §2.2). Not part of the test suite; run with
 *   node --import tsx bench/unnest-rewrite.ts [rows]
 */

import { DuckDBInstance } from '@duckdb/node-api';
import { translate } from '../src/sql/index.ts';
import { duckdbDialect } from '../src/warehouse/duckdb/sql-generator.ts';

const ROWS = Number(process.argv[2] ?? 1_000_000);
const instance = await DuckDBInstance.create(':memory:');
const connection = await instance.connect();
await connection.run("SET TimeZone='UTC'");

// Time-ordered events over 14 days, 20 projects, 50 functions, ~7% errors.
await connection.run(`
  CREATE TABLE relay AS
  SELECT
    'id-' || i AS id,
    TIMESTAMPTZ '2024-01-01 00:00:00+00' + to_microseconds(i * (CAST(14 * 86400 AS BIGINT) * 1000000 // ${ROWS})) AS timestamp,
    'POST | 200 | fn' AS event_message,
    [{
      'project_ref': 'project-' || (hash(i) % 20),
      'function_id': 'fn-' || (hash(i * 7) % 50),
      'execution_time_ms': CAST(hash(i * 13) % 500 AS BIGINT),
      'request': [{'method': 'POST', 'url': 'https://project-' || (hash(i) % 20) || '.supabase.co/functions/v1/x'}],
      'response': [{'status_code': CAST(CASE WHEN hash(i * 3) % 100 < 7 THEN 500 ELSE 200 END AS BIGINT)}]
    }] AS metadata
  FROM range(${ROWS}) AS r(i)`);

const query = `
  select timestamp_trunc(t.timestamp, hour) as timestamp, count(t.id) as count,
    min(m.execution_time_ms) as min_ms, max(m.execution_time_ms) as max_ms, avg(m.execution_time_ms) as avg_ms,
    approx_quantiles(m.execution_time_ms, 100)[offset(95)] as p95, countif(r.status_code >= 400) as error_count
  from \`deno-relay-logs\` t cross join unnest(t.metadata) as m cross join unnest(m.response) as r
  where m.project_ref = @project and t.timestamp > cast(@since as timestamp)
  group by timestamp order by timestamp`;

const rewritten = translate(query, duckdbDialect, { resolveTable: (name) => (name === 'deno-relay-logs' ? 'relay' : undefined) }).sql;
const naive = `
  select date_trunc('hour', t.timestamp) as timestamp, count(t.id) as count,
    min(m.execution_time_ms), max(m.execution_time_ms), avg(m.execution_time_ms),
    approx_quantile(m.execution_time_ms, 0.95), count_if(r.status_code >= 400)
  from relay t cross join unnest(t.metadata) as u(m) cross join unnest(m.response) as u2(r)
  where m.project_ref = $project and t.timestamp > cast($since as timestamptz)
  group by 1 order by 1`;

const values = { project: 'project-3', since: '2024-01-08T00:00:00Z' };

async function time(label: string, sql: string): Promise<void> {
  const runs: number[] = [];
  let rowCount = 0;
  for (let run = 0; run < 4; run++) {
    const prepared = await connection.prepare(sql);
    prepared.bind(values);
    const started = performance.now();
    const reader = await prepared.runAndReadAll();
    runs.push(performance.now() - started);
    rowCount = reader.currentRowCount;
  }
  const warm = runs.slice(1).sort((a, b) => a - b);
  console.log(`${label}: median of 3 warm runs ${warm[1]?.toFixed(0)} ms (cold ${runs[0]?.toFixed(0)} ms), ${rowCount} rows`);
}

async function planHas(sql: string, pattern: RegExp): Promise<boolean> {
  const prepared = await connection.prepare(`EXPLAIN ${sql}`);
  prepared.bind(values);
  const reader = await prepared.runAndReadAll();
  return pattern.test(reader.getRows().map((row) => String(row[1])).join('\n'));
}

console.log(`${ROWS} events`);
console.log('rewritten SQL:', rewritten);
console.log('naive plan has a delim join:', await planHas(naive, /DELIM_JOIN/));
console.log('rewritten plan has a delim join:', await planHas(rewritten, /DELIM_JOIN/));
console.log('rewritten plan filters timestamp in the scan:', await planHas(rewritten, /SEQ_SCAN[\s\S]*Filters:[\s\S]*timestamp>/));
await time('naive FROM … CROSS JOIN unnest()', naive);
await time('translator (select-list unnest chain)', rewritten);
connection.closeSync();
instance.closeSync();
