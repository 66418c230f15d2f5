/** test/endpoints/composition.test.ts again, with events stored in ClickHouse (chdb) instead of DuckDB. */
process.env.SAWMILL_TEST_WAREHOUSE = 'clickhouse';
await import('./composition.test.ts');
