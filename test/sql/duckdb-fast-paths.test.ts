/**
 * The DuckDB printer's fast forms (sql-functions.ts fastTruncate / fastUtcDatetime, plain LIKE
 * for literal patterns) return exactly what the general forms return, on timestamps chosen to
 * cross every boundary (before 1970 included), and are only used where they are known to apply.
 */

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { translate } from '../../src/sql/index.ts';
import { duckdbDialect } from '../../src/warehouse/duckdb/sql-generator.ts';

let instance: DuckDBInstance;
let connection: DuckDBConnection;
const resolveTable = (name: string) => (name === 'events' ? '"events"' : undefined);

before(async () => {
  instance = await DuckDBInstance.create(':memory:');
  connection = await instance.connect();
  await connection.run(`SET TimeZone = 'UTC'`);
  await connection.run(`CREATE TABLE events ("id" VARCHAR, "timestamp" TIMESTAMPTZ, "event_message" VARCHAR, "at" TIMESTAMP)`);
  // Instants around 1970, around day and hour boundaries, sub-second, far past and future, NULL.
  await connection.run(`
    INSERT INTO events
    SELECT 'r' || i, ts, CASE WHEN i % 3 = 0 THEN 'a\\b' ELSE '%x_y' END, CAST(ts AS TIMESTAMP)
    FROM (
      SELECT i, make_timestamptz(CAST(v AS BIGINT)) AS ts
      FROM (SELECT row_number() OVER () AS i, v FROM unnest([
        0, -1, 1, -999999, -1000000, -1000001, -86400000000, -86400000001, -86399999999,
        86399999999, 86400000000, 3599999999, 3600000000, -3600000001, 1704103200123456,
        1704103199999999, -2208988800000000, -2208988800000001, 4102444800000000, 253402300799999999,
        -62135596800000000, 1700000000000000 + 1234567
      ]) AS l(v))
    )
    UNION ALL SELECT 'null', NULL, NULL, NULL`);
});
after(() => {
  connection.closeSync();
  instance.closeSync();
});

async function rows(sql: string): Promise<unknown[][]> {
  const reader = await connection.runAndReadAll(sql);
  return reader.getRows().map((row) => row.map((value) => (value === null ? null : String(value))));
}

const PARTS = ['microsecond', 'millisecond', 'second', 'minute', 'hour', 'day'];

describe('TIMESTAMP_TRUNC of a stored timestamp', () => {
  test('is arithmetic on epoch microseconds and equals date_trunc in UTC, before 1970 too', async () => {
    for (const part of PARTS) {
      const { sql } = translate(`select t.id, timestamp_trunc(t.timestamp, ${part}) as a, timestamp_trunc(timestamp, ${part}, 'UTC') as b from events as t order by t.id`, duckdbDialect, { resolveTable });
      assert.match(sql, /epoch_us\("t"\."timestamp"\)|"t"\."timestamp" AS "a"/, sql);
      assert.doesNotMatch(sql, /date_trunc/, sql);
      const expected = await rows(`select id, date_trunc('${part}', "timestamp") as a, date_trunc('${part}', "timestamp") as b from events order by id`);
      assert.deepEqual(await rows(sql), expected, part);
    }
  });

  test('keeps date_trunc for calendar parts, other zones, DATETIME values and computed arguments', () => {
    const cases = [
      'select timestamp_trunc(timestamp, month) as x from events',
      'select timestamp_trunc(timestamp, week) as x from events',
      "select timestamp_trunc(timestamp, hour, 'Asia/Kolkata') as x from events",
      'select timestamp_trunc(t.at, hour) as x from events as t',
      'select timestamp_trunc(timestamp_add(timestamp, interval 1 hour), hour) as x from events',
      'with c as (select timestamp from events) select timestamp_trunc(c.timestamp, hour) as x from c',
    ];
    for (const query of cases) assert.match(translate(query, duckdbDialect, { resolveTable }).sql, /date_trunc|time_bucket/, query);
  });

  test('a bare timestamp is the source column only when nothing else in FROM can be', () => {
    const joined = translate('select timestamp_trunc(e.timestamp, hour) as x from events as e join events as f on e.id = f.id', duckdbDialect, { resolveTable }).sql;
    assert.match(joined, /epoch_us\("e"\."timestamp"\)/);
    const unnested = translate('select timestamp_trunc(timestamp, hour) as x from events as e cross join unnest([1, 2]) as n', duckdbDialect, { resolveTable }).sql;
    assert.match(unnested, /epoch_us\("timestamp"\)/);
  });
});

