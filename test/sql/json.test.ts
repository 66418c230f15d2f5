/**
 * BigQuery's JSON values, JSONPaths and whole-tree functions as the translator holds them
 * (src/sql/json/), and JSON in endpoint replies on both engines. The functions themselves are
 * tested through SQL in test/sql/corpus/json.sqltest.
 */

import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { translate } from '../../src/sql/index.ts';
import { JsonPathError, parseJsonPath } from '../../src/sql/json/path.ts';
import { jsonFlatten, jsonKeys, stripNulls } from '../../src/sql/json/tree.ts';
import { formatDouble, jsonText, JsonSyntaxError, parseJson, prettyJsonText } from '../../src/sql/json/value.ts';
import { ClickHouseWarehouse } from '../../src/warehouse/clickhouse/adapter.ts';
import { clickhouseDialect } from '../../src/warehouse/clickhouse/sql-generator.ts';
import { DuckDbWarehouse } from '../../src/warehouse/duckdb/adapter.ts';
import { duckdbDialect } from '../../src/warehouse/duckdb/sql-generator.ts';

const canonical = (text: string) => jsonText(parseJson(text));

describe('JSON values', () => {
  test('keys are sorted by code point, the first of duplicates kept, whitespace dropped', () => {
    assert.equal(canonical(' { "b" : 1, "B": 2, "a": [ true, null ], "b": 3 } '), '{"B":2,"a":[true,null],"b":1}');
  });

  test('integers stay integers up to UINT64; other numbers are doubles written as BigQuery writes them', () => {
    assert.equal(canonical('[18446744073709551615, -9223372036854775808, 2.50, 1e2, 1e100, 0.00001, 0.0001, 9007199254740993.0, -0.0]'),
      '[18446744073709551615,-9223372036854775808,2.5,100.0,1e+100,1e-05,0.0001,9.007199254740992e+15,-0.0]');
    assert.equal(formatDouble(123456789012345.6), '123456789012345.6');
    assert.equal(formatDouble(1234567890123456.7), '1.2345678901234568e+15');
  });

  test('strings are escaped as BigQuery escapes them, other characters kept', () => {
    assert.equal(canonical('"\\u0041\\/\\u00e9\\n\\u001f\\ud83d\\ude00"'), '"A/é\\n\\u001f😀"');
  });

  test('wide_number_mode exact refuses a number a double cannot hold', () => {
    assert.throws(() => parseJson('123456789012345678901', { wideNumbers: 'exact' }), /cannot round-trip/);
    assert.equal(jsonText(parseJson('2.50', { wideNumbers: 'exact' })), '2.5');
    assert.equal(jsonText(parseJson('123456789012345678901', { wideNumbers: 'round' })), '1.2345678901234568e+20');
  });

  test('text that is not JSON is refused', () => {
    for (const text of ['{"a":1', '[1,]', "{'a':1}", '01', 'NaN', '"\\x"', '1e400', '"a\nb"']) assert.throws(() => parseJson(text), JsonSyntaxError, text);
  });

  test('pretty text indents two spaces a level, as TO_JSON_STRING(json, true)', () => {
    assert.equal(prettyJsonText(parseJson('{"b":[1,{}],"a":[]}')), '{\n  "a": [],\n  "b": [\n    1,\n    {}\n  ]\n}');
  });
});

describe('JSONPaths', () => {
  test('the legacy grammar takes quoted keys in brackets and bare keys; the standard one double-quoted keys', () => {
    assert.deepEqual(parseJsonPath("$['a.b'][c][0].d", 'legacy'), [{ key: 'a.b' }, { key: 'c' }, { key: '0', index: 0 }, { key: 'd' }]);
    assert.deepEqual(parseJsonPath('$."a.b"[1].c', 'standard'), [{ key: 'a.b' }, { key: '1', index: 1 }, { key: 'c' }]);
    assert.deepEqual(parseJsonPath("$['it\\'s']", 'legacy'), [{ key: "it's" }]);
    assert.deepEqual(parseJsonPath('$.', 'legacy'), []);
  });

  test("a mutator's path keeps keys and indexes apart", () => {
    assert.deepEqual(parseJsonPath('$.a[2].0', 'strict'), [{ key: 'a' }, { index: 2 }, { key: '0' }]);
  });

  test('an invalid path is refused in BigQuery\'s words', () => {
    assert.throws(() => parseJsonPath('a', 'standard'), new JsonPathError("JSONPath must start with '$'"));
    assert.throws(() => parseJsonPath('$.a[*]', 'standard'), new JsonPathError('Unsupported operator in JSONPath: *'));
    assert.throws(() => parseJsonPath("$['a']", 'standard'), /Invalid token in JSONPath at: \['a'\]/);
    assert.throws(() => parseJsonPath('$[a]', 'strict'), /Invalid token in JSONPath at: \[a\]/);
    assert.throws(() => parseJsonPath('$.', 'standard'), /Invalid token/);
  });
});

