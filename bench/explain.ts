/**
 * The translated SQL of a built-in endpoint and DuckDB's EXPLAIN ANALYZE of it, on a data dir
 * (e.g. the query-data/ a `npm run bench -- --quick --keep` leaves behind). For finding where an
 * endpoint's time goes inside the engine.
 * Usage: node --import tsx bench/explain.ts <data dir> <endpoint name> [name=value ...]
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { BUILTIN_ENDPOINTS } from '../src/provision/builtin-endpoints.ts';
import { translate } from '../src/sql/index.ts';
import { viewName } from '../src/warehouse/duckdb/layout.ts';
import { duckdbDialect } from '../src/warehouse/duckdb/sql-generator.ts';

const [dataDir, name, ...pairs] = process.argv.slice(2);
if (!dataDir || !name) {
  console.error('usage: node --import tsx bench/explain.ts <data dir> <endpoint name> [name=value ...]');
  process.exit(2);
}
const catalog = JSON.parse(await readFile(join(dataDir, 'catalog.json'), 'utf8')) as { sources: Array<{ name: string; token: string }>; endpoints: Array<{ name: string; query: string }> };
const query = (catalog.endpoints.find((e) => e.name === name) ?? BUILTIN_ENDPOINTS.find((e) => e.name === name))?.query;
if (!query) throw new Error(`no endpoint ${name}`);
const tokens = Object.fromEntries(catalog.sources.map((s) => [s.name, s.token]));
const translation = translate(query, duckdbDialect, { resolveTable: (t) => (tokens[t] ? `"${viewName(tokens[t]!)}"` : undefined) });
const given = Object.fromEntries(pairs.map((pair) => pair.split('=') as [string, string]));
const params = Object.fromEntries(translation.parameters.map((p) => [p, given[p] ?? null]));
console.log(`-- ${name} ${JSON.stringify(params)}\n${translation.sql}\n`);
const instance = await DuckDBInstance.create(join(dataDir, 'sawmill.duckdb'), { access_mode: 'READ_ONLY', memory_limit: '2GB' });
const connection = await instance.connect();
await connection.run(`SET TimeZone = 'UTC'`);
await connection.runAndReadAll(translation.sql, params);
const plan = await connection.runAndReadAll(`EXPLAIN ANALYZE ${translation.sql}`, params);
for (const row of plan.getRows()) console.log(String(row[1]));
connection.closeSync();
instance.closeSync();
