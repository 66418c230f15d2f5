#!/usr/bin/env node
// The package's command. CommonJS on purpose: libuv sizes its threadpool once, from
// UV_THREADPOOL_SIZE, when the pool first starts, and loading an ES module already starts it.
// DuckDB queries hold pool threads while they run; the journal's writes need them too
// (src/warehouse/duckdb/reader-pool.ts), so the service asks for more than the default 4.
process.env.UV_THREADPOOL_SIZE ??= '16';
import('./sawmill.mjs');
