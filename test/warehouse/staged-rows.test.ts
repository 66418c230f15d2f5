import assert from 'node:assert/strict';
import { test } from 'node:test';
import { normalizeEvent } from '../../src/pipeline/normalize.ts';
import { conform, extendsFields, fieldName, mergeFields, planRows } from '../../src/warehouse/schema.ts';
import { rowsOfStaged, stagedLine, stageFittingRows } from '../../src/warehouse/staged-rows.ts';
import type { FieldType, JsonValue, LogRow, RecordFields } from '../../src/warehouse/types.ts';
import { supabaseSamples } from '../support/samples.ts';
import { random, randomValue } from '../support/random-json.ts';

/** What staging wrote before staged lines existed: the row shaped by conform, then JSON.stringify. */
function reference(row: LogRow, fields: RecordFields): string {
  const record: Record<string, unknown> = { id: row.id, timestamp: row.timestamp, event_message: row.event_message };
  for (const [key, value] of Object.entries(row.fields)) {
    const name = fieldName(fields, key);
    const type = fields.get(name);
    if (type) record[name] = conform(value, type);
  }
  return JSON.stringify(record);
}

const row = (fields: { [key: string]: JsonValue }, id = 'r'): LogRow => ({ id, timestamp: 1_700_000_000_000_000, event_message: 'm "q"', fields });

test('a staged line is the text staging wrote before, for every Supabase sample', () => {
  const now = Date.now() * 1000;
  for (const [name, event] of supabaseSamples) {
    const normalized = normalizeEvent(event, now);
    assert.ok(normalized.ok, name);
    const { rows, schema } = planRows(new Map(), [normalized.row], { maxFields: 1000 });
    const expected = reference(structuredClone(rows[0]!), schema);
    assert.equal(stagedLine(rows[0]!, schema), expected, name);
  }
});

test('a staged line matches conform + stringify for thousands of random rows and widened schemas', () => {
  const next = random(7);
  for (let i = 0; i < 3000; i++) {
    const rows = Array.from({ length: 3 }, (_, k) => row({ f: randomValue(next), g: randomValue(next), G: randomValue(next) }, `r${k}`));
    // The schema planned for all three, so each row is written against columns some other row widened.
    const { rows: planned, schema } = planRows(new Map(), rows, { maxFields: 1000 });
    for (const one of planned) {
      const expected = reference(structuredClone(one), schema); // stagedLine shapes the row in place
      const fields = JSON.stringify(one.fields);
      assert.equal(stagedLine(one, schema), expected, fields);
    }
  }
});

test('rows are staged only when every one fits the schema, and read back in their stored shape', () => {
  const schema = planRows(new Map(), [row({ a: 1, r: { x: 'y' } })], { maxFields: 1000 }).schema;
  assert.equal(stageFittingRows([row({ a: 1 }), row({ b: true })], schema), undefined, 'b is a new field');
  assert.equal(stageFittingRows([row({ a: 'text' })], schema), undefined, 'a would widen to a string');
  const staged = stageFittingRows([row({ a: 2, r: { x: 'z' } }, 'one'), row({ a: 3 }, 'two')], schema)!;
  assert.equal(staged.count, 2);
  assert.equal(staged.fields, schema);
  assert.deepEqual(rowsOfStaged(staged), [
    { id: 'one', timestamp: 1_700_000_000_000_000, event_message: 'm "q"', fields: { a: 2, r: [{ x: 'z' }] } },
    { id: 'two', timestamp: 1_700_000_000_000_000, event_message: 'm "q"', fields: { a: 3 } },
  ]);
  assert.ok(staged.maxLineBytes >= Math.max(...staged.lines.toString().split('\n').map((line) => Buffer.byteLength(line))));
});

test('lines shaped for a schema stay valid while it only gains fields, not when a scalar widens', () => {
  const int: FieldType = { kind: 'int' };
  const base: RecordFields = new Map<string, FieldType>([['a', int], ['r', { kind: 'record', fields: new Map([['x', int]]) }]]);
  const added = mergeFields(base, new Map<string, FieldType>([['b', { kind: 'bool' }], ['r', { kind: 'record', fields: new Map([['y', int]]) }]]));
  assert.ok(extendsFields(base, added));
  assert.ok(extendsFields(base, base));
  assert.equal(extendsFields(base, mergeFields(base, new Map<string, FieldType>([['a', { kind: 'string' }]]))), false);
  assert.equal(extendsFields(base, mergeFields(base, new Map<string, FieldType>([['r', { kind: 'record', fields: new Map([['x', { kind: 'float' }]]) }]]))), false);
  // Shaping lines again for the widened schema gives what shaping the original rows would have.
  const original = row({ a: 5, r: { x: 1 } });
  const widened = mergeFields(base, new Map<string, FieldType>([['a', { kind: 'string' }]]));
  const again = rowsOfStaged(stageFittingRows([original], base)!)[0]!;
  assert.equal(stagedLine(again, widened), stagedLine(original, widened));
});
