/**
 * The function catalog (src/sql/functions/): signatures as data, calls resolved against them by
 * BigQuery's coercion rules, and the generated docs/functions.md. What a call returns on each
 * engine is tested through SQL in test/sql/corpus/function-calls.sqltest (both engines).
 */

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { scalar as scalarType, type SqlType } from '../../src/sql/catalog.ts';
import { scalar } from '../../src/sql/functions/entry.ts';
import { argumentType, resolveCall, type CallArgument } from '../../src/sql/functions/index.ts';
import { parseSignature } from '../../src/sql/functions/signature.ts';
import type * as ir from '../../src/sql/ir.ts';
import { FUNCTION_DOCS_FILE, functionDocs } from '../../scripts/function-docs.ts';

const column = (type: SqlType): CallArgument => ({ expr: { kind: 'ref', path: ['c'] }, type: { type } });
const literal = (expr: ir.Expr, type: SqlType): CallArgument => ({ expr, type: argumentType(expr, type) });
const INT64 = scalarType('INT64');
const FLOAT64 = scalarType('FLOAT64');
const STRING = scalarType('STRING');
const none = new Map<string, CallArgument>();

describe('signatures', () => {
  test('optional, repeated, named-only and constant arguments parse', () => {
    const signature = parseSignature('(CONST INT64, [STRING], T1...; mode => STRING) -> ARRAY<T1>');
    assert.deepEqual(
      signature.params.map((param) => [param.type.kind, param.optional, param.repeated, param.namedOnly, param.constant, param.name]),
      [
        ['scalar', false, false, false, true, undefined],
        ['scalar', true, false, false, false, undefined],
        ['var', true, true, false, false, undefined],
        ['scalar', true, false, true, false, 'mode'],
      ],
    );
    assert.deepEqual(signature.result, { kind: 'array', element: { kind: 'var', name: 'T1' } });
  });

  test('a malformed signature is refused when the catalog loads', () => {
    assert.throws(() => parseSignature('(STRIN) -> INT64'), /unknown type STRIN/);
    assert.throws(() => parseSignature('(INT64 -> INT64'), /expected/);
  });
});

