// The libuv threadpool every way of starting Sawmill gives it (the image's CMD, the compose files
// through it, npm start, `sawmill serve`): DuckDB queries hold pool threads while they run and the
// journal's writes need them too (src/warehouse/duckdb/reader-pool.ts), so the service asks for
// more than libuv's default 4. libuv reads UV_THREADPOOL_SIZE once, when the pool first starts,
// and loading an ES module already starts it: this runs first, from CommonJS. A value set in the
// environment is kept.
const THREADPOOL_SIZE = '16';
if (!/^[1-9]\d*$/.test(process.env.UV_THREADPOOL_SIZE ?? '')) process.env.UV_THREADPOOL_SIZE = THREADPOOL_SIZE;
module.exports = { THREADPOOL_SIZE };
