/**
 * The doc-examples harness (scripts/doc-examples): how it reads examples out of a reference page,
 * how it compares a reply with a printed table, and that it runs an example as an endpoint does on
 * both engines. The pages here are written for these tests; nothing is read from ZetaSQL.
 */

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ClickHouseWarehouse } from '../../src/warehouse/clickhouse/adapter.ts';
import { clickhouseDialect } from '../../src/warehouse/clickhouse/sql-generator.ts';
import { DuckDbWarehouse } from '../../src/warehouse/duckdb/adapter.ts';
import { duckdbDialect } from '../../src/warehouse/duckdb/sql-generator.ts';
import { readDocs } from '../../scripts/doc-examples/cli.ts';
import { compareRows, compareValue, instantMicros, parseWire, type ColumnHints } from '../../scripts/doc-examples/compare.ts';
import { extractExamples } from '../../scripts/doc-examples/extract.ts';
import { classify, runExample, tally, type Engine } from '../../scripts/doc-examples/run.ts';
import { ANY, QueryText, splitStatements, type Hint } from '../../scripts/doc-examples/sql-text.ts';

const fence = '```';

/** A reference page in the layout of BigQuery's: a heading per function, signature, examples. */
const PAGE = `
# Made-up functions

## \`TWICE\`

${fence}zetasql
TWICE(x)
${fence}

**Examples**

${fence}zetasql
SELECT TWICE(4) AS doubled, 'pear' AS fruit;

/*---------+-------+
 | doubled | fruit |
 +---------+-------+
 | 8       | pear  |
 +---------+-------*/
${fence}

Passing a string is an error.

${fence}zetasql
SELECT TWICE('x') AS doubled
${fence}

${fence}zetasql
SELECT 1 AS a;

/*---+
 | a |
 +---+
 | 1 |
 +---*/

SELECT 2 AS b

/*---+
 | b |
 |---|
 | 2 |
 +---*
${fence}

## \`SHELF_COUNT\`

${fence}zetasql
WITH Shelf AS (SELECT 'lamp' AS thing, 3 AS qty UNION ALL SELECT 'mug', 1)
SELECT * FROM Shelf
${fence}

${fence}zetasql
SELECT thing FROM Shelf WHERE qty > 1

/*-------+
 | thing |
 +-------+
 | lamp  |
 +-------*/
${fence}

${fence}zetasql
SELECT thing FROM Cupboard

/*-------+
 | thing |
 +-------+
 | cup   |
 +-------*/
${fence}

${fence}zetasql
SELECT EXTRACT(DAY FROM DATE '2020-02-03') AS d, SHELF_COUNT(NULL) AS n; -- Returns a SQL NULL
${fence}

## \`HALVE\`

<table>
  <thead>
    <tr>
      <th>X</th>
      <th>HALVE(X)</th>
    </tr>
  </thead>
  <tbody>
    <tr>
      <td>8</td>
      <td>4.0</td>
    </tr>
    <tr>
      <td><code>-inf</code></td>
      <td><code>-inf</code></td>
    </tr>
    <tr>
      <td>X &lt; 0</td>
      <td>Error</td>
    </tr>
    <tr>
      <td>6</td>
      <td>Half of X</td>
    </tr>
    <tr>
      <td>'text'</td>
      <td>Error</td>
    </tr>
    <tr>
      <td>NULL</td>
      <td>Error</td>
    </tr>
  </tbody>
</table>

## \`HOST_OF\`

${fence}zetasql
SELECT FORMAT('%T', HOST_OF(u)) AS host FROM UNNEST(['http://a.example/x']) AS u;
${fence}

| host |
|------|
| "a.example" |
`;

