/**
 * The ClickHouse SQL corpus (clickhouse-corpus.ts): every case raw on chdb (the reference), through
 * the ch_sql front end on DuckDB and through it on chdb; all three must give the case's rows. A
 * ratchet: a case that fails on a run must be listed in KNOWN_FAILURES with the cause, and a listed
 * case that passes must leave the list.
 *
 * CH_CORPUS_PRINT=<file> writes what raw ClickHouse returns for each case to <file>, as `--- rows` lines.
 */

import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createClient } from '@clickhouse/client';
import { AppError } from '../../src/errors.ts';
import { translate, type TranslateContext } from '../../src/sql/index.ts';
import { ClickHouseWarehouse } from '../../src/warehouse/clickhouse/adapter.ts';
import { convertCompact } from '../../src/warehouse/clickhouse/results.ts';
import { clickhouseDialect } from '../../src/warehouse/clickhouse/sql-generator.ts';
import { duckdbDialect } from '../../src/warehouse/duckdb/sql-generator.ts';
import { APP_LOGS_SHAPE, CLICKHOUSE_TABLE_DDL, clickHouseInsert, differenceFrom, duckValue, loadChCases, openDuckDbLogs, type ChCase } from './clickhouse-corpus.ts';

/**
 * ClickHouse's defaults for the settings the warehouse changes for BigQuery semantics, so that the
 * raw run is ClickHouse as users know it (session_timezone stays UTC).
 */
const CLICKHOUSE_DEFAULTS =
  ' SETTINGS prefer_column_name_to_alias = 0, join_use_nulls = 0, aggregate_functions_null_for_empty = 0, cast_keep_nullable = 0,' +
  " cast_string_to_date_time_mode = 'basic', date_time_input_format = 'basic', formatdatetime_parsedatetime_m_is_month_name = 1," +
  ' function_json_value_return_type_allow_nullable = 0, enable_unaligned_array_join = 0, enable_extended_results_for_datetime_functions = 0';

type Run = 'raw chdb' | 'ch_sql on DuckDB' | 'ch_sql on chdb';
const RUNS: Run[] = ['raw chdb', 'ch_sql on DuckDB', 'ch_sql on chdb'];

/** Case (file: name) and run → why it fails. */
const KNOWN_FAILURES: Record<string, string> = {
  '01-basics.chtest: left join keeps unmatched rows [ch_sql on DuckDB]': "an unmatched row's columns are NULL; for a non-Nullable column (status Int32) ClickHouse (join_use_nulls = 0) gives the type's default",
  '01-basics.chtest: left join keeps unmatched rows [ch_sql on chdb]': "an unmatched row's columns are NULL; for a non-Nullable column (status Int32) ClickHouse (join_use_nulls = 0) gives the type's default",
};

test('ClickHouse SQL corpus: raw chdb, ch_sql on DuckDB and on chdb give the same rows', async () => {
  const directory = mkdtempSync(join(tmpdir(), 'sawmill-chsql-'));
  const warehouse = await ClickHouseWarehouse.open({ url: `chdb:${directory}`, database: 'chsql', schemaRefreshMs: 0 });
  const duck = await openDuckDbLogs();
  const failures = new Map<string, string>();
  const passes: Record<Run, number> = { 'raw chdb': 0, 'ch_sql on DuckDB': 0, 'ch_sql on chdb': 0 };
  const cases = loadChCases();
  try {
    const { createChdbConnection } = (await import('chdb/connection')) as typeof import('chdb/connection');
    const ddl = createClient({ connection: createChdbConnection({ path: directory }) } as Parameters<typeof createClient>[0]);
    await ddl.command({ query: CLICKHOUSE_TABLE_DDL });
    await ddl.command({ query: clickHouseInsert() });

    const context = (relation: string): TranslateContext => ({
      resolveTable: (name) => (name === 'app_logs' ? relation : undefined),
      tableShape: (name) => (name === 'app_logs' ? APP_LOGS_SHAPE : undefined),
      tableNames: () => ['app_logs'],
    });
    const options = { timeoutMs: 30_000, maxRows: 10_000 };
    const runners: Record<Run, (testCase: ChCase) => Promise<{ columns: string[]; rows: unknown[][] }>> = {
      'raw chdb': async (testCase) => convertCompact(await warehouse.queryCompact(testCase.sql + CLICKHOUSE_DEFAULTS, testCase.params, options), 'iso'),
      'ch_sql on DuckDB': async (testCase) => {
        const translation = translate(testCase.sql, duckdbDialect, context('"app_logs"'), 'ch_sql');
        const prepared = await duck.connection.prepare(translation.sql);
        prepared.bind(Object.fromEntries(translation.parameters.map((name) => [name, testCase.params[name] ?? null])));
        const reader = await prepared.runAndReadAll();
        return { columns: reader.columnNames(), rows: reader.getRows().map((row) => row.map(duckValue)) };
      },
      'ch_sql on chdb': async (testCase) => {
        const translation = translate(testCase.sql, clickhouseDialect, context('`default`.`app_logs`'), 'ch_sql');
        const values = Object.fromEntries(translation.parameters.map((name) => [name, testCase.params[name] ?? null]));
        return convertCompact(await warehouse.queryCompact(translation.sql, values, options), 'iso');
      },
    };

    for (const testCase of cases) {
      const id = `${testCase.file}: ${testCase.name}`;
      if (process.env.CH_CORPUS_PRINT && testCase.raw && testCase.error === undefined) {
        const result = await runners['raw chdb'](testCase).catch((error: unknown) => ({ columns: ['error'], rows: [[String(error)]] }));
        appendFileSync(process.env.CH_CORPUS_PRINT, `=== ${testCase.name}\n${[result.columns, ...result.rows].map((row) => JSON.stringify(row)).join('\n')}\n`);
      }
      for (const run of RUNS) {
        if (run === 'raw chdb' && (!testCase.raw || testCase.error !== undefined)) continue;
        const failure = await outcome(testCase, run, runners[run]);
        if (failure === undefined) passes[run]++;
        else failures.set(`${id} [${run}]`, failure);
      }
    }
    await ddl.close();
  } finally {
    duck.close();
    await warehouse.close();
    rmSync(directory, { recursive: true, force: true });
  }

  const total = (run: Run) => cases.filter((testCase) => run !== 'raw chdb' || (testCase.raw && testCase.error === undefined)).length;
  console.log(`ClickHouse SQL corpus, ${cases.length} cases: ${RUNS.map((run) => `${run} ${passes[run]}/${total(run)}`).join(', ')}`);
  const unlisted = [...failures].filter(([key]) => !(key in KNOWN_FAILURES)).map(([key, why]) => `${key}: ${why}`);
  assert.deepEqual(unlisted, [], 'failing cases not in KNOWN_FAILURES');
  const fixed = Object.keys(KNOWN_FAILURES).filter((key) => !failures.has(key));
  assert.deepEqual(fixed, [], 'cases in KNOWN_FAILURES that pass now: remove them from the list');
});

async function outcome(testCase: ChCase, run: Run, execute: (testCase: ChCase) => Promise<{ columns: string[]; rows: unknown[][] }>): Promise<string | undefined> {
  try {
    const result = await execute(testCase);
    if (testCase.error !== undefined) return `expected an error containing "${testCase.error}", got rows`;
    return differenceFrom(testCase, result);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (testCase.error === undefined) return `error: ${message.slice(0, 400)}`;
    if (!(error instanceof AppError) || error.status !== 400) return `expected a 400, got ${message.slice(0, 300)}`;
    return message.includes(testCase.error) ? undefined : `error "${message}" does not contain "${testCase.error}"`;
  }
}