describe('resolving a call', () => {
  const instr = scalar('string', ['(STRING, STRING, [INT64], [INT64]) -> INT64']);

  test('optional arguments may be left out, and no more than the signature has are taken', () => {
    assert.equal(resolveCall('instr', instr, [column(STRING), column(STRING)], none).ok, true);
    assert.equal(resolveCall('instr', instr, [column(STRING), column(STRING), column(INT64), column(INT64)], none).ok, true);
    const tooMany = resolveCall('instr', instr, [column(STRING), column(STRING), column(INT64), column(INT64), column(INT64)], none);
    assert.equal(tooMany.ok, false);
  });

  test('INT64 becomes FLOAT64 before NUMERIC (ROUND(INT64) is FLOAT64 in BigQuery)', () => {
    const round = scalar('mathematical', ['(FLOAT64) -> FLOAT64', '(NUMERIC) -> NUMERIC']);
    const resolution = resolveCall('round', round, [column(INT64)], none);
    assert.ok(resolution.ok);
    assert.deepEqual(resolution.call.result, FLOAT64);
    assert.deepEqual(resolution.call.args, [FLOAT64]);
  });

  test('T1 is the supertype of its arguments; literals follow the others', () => {
    const ifnull = scalar('conditional', ['(T1, T1) -> T1']);
    const mixed = resolveCall('ifnull', ifnull, [column(INT64), column(FLOAT64)], none);
    assert.ok(mixed.ok);
    assert.deepEqual(mixed.call.result, FLOAT64);
    const dated = resolveCall('ifnull', ifnull, [column(scalarType('DATE')), literal({ kind: 'string', value: '2024-01-01' }, STRING)], none);
    assert.ok(dated.ok);
    assert.deepEqual(dated.call.result, scalarType('DATE'));
    assert.equal(resolveCall('ifnull', ifnull, [column(INT64), column(STRING)], none).ok, false);
  });

  test('a string literal coerces to a date or time type, a string column does not', () => {
    const unixDate = scalar('date', ['(DATE) -> INT64']);
    assert.equal(resolveCall('unix_date', unixDate, [literal({ kind: 'string', value: '2024-01-01' }, STRING)], none).ok, true);
    assert.equal(resolveCall('unix_date', unixDate, [column(STRING)], none).ok, false);
  });

  test('named arguments go to the parameter of that name; an unknown name matches nothing', () => {
    const parse = scalar('json', ['(STRING, [wide_number_mode => STRING]) -> JSON']);
    const named = new Map([['wide_number_mode', literal({ kind: 'string', value: 'round' }, STRING)]]);
    const resolution = resolveCall('parse_json', parse, [column(STRING)], named);
    assert.ok(resolution.ok);
    assert.deepEqual(resolution.call.named, { wide_number_mode: STRING });
    assert.equal(resolveCall('parse_json', parse, [column(STRING)], new Map([['mode', column(STRING)]])).ok, false);
  });

  test('a repeated group takes whole repetitions only, after the fixed arguments', () => {
    const object = scalar('json', ['((STRING, ANY)...) -> JSON']);
    const pairs = (count: number) => Array.from({ length: count }, (_, index) => column(index % 2 === 0 ? STRING : INT64));
    for (const count of [0, 2, 4]) assert.equal(resolveCall('json_object', object, pairs(count), none).ok, true, `${count} arguments`);
    const odd = resolveCall('json_object', object, pairs(3), none);
    assert.equal(!odd.ok && odd.message, 'No matching signature for function JSON_OBJECT for argument types: STRING, INT64, STRING. Supported signature: JSON_OBJECT([STRING, ANY, ...])');
    assert.equal(resolveCall('json_object', object, [column(INT64), column(INT64)], none).ok, false);

    const set = scalar('json', ['(JSON, CONST STRING, ANY, (CONST STRING, ANY)...; create_if_missing => BOOL) -> JSON']);
    const path = literal({ kind: 'string', value: '$.a' }, STRING);
    const json = column(scalarType('JSON'));
    assert.equal(resolveCall('json_set', set, [json, path, column(INT64)], none).ok, true);
    assert.equal(resolveCall('json_set', set, [json, path, column(INT64), path, column(STRING)], none).ok, true);
    assert.equal(resolveCall('json_set', set, [json, path, column(INT64), path], none).ok, false);
    assert.equal(resolveCall('json_set', set, [json, path, column(INT64), column(STRING), column(STRING)], none).ok, false, 'a repeated path must be constant too');
  });

  test('a constant argument must be a literal or a parameter', () => {
    const top = scalar('approximate_aggregate', ['(T1, CONST INT64) -> INT64']);
    assert.equal(resolveCall('f', top, [column(STRING), literal({ kind: 'number', text: '3' }, INT64)], none).ok, true);
    assert.equal(resolveCall('f', top, [column(STRING), column(INT64)], none).ok, false);
  });

  test('unknown argument types fit any signature; differing results are then unknown', () => {
    const abs = scalar('mathematical', ['(INT64) -> INT64', '(FLOAT64) -> FLOAT64']);
    const resolution = resolveCall('abs', abs, [column({ kind: 'unknown' })], none);
    assert.ok(resolution.ok);
    assert.equal(resolution.call.result.kind, 'unknown');
  });

  test('ANY takes the argument with its own type, for the rendering to print by it', () => {
    const format = scalar('string', ['(STRING, ANY...) -> STRING']);
    const resolution = resolveCall('format', format, [column(STRING), column(INT64), column({ kind: 'array', element: FLOAT64 })], none);
    assert.ok(resolution.ok);
    assert.deepEqual(resolution.call.args, [STRING, INT64, { kind: 'array', element: FLOAT64 }]);
  });

  test('a keyword parameter takes a string literal naming one of its set (the analyzer turns NFKC into one)', () => {
    const normalize = scalar('string', ['(STRING, [NORMALIZE_MODE]) -> STRING']);
    const mode = (value: string) => literal({ kind: 'string', value }, STRING);
    assert.equal(resolveCall('normalize', normalize, [column(STRING), mode('NFKC')], none).ok, true);
    assert.equal(resolveCall('normalize', normalize, [column(STRING), mode('NFX')], none).ok, false);
    assert.equal(resolveCall('normalize', normalize, [column(STRING), column(STRING)], none).ok, false, 'a column is not a keyword');
  });

  test('the refusal lists every supported signature in BigQuery\'s words', () => {
    const resolution = resolveCall('instr', scalar('string', ['(STRING, STRING, [INT64], [INT64]) -> INT64', '(BYTES, BYTES, [INT64], [INT64]) -> INT64']), [column(STRING), column(INT64)], none);
    assert.equal(resolution.ok, false);
    assert.equal(
      !resolution.ok && resolution.message,
      'No matching signature for function INSTR for argument types: STRING, INT64. Supported signatures: INSTR(STRING, STRING, [INT64], [INT64]); INSTR(BYTES, BYTES, [INT64], [INT64])',
    );
  });
});

test('docs/functions.md is what the catalog and the engines generate (npm run docs:functions)', () => {
  assert.equal(readFileSync(FUNCTION_DOCS_FILE, 'utf8'), functionDocs());
});