describe('extracting examples from a page', () => {
  const examples = extractExamples('made_up', PAGE);
  const byId = new Map(examples.map((example) => [example.id, example]));

  test('a query with its printed table, under its function heading; a signature block is not an example', () => {
    const first = byId.get('made_up/TWICE/1')!;
    assert.equal(first.docSql, "SELECT TWICE(4) AS doubled, 'pear' AS fruit");
    assert.deepEqual(first.table, { header: ['doubled', 'fruit'], rows: [['8', 'pear']] });
    assert.equal(first.skip, undefined);
  });

  test('a query with no printed result is kept as skipped, as an error when the page says so', () => {
    assert.equal(byId.get('made_up/TWICE/2')!.skip, 'error stated');
    assert.equal(byId.get('made_up/TWICE/2')!.table, undefined);
  });

  test('two statements in one block, each with its table; a `|---|` rule and a table closed without its slash', () => {
    assert.deepEqual(byId.get('made_up/TWICE/3')!.table, { header: ['a'], rows: [['1']] });
    assert.equal(byId.get('made_up/TWICE/4')!.docSql, 'SELECT 2 AS b');
    assert.deepEqual(byId.get('made_up/TWICE/4')!.table, { header: ['b'], rows: [['2']] });
  });

  test('a table the page defines once is inlined as a CTE; one it never defines skips the example', () => {
    const reader = byId.get('made_up/SHELF_COUNT/2')!;
    assert.equal(reader.skip, undefined);
    assert.match(reader.sql, /^WITH Shelf AS \(\nSELECT 'lamp' AS thing, 3 AS qty UNION ALL SELECT 'mug', 1\n\)\nSELECT thing FROM Shelf WHERE qty > 1$/);
    assert.equal(byId.get('made_up/SHELF_COUNT/3')!.skip, 'needs a table defined elsewhere');
  });

  test('a result given as a comment on the statement', () => {
    const nullResult = byId.get('made_up/SHELF_COUNT/4')!;
    assert.match(nullResult.docSql, /SHELF_COUNT\(NULL\) AS n -- Returns a SQL NULL$/);
    assert.deepEqual(nullResult.table, { rows: [['NULL']] });
  });

  test('rows of an input/result HTML table with literal cells, each an example; a domain row is none', () => {
    assert.equal(byId.get('made_up/HALVE/1')!.docSql, 'SELECT HALVE(8)');
    assert.deepEqual(byId.get('made_up/HALVE/1')!.table, { rows: [['4.0']] });
    assert.equal(byId.get('made_up/HALVE/2')!.docSql, "SELECT HALVE(CAST('-inf' AS FLOAT64))");
    assert.equal(byId.get('made_up/HALVE/3')!.docSql, 'SELECT HALVE(NULL)');
    assert.equal(byId.get('made_up/HALVE/3')!.skip, 'error stated');
    assert.equal(examples.filter((example) => example.functionName === 'HALVE').length, 3);
  });

  test('a markdown table right after a block is its printed result', () => {
    assert.deepEqual(byId.get('made_up/HOST_OF/1')!.table, { header: ['host'], rows: [['"a.example"']] });
  });

  test('nothing else is taken for an example', () => {
    assert.deepEqual(
      examples.map((example) => example.id),
      ['made_up/TWICE/1', 'made_up/TWICE/2', 'made_up/TWICE/3', 'made_up/TWICE/4', 'made_up/SHELF_COUNT/1', 'made_up/SHELF_COUNT/2', 'made_up/SHELF_COUNT/3', 'made_up/SHELF_COUNT/4', 'made_up/HALVE/1', 'made_up/HALVE/2', 'made_up/HALVE/3', 'made_up/HOST_OF/1'],
    );
  });
});

