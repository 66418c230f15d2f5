/**
 * Where a Sawmill commit's time goes inside DuckDB: replays the warehouse's per-commit statements
 * (BEGIN; INSERT … FROM read_json(<staged NDJSON>); COMMIT) on a copy of a provisioned data dir,
 * at several commit sizes, timing each statement, and compares with variants (one row group's
 * worth per commit, a larger checkpoint threshold, and a narrow one-column table as the floor).
 *
 * Usage: node --import tsx bench/commit-probe.ts <provisioned data dir> <staged edge NDJSON> [token of cloudflare.logs.prod]
 * (`npm run bench -- --quick --keep` leaves both in its work dir: query-snapshot/ and stage-0-0.ndjson.)
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { parseSegmentName, viewName } from '../src/warehouse/duckdb/layout.ts';
import { duckdbType, fieldTypeFromDuckdb, quoteIdent } from '../src/warehouse/duckdb/types.ts';
import { summarize } from './lib.ts';

const [dataDir, stagedFile] = process.argv.slice(2);
if (!dataDir || !stagedFile) {
  console.error('usage: node --import tsx bench/commit-probe.ts <data dir> <staged NDJSON>');
  process.exit(2);
}
const catalog = JSON.parse(await readFile(join(dataDir, 'catalog.json'), 'utf8')) as { sources: Array<{ name: string; token: string }> };
const token = process.argv[4] ?? catalog.sources.find((source) => source.name === 'cloudflare.logs.prod')!.token;
const lines = (await readFile(stagedFile, 'utf8')).split('\n').filter(Boolean);
const sqlString = (text: string) => `'${text.replaceAll("'", "''")}'`;

async function probe(label: string, rowsPerCommit: number, commits: number, settings: Record<string, string> = {}, narrow = false): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'sawmill-commit-probe-'));
  await cp(dataDir!, work, { recursive: true });
  const instance = await DuckDBInstance.create(join(work, 'sawmill.duckdb'), { memory_limit: '2GB', storage_compatibility_version: 'v1.5.0', ...settings });
  const connection = await instance.connect();
  await connection.run(`SET TimeZone = 'UTC'`);
  const view = viewName(token);
  const tables = (await connection.runAndReadAll(`SELECT table_name FROM duckdb_tables()`)).getRows().map(([name]) => String(name));
  let segment = tables.filter((table) => parseSegmentName(table)?.view === view).at(-1)!;
  const shape = await connection.runAndReadAll(`SELECT * FROM ${quoteIdent(segment)} LIMIT 0`);
  let columns = [`'id': 'VARCHAR'`, `'timestamp': 'BIGINT'`, `'event_message': 'VARCHAR'`];
  if (narrow) {
    segment = 'narrow';
    await connection.run(`CREATE TABLE narrow (id VARCHAR, "timestamp" TIMESTAMPTZ, event_message VARCHAR)`);
  } else {
    shape.columnNames().forEach((name, i) => {
      if (i >= 3) columns.push(`${sqlString(name)}: ${sqlString(duckdbType(fieldTypeFromDuckdb(shape.columnTypes()[i]!)))}`);
    });
  }
  const files: string[] = [];
  for (let c = 0; c < commits; c++) {
    const file = join(work, `commit-${c}.ndjson`);
    const start = (c * rowsPerCommit) % Math.max(1, lines.length - rowsPerCommit);
    await writeFile(file, lines.slice(start, start + rowsPerCommit).join('\n'));
    files.push(file);
  }
  const times = { begin: [] as number[], insert: [] as number[], commit: [] as number[], total: [] as number[] };
  const t0 = performance.now();
  for (const file of files) {
    const a = performance.now();
    await connection.run('BEGIN TRANSACTION');
    const b = performance.now();
    await connection.run(
      `INSERT INTO ${quoteIdent(segment)} BY NAME SELECT * REPLACE (make_timestamp("timestamp")::TIMESTAMPTZ AS "timestamp") ` +
        `FROM read_json(${sqlString(file)}, format = 'newline_delimited', columns = {${columns.join(', ')}}, maximum_object_size = 67108864)`,
    );
    const c = performance.now();
    await connection.run('COMMIT');
    const d = performance.now();
    times.begin.push(b - a);
    times.insert.push(c - b);
    times.commit.push(d - c);
    times.total.push(d - a);
  }
  const seconds = (performance.now() - t0) / 1000;
  const f = (x: number[]) => {
    const s = summarize(x);
    return `p50 ${s.p50.toFixed(2)} / mean ${s.mean.toFixed(2)} / max ${s.max.toFixed(1)}`;
  };
  console.log(
    `${label.padEnd(44)} ${String(rowsPerCommit).padStart(6)} rows/commit: ${(commits / seconds).toFixed(0).padStart(5)} commits/s, ${((commits * rowsPerCommit) / seconds).toFixed(0).padStart(7)} rows/s | insert ms ${f(times.insert)} | commit ms ${f(times.commit)}`,
  );
  connection.closeSync();
  instance.closeSync();
  await rm(work, { recursive: true, force: true });
}

console.log(`DuckDB commit cost on a copy of ${dataDir}, source cloudflare.logs.prod (${lines.length} staged rows available)`);
for (const rows of [1, 32, 320, 3200]) await probe('Sawmill layout, defaults', rows, rows >= 3200 ? 40 : 150);
await probe('Sawmill layout, checkpoint_threshold 1GB', 32, 150, { checkpoint_threshold: '1GB' });
await probe('Sawmill layout, checkpoint_threshold 1GB', 3200, 40, { checkpoint_threshold: '1GB' });
await probe('narrow table (3 columns), defaults', 32, 150, {}, true);
await probe('narrow table (3 columns), defaults', 3200, 40, {}, true);
