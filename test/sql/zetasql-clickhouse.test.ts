/**
 * The ZetaSQL compliance cases (zetasql.ts) on ClickHouse (chdb in-process, the real client),
 * through the translator and the warehouse's endpoint query path. The figure is reported and
 * ratcheted: the pass count may not drop below PASSING. The cases ClickHouse gets wrong are not
 * listed one by one; DuckDB, the default engine, carries that list (zetasql-duckdb.test.ts).
 */

import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ClickHouseWarehouse } from '../../src/warehouse/clickhouse/adapter.ts';
import { clickhouseDialect } from '../../src/warehouse/clickhouse/sql-generator.ts';
import { formatTally, loadCases, runCase, skipWithoutCases, tally, writeReport, type CaseResult } from './zetasql.ts';

/** Cases passing on ClickHouse when last measured; raise it when more pass. */
const PASSING = 977;

test('ZetaSQL compliance cases on ClickHouse', { skip: skipWithoutCases() }, async () => {
  const dir = await mkdtemp(join(tmpdir(), 'sawmill-zetasql-ch-'));
  const warehouse = await ClickHouseWarehouse.open({ url: `chdb:${dir}`, database: 'zetasql', schemaRefreshMs: 0 });
  const results: CaseResult[] = [];
  try {
    const engine = { dialect: clickhouseDialect, queryJson: (sql: string) => warehouse.queryJson(sql, {}, { timeoutMs: 10_000, maxRows: 10_000 }) };
    for (const testCase of loadCases()) results.push(await runCase(engine, testCase));
  } finally {
    await warehouse.close();
    await rm(dir, { recursive: true, force: true });
  }
  writeReport(results);
  console.log(formatTally('ClickHouse (chdb)', results));
  assert.ok(tally(results).total.pass >= PASSING, `${tally(results).total.pass} cases pass, fewer than the ${PASSING} that passed before`);
});
