/**
 * Runs every translation case in test/sql/corpus/*.sqltest against a real DuckDB loaded with the
 * fixture sources (the format and the runner are in corpus.ts; the same cases run on ClickHouse
 * in corpus-clickhouse.test.ts).
 */

import { translate } from '../../src/sql/index.ts';
import { duckdbDialect } from '../../src/warehouse/duckdb/sql-generator.ts';
import { defineCorpus } from './corpus.ts';
import { openFixture, plainValue } from './fixtures.ts';

defineCorpus(async () => {
  const fixture = await openFixture();
  return {
    engine: 'duckdb',
    /**
     * Run a case exactly as the service will: translate, then prepare and bind every parameter
     * the translation uses, as a string or NULL.
     */
    async run(testCase) {
      const translation = translate(testCase.sql, duckdbDialect, fixture);
      const values: Record<string, string | null> = {};
      for (const name of translation.parameters) values[name] = testCase.params[name] ?? null;
      const prepared = await fixture.connection.prepare(translation.sql);
      prepared.bind(values);
      const reader = await prepared.runAndReadAll();
      return { columns: reader.columnNames(), rows: reader.getRows().map((row) => row.map((value, index) => plainValue(value, reader.columnType(index)))), sql: translation.sql };
    },
    close: () => fixture.close(),
  };
});
