/**
 * The fast path (src/pipeline/encode-events.ts) against the path it replaces for fitting events:
 * normalizeEvent, then stagedLine for the source's schema. Wherever it writes a line, the line
 * must be the one that path writes; wherever it does not, the event must come out as
 * normalizeEvent leaves it (a row, or the same error).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EventGenerator } from '../../bench/generator.ts';
import type { RawEvent, RawEventResult } from '../../src/ingest/adapter.ts';
import { encodeEvents } from '../../src/pipeline/encode-events.ts';
import { normalizeEvent } from '../../src/pipeline/normalize.ts';
import { planRows, schemaForRows } from '../../src/warehouse/schema.ts';
import { splitLines, stagedLine } from '../../src/warehouse/staged-rows.ts';
import type { FieldType, JsonValue, RecordFields } from '../../src/warehouse/types.ts';
import { random, randomValue } from '../support/random-json.ts';
import { supabaseSamples } from '../support/samples.ts';

const NOW = 1_750_000_000_000_000;
const ok = (event: RawEvent): RawEventResult => ({ ok: true, event });

/** The line the old path writes for an event that fits `fields`, or undefined when it does not fit. */
function referenceLine(event: RawEvent, fields: RecordFields): string | undefined {
  const normalized = normalizeEvent(structuredClone(event), NOW);
  if (!normalized.ok) return undefined;
  const planned = planRows(fields, [normalized.row], { maxFields: 1000 });
  return planned.schema === fields ? anyId(stagedLine(planned.rows[0]!, fields)) : undefined;
}

