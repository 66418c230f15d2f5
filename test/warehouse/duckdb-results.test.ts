import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { normalizeEvent } from '../../src/pipeline/normalize.ts';
import { DuckDbWarehouse } from '../../src/warehouse/duckdb/adapter.ts';
import { nestedAndJsonExact, ResultReader, resultConverter } from '../../src/warehouse/duckdb/results.ts';
import { schemaForRows } from '../../src/warehouse/schema.ts';
import type { LogRow } from '../../src/warehouse/types.ts';
import { supabaseSamples } from '../support/samples.ts';

/**
 * Nested result columns come back as DuckDB's JSON once a statement has run (results.ts): every
 * such read must equal the value-by-value conversion, and anything JSON cannot carry exactly must
 * go the usual way.
 */

let instance: DuckDBInstance;
let connection: DuckDBConnection;
before(async () => {
  instance = await DuckDBInstance.create(':memory:');
  connection = await instance.connect();
  await connection.run(`SET TimeZone = 'UTC'`);
});
after(() => {
  connection.closeSync();
  instance.closeSync();
});

/** Reads through `reader`, noting each SQL text DuckDB ran. */
async function read(reader: ResultReader, sql: string, maxRows = 100) {
  const ran: string[] = [];
  const rows = await reader.read((text, max, params) => (ran.push(text), connection.streamAndReadUntil(text, max, params)), sql, {}, maxRows);
  return { rows, json: ran.some((text) => text.includes('to_json(')), runs: ran.length };
}

async function converted(sql: string) {
  return (await connection.runAndReadAll(sql)).convertRowObjects(resultConverter);
}

test('a statement read again gets its nested columns as JSON, with the same values', async () => {
  await connection.run(`CREATE OR REPLACE TABLE nested AS SELECT * FROM (VALUES
    (1, [{'s': 'é\n"\\', 'n': 9007199254740993::BIGINT, 'f': 0.1::DOUBLE, 'b': true, 'l': [1, NULL]}], {'select': 'x', 'i': -0.0::DOUBLE}),
    (2, [], NULL),
    (3, NULL, {'select': NULL, 'i': 1e300::DOUBLE}),
    (4, [NULL, {'s': NULL, 'n': NULL, 'f': NULL, 'b': NULL, 'l': []}], {'select': '', 'i': 2.5::DOUBLE})
  ) AS t(id, records, record)`);
  const sql = 'SELECT id, records, record FROM nested ORDER BY id';
  const reader = new ResultReader();
  const first = await read(reader, sql);
  assert.equal(first.json, false);
  const second = await read(reader, sql);
  assert.equal(second.json, true);
  assert.equal(second.runs, 1);
  assert.deepEqual(second.rows, first.rows);
  assert.deepEqual(first.rows, await converted(sql));
  assert.equal(JSON.stringify(second.rows), JSON.stringify(first.rows));
  assert.equal((await read(reader, sql, 2)).rows.length, 2);
});

test('types JSON cannot carry exactly go the usual way: nested timestamps, NaN, a type changed under the same SQL', async () => {
  const reader = new ResultReader();
  const timestamps = `SELECT [TIMESTAMPTZ '2026-11-21 06:00:00.123456+00'] AS t, [1.5::DECIMAL(4, 1)] AS d`;
  await read(reader, timestamps);
  const again = await read(reader, timestamps);
  assert.deepEqual(again.rows, [{ t: [1_795_240_800_123_456], d: [1.5] }]);
  assert.equal(again.runs, 1, 'not nested in a JSON-exact type: never asked for JSON');

  const nan = `SELECT ['nan'::DOUBLE, 1.0] AS x`;
  const plain = (await read(reader, nan)).rows;
  const retried = await read(reader, nan);
  assert.equal(retried.runs, 2, 'NaN is not JSON: read again the usual way');
  assert.deepEqual(retried.rows, plain);

  await connection.run(`CREATE OR REPLACE TABLE changing AS SELECT [1, 2]::BIGINT[] AS x`);
  const sql = 'SELECT x FROM changing';
  await read(reader, sql);
  await connection.run(`CREATE OR REPLACE TABLE changing AS SELECT [TIMESTAMPTZ '2026-01-01 00:00:00+00'] AS x`);
  const changed = await read(reader, sql);
  assert.equal(changed.runs, 2);
  assert.deepEqual(changed.rows, [{ x: [1_767_225_600_000_000] }]);
});

