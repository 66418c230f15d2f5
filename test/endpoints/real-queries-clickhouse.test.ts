/** test/endpoints/real-queries.test.ts again, with events stored in ClickHouse (chdb) instead of DuckDB. */
process.env.SAWMILL_TEST_WAREHOUSE = 'clickhouse';
await import('./real-queries.test.ts');
