/**
 * UNNEST chains printed as ARRAY JOINs of leaf subcolumns (src/warehouse/clickhouse/array-join.ts)
 * and read from the table itself while it has one generation per field (chdb 26.7 in-process).
 */

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { translate } from '../../src/sql/index.ts';
import { ClickHouseWarehouse } from '../../src/warehouse/clickhouse/adapter.ts';
import { convertCompact } from '../../src/warehouse/clickhouse/results.ts';
import { clickhouseDialect, wholeRecordDialect } from '../../src/warehouse/clickhouse/sql-generator.ts';
import { schemaForRows } from '../../src/warehouse/schema.ts';
import type { JsonValue, LogRow } from '../../src/warehouse/types.ts';
import { openClickHouseFixture, type ClickHouseFixture } from '../sql/clickhouse-fixture.ts';
import { parseCorpus } from '../sql/corpus.ts';
import type { SqlDialect } from '../../src/sql/index.ts';

const OPTIONS = { timeoutMs: 30_000, maxRows: 10_000 };
const CHAIN = `select t.id, m.function_id, r.status_code from \`deno-relay-logs\` t
  cross join unnest(t.metadata) m cross join unnest(m.response) r where m.project_ref = 'default' order by t.id`;

describe('subcolumn ARRAY JOIN', () => {
  let fixture: ClickHouseFixture;
  before(async () => {
    fixture = await openClickHouseFixture();
  });
  after(() => fixture.close());

  const viewOf = (name: string) => fixture.resolveTable(name)?.replace(/_data`$/, '`');
  async function rows(sql: string, dialect: SqlDialect, resolveTable: (name: string) => string | undefined, params: Record<string, string | null> = {}) {
    try {
      const translation = translate(sql, dialect, { resolveTable });
      const values = Object.fromEntries(translation.parameters.map((name) => [name, params[name] ?? null]));
      return convertCompact(await fixture.warehouse.queryCompact(translation.sql, values, OPTIONS), 'iso');
    } catch (error) {
      // Without table shapes the engine names an unknown column, and the table it read: the view or its data table.
      return { error: (error as Error).message.replace(/`__[^`]*`/g, '…').replace(/(src_[0-9a-f]+)_data\b/g, '$1') };
    }
  }

  test('the fixture tables are read directly, not through their views', () => {
    assert.match(fixture.resolveTable('deno-relay-logs')!, /_data`$/);
  });

  test('a chain joins only the leaves it reads, and ClickHouse reads only those subcolumns', async () => {
    const { sql } = translate(CHAIN, clickhouseDialect, fixture);
    assert.doesNotMatch(sql, /ARRAY JOIN `t`\.`metadata` AS/);
    assert.match(sql, /`t`\.`metadata`\.`response`\.`status_code` AS/);
    const plan = (await fixture.warehouse.queryCompact(`EXPLAIN PLAN header = 1 ${sql}`, {}, OPTIONS)).slice(2).flat().join('\n');
    const read = plan.slice(plan.indexOf('ReadFromMergeTree'));
    assert.match(read, /metadata\.response\.status_code Array\(Array\(Nullable\(Int64\)\)\)/);
    assert.doesNotMatch(read, /metadata Array\(Tuple/);
  });

  test('whole-record uses keep the record join', () => {
    const print = (sql: string) => translate(sql, clickhouseDialect, fixture).sql;
    assert.match(print('select to_json_string(m) from `gotrue.logs.prod` t cross join unnest(t.metadata) m'), /ARRAY JOIN `t`\.`metadata` AS `m`/);
    // m.* names each field, so it reads leaves like a chain does.
    assert.doesNotMatch(print('select m.* from `gotrue.logs.prod` t cross join unnest(t.metadata) m'), /ARRAY JOIN `t`\.`metadata` AS `m`/);
    assert.match(print('select t.id, m is null as x from `gotrue.logs.prod` t left join unnest(t.metadata) m on true'), /LEFT ARRAY JOIN [^`]*`t`\.`metadata`\)? AS `m`/);
    const correlated = print('select (select count(*) from unnest(m.factors) f where f.verified) as n from `gotrue.logs.prod` t cross join unnest(t.metadata) m');
    assert.match(correlated, /ARRAY JOIN `t`\.`metadata` AS `m`/);
  });

  test('every corpus case returns the same rows as whole-record joins, through the views too', async () => {
    const directory = join(import.meta.dirname, '..', 'sql', 'corpus');
    const cases = readdirSync(directory)
      .filter((file) => file.endsWith('.sqltest'))
      .flatMap((file) => parseCorpus(file, readFileSync(join(directory, file), 'utf8')));
    assert.ok(cases.length > 100);
    for (const testCase of cases) {
      const expected = await rows(testCase.sql, wholeRecordDialect, viewOf, testCase.params);
      const throughViews = await rows(testCase.sql, clickhouseDialect, viewOf, testCase.params);
      const direct = await rows(testCase.sql, clickhouseDialect, fixture.resolveTable, testCase.params);
      assert.deepEqual(throughViews, expected, `${testCase.file}: ${testCase.name} (views)`);
      assert.deepEqual(direct, expected, `${testCase.file}: ${testCase.name} (tables)`);
    }
  });
});

describe('direct table reads and another instance widening the table', () => {
  let directory: string;
  before(() => {
    directory = mkdtempSync(join(tmpdir(), 'sawmill-ch-direct-'));
  });
  after(() => rmSync(directory, { recursive: true, force: true }));

  const row = (id: string, metadata: JsonValue): LogRow => ({ id, timestamp: Date.parse('2024-01-01T00:00:00Z') * 1000, event_message: id, fields: { metadata } });
  const write = (warehouse: ClickHouseWarehouse, source: string, rows: LogRow[]) =>
    warehouse.append([{ sourceId: source, schema: schemaForRows(warehouse.schema(source), rows), rows }]);

  test('a query translated before the widening still sees the new generation', async () => {
    const source = randomUUID();
    const first = await ClickHouseWarehouse.open({ url: `chdb:${directory}`, database: 'direct', schemaRefreshMs: 0 });
    try {
      await first.createSource(source);
      await write(first, source, [row('a', { response: { status_code: 200 } })]);
      const reader = await ClickHouseWarehouse.open({ url: `chdb:${directory}`, database: 'direct', schemaRefreshMs: 0 });
      const sql = `select t.id, r.status_code from \`s\` t cross join unnest(t.metadata) m cross join unnest(m.response) r order by t.id`;
      const translation = translate(sql, clickhouseDialect, { resolveTable: () => reader.relation(source) });
      assert.match(translation.sql, /_data`/);
      // The writer adds a nested field: a new generation of metadata, which the reader does not know yet.
      await write(first, source, [row('b', { response: { status_code: 500, extra: 'x' } })]);
      assert.doesNotMatch(first.relation(source), /_data`/);
      const result = await reader.query(translation.sql, {}, OPTIONS);
      assert.deepEqual(result.map((item) => [item.id, item.status_code]), [['a', 200], ['b', 500]]);
      assert.doesNotMatch(reader.relation(source), /_data`/);
      await reader.close();
    } finally {
      await first.close();
    }
  });
});