/** Events without an id of their own get a random one: lines are compared without it. */
const anyId = (line: string) => line.replace(/^\{"id":"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"/, '{"id":"<random>"');

/** Encodes one event; returns its line on the fast path, else checks it came out as normalizeEvent says. */
function encodeOne(event: RawEvent, fields: RecordFields): string | undefined {
  const original = structuredClone(event);
  const { staged, rows, errors } = encodeEvents([ok(event)], fields, NOW);
  if (staged) {
    assert.equal(staged.count, 1);
    assert.equal(staged.fields, fields);
    return anyId(splitLines(staged.lines)[0]!);
  }
  const expected = normalizeEvent(original, NOW);
  if (expected.ok) {
    assert.deepEqual(errors, []);
    // A new random id is drawn for events without one: compare the rest.
    assert.deepEqual({ ...rows[0], id: '' }, { ...expected.row, id: '' });
  } else {
    assert.deepEqual(rows, []);
    assert.deepEqual(errors, [{ index: 0, message: expected.error }]);
  }
  return undefined;
}

/** Each event takes the fast path, to the line the old path writes. */
function assertFastPath(cases: Array<[string, RawEvent]>, fields: RecordFields): void {
  for (const [what, event] of cases) {
    const expected = referenceLine(event, fields);
    const line = encodeOne(event, fields);
    assert.ok(line !== undefined, `${what}: slow path`);
    assert.equal(line, expected, what);
  }
}

function schemaOf(events: readonly RawEvent[]): RecordFields {
  const rows = events.map((event) => normalizeEvent(structuredClone(event), NOW)).flatMap((result) => (result.ok ? [result.row] : []));
  return planRows(new Map(), rows, { maxFields: 1000 }).schema;
}

test('every Supabase sample is encoded on the fast path, to the line normalising and staging wrote', () => {
  for (const [name, sample] of supabaseSamples) {
    const fields = schemaOf([sample]);
    const expected = referenceLine(sample, fields);
    const line = encodeOne(structuredClone(sample), fields);
    assert.ok(line !== undefined, `${name} took the slow path`);
    assert.equal(line, expected, name);
  }
});

test("the bench's Supabase-shaped events take the fast path against the provisioned schemas, line for line", () => {
  const generator = new EventGenerator({ seed: 3, fromMs: NOW / 1000 - 86_400_000, toMs: NOW / 1000 - 1000 });
  const provisioned = (source: string) => {
    const { event_message: _m, id: _i, timestamp: _t, ...fields } = supabaseSamples.get(source)!;
    return schemaForRows(new Map(), [{ fields: fields as { [key: string]: JsonValue } }]);
  };
  const schemas = { edge: provisioned('cloudflare.logs.prod'), relay: provisioned('deno-relay-logs') };
  for (let i = 0; i < 2000; i++) {
    const kind = i % 2 === 0 ? 'edge' : 'relay';
    const event = generator.event(kind);
    const expected = referenceLine(event, schemas[kind]);
    assert.ok(expected !== undefined, 'the event fits its provisioned schema');
    assert.equal(encodeOne(event, schemas[kind]), expected);
  }
});

test('random events: a line only where the old path stages the same line, a normalised row or its error elsewhere', () => {
  const next = random(11);
  const keys = ['a', 'b', 'A', 'n', 'list', 'rec', 'x-y', '1st', 'ID', '_overflow', '__proto__', 'message', 'event_message', 'id', 'timestamp'];
  const randomEvent = (): RawEvent => {
    const event: RawEvent = {};
    for (let k = Math.floor(next() * 6); k > 0; k--) {
      const key = keys[Math.floor(next() * keys.length)]!;
      const pick = next();
      const value = pick < 0.1 ? null : pick < 0.2 ? [1, null, 2.5] : pick < 0.3 ? { inner: null } : pick < 0.35 ? '\ud800' : randomValue(next);
      Object.defineProperty(event, key, { value, enumerable: true, writable: true, configurable: true });
    }
    return event;
  };
  let fast = 0;
  let renamed = 0;
  for (let round = 0; round < 400; round++) {
    const fields = schemaOf(Array.from({ length: 4 }, randomEvent));
    for (let i = 0; i < 10; i++) {
      const event = randomEvent();
      // Before the fast path changes the event.
      const [expected, sent, renames] = [referenceLine(event, fields), JSON.stringify(event), event['x-y'] != null || event['1st'] != null];
      const line = encodeOne(event, fields);
      if (line === undefined) continue;
      fast++;
      if (renames) renamed++;
      assert.equal(line, expected, sent);
    }
  }
  assert.ok(fast > 800, `only ${fast} of 4000 random events took the fast path: the comparison says little`);
  assert.ok(renamed > 10, `only ${renamed} random events with a key to rename (and a value to keep) took the fast path`);
});

test('keys normalisation would rename, values that would widen a column, limits and refusals leave the fast path', () => {
  const fields = schemaOf([{ message: 'm', a: 1, s: 'x', rec: { k: 1 }, list: [1, 2], foo: true }]);
  const cases: Array<[string, RawEvent]> = [
    ['a new field', { a: 1, b: 2 }],
    ['an int column given a float', { a: 1.5 }],
    ['an int column given a string', { a: 'text' }],
    ['a record column given a string', { rec: 'text' }],
    ['a list column given a scalar', { list: 3 }],
    ['a string column given an object (stored as its cleaned JSON text)', { s: { 'a-b': 1 } }],
    ['a key in another case', { A: 1 }],
    ['a key to sanitise into a name with no column', { 'x-y': 1 }],
    ['a fixed column in another case', { ID: 'x' }],
    ['the overflow field', { _overflow: 'x' }],
    ['a dropped key that renames a kept one', { Foo: null, foo: true }],
    ['a timestamp more than an hour ahead', { timestamp: (NOW + 2 * 3_600_000_000) / 1000 }],
    ['an event over the size limit', { s: 'é'.repeat(400_000) }],
  ];
  for (const [what, event] of cases) assert.equal(encodeOne(event, fields), undefined, what);
  // A schema deeper than normalisation keeps records: past the limit the value is its JSON text.
  assert.equal(encodeOne({ rec: nest(12) }, deepFields(30)) !== undefined, true, 'within the depth limit');
  assert.equal(encodeOne({ rec: nest(20) }, deepFields(30)), undefined, 'a record nested past the depth limit');
  assert.equal(encodeOne({ list: [[1]] }, fields), undefined, 'a list of lists');
  // And these stay on it, each as the old path writes it.
  const fitting: Array<[string, RawEvent]> = [
    ['nulls, an emptied record and a null list item', { a: null, rec: { k: null }, list: [null, 3], s: 'x' }],
    ['a number and a boolean in a string column', { s: 12.5, message: 'm' }],
    ['a lone surrogate', { s: 'a\ud800b' }],
    ['records as a list, with nulls and empty ones', { rec: [null, { k: 2 }, {}, { k: null }] }],
    ['a dropped key with no column', { a: 1, unknown: null }],
    ['a non-string message and an id number', { message: { x: 1 }, id: 42, a: 3 }],
  ];
  assertFastPath(fitting, fields);
});

test('keys normalisation renames stay on the fast path, under the names it gives them and in their order', () => {
  const fields = schemaOf([{ message: 'm', a: 1, _x_y: 1, _1st: 's', _a_b: 1, _a_b_2: 2, rec: { _k_1: 'v', k: 1 }, tags: [{ _n_m: 1 }] }]);
  const fitting: Array<[string, RawEvent]> = [
    ['a key with a dash', { 'x-y': 3 }],
    ['a key that starts with a digit, before a kept one', { '1st': 'first', a: 2 }],
    ['among the fixed columns and kept keys', { a: 1, 'x-y': 2, message: 'm', id: 'e1' }],
    ['a kept key keeps its name, the renamed one takes the next', { 'a-b': 1, _a_b: 2 }],
    ['two keys renamed to one name', { 'a-b': 1, 'a.b': 2 }],
    ['in a record', { rec: { 'k-1': 'v', k: 2 } }],
    ['in a list of records, one left empty', { tags: [{ 'n-m': 1 }, { 'n.m': null }] }],
    ['a renamed key whose value is dropped', { 'x-y': null, a: 1 }],
    ['a renamed key and a value stored as text', { 'x-y': 2, _1st: 7 }],
  ];
  assertFastPath(fitting, fields);
  assert.match(encodeOne({ 'a-b': 1, _a_b: 2 }, fields)!, /"_a_b_2":1,"_a_b":2\}$/);
  const slow: Array<[string, RawEvent]> = [
    ['renamed into a column of another type', { 'x-y': 'text' }],
    ['renamed into a name with no column', { 'q-r': 1 }],
    ['beside a key in another case', { A: 1, 'x-y': 2 }],
    ['a nested key renamed into a name with no column', { rec: { 'z-z': 1 } }],
  ];
  for (const [what, event] of slow) assert.equal(encodeOne(event, fields), undefined, what);
});

