/** The ClickHouse SQL (`ch_sql`) front end's API: the language argument, parameters, refusals, positions. */

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AppError } from '../../src/errors.ts';
import { describeQuery, translate, translateSandboxed } from '../../src/sql/index.ts';
import { clickhouseDialect } from '../../src/warehouse/clickhouse/sql-generator.ts';
import { duckdbDialect } from '../../src/warehouse/duckdb/sql-generator.ts';

const ctx = { resolveTable: (name: string) => (name === 'logs' ? '"src_logs"' : undefined) };

function refusal(run: () => unknown): AppError {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof AppError, String(error));
    assert.equal(error.status, 400);
    assert.equal(error.code, 'invalid_sql');
    return error;
  }
  assert.fail('expected invalid_sql');
}

describe('ch_sql front end', () => {
  test('bq_sql stays the default: a ClickHouse-only function is refused without the language', () => {
    assert.match(refusal(() => translate('select toStartOfHour(timestamp) from logs', duckdbDialect, ctx)).message, /toStartOfHour/);
    assert.match(translate('select toStartOfHour(timestamp) from logs', duckdbDialect, ctx, 'ch_sql').sql, /3600000000/);
  });

  test('{name:Type} and @name parameters are the same parameter list, without decoration', () => {
    const sql = 'select count() from logs where status >= {min_status:UInt16} and project = @project and path = {path:String}';
    assert.deepEqual(describeQuery(sql, 'ch_sql'), { parameters: ['min_status', 'project', 'path'], tables: ['logs'], ctes: [] });
    const duck = translate(sql, duckdbDialect, ctx, 'ch_sql');
    assert.deepEqual(duck.parameters, ['min_status', 'project', 'path']);
    // The Type casts the bound string; String needs no cast.
    assert.match(duck.sql, /CAST\(\$min_status AS BIGINT\)/);
    assert.match(duck.sql, /"path" = \$path/);
  });

  test('a parameter with a parameterised type keeps later positions where they were written', () => {
    const error = refusal(() => translate("select {at:DateTime64(3, 'UTC')}, nosuch(1) from logs", duckdbDialect, ctx, 'ch_sql'));
    assert.deepEqual(error.details, { line: 1, column: 35 });
  });

  test('function names are case-sensitive, except ClickHouse\'s case-insensitive ones', () => {
    assert.match(translate('select COUNT(*), Sum(status) from logs', clickhouseDialect, ctx, 'ch_sql').sql, /count\(\)/);
    const error = refusal(() => translate('select COUNTIF(status = 200) from logs', duckdbDialect, ctx, 'ch_sql'));
    assert.match(error.message, /Unknown function COUNTIF\. Maybe you meant: countIf \(line 1, column 8\)/);
  });

  test('sandboxed ch_sql reads only the endpoint\'s CTEs', () => {
    const endpoint = 'with recent as (select id, status from logs where status >= {min:UInt16}) select * from recent';
    const translation = translateSandboxed(endpoint, 'select countIf(status = 500) from recent', duckdbDialect, ctx, 'ch_sql');
    assert.deepEqual(translation.parameters, ['min']);
    assert.match(refusal(() => translateSandboxed(endpoint, 'select 1 from logs', duckdbDialect, ctx, 'ch_sql')).message, /not one of the endpoint's CTEs/);
  });

  test('a {name:Type} on a later line keeps the positions of what follows it', () => {
    const sql = "select id\nfrom logs\nwhere status = {status:UInt16}\n  and nosuch(1) = 1";
    assert.deepEqual(refusal(() => translate(sql, duckdbDialect, ctx, 'ch_sql')).details, { line: 4, column: 7 });
    // Inside a string literal it is text, not a parameter.
    assert.deepEqual(describeQuery("select '{status:UInt16}' from logs", 'ch_sql').parameters, []);
  });

  test('rewrites that need types run in a sandboxed query too', () => {
    const endpoint = 'with recent as (select id, timestamp, status from logs) select * from recent';
    const shape = { open: false, columns: [{ name: 'id', type: { kind: 'scalar' as const, name: 'STRING' as const } }, { name: 'timestamp', type: { kind: 'scalar' as const, name: 'TIMESTAMP' as const } }, { name: 'status', type: { kind: 'scalar' as const, name: 'INT64' as const } }] };
    const typed = { ...ctx, tableShape: (name: string) => (name === 'logs' ? shape : undefined) };
    const { sql } = translateSandboxed(endpoint, 'select toString(toStartOfHour(timestamp)) as hour from recent', duckdbDialect, typed, 'ch_sql');
    assert.match(sql, /strftime/);
  });

  test('arrayJoin is placed only where rows can multiply', () => {
    assert.match(refusal(() => translate('select id from logs order by arrayJoin([1, 2])', duckdbDialect, ctx, 'ch_sql')).message, /arrayJoin is supported in a SELECT list/);
  });

  test('LIMIT n OFFSET m BY and a LIMIT after LIMIT BY belong to the outermost query only', () => {
    const limited = translate('select id from logs order by id limit 1 offset 2 by project limit 5 offset 1', duckdbDialect, ctx, 'ch_sql').sql;
    assert.match(limited, /row_number\(\) OVER \(PARTITION BY .*\) > 2\) AND .* <= 3\)/);
    assert.match(limited, /LIMIT 5 OFFSET 1$/);
    // A sandboxed query keeps the endpoint's CTEs, never its final SELECT's limits.
    const endpoint = 'with recent as (select id, project from logs) select * from recent limit 1 by project limit 7';
    assert.doesNotMatch(translateSandboxed(endpoint, 'select id from recent', duckdbDialect, ctx, 'ch_sql').sql, /LIMIT 7/);
  });
});
