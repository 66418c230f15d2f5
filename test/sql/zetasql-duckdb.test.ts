/**
 * The ZetaSQL compliance cases (zetasql.ts) on DuckDB, through the translator and the warehouse's
 * endpoint query path. A ratchet: the pass count may not drop below PASSING, and every case that
 * is neither a pass nor a named refusal is listed in KNOWN_WRONG with the reason; a listed case
 * that passes must leave the list.
 */

import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { DuckDbWarehouse } from '../../src/warehouse/duckdb/adapter.ts';
import { duckdbDialect } from '../../src/warehouse/duckdb/sql-generator.ts';
import { assertRatchet, formatTally, loadCases, runCase, skipWithoutCases, writeReport, type CaseResult } from './zetasql.ts';

/** Cases passing on DuckDB when last measured; raise it when more pass. */
const PASSING = 1012;


test('ZetaSQL compliance cases on DuckDB', { skip: skipWithoutCases() }, async () => {
  const dir = await mkdtemp(join(tmpdir(), 'sawmill-zetasql-'));
  const warehouse = await DuckDbWarehouse.open({ path: join(dir, 'w.duckdb'), stagingDir: join(dir, 'staging'), memoryLimit: '512MB' });
  const results: CaseResult[] = [];
  try {
    const engine = { dialect: duckdbDialect, queryJson: (sql: string) => warehouse.queryJson(sql, {}, { timeoutMs: 10_000, maxRows: 10_000 }) };
    for (const testCase of loadCases()) results.push(await runCase(engine, testCase));
  } finally {
    await warehouse.close();
    await rm(dir, { recursive: true, force: true });
  }
  writeReport(results);
  console.log(formatTally('DuckDB', results));

  assertRatchet(results, PASSING, KNOWN_WRONG);
});

/** Cases that give other rows (or an engine error) on DuckDB, by id, with the reason. */
const KNOWN_WRONG: Record<string, string> = {
  // known-wrong:start
  "zetasql/array_aggregation/array_agg_with_correlated_column_and_limit": "an aggregate of only an outer column belongs to the outer query in DuckDB (standard SQL), to the subquery in BigQuery",
  "zetasql/array_aggregation/array_agg_with_correlated_column_and_limit_and_order_by": "an aggregate of only an outer column belongs to the outer query in DuckDB (standard SQL), to the subquery in BigQuery",
  "zetasql/array_aggregation/array_subquery_correlated": "DuckDB binds the name to a select-list alias where BigQuery means the column of the FROM (needs name resolution)",
  "zetasql/array_path/array_path_in_unnest": "a field path through an array (ARRAY<STRUCT>.a) is BigQuery array-path syntax, not mapped",
  "zetasql/stat_aggregation/corr_double_extreme_negative_slope": "values near the FLOAT64 limit: DuckDB's STDDEV/CORR raise out of range where BigQuery computes",
  "zetasql/stat_aggregation/stddev_pop_double_extreme": "values near the FLOAT64 limit: DuckDB's STDDEV/CORR raise out of range where BigQuery computes",
  "zetasql/stat_aggregation/stddev_samp_double_extreme": "values near the FLOAT64 limit: DuckDB's STDDEV/CORR raise out of range where BigQuery computes",
  "zetasql/struct_queries/struct_equality_null_field": "CASE/NULLIF over structs compare field names in DuckDB; BigQuery compares by position",
  // known-wrong:end
};
