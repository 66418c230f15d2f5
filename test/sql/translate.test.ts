/**
 * The translator's public API: describeQuery, sandboxing, parameters, errors, and the plan shape.
 * What runs SQL runs on DuckDB and on ClickHouse (chdb); the plan shape is DuckDB's.
 */

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AppError } from '../../src/errors.ts';
import { describeQuery, translate, translateSandboxed, type SqlDialect } from '../../src/sql/index.ts';
import { convertCompact } from '../../src/warehouse/clickhouse/results.ts';
import { clickhouseDialect } from '../../src/warehouse/clickhouse/sql-generator.ts';
import { duckdbDialect } from '../../src/warehouse/duckdb/sql-generator.ts';
import { openClickHouseFixture } from './clickhouse-fixture.ts';
import { openFixture, plainValue } from './fixtures.ts';

/** One engine's fixture: its tables, and the rows of engine SQL with its parameters bound. */
interface Engine {
  dialect: SqlDialect;
  resolveTable(name: string): string | undefined;
  rows(sql: string, values?: Record<string, string | null>): Promise<unknown[][]>;
  /** How the engine's SQL names a bound parameter. */
  parameterMark(name: string): RegExp;
  close(): Promise<void> | void;
}

const ENGINES: Record<string, () => Promise<Engine>> = {
  DuckDB: async () => {
    const fixture = await openFixture();
    return {
      dialect: duckdbDialect,
      resolveTable: (name) => fixture.resolveTable(name),
      rows: async (sql, values = {}) => {
        const prepared = await fixture.connection.prepare(sql);
        prepared.bind(values);
        return (await prepared.runAndReadAll()).getRows().map((row) => row.map((value) => plainValue(value)));
      },
      parameterMark: (name) => new RegExp(`\\$${name}\\b`),
      close: () => fixture.close(),
    };
  },
  ClickHouse: async () => {
    const clickhouse = await openClickHouseFixture();
    return {
      dialect: clickhouseDialect,
      resolveTable: (name) => clickhouse.resolveTable(name),
      rows: async (sql, values = {}) => convertCompact(await clickhouse.warehouse.queryCompact(sql, values, { timeoutMs: 30_000, maxRows: 1000 }), 'iso').rows,
      parameterMark: (name) => new RegExp(`\\{${name}:`),
      close: () => clickhouse.close(),
    };
  },
};

const LOGS_ALL_LIKE = `
with edge_logs as (
  select t.timestamp, t.id, t.event_message, t.metadata
  from \`cloudflare.logs.prod\` as t cross join unnest(metadata) as m
  where t.project = @project
),
function_logs as (
  select t.timestamp, t.id, t.event_message, t.metadata
  from \`deno-relay-logs\` as t cross join unnest(t.metadata) as m
  where m.project_ref = @project and m.function_id = @function_id
)
select id, timestamp, event_message, metadata from edge_logs order by timestamp desc limit 100`;

describe('describeQuery', () => {
  test('lists parameters, source names and top-level CTEs', () => {
    assert.deepEqual(describeQuery(LOGS_ALL_LIKE), {
      parameters: ['project', 'function_id'],
      tables: ['cloudflare.logs.prod', 'deno-relay-logs'],
      ctes: ['edge_logs', 'function_logs'],
    });
  });

  test('refuses what translate refuses, with 400 invalid_sql and a position', () => {
    assert.throws(
      () => describeQuery('select\n  getenv(\'HOME\') as h'),
      (error: unknown) => {
        assert.ok(error instanceof AppError);
        assert.equal(error.status, 400);
        assert.equal(error.code, 'invalid_sql');
        assert.match(error.message, /function getenv is not supported/);
        assert.deepEqual(error.details, { line: 2, column: 3 });
        return true;
      },
    );
  });
});

