/**
 * INT64 values beyond 2^53 reach the reply exact, on both warehouses' endpoint path (queryJson):
 * a JavaScript number would round FARM_FINGERPRINT's 2640714258260161385 to …161500.
 */

import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { translate, type SqlDialect } from '../../src/sql/index.ts';
import { ClickHouseWarehouse } from '../../src/warehouse/clickhouse/adapter.ts';
import { clickhouseDialect } from '../../src/warehouse/clickhouse/sql-generator.ts';
import { DuckDbWarehouse } from '../../src/warehouse/duckdb/adapter.ts';
import { duckdbDialect } from '../../src/warehouse/duckdb/sql-generator.ts';
import { stringifyExact } from '../../src/warehouse/exact-json.ts';

let dir: string;
let engines: Array<{ name: string; dialect: SqlDialect; queryJson(sql: string): Promise<string>; close(): Promise<void> }>;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sawmill-exact-'));
  const duck = await DuckDbWarehouse.open({ path: join(dir, 'w.duckdb'), stagingDir: join(dir, 'staging'), memoryLimit: '256MB' });
  const ch = await ClickHouseWarehouse.open({ url: `chdb:${join(dir, 'ch')}`, database: 'exact', schemaRefreshMs: 0 });
  const options = { timeoutMs: 10_000, maxRows: 100 };
  engines = [
    { name: 'DuckDB', dialect: duckdbDialect, queryJson: (sql) => duck.queryJson(sql, {}, options), close: () => duck.close() },
    { name: 'ClickHouse', dialect: clickhouseDialect, queryJson: (sql) => ch.queryJson(sql, {}, options), close: () => ch.close() },
  ];
});
after(async () => {
  for (const engine of engines) await engine.close();
  await rm(dir, { recursive: true, force: true });
});

test('INT64 beyond 2^53 is written exactly, at the top level and nested, on every run', async () => {
  const sql = 'select 9223372036854775807 as largest, -9007199254740993 as negative, [9007199254740993] as list, struct(9007199254740995 as x) as record, 7 as small';
  const expected = '[{"largest":9223372036854775807,"negative":-9007199254740993,"list":[9007199254740993],"record":{"x":9007199254740995},"small":7}]';
  for (const engine of engines) {
    const translated = translate(sql, engine.dialect, { resolveTable: () => undefined }).sql;
    // DuckDB answers a statement's second run another way (DuckDB's own JSON): both must be exact.
    for (const run of [1, 2]) assert.equal(await engine.queryJson(translated), expected, `${engine.name}, run ${run}`);
  }
});

test('stringifyExact writes bigints as numbers and leaves text that looks like one alone', () => {
  assert.equal(stringifyExact([{ a: 12345678901234567890n, b: '\u0000int:5', c: [1n] }]), '[{"a":12345678901234567890,"b":"\\u0000int:5","c":[1]}]');
});
