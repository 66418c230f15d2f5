/**
 * The analyzer (src/sql/analyze.ts): names resolved by BigQuery's scoping rules against the
 * sources' columns, run on the DuckDB fixture and on the ClickHouse one (chdb); and misspellings
 * refused in BigQuery's words.
 */

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AppError } from '../../src/errors.ts';
import { shapeOfSource, translate, translateSandboxed, type SqlDialect, type TranslateContext } from '../../src/sql/index.ts';
import { convertCompact } from '../../src/warehouse/clickhouse/results.ts';
import { clickhouseDialect } from '../../src/warehouse/clickhouse/sql-generator.ts';
import { duckdbDialect } from '../../src/warehouse/duckdb/sql-generator.ts';
import { schemaForRows } from '../../src/warehouse/schema.ts';
import type { JsonValue } from '../../src/warehouse/types.ts';
import { openClickHouseFixture } from './clickhouse-fixture.ts';
import { FIXTURE_SOURCES, openFixture, plainValue } from './fixtures.ts';

/** One engine's fixture: its tables, and the rows of the engine SQL a translation printed. */
interface Engine {
  dialect: SqlDialect;
  resolveTable(name: string): string | undefined;
  rows(sql: string): Promise<unknown[][]>;
  close(): Promise<void> | void;
}

const OPEN: Record<string, () => Promise<Engine>> = {
  DuckDB: async () => {
    const fixture = await openFixture();
    return {
      dialect: duckdbDialect,
      resolveTable: (name) => fixture.resolveTable(name),
      rows: async (sql) => (await fixture.connection.runAndReadAll(sql)).getRows().map((row) => row.map((value) => plainValue(value))),
      close: () => fixture.close(),
    };
  },
  ClickHouse: async () => {
    const fixture = await openClickHouseFixture();
    return {
      dialect: clickhouseDialect,
      resolveTable: (name) => fixture.resolveTable(name),
      rows: async (sql) => convertCompact(await fixture.warehouse.queryCompact(sql, {}, { timeoutMs: 30_000, maxRows: 1000 }), 'iso').rows,
      close: () => fixture.close(),
    };
  },
};

/** Each fixture source's columns as the warehouse would infer them from its events. */
const shapes = new Map(
  FIXTURE_SOURCES.map((source) => {
    const rows = source.events.map(({ id: _id, timestamp: _timestamp, event_message: _message, ...fields }) => ({ fields: fields as { [key: string]: JsonValue } }));
    return [source.name, shapeOfSource(schemaForRows(new Map(), rows))];
  }),
);