for (const [engineName, open] of Object.entries(ENGINES)) {
  describe(`on ${engineName}`, () => {
    let engine: Engine;
    before(async () => {
      engine = await open();
    });
    after(() => engine.close());

    describe('translateSandboxed', () => {
      test('the consumer query replaces the final SELECT and reads the CTEs', async () => {
        const translation = translateSandboxed(
          LOGS_ALL_LIKE,
          'select id from edge_logs where id in (\'e1\', \'e4\') order by id',
          engine.dialect,
          engine,
        );
        assert.deepEqual(translation.parameters, ['project', 'function_id']);
        assert.deepEqual(await engine.rows(translation.sql, { project: 'default', function_id: null }), [['e1']]);
      });

      test('the consumer may define its own CTEs over the endpoint CTEs', async () => {
        const translation = translateSandboxed(
          LOGS_ALL_LIKE,
          'with recent as (select id, timestamp from edge_logs) select count(*) as n from recent',
          engine.dialect,
          engine,
        );
        assert.deepEqual(await engine.rows(translation.sql, { project: 'other', function_id: null }), [[1]]);
      });

      test('the consumer may not read sources', () => {
        assert.throws(
          () => translateSandboxed(LOGS_ALL_LIKE, 'select id from `cloudflare.logs.prod`', engine.dialect, engine),
          /not one of the endpoint's CTEs/,
        );
      });

      test("the consumer's CTE shadows an endpoint CTE of that name; the endpoint's other CTEs still read theirs", async () => {
        const endpoint = 'with a as (select 1 as x), b as (select x from a) select x from b';
        const { sql } = translateSandboxed(endpoint, 'with a as (select 2 as x) select a.x as mine, b.x as theirs from a, b', engine.dialect, engine);
        assert.deepEqual(await engine.rows(sql), [[2, 1]]);
        assert.throws(() => translateSandboxed(endpoint, 'with c as (select 1 as x), c as (select 2 as x) select x from c', engine.dialect, engine), /defined twice/);
      });

      test('an endpoint without CTEs cannot be sandboxed', () => {
        assert.throws(() => translateSandboxed('select 1 as x', 'select 1 as y', engine.dialect, engine), /no CTEs/);
      });

      test('statements in the consumer SQL are refused', () => {
        assert.throws(() => translateSandboxed(LOGS_ALL_LIKE, 'select 1; drop table x', engine.dialect, engine), /only one statement/);
      });
    });

    describe('parameters', () => {
      test('are bound as $name, never spliced', () => {
        const translation = translate("select id from `cloudflare.logs.prod` where project = @project or id = @project", engine.dialect, engine);
        assert.deepEqual(translation.parameters, ['project']);
        assert.match(translation.sql, engine.parameterMark('project'));
        assert.doesNotMatch(translation.sql, /@project/);
      });

      test('an injection attempt stays a value', async () => {
        const translation = translate('select count(*) as n from `cloudflare.logs.prod` where project = @project', engine.dialect, engine);
        assert.deepEqual(await engine.rows(translation.sql, { project: "default' or '1'='1" }), [[0]]);
      });
    });
  });
}

describe('plan shape (engines.md §2.2), on DuckDB', () => {
  let duckdb: Engine;
  before(async () => {
    duckdb = await ENGINES.DuckDB!();
  });
  after(() => duckdb.close());

  const query = `
    select timestamp_trunc(t.timestamp, hour) as hour, count(*) as n, countif(r.status_code >= 400) as errors
    from \`deno-relay-logs\` t cross join unnest(t.metadata) as m cross join unnest(m.response) as r
    where m.project_ref = @project and t.timestamp > cast(@since as timestamp)
    group by hour order by hour`;

  test('CROSS JOIN UNNEST chains become select-list unnests with pushed-down filters', async () => {
    const { sql } = translate(query, duckdbDialect, duckdb);
    assert.doesNotMatch(sql, /CROSS JOIN/i);
    const explain = await duckdb.rows(`EXPLAIN ${sql}`, { project: 'default', since: '2024-01-01T11:00:00Z' });
    const plan = explain.map((row) => String(row[1])).join('\n');
    assert.doesNotMatch(plan, /DELIM_JOIN/);
    assert.match(plan, /UNNEST/);
    // The timestamp bound reaches the table scan as a filter (zone-map pruning).
    assert.match(plan, /SEQ_SCAN[\s\S]*Filters:[\s\S]*timestamp>/);
  });
});