describe('what a query tells about its results', () => {
  const hints = (sql: string) => new QueryText(sql).columnHints().positional?.map((hint: Hint) => hint.kind);

  test('JSON, BYTES and STRING results the printed text cannot tell apart', () => {
    assert.deepEqual(hints(`SELECT JSON_QUERY(JSON '{"a": 1}', '$.a') AS j, JSON_QUERY('{"a": 1}', '$.a') AS s, FROM_HEX('00ff') AS b, 1 + 2 AS n`), ['json', 'string', 'bytes', 'any']);
    assert.deepEqual(hints(`WITH t AS (SELECT PARSE_JSON('[1]') AS doc, b'xy' AS raw) SELECT doc, t.raw, doc[0] AS first FROM t`), ['json', 'bytes', 'json']);
  });

  test('an array whose order BigQuery leaves open', () => {
    const [unordered, ordered] = new QueryText('SELECT ARRAY_AGG(x) AS a, ARRAY_AGG(x ORDER BY x) AS b FROM UNNEST([2, 1]) AS x').columnHints().positional!;
    assert.deepEqual(unordered, { kind: 'array', element: ANY, unordered: true });
    assert.deepEqual(ordered, { kind: 'array', element: ANY });
  });

  test('the default time zone: used by a zone-less TIMESTAMP or a TIMESTAMP read as a civil time', () => {
    const use = (sql: string) => new QueryText(sql).defaultZoneUse();
    assert.ok(use("SELECT TIMESTAMP '2020-01-01 10:00:00' AS t"));
    assert.ok(use("SELECT EXTRACT(HOUR FROM TIMESTAMP '2020-01-01 10:00:00+00') AS h"));
    assert.ok(use("SELECT TIMESTAMP(DATE '2020-01-01') AS t"));
    assert.ok(use("SELECT TIMESTAMP_DIFF('2020-01-02 00:00:00', '2020-01-01 00:00:00', HOUR) AS d"));
    assert.equal(use("SELECT TIMESTAMP '2020-01-01 10:00:00+00' AS t, TIMESTAMP('2020-01-01 10:00:00 America/Chicago') AS u"), undefined);
    assert.equal(use("SELECT EXTRACT(HOUR FROM TIMESTAMP '2020-01-01 10:00:00+00' AT TIME ZONE 'UTC') AS h, EXTRACT(DAY FROM DATE '2020-01-01') AS d"), undefined);
    assert.equal(use("SELECT FORMAT_TIMESTAMP('%H', TIMESTAMP '2020-01-01 10:00:00Z', 'UTC') AS h"), undefined);
  });

  test('the outermost ORDER BY orders the rows; one in a window does not', () => {
    assert.equal(new QueryText('SELECT x FROM UNNEST([1]) AS x ORDER BY x').ordersRows(), true);
    assert.equal(new QueryText('SELECT x, RANK() OVER (ORDER BY x) AS r FROM UNNEST([1]) AS x').ordersRows(), false);
  });

  test('the tables a query reads and does not define', () => {
    assert.deepEqual(new QueryText('WITH a AS (SELECT 1 AS n) SELECT EXTRACT(DAY FROM d) FROM a, b JOIN c ON TRUE, a.arr').tablesRead(), ['b', 'c']);
  });

  test('statements split at top-level semicolons', () => {
    assert.deepEqual(splitStatements("SELECT ';' AS s; SELECT (1); -- one\n"), ["SELECT ';' AS s", 'SELECT (1) -- one']);
  });
});

describe('deciding what is not counted', () => {
  const example = (sql: string, functionName = 'F', page = 'string_functions') => ({ id: `${page}/${functionName}/1`, page, functionName, line: 1, docSql: sql, sql, table: { rows: [['1']] } });

  test('ZetaSQL-only functions and types, out-of-scope families, nondeterministic calls', () => {
    assert.equal(classify(example('SELECT CAST(1 AS INT32) AS x')).skip, 'not in BigQuery');
    assert.equal(classify(example('SELECT 1 AS x', 'LAX_INT32', 'json_functions')).skip, 'not in BigQuery');
    assert.equal(classify(example("SELECT ST_GEOGPOINT(1, 2) AS g")).skip, 'out of scope');
    assert.equal(classify(example('SELECT CURRENT_DATE() AS d')).skip, 'nondeterministic');
    assert.equal(classify(example('SELECT ARRAY_AGG(x LIMIT 1) AS a FROM UNNEST([1, 2]) AS x')).skip, 'nondeterministic');
    assert.equal(classify(example('SELECT 1 AS x', 'ST_AREA', 'geography_functions')).skip, 'out of scope');
  });

  test("ZetaSQL's DOUBLE is run as BigQuery's FLOAT64", () => {
    const run = classify(example(`SELECT LAX_DOUBLE(JSON '1.5') AS a, CAST(1 AS DOUBLE) AS b, 'DOUBLE' AS c`));
    assert.equal(run.skip, undefined);
    assert.equal(run.sql, `SELECT LAX_FLOAT64(JSON '1.5') AS a, CAST(1 AS FLOAT64) AS b, 'DOUBLE' AS c`);
  });
});