for (const [engineName, open] of Object.entries(OPEN)) {
  describe(`on ${engineName}`, () => {
    let engine: Engine;
    before(async () => {
      engine = await open();
    });
    after(() => engine.close());

    const context: TranslateContext = {
      resolveTable: (name) => engine.resolveTable(name),
      tableShape: (name) => shapes.get(name),
      tableNames: () => shapes.keys(),
    };

    async function run(bigQuerySql: string): Promise<unknown[][]> {
      return engine.rows(translate(bigQuerySql, engine.dialect, context).sql);
    }

    function refusal(bigQuerySql: string): { message: string; details: unknown } {
      try {
        translate(bigQuerySql, engine.dialect, context);
      } catch (error) {
        assert.ok(error instanceof AppError, String(error));
        assert.equal(error.status, 400);
        return { message: error.message, details: error.details };
      }
      assert.fail(`accepted: ${bigQuerySql}`);
    }

    describe('names resolve as in BigQuery', () => {
      test('an UNNEST alias shadows the column it unnests (Studio: unnest(metadata) as metadata)', async () => {
        const rows = await run(
          'select id, metadata.function_id from `deno-relay-logs` cross join unnest(metadata) as metadata where metadata.execution_time_ms >= 50 order by id',
        );
        assert.deepEqual(rows, [['d5', 'fn-b'], ['d6', 'fn-c'], ['d7', 'fn-a']]);
      });

      test('a field of an unnested record is found without its alias', async () => {
        const rows = await run(
          "select id from `cloudflare.logs.prod` cross join unnest(metadata) as m cross join unnest(m.request) as r where path like '%rest/v1%' order by id",
        );
        assert.deepEqual(rows, [['e1'], ['e5']]);
      });

      test('GROUP BY a field found through the unnested records, next to a SELECT alias', async () => {
        const rows = await run(
          'select timestamp_trunc(timestamp, hour) as timestamp, function_id, count(*) as count from `deno-relay-logs` cross join unnest(metadata) as m ' +
            "where project_ref = 'default' group by timestamp, function_id order by timestamp, function_id",
        );
        assert.deepEqual(rows, [
          ['2024-01-01T10:00:00Z', 'fn-a', 2],
          ['2024-01-01T10:00:00Z', 'fn-b', 1],
          ['2024-01-01T11:00:00Z', 'fn-a', 2],
          ['2024-01-01T11:00:00Z', 'fn-b', 1],
        ]);
      });

      test('SELECT aliases inside HAVING and ORDER BY expressions', async () => {
        const rows = await run(
          'select m.function_id as fn, count(*) as n from `deno-relay-logs` cross join unnest(metadata) as m ' +
            'group by fn having n + 0 > 1 order by n * -1, fn',
        );
        assert.deepEqual(rows, [['fn-a', 4], ['fn-b', 2]]);
      });

      test("a Postgres cast as Studio's self-hosted queries send it", async () => {
        const rows = await run("select id from `gotrue.logs.prod` where event_message::text like '%error%'");
        assert.deepEqual(rows, [['a2']]);
      });

      test('a CTE carries its columns to the query that reads it', async () => {
        const rows = await run(
          'with edge as (select id, metadata from `cloudflare.logs.prod`) ' +
            "select id, r.method from edge cross join unnest(edge.metadata) as m cross join unnest(m.request) as r where method = 'POST'",
        );
        assert.deepEqual(rows, [['e2', 'POST']]);
      });
    });

    describe('misspellings are refused in BigQuery words, with the position', () => {
      test('a column', () => {
        assert.deepEqual(refusal('select event_mesage from `cloudflare.logs.prod`'), {
          message: 'Unrecognized name: event_mesage; Did you mean event_message? at [1:8]',
          details: { line: 1, column: 8 },
        });
      });

      test('a field of an unnested record', () => {
        const { message, details } = refusal('select m.projetc_ref\nfrom `deno-relay-logs` cross join unnest(metadata) as m');
        assert.match(message, /^Field name projetc_ref does not exist in STRUCT<deployment_id STRING, execution_time_ms INT64, function_id STRING, project_ref STRING, .*>; Did you mean project_ref\? at \[1:8\]$/);
        assert.deepEqual(details, { line: 1, column: 8 });
      });

      test('a column read through a table alias', () => {
        assert.equal(refusal('select\n  t.evnt_message from `cloudflare.logs.prod` as t').message, 'Name evnt_message not found inside t; Did you mean event_message? at [2:3]');
      });

      test('a function', () => {
        assert.equal(refusal('select lenght(event_message) from `cloudflare.logs.prod`').message, 'Function not found: lenght; Did you mean length? at [1:8]');
      });

      test('a table', () => {
        assert.equal(refusal('select id from `cloudflare.logs.prd`').message, 'Table not found: cloudflare.logs.prd; Did you mean cloudflare.logs.prod? at [1:16]');
      });

      test('a column neither grouped nor aggregated', () => {
        assert.equal(
          refusal('select project, count(*) from `cloudflare.logs.prod` group by id').message,
          'SELECT list expression references column project which is neither grouped nor aggregated at [1:8]',
        );
      });

      test('a name two tables have', () => {
        assert.equal(
          refusal('select id from `cloudflare.logs.prod` as a cross join `deno-relay-logs` as b').message,
          'Column name id is ambiguous at [1:8]',
        );
      });
    });

    describe('sandboxed queries', () => {
      const ENDPOINT = 'with edge_logs as (select id, timestamp, metadata from `cloudflare.logs.prod`) select id from edge_logs';

      test('a table Studio reads that the endpoint does not define answers no rows', async () => {
        const { sql } = translateSandboxed(ENDPOINT, 'select id, timestamp from pg_cron_logs where event_message::text like "%cron job%"', engine.dialect, context);
        assert.equal((await engine.rows(sql)).length, 0);
      });

      test('any other unknown table is still refused', () => {
        assert.throws(() => translateSandboxed(ENDPOINT, 'select id from other_logs', engine.dialect, context), /not one of the endpoint's CTEs/);
      });

      test("names resolve through the endpoint's CTEs", () => {
        assert.throws(
          () => translateSandboxed(ENDPOINT, 'select id from edge_logs cross join unnest(metadata) as m cross join unnest(m.request) as r where r.pth is null', engine.dialect, context),
          /Field name pth does not exist in STRUCT<cf ARRAY<STRUCT<.*, method STRING, path STRING, .*>; Did you mean path\? at \[1:99\]$/,
        );
      });
    });
  });
}
