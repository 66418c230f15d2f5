/**
 * The engine ceiling for HTTP ingest (issue 19): DuckDB bulk-loading the very events the batched
 * run sends, as one NDJSON file, with `CREATE TABLE … AS SELECT * FROM read_json(…)` into a file
 * database (schema detected by DuckDB, 2 threads, CHECKPOINT included). Nothing of Sawmill runs:
 * it is what the engine does with the same bytes when it gets them in one statement.
 */
import { readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';

export interface BulkCeiling {
  events: number;
  seconds: number;
  events_per_s: number;
  /** The database file after CHECKPOINT, per event. */
  bytes_per_event: number;
  /** The NDJSON loaded, per event (compact JSON, one event a line). */
  raw_bytes_per_event: number;
}

/**
 * The events of a wrk requests file (`path\tJSON body` lines, bodies arrays or single events)
 * written as NDJSON, repeated until at least `minEvents` (DuckDB reads the same file several times).
 */
export async function bulkLoadCeiling(requestsFile: string, workDir: string, minEvents: number, memoryLimit: string): Promise<BulkCeiling> {
  const lines: string[] = [];
  for (const line of (await readFile(requestsFile, 'utf8')).split('\n')) {
    if (!line) continue;
    const body = JSON.parse(line.slice(line.indexOf('\t') + 1)) as unknown;
    for (const event of Array.isArray(body) ? body : [body]) lines.push(JSON.stringify(event));
  }
  const file = join(workDir, 'ceiling.ndjson');
  const text = `${lines.join('\n')}\n`;
  await writeFile(file, text);
  const copies = Math.max(1, Math.ceil(minEvents / lines.length));
  const dbPath = join(workDir, 'ceiling.duckdb');
  await rm(dbPath, { force: true });
  const instance = await DuckDBInstance.create(dbPath, { memory_limit: memoryLimit, threads: '2' });
  const connection = await instance.connect();
  const files = Array.from({ length: copies }, () => `'${file.replaceAll("'", "''")}'`).join(', ');
  const started = performance.now();
  await connection.run(`CREATE TABLE events AS SELECT * FROM read_json([${files}], format = 'newline_delimited', maximum_object_size = 67108864)`);
  await connection.run('CHECKPOINT');
  const seconds = (performance.now() - started) / 1000;
  const events = Number((await connection.runAndReadAll('SELECT count(*) FROM events')).getRows()[0]![0]);
  connection.closeSync();
  instance.closeSync();
  const bytes = (await stat(dbPath)).size;
  await rm(dbPath, { force: true });
  await rm(file, { force: true });
  return { events, seconds, events_per_s: events / seconds, bytes_per_event: bytes / events, raw_bytes_per_event: Buffer.byteLength(text) / lines.length };
}