describe('DATETIME of a stored timestamp', () => {
  test("in UTC is the same microseconds without a time zone, as timezone('UTC', …) gives", async () => {
    const { sql } = translate(
      "select id, datetime(timestamp, 'UTC') as a, datetime(timestamp) as b, datetime(timestamp_trunc(timestamp, hour), 'UTC') as c from events order by id",
      duckdbDialect,
      { resolveTable },
    );
    assert.doesNotMatch(sql, /timezone\(/, sql);
    const expected = await rows(`select id, timezone('UTC', "timestamp") as a, CAST("timestamp" AS TIMESTAMP) as b, timezone('UTC', date_trunc('hour', "timestamp")) as c from events order by id`);
    assert.deepEqual(await rows(sql), expected);
  });

  test('in another zone still converts', () => {
    assert.match(translate("select datetime(timestamp, 'America/New_York') as x from events", duckdbDialect, { resolveTable }).sql, /timezone\('America\/New_York'/);
  });
});

describe('LIKE', () => {
  test('a literal pattern without backslash needs no ESCAPE; one with a backslash keeps it', async () => {
    const plain = translate("select count(*) as n from events where event_message like '%x_y'", duckdbDialect, { resolveTable }).sql;
    assert.doesNotMatch(plain, /ESCAPE/);
    const escaped = translate("select count(*) as n from events where event_message like r'%x\\_y'", duckdbDialect, { resolveTable }).sql;
    assert.match(escaped, /ESCAPE/);
    assert.deepEqual(await rows(escaped), [['15']]);
    const parameter = translate('select count(*) as n from events where event_message like @p', duckdbDialect, { resolveTable }).sql;
    assert.match(parameter, /ESCAPE/);
  });
});

describe('several quantiles of one value', () => {
  test('share one aggregate and return what separate ones return, NULL for a group without values', async () => {
    const { sql } = translate(
      `select event_message, approx_quantiles(epoch_us, 100)[offset(50)] as p50, approx_quantiles(epoch_us, 100)[offset(99)] as p99,
         approx_quantiles(epoch_us, 4)[offset(2)] as median
       from (select event_message, unix_micros(timestamp) as epoch_us from events) group by event_message order by event_message`,
      duckdbDialect,
      { resolveTable },
    );
    assert.match(sql, /quantile_disc\("epoch_us", \[0\.5, 0\.99\]\)\[1\]/, sql);
    const expected = await rows(
      `select event_message, quantile_disc(epoch_us(timestamp), 0.5), quantile_disc(epoch_us(timestamp), 0.99), quantile_disc(epoch_us(timestamp), 0.5)
       from events group by event_message order by event_message nulls first`,
    );
    assert.deepEqual(await rows(sql), expected);
    assert.deepEqual(expected[0], [null, null, null, null]);
  });

  test('quantiles are exact, and values of the input', async () => {
    const { sql } = translate(
      'select approx_quantiles(x, 4) as q, approx_quantiles(x, 2)[offset(1)] as median from (select x from unnest([9, 1, 100, 3, 7, 4, 13, 2, 11]) as x)',
      duckdbDialect,
      { resolveTable },
    );
    const [[boundaries, median]] = (await connection.runAndReadAll(sql)).getRowsJson() as [[number[], number]];
    assert.deepEqual([boundaries[0], boundaries[2], boundaries[4], median], [1, 7, 100, 7], 'minimum, the exact median, maximum');
    assert.ok(boundaries.every((value) => [9, 1, 100, 3, 7, 4, 13, 2, 11].includes(value)), String(boundaries));
  });

  test('a single quantile, or a windowed one, keeps the scalar form', () => {
    const single = translate('select approx_quantiles(ms, 100)[offset(95)] as p95 from (select 1 as ms)', duckdbDialect, { resolveTable }).sql;
    assert.match(single, /quantile_disc\("ms", 0\.95\)/);
  });
});