describe('whole-tree functions', () => {
  const value = parseJson('{"a": null, "b": [1, null, {"c": null}, []], "d": {"e": {}}}');

  test('JSON_STRIP_NULLS', () => {
    assert.equal(jsonText(stripNulls(value, true, false)), '{"b":[1,{},[]],"d":{"e":{}}}');
    assert.equal(jsonText(stripNulls(value, false, false)), '{"b":[1,null,{},[]],"d":{"e":{}}}');
    assert.equal(jsonText(stripNulls(value, true, true)), '{"b":[1]}');
    assert.equal(jsonText(stripNulls(value, false, true)), '{"b":[1,null,{},[]]}');
    assert.equal(jsonText(stripNulls(parseJson('[null]'), true, true)), 'null');
  });

  test('JSON_KEYS', () => {
    const keys = parseJson('{"x": [{"y": 1}, [{"z": 2}]], "a.b": {"c\\"": 1}}');
    assert.deepEqual(jsonKeys(keys, 100n, 'strict'), ['"a.b"', '"a.b"."c\\""', 'x']);
    assert.deepEqual(jsonKeys(keys, 100n, 'lax'), ['"a.b"', '"a.b"."c\\""', 'x', 'x.y']);
    assert.deepEqual(jsonKeys(keys, 100n, 'lax recursive'), ['"a.b"', '"a.b"."c\\""', 'x', 'x.y', 'x.z']);
    assert.deepEqual(jsonKeys(keys, 1n, 'lax recursive'), ['"a.b"', 'x']);
  });

  test('JSON_FLATTEN', () => {
    assert.deepEqual(jsonFlatten(parseJson('[[1, [2, []]], {"a": [3]}]')).map(jsonText), ['1', '2', '{"a":[3]}']);
    assert.deepEqual(jsonFlatten(parseJson('5')).map(jsonText), ['5']);
  });
});

/** The reply an endpoint gives for `sql` on each engine (the warehouses' queryJson). */
async function replies(sql: string): Promise<Record<string, string>> {
  const dir = await mkdtemp(join(tmpdir(), 'sawmill-json-'));
  const options = { timeoutMs: 20_000, maxRows: 100 };
  try {
    const duckdb = await DuckDbWarehouse.open({ path: join(dir, 'w.duckdb'), stagingDir: join(dir, 'staging'), memoryLimit: '256MB' });
    const clickhouse = await ClickHouseWarehouse.open({ url: `chdb:${join(dir, 'ch')}`, database: 'json_test', schemaRefreshMs: 0 });
    try {
      return {
        duckdb: await duckdb.queryJson(translate(sql, duckdbDialect, { resolveTable: () => undefined }).sql, {}, options),
        clickhouse: await clickhouse.queryJson(translate(sql, clickhouseDialect, { resolveTable: () => undefined }).sql, {}, options),
      };
    } finally {
      await duckdb.close();
      await clickhouse.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test('a JSON result goes out as JSON in BigQuery\'s text: keys sorted, numbers exact, in arrays and structs too', async () => {
  const sql = `SELECT PARSE_JSON('{"z": 18446744073709551615, "a": [1e100, "x/y"]}') AS j, JSON 'null' AS n, [JSON '{"b":1,"a":2}'] AS list, STRUCT(JSON '0.5' AS half) AS record, CAST(NULL AS JSON) AS missing`;
  const expected = '[{"j":{"a":[1e+100,"x/y"],"z":18446744073709551615},"n":null,"list":[{"a":2,"b":1}],"record":{"half":0.5},"missing":null}]';
  assert.deepEqual(await replies(sql), { duckdb: expected, clickhouse: expected });
});