describe('comparing a reply with a printed table', () => {
  const same = (reply: string, printed: string, hint: Hint = ANY) => compareValue(parseWire(reply), printed, hint) === undefined;

  test('integers exactly, beyond 2^53 too; other numbers within a relative 1e-9 or the printed rounding', () => {
    assert.ok(same('9007199254740993', '9007199254740993'));
    assert.ok(!same('9007199254740992', '9007199254740993'));
    assert.ok(same('0.30000000000000004', '0.3'));
    assert.ok(same('2', '2.0'));
    assert.ok(!same('1.0001', '1.0'));
    assert.ok(same('2.8284271247461903', '2.828'), 'three decimals or more: rounded to the last');
    assert.ok(same('0.01613008990009257', '0.016130'));
    assert.ok(!same('2.8294', '2.828'));
    assert.ok(!same('2.54', '2.5'), 'fewer decimals: exact');
    assert.ok(!same('"7"', '7'), 'a string is not a number');
  });

  test("FORMAT's text NULL (%t, %T of a NULL value) is what the page prints as NULL; other strings are not", () => {
    const formatted = new QueryText("SELECT FORMAT('%T', x) AS f, CONCAT(x, '') AS c").columnHints().positional!;
    assert.ok(same('"NULL"', 'NULL', formatted[0]));
    assert.ok(same('null', 'NULL', formatted[0]));
    assert.ok(!same('"NULL"', 'NULL', formatted[1]));
    assert.ok(!same('"NULL"', 'NULL'));
  });

  test('TIMESTAMPs as instants, whatever zone the page prints them in', () => {
    const at = (iso: string) => String(BigInt(Date.parse(iso)) * 1000n);
    assert.ok(same(at('2021-03-04T13:06:07Z'), '2021-03-04 05:06:07.000 America/Los_Angeles'));
    assert.ok(same(at('2021-07-04T12:06:07Z'), '2021-07-04 05:06:07.000 America/Los_Angeles'), 'summer time: UTC-7');
    assert.ok(!same(at('2021-03-04T05:06:07Z'), '2021-03-04 05:06:07.000 America/Los_Angeles'));
    assert.ok(same(at('2021-03-04T05:06:07Z'), '2021-03-04 05:06:07+00'));
    assert.ok(same(at('2021-03-04T05:06:07Z'), '2021-03-04 10:36:07+05:30'));
    assert.ok(same(String(BigInt(Date.parse('2021-03-04T05:06:07Z')) * 1000n + 250n), '2021-03-04 05:06:07.00025 UTC'));
    assert.equal(instantMicros('2021-03-04 05:06:07.123456789+00'), undefined, 'finer than a microsecond is not BigQuery');
  });

  test('DATETIME, DATE and TIME as written; a TIMESTAMP is not a DATETIME', () => {
    assert.ok(same('"2021-03-04T05:06:07"', '2021-03-04 05:06:07'));
    assert.ok(same('"2021-03-04T05:06:07.500000"', '2021-03-04T05:06:07.5'));
    assert.match(compareValue('2021-03-04T05:06:07', '2021-03-04 05:06:07+00')!.reason, /expected the TIMESTAMP .* got the DATETIME/);
    assert.ok(!same(String(BigInt(Date.parse('2021-03-04T05:06:07Z')) * 1000n), '2021-03-04 05:06:07'));
    assert.ok(same('"2021-03-04"', '2021-03-04'));
    assert.ok(same('"05:06:07.250"', '05:06:07.25'));
  });

  test('NULL (a NULL ARRAY as []), NaN and infinities', () => {
    assert.ok(same('null', 'NULL'));
    assert.ok(same('[]', 'NULL'), "BigQuery's results write a NULL ARRAY as []");
    assert.ok(!same('[1]', 'NULL'));
    assert.ok(!same('null', '[]'));
    assert.ok(!same('"NULL"', 'NULL'));
    assert.ok(!same('null', ''));
    assert.ok(same('"NaN"', 'NaN'));
    assert.ok(same('"-Infinity"', '-inf'));
    assert.ok(!same('null', 'NaN'));
  });

  test('strings bare at the top level; quoted inside arrays and structs only where the page quotes them', () => {
    assert.ok(same('"Jamie"', 'Jamie'));
    assert.ok(!same('"Jamie"', '"Jamie"'));
    assert.ok(same('"\\"Jamie\\""', '"Jamie"'));
    assert.ok(same('{"_field_1":"a","_field_2":1}', "('a', 1)"));
    assert.ok(same('["b","c"]', '[b, c]'));
    assert.ok(!same('["b","c"]', '[c, b]'));
    assert.ok(same('["b","c"]', '[c, b]', { kind: 'array', element: ANY, unordered: true }));
    assert.ok(!same('["\\"b\\""]', '[b]'));
  });

  test('struct fields by position; a printed label must be the field it labels', () => {
    assert.ok(same('{"x":1,"y":"k"}', '{x: 1, y: "k"}'));
    assert.ok(same('{"x":1,"y":"k"}', "{1 x, 'k' y}"));
    assert.ok(same('{"x":1,"y":"k"}', '{1, k}'));
    assert.ok(!same('{"x":1,"y":2}', '{y: 1, x: 2}'));
    assert.ok(!same('{"x":1}', '{1, 2}'));
    assert.ok(!same('[1,2]', '(1, 2)'), 'a struct comes back as an object');
  });

  test('JSON by its value when BigQuery types the column JSON; JSON text when STRING', () => {
    const json: Hint = { kind: 'json' };
    assert.ok(same('{"b":[1,2],"a":null}', '{"a":null,"b":[1,2]}', json));
    assert.match(compareValue('{"a":1}', '{"a":1}', json)!.reason, /expected the JSON value .* got the string/, 'JSON text is not a JSON value');
    assert.ok(same('"x"', '"x"', json));
    assert.ok(same('null', 'null', json));
    assert.ok(!same('{"a":1}', '{"a":1}', { kind: 'string' }), 'a JSON value is not JSON text');
    assert.ok(same('"{\\"a\\":1}"', '{"a":1}', { kind: 'string' }));
    assert.ok(!same('{"a":1}', '{"a":1}'), 'nor is it a struct with a label written "a"');
  });

  test('BYTES as base64, printed as b"…" or bare with \\x escapes', () => {
    const bytes: Hint = { kind: 'bytes' };
    assert.ok(same('"AUE="', 'b"\\x01A"', bytes));
    assert.ok(same('"Zm9v"', 'foo', bytes));
    assert.ok(same('"AK8="', '\\x00\\xaf', bytes));
    assert.ok(!same('"foo"', 'foo', bytes), 'the raw text is not the base64 encoding');
    assert.ok(!same('"Zm9v"', 'foo'), 'base64 is not decoded for a column not typed BYTES');
    assert.ok(!same('"Zm9w"', 'foo', bytes));
  });

  test('rows as a multiset unless ordered; columns by position, or by name when the page prints some of them', () => {
    const none: ColumnHints = { positional: undefined, byName: new Map() };
    const reply = parseWire('[{"k":"a","v":1},{"k":"b","v":2}]');
    assert.equal(compareRows({ header: ['k', 'v'], rows: [['b', '2'], ['a', '1']] }, reply, none, false), undefined);
    assert.match(compareRows({ header: ['k', 'v'], rows: [['b', '2'], ['a', '1']] }, reply, none, true)!.reason, /row 1, column k/);
    assert.match(compareRows({ header: ['k', 'v'], rows: [['a', '1'], ['a', '1']] }, reply, none, false)!.reason, /no returned row matches printed row 2/);
    assert.equal(compareRows({ header: ['v'], rows: [['1'], ['2']] }, reply, none, false), undefined);
    assert.equal(compareRows({ header: ['f0_', 'f1_'], rows: [['a', '1'], ['b', '2']] }, reply, none, false), undefined);
    assert.match(compareRows({ header: ['k'], rows: [['a'], ['b'], ['c']] }, reply, none, false)!.reason, /3 rows expected, 2 returned/);
    assert.match(compareRows({ header: ['x'], rows: [['a'], ['b']] }, reply, none, false)!.reason, /1 columns printed/);
  });
});