test('SQL that cannot be wrapped runs as written', async () => {
  const reader = new ResultReader();
  const sql = `SELECT [1, 2] AS x -- a trailing comment`;
  await read(reader, sql);
  const again = await read(reader, sql);
  assert.equal(again.runs, 2);
  assert.deepEqual(again.rows, [{ x: [1, 2] }]);
});

test('the notes are bounded: statements beyond the count or the length are read the usual way', async () => {
  const reader = new ResultReader(1, 40);
  const [a, b] = [`SELECT [1] AS x`, `SELECT [2] AS x`];
  await read(reader, a);
  assert.equal((await read(reader, a)).json, true);
  await read(reader, b);
  assert.equal((await read(reader, a)).json, false, 'forgotten when b was noted');
  const long = `SELECT [3] AS x -- ${'padding '.repeat(5)}\n`;
  await read(reader, long);
  assert.equal((await read(reader, long)).json, false);
});

test('column names that SELECT * REPLACE cannot address are left alone', async () => {
  const reader = new ResultReader();
  const sql = `SELECT [1] AS a, [2] AS "A"`;
  await read(reader, sql);
  const again = await read(reader, sql);
  assert.equal(again.json, false);
  assert.deepEqual(again.rows, [{ a: [1], A: [2] }]);
});

test('nestedAndJsonExact reads typeof() output', () => {
  assert.equal(nestedAndJsonExact('STRUCT("timestamp" VARCHAR, "b c" BIGINT, "x""y" DOUBLE[], n VARCHAR)[]'), true);
  assert.equal(nestedAndJsonExact('STRUCT(date VARCHAR, "select" STRUCT(a BOOLEAN)[])'), true);
  assert.equal(nestedAndJsonExact('VARCHAR'), false);
  for (const type of ['STRUCT(a TIMESTAMP WITH TIME ZONE)[]', 'DECIMAL(18,3)[]', 'MAP(VARCHAR, BIGINT)', 'FLOAT[]', 'JSON[]', 'STRUCT(a DATE)', 'HUGEINT[]']) {
    assert.equal(nestedAndJsonExact(type), false, type);
  }
});

/** Reads as JSON text through `reader`, noting each SQL text DuckDB ran. */
async function readJson(reader: ResultReader, sql: string, maxRows = 100) {
  const ran: string[] = [];
  const text = await reader.readJson((query, max, params) => (ran.push(query), connection.streamAndReadUntil(query, max, params)), sql, {}, maxRows);
  return { value: JSON.parse(text) as unknown, rowJson: ran.some((query) => query.includes('to_json({')), runs: ran.length };
}

