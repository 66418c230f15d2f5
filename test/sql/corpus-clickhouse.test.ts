/**
 * The translation corpus on ClickHouse (chdb 26.7 in-process, the real @clickhouse/client): the
 * same cases and expected rows as on DuckDB, translated by the ClickHouse generator and run
 * through the warehouse's query path.
 */

import { translate } from '../../src/sql/index.ts';
import { convertCompact } from '../../src/warehouse/clickhouse/results.ts';
import { clickhouseDialect } from '../../src/warehouse/clickhouse/sql-generator.ts';
import { openClickHouseFixture } from './clickhouse-fixture.ts';
import { defineCorpus } from './corpus.ts';

defineCorpus(async () => {
  const fixture = await openClickHouseFixture();
  return {
    engine: 'clickhouse',
    async run(testCase) {
      const translation = translate(testCase.sql, clickhouseDialect, fixture);
      const values: Record<string, string | null> = {};
      for (const name of translation.parameters) values[name] = testCase.params[name] ?? null;
      const lines = await fixture.warehouse.queryCompact(translation.sql, values, { timeoutMs: 30_000, maxRows: 10_000 });
      const { columns, rows } = convertCompact(lines, 'iso');
      // JSON values (RawJson) as the values they hold.
      return { columns, rows: JSON.parse(JSON.stringify(rows)) as unknown[][], sql: translation.sql };
    },
    close: () => fixture.close(),
  };
});