describe('reading the pages', () => {
  test('from a folder of markdown, or from a git repository at a revision', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sawmill-doc-pages-'));
    try {
      mkdirSync(join(dir, 'docs'));
      writeFileSync(join(dir, 'docs', 'string_functions.md'), PAGE);
      writeFileSync(join(dir, 'docs', 'operators.md'), PAGE);
      const fromFolder = readDocs(dir, undefined, []);
      assert.deepEqual(fromFolder.pages.map((page) => page.name), ['string_functions']);
      const git = (...args: string[]) => execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8' });
      git('init', '-q');
      git('add', 'docs');
      git('-c', 'user.name=t', '-c', 'user.email=t@example.invalid', 'commit', '-q', '-m', 'pages');
      writeFileSync(join(dir, 'docs', 'string_functions.md'), 'changed since');
      const fromGit = readDocs(dir, 'HEAD', []);
      assert.equal(fromGit.pages[0]!.markdown, PAGE);
      assert.match(fromGit.description.commit ?? '', /^[0-9a-f]{40}$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** A page whose examples pass, go wrong, are refused and depend on the default zone, run as an endpoint runs them. */
const RUN_PAGE = `
## \`CONCAT\`

${fence}zetasql
SELECT CONCAT('log', 'saw') AS joined, [1, 2] AS pair, TIMESTAMP '2021-03-04 05:06:07+00' AS at;

/*---------+--------+---------------------------------------------+
 | joined  | pair   | at                                          |
 +---------+--------+---------------------------------------------+
 | logsaw  | [1, 2] | 2021-03-03 21:06:07.000 America/Los_Angeles |
 +---------+--------+---------------------------------------------*/
${fence}

${fence}zetasql
SELECT CONCAT('log', 'saw') AS joined;

/*--------+
 | joined |
 +--------+
 | sawlog |
 +--------*/
${fence}

${fence}zetasql
SELECT a AS x FROM (SELECT 1 AS y) AS t (a);

/*---+
 | x |
 +---+
 | 1 |
 +---*/
${fence}

${fence}zetasql
SELECT TIMESTAMP '2021-03-04 05:06:07' AS at;

/*---------------------------------------------+
 | at                                          |
 +---------------------------------------------+
 | 2021-03-04 05:06:07.000 America/Los_Angeles |
 +---------------------------------------------*/
${fence}
`;

async function runPage(engine: Engine) {
  const results = [];
  for (const example of extractExamples('string_functions', RUN_PAGE)) results.push(await runExample(engine, example));
  assert.deepEqual(
    results.map((result) => result.outcome),
    ['pass', 'wrong', 'refused', 'zone'],
    JSON.stringify(results, null, 1),
  );
  assert.match(results[1]!.reason!, /column joined: expected sawlog, got "logsaw"/);
  assert.match(results[2]!.reason!, /column lists in table aliases are not supported/);
  assert.equal(results[3]!.zoneOutcome, 'wrong', 'compared anyway: BigQuery reads the literal in UTC, the page printed it read in Los Angeles');
  const { byFamily } = tally(results);
  assert.deepEqual(byFamily.get('string'), { examples: 4, pass: 1, refused: 1, wrong: 1, zone: 1, skipped: {} });
}

test('examples run through translate() and queryJson on DuckDB', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'sawmill-doc-examples-'));
  const warehouse = await DuckDbWarehouse.open({ path: join(dir, 'w.duckdb'), stagingDir: join(dir, 'staging'), memoryLimit: '256MB' });
  try {
    await runPage({ name: 'DuckDB', dialect: duckdbDialect, queryJson: (sql) => warehouse.queryJson(sql, {}, { timeoutMs: 10_000, maxRows: 100 }) });
  } finally {
    await warehouse.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test('examples run through translate() and queryJson on ClickHouse (chdb)', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'sawmill-doc-examples-ch-'));
  const warehouse = await ClickHouseWarehouse.open({ url: `chdb:${dir}`, database: 'doc_examples', schemaRefreshMs: 0 });
  try {
    await runPage({ name: 'ClickHouse', dialect: clickhouseDialect, queryJson: (sql) => warehouse.queryJson(sql, {}, { timeoutMs: 10_000, maxRows: 100 }) });
  } finally {
    await warehouse.close();
    await rm(dir, { recursive: true, force: true });
  }
});