test('a statement read again as JSON text gets whole rows from DuckDB, in the wire shape', async () => {
  await connection.run(`CREATE OR REPLACE TABLE wire AS SELECT * FROM (VALUES
    (1, TIMESTAMPTZ '2026-11-21 06:00:00.123456+00', TIMESTAMP '2026-11-21 06:00:00', 9007199254740993::BIGINT, 170141183460469231731687303715884105727::HUGEINT,
      1.50::DECIMAL(4, 2), 0.1::DOUBLE, 0.1::FLOAT, true, 'é
"\\ ', [{'s': 'x', 'n': 1}], {'select': 'y', 'f': 100.0::DOUBLE}),
    (2, TIMESTAMPTZ '1969-12-31 23:59:59.5+00', TIMESTAMP '1969-12-31 23:59:59.000001', -1::BIGINT, 0::HUGEINT,
      -0.01::DECIMAL(4, 2), 2.5::DOUBLE, 1e30::FLOAT, false, '', [], NULL),
    (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, {'select': NULL, 'f': NULL})
  ) AS t(id, tz, ts, big, huge, dec, dbl, flt, flag, text, records, record)`);
  const sql = 'SELECT * FROM wire ORDER BY id';
  const reader = new ResultReader();
  const first = await readJson(reader, sql);
  assert.equal(first.rowJson, false, 'the first run converts');
  const second = await readJson(reader, sql);
  assert.equal(second.rowJson, true);
  assert.equal(second.runs, 1);
  assert.deepEqual(second.value, first.value);
  assert.deepEqual(first.value, JSON.parse(JSON.stringify(await converted(sql))));
  assert.deepEqual((second.value as Array<Record<string, unknown>>).map((row) => row.ts), ['2026-11-21T06:00:00', '1969-12-31T23:59:59.000001', null]);
  assert.equal(((await readJson(reader, sql, 2)).value as unknown[]).length, 2);
  const none = await readJson(reader, `${sql.replace(' ORDER BY id', '')} WHERE id > 3`);
  assert.deepEqual([none.value, (await readJson(reader, `${sql.replace(' ORDER BY id', '')} WHERE id > 3`)).value], [[], []]);
});

test('rows JSON cannot carry go the usual way: NaN, a type changed under the same SQL, a type without a wire form', async () => {
  const reader = new ResultReader();
  const nan = `SELECT 'nan'::DOUBLE AS x, 1 AS y`;
  const plain = (await readJson(reader, nan)).value;
  const retried = await readJson(reader, nan);
  assert.equal(retried.runs, 2, 'NaN is not JSON: read again the usual way');
  assert.deepEqual(retried.value, plain);
  assert.deepEqual(plain, [{ x: 'NaN', y: 1 }]);
  assert.equal((await readJson(reader, nan)).runs, 1, 'and not asked for as JSON again');

  await connection.run(`CREATE OR REPLACE TABLE changing AS SELECT 1::BIGINT AS x`);
  const sql = 'SELECT x FROM changing';
  await readJson(reader, sql);
  await connection.run(`CREATE OR REPLACE TABLE changing AS SELECT TIMESTAMPTZ '2026-01-01 00:00:00+00' AS x`);
  const changed = await readJson(reader, sql);
  assert.equal(changed.runs, 2);
  assert.deepEqual(changed.value, [{ x: 1_767_225_600_000_000 }]);

  const dated = `SELECT DATE '2026-11-21' AS d, INTERVAL 1 DAY AS i`;
  await readJson(reader, dated);
  const again = await readJson(reader, dated);
  assert.equal(again.rowJson, false);
  assert.equal(again.runs, 1);
});

test('every Supabase sample reads back the same through the warehouse, first and second time', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'sawmill-results-'));
  const warehouse = await DuckDbWarehouse.open({ path: join(dir, 'w.duckdb'), stagingDir: join(dir, 'staging'), memoryLimit: '256MB' });
  try {
    for (const [name, event] of supabaseSamples) {
      const source = randomUUID();
      await warehouse.createSource(source);
      const normalized = normalizeEvent(event, Date.now() * 1000);
      assert.ok(normalized.ok, name);
      const rows: LogRow[] = [normalized.row];
      await warehouse.append([{ sourceId: source, schema: schemaForRows(warehouse.schema(source), rows), rows }]);
      const sql = `SELECT * FROM ${warehouse.relation(source)}`;
      const options = { timeoutMs: 10_000, maxRows: 10 };
      const first = await warehouse.query(sql, {}, options);
      const second = await warehouse.query(sql, {}, options);
      assert.equal(JSON.stringify(second), JSON.stringify(first), name);
      for (let run = 0; run < 2; run++) assert.deepEqual(JSON.parse(await warehouse.queryJson(sql, {}, options)), first, `${name} as JSON text`);
      assert.ok(first.length === 1 && Object.keys(first[0]!).length > 3, name);
    }
  } finally {
    await warehouse.close();
    await rm(dir, { recursive: true, force: true });
  }
});