test('a request keeps every event: fitting ones staged, others normalised, refusals reported at their index', () => {
  const fields = schemaOf([{ message: 'm', n: 1, meta: { k: 'v' } }]);
  const events: RawEventResult[] = [
    ok({ id: 'a', message: 'one', n: 2, meta: { k: 'w' } }),
    { ok: false, error: 'element 1: expected a JSON object, got a number' },
    ok({ id: 'b', message: 'two', n: 'widens', meta: { k: 'x' } }),
    ok({ id: 'c', message: 'three', timestamp: '2999-01-01T00:00:00Z' }),
    ok({ id: 'd', message: 'four', meta: [{ k: 'y' }] }),
  ];
  const { staged, rows, errors } = encodeEvents(events, fields, NOW);
  assert.deepEqual(splitLines(staged!.lines).map((line) => JSON.parse(line).id), ['a', 'd']);
  assert.deepEqual(rows.map((row) => [row.id, row.fields]), [['b', { n: 'widens', meta: { k: 'x' } }]], 'normalised from the event as sent');
  assert.deepEqual(errors.map((error) => error.index), [1, 3]);
  assert.match(errors[1]!.message, /more than one hour in the future/);
});

test('without a schema (no storage yet, or a warehouse that loads no staged lines) every event is normalised', () => {
  const { staged, rows, errors } = encodeEvents([ok({ id: 'x', message: 'm', n: 1 })], undefined, NOW);
  assert.equal(staged, undefined);
  assert.deepEqual(rows, [{ id: 'x', timestamp: NOW, event_message: 'm', fields: { n: 1 } }]);
  assert.deepEqual(errors, []);
});

function deepFields(depth: number): RecordFields {
  let fields: RecordFields = new Map([['k', { kind: 'int' }]]);
  for (let i = 0; i < depth; i++) fields = new Map<string, FieldType>([['k', { kind: 'int' }], ['rec', { kind: 'record', fields }]]);
  return fields;
}

function nest(depth: number): JsonValue {
  let value: JsonValue = { k: 1 };
  for (let i = 0; i < depth; i++) value = { k: 1, rec: value };
  return value;
}
