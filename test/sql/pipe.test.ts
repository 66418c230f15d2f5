/**
 * Pipe syntax is lowered into the tree of the standard query it equals (src/sql/pipe.ts): each
 * pipe query here prints, on each engine, exactly the SQL its standard twin prints. (What each
 * operator answers is in corpus/pipe.sqltest, on both engines.)
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { translate, type SqlDialect } from '../../src/sql/index.ts';
import { clickhouseDialect } from '../../src/warehouse/clickhouse/sql-generator.ts';
import { duckdbDialect } from '../../src/warehouse/duckdb/sql-generator.ts';
import { FIXTURE_SOURCES, fixtureShape } from './fixtures.ts';

const context = {
  resolveTable: (name: string) => FIXTURE_SOURCES.find((source) => source.name === name)?.relation,
  tableShape: fixtureShape,
};

const TWINS: Array<[pipe: string, standard: string]> = [
  [
    "FROM `cloudflare.logs.prod` |> WHERE project = 'default' |> AGGREGATE COUNT(*) AS events GROUP BY id |> ORDER BY id DESC",
    "SELECT id, COUNT(*) AS events FROM `cloudflare.logs.prod` WHERE project = 'default' GROUP BY id ORDER BY id DESC",
  ],
  [
    'FROM `deno-relay-logs` AS t |> JOIN UNNEST(t.metadata) AS m |> EXTEND m.execution_time_ms * 2 AS doubled |> WHERE doubled > 40 |> SELECT t.id, doubled',
    'SELECT t.id, m.execution_time_ms * 2 AS doubled FROM `deno-relay-logs` AS t JOIN UNNEST(t.metadata) AS m WHERE m.execution_time_ms * 2 > 40',
  ],
  [
    'FROM `gotrue.logs.prod` |> SET id = upper(id) |> DROP metadata |> ORDER BY timestamp |> LIMIT 2',
    'SELECT * EXCEPT (metadata) REPLACE (upper(id) AS id) FROM `gotrue.logs.prod` ORDER BY timestamp LIMIT 2',
  ],
  [
    'WITH recent AS (FROM `gotrue.logs.prod` |> WHERE id > @after |> SELECT id) FROM recent |> AGGREGATE COUNT(*) AS n',
    'WITH recent AS (SELECT id FROM `gotrue.logs.prod` WHERE id > @after) SELECT COUNT(*) AS n FROM recent',
  ],
];

for (const dialect of [duckdbDialect, clickhouseDialect] as SqlDialect[]) {
  test(`pipe queries print as their standard twins on ${dialect.name}`, () => {
    for (const [pipe, standard] of TWINS) assert.equal(translate(pipe, dialect, context).sql, translate(standard, dialect, context).sql, pipe);
  });
}
