import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DEFAULT_NORMALIZE_LIMITS,
  normalizeEvent,
  parseTimestamp,
  safeKey,
  safeKeys,
  type NormalizeResult,
} from '../../src/pipeline/normalize.ts';
import type { LogRow } from '../../src/warehouse/types.ts';
import { sample, supabaseSamples } from '../support/samples.ts';

const NOW = Date.UTC(2024, 0, 15, 12, 0, 0) * 1000; // 2024-01-15T12:00:00Z in µs
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function row(result: NormalizeResult): LogRow {
  assert.ok(result.ok, result.ok ? '' : result.error);
  return result.row;
}
function rejected(result: NormalizeResult): string {
  assert.ok(!result.ok, 'expected the event to be rejected');
  return result.error;
}
const normalize = (raw: unknown, limits = DEFAULT_NORMALIZE_LIMITS) => normalizeEvent(raw, NOW, limits);

describe('normalizeEvent: Supabase samples', () => {
  for (const [name, event] of supabaseSamples) {
    it(`stores ${name} with its message, metadata and other top-level fields`, () => {
      const r = row(normalize(structuredClone(event)));
      assert.equal(r.event_message, event.event_message);
      assert.match(r.id, UUID);
      assert.equal(r.timestamp, NOW);
      const { event_message: _, ...fields } = event;
      assert.deepEqual(r.fields, fields);
    });
  }

  it('keeps top-level fields such as project as fields of their own', () => {
    const r = row(normalize(sample('pgbouncer.logs.prod')));
    assert.equal(r.fields.project, 'default');
    assert.deepEqual(Object.keys(r.fields).sort(), ['metadata', 'project']);
  });

  it('keeps nested objects as objects (the storage layer makes them records)', () => {
    const r = row(normalize(sample('deno-relay-logs')));
    const metadata = r.fields.metadata as Record<string, unknown>;
    assert.equal((metadata.response as Record<string, unknown>).status_code, 200);
  });
});

describe('normalizeEvent: event_message', () => {
  it('prefers message, then event_message, then log_entry, and consumes all three', () => {
    const all = row(normalize({ message: 'm', event_message: 'e', log_entry: 'l', other: 1 }));
    assert.equal(all.event_message, 'm');
    assert.deepEqual(all.fields, { other: 1 });
    assert.equal(row(normalize({ event_message: 'e', log_entry: 'l' })).event_message, 'e');
    assert.equal(row(normalize({ log_entry: 'l', metadata: { a: 1 } })).event_message, 'l');
  });

  it('skips a null candidate and stringifies non-strings', () => {
    assert.equal(row(normalize({ message: null, log_entry: 'l' })).event_message, 'l');
    assert.equal(row(normalize({ message: 42 })).event_message, '42');
    assert.equal(row(normalize({ message: { a: [1, null] } })).event_message, '{"a":[1,null]}');
    assert.equal(row(normalize({ message: false })).event_message, 'false');
  });

  it('is empty when the event has no message at all', () => {
    assert.equal(row(normalize({ metadata: { a: 1 } })).event_message, '');
  });
});

describe('normalizeEvent: id', () => {
  it('keeps a string id and does not store it as a field', () => {
    const r = row(normalize({ id: 'abc-123', message: 'x' }));
    assert.equal(r.id, 'abc-123');
    assert.deepEqual(r.fields, {});
  });

  it('keeps a numeric id as text and replaces anything else with a new UUID', () => {
    assert.equal(row(normalize({ id: 17 })).id, '17');
    for (const id of [undefined, null, '', { x: 1 }, true]) assert.match(row(normalize({ id })).id, UUID);
    assert.notEqual(row(normalize({})).id, row(normalize({})).id);
  });
});

describe('normalizeEvent: timestamp', () => {
  const at = (timestamp: unknown) => row(normalize({ timestamp })).timestamp;
  const micros = Date.UTC(2023, 2, 23, 14, 36, 26) * 1000; // 2023-03-23T14:36:26Z

  it('parses ISO 8601 with Z, offsets and fractions to microseconds', () => {
    assert.equal(at('2023-03-23T14:36:26Z'), micros);
    assert.equal(at('2023-03-23T14:36:26.123456Z'), micros + 123_456);
    assert.equal(at('2023-03-23T14:36:26.123456789+00:00'), micros + 123_456); // ns truncated
    assert.equal(at('2023-03-23T14:36:26.5Z'), micros + 500_000);
    assert.equal(at('2023-03-23T16:36:26+02:00'), micros);
    assert.equal(at('2023-03-23T09:06:26-0530'), micros);
    assert.equal(at('2023-03-23T16:36:26+02'), micros);
    assert.equal(at('2023-03-23 14:36:26 UTC'), micros);
    assert.equal(at('2023-03-23t14:36:26z'), micros);
  });

  it('treats an ISO string without offset as UTC, and a date alone as midnight UTC', () => {
    assert.equal(at('2023-03-23T14:36:26'), micros);
    assert.equal(at('2023-03-23'), Date.UTC(2023, 2, 23) * 1000);
  });

  it('scales numbers by digit count: seconds, ms, µs, ns', () => {
    assert.equal(at(1679582186), micros); // 10 digits: seconds
    assert.equal(at(1679582186000), micros); // 13: ms
    assert.equal(at(1679582186000123), micros + 123); // 16: µs
    assert.equal(at('1679582186000123456'), micros + 123); // 19: ns, exact as a string
    assert.equal(at(1679582186000123000), micros + 123); // 19 as a number
  });

  it('accepts fractional seconds and milliseconds, and numeric strings', () => {
    assert.equal(at(1679582186.25), micros + 250_000);
    assert.equal(at('1679582186.000001'), micros + 1);
    assert.equal(at('1679582186000.5'), micros + 500);
    assert.equal(at(' 1679582186 '), micros);
  });

  it('uses digit ranges between the named sizes', () => {
    assert.equal(parseTimestamp(999999999), 999_999_999_000_000); // 9 digits: seconds (2001)
    assert.equal(parseTimestamp(0), 0);
    assert.equal(parseTimestamp('00001679582186'), 1_679_582_186_000_000); // leading zeros do not count
  });

  it('falls back to now for missing, unparsable and NaN-like values', () => {
    for (const value of [undefined, null, '', 'yesterday', 'NaN', 'Infinity', '-1', '1e10', '0x10', '12345678901234567890', -5, Number.NaN, true, {}, [], '2023-13-01T00:00:00Z', '2023-02-30', '2023-03-23T25:00:00Z', '2023-03-23T10:00:00+25:00']) {
      assert.equal(at(value), NOW, JSON.stringify(value) ?? String(value));
    }
  });

  it('is not stored as a field, while a nested timestamp is ordinary data', () => {
    const r = row(normalize({ timestamp: '2023-03-23T14:36:26Z', metadata: { timestamp: 'not parsed' } }));
    assert.deepEqual(r.fields, { metadata: { timestamp: 'not parsed' } });
  });

  it('rejects an event more than one hour in the future, and accepts one just inside', () => {
    assert.equal(row(normalize({ timestamp: (NOW + 3600 * 1_000_000) / 1000 })).timestamp, NOW + 3_600_000_000);
    assert.match(rejected(normalize({ timestamp: '2024-01-15T13:00:01Z' })), /2024-01-15T13:00:01.000Z is more than one hour in the future/);
  });

  it('keeps old timestamps, before 2001 and before 1970', () => {
    assert.equal(at('1999-12-31T23:59:59Z'), Date.UTC(1999, 11, 31, 23, 59, 59) * 1000);
    assert.equal(at('0050-01-01T00:00:00Z'), Date.parse('0050-01-01T00:00:00Z') * 1000);
  });
});

describe('normalizeEvent: keys', () => {
  it('replaces unsafe characters and adds one leading underscore', () => {
    assert.equal(safeKey('content-type'), '_content_type');
    assert.equal(safeKey('a.b'), '_a_b');
    assert.equal(safeKey('a b/c'), '_a_b_c');
    assert.equal(safeKey('café'), '_caf_');
    assert.equal(safeKey('🎉x'), '__x'); // one code point, one underscore
    assert.equal(safeKey('plain_key'), 'plain_key');
    assert.equal(safeKey('_already'), '_already');
  });

  it('prefixes a leading digit, and only once when the key also had unsafe characters', () => {
    assert.equal(safeKey('1abc'), '_1abc');
    assert.equal(safeKey('1-a'), '_1_a');
    assert.equal(safeKey(''), '_');
  });

  it('truncates to 128 bytes', () => {
    assert.equal(safeKey('k'.repeat(300)), 'k'.repeat(128));
    assert.equal(safeKey('-'.repeat(300)).length, 128);
  });

  it('never lets two keys of one object share a name', () => {
    assert.deepEqual(safeKeys(['a-b', 'a.b', 'a b']), ['_a_b', '_a_b_2', '_a_b_3']);
    // A key that needs no change keeps its name even when a changed key comes first.
    assert.deepEqual(safeKeys(['a-b', '_a_b']), ['_a_b_2', '_a_b']);
    assert.deepEqual(safeKeys(['a-b', 'a.b', '_a_b_2']), ['_a_b', '_a_b_3', '_a_b_2']);
    // Column names are case-insensitive in DuckDB and BigQuery.
    assert.deepEqual(safeKeys(['Foo', 'foo', 'FOO']), ['Foo', 'foo_2', 'FOO_3']);
    assert.deepEqual(safeKeys(['a-B', '_A_b']), ['_a_B_2', '_A_b']);
    assert.deepEqual(safeKeys(['ID', 'Timestamp', 'level'], ['id', 'timestamp', 'event_message']), ['ID_2', 'Timestamp_2', 'level']);
    const long = safeKeys(['x'.repeat(200), 'x'.repeat(201)]);
    assert.deepEqual(long, ['x'.repeat(128), `${'x'.repeat(126)}_2`]);
  });

  it('sanitises keys at every depth without losing colliding values', () => {
    const r = row(
      normalize({
        message: 'x',
        'user-agent': 'ua',
        metadata: { 'content-type': 'json', headers: { 'x.id': 1, 'x-id': 2, '1st': true } },
      }),
    );
    assert.deepEqual(r.fields, {
      _user_agent: 'ua',
      metadata: { _content_type: 'json', headers: { _x_id: 1, _x_id_2: 2, _1st: true } },
    });
  });

  it('keeps top-level fields clear of the fixed columns whatever their case', () => {
    const r = row(normalize({ id: 'a', ID: 'b', Event_Message: 'c', TIMESTAMP: 'd' }));
    assert.equal(r.id, 'a');
    assert.deepEqual(r.fields, { ID_2: 'b', Event_Message_2: 'c', TIMESTAMP_2: 'd' });
  });

  it('keeps a "__proto__" key as plain data', () => {
    const r = row(normalize(JSON.parse('{"metadata":{"__proto__":{"polluted":1}}}')));
    const metadata = r.fields.metadata as Record<string, unknown>;
    assert.ok(Object.hasOwn(metadata, '__proto__'));
    assert.equal(Object.getPrototypeOf(metadata), Object.prototype);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
});

describe('normalizeEvent: values', () => {
  it('drops nulls in objects and arrays, and containers left empty', () => {
    const r = row(normalize({ a: null, b: [1, null, 2], c: { d: null }, e: [null], f: {}, g: [], h: '', i: { j: { k: null } } }));
    assert.deepEqual(r.fields, { b: [1, 2], h: '' });
  });

  it('keeps numbers, booleans, and arrays of objects', () => {
    const r = row(normalize({ metadata: { n: 1.5, z: 0, t: true, f: false, list: [{ a: 1 }, { b: 'x' }] } }));
    assert.deepEqual(r.fields.metadata, { n: 1.5, z: 0, t: true, f: false, list: [{ a: 1 }, { b: 'x' }] });
  });

  it('stores integers beyond 2^64 as the nearest double and overflowing numbers as text', () => {
    const parsed = JSON.parse('{"big":18446744073709551617,"huge":1e400,"neg":-1e400}') as Record<string, unknown>;
    const r = row(normalize(parsed));
    assert.equal(r.fields.big, 18446744073709551616);
    assert.equal(r.fields.huge, 'Infinity');
    assert.equal(r.fields.neg, '-Infinity');
  });

  it('keeps NaN-like strings as strings', () => {
    const r = row(normalize({ metadata: { a: 'NaN', b: 'Infinity', c: '1e999' } }));
    assert.deepEqual(r.fields.metadata, { a: 'NaN', b: 'Infinity', c: '1e999' });
  });

  it('rejects things that are not objects', () => {
    for (const raw of [null, 'text', 3, [1], undefined]) assert.match(rejected(normalize(raw)), /event must be a JSON object/);
  });
});

describe('normalizeEvent: limits', () => {
  const nest = (depth: number, leaf: unknown): unknown => {
    let value = leaf;
    for (let i = 0; i < depth; i++) value = { d: value };
    return value;
  };

  it('keeps 16 levels as objects and stores the 17th as its JSON text', () => {
    const r = row(normalize({ metadata: nest(16, 'leaf') })); // metadata is level 1; leaf object at 17
    let value: unknown = r.fields.metadata;
    for (let level = 1; level <= 16; level++) {
      assert.equal(typeof value, 'object', `level ${level}`);
      value = (value as Record<string, unknown>).d;
    }
    assert.equal(value, 'leaf');
    const deeper = row(normalize({ metadata: nest(17, 'leaf') }));
    let cut: unknown = deeper.fields.metadata;
    for (let level = 1; level <= 16; level++) cut = (cut as Record<string, unknown>).d;
    assert.equal(cut, '{"d":"leaf"}');
  });

  it('handles 10,000 levels without blowing the stack, keeping the whole subtree as text', () => {
    const raw = JSON.parse(`{"metadata":${'{"a-b":'.repeat(10_000)}null${'}'.repeat(10_000)}}`) as Record<string, unknown>;
    const r = row(normalize(raw));
    let cut: unknown = r.fields.metadata;
    for (let level = 1; level <= 16; level++) cut = (cut as Record<string, unknown>)._a_b;
    assert.equal(typeof cut, 'string');
    assert.equal((cut as string).length, '{"a-b":'.repeat(10_000 - 16).length + 4 + 10_000 - 16);
  });

  it('respects a custom depth limit', () => {
    const r = row(normalize({ metadata: { a: { b: 1 } } }, { ...DEFAULT_NORMALIZE_LIMITS, maxDepth: 1 }));
    assert.deepEqual(r.fields.metadata, { a: '{"b":1}' });
  });

  it('rejects an event over the size limit and accepts one under it', () => {
    const limits = { ...DEFAULT_NORMALIZE_LIMITS, maxEventBytes: 1000 };
    assert.ok(normalize({ message: 'x'.repeat(900) }, limits).ok);
    assert.match(rejected(normalize({ message: 'x'.repeat(1001) }, limits)), /larger than the limit of 1000 bytes/);
    assert.match(rejected(normalize({ metadata: { list: Array.from({ length: 200 }, (_, i) => `item ${i}`) } }, limits)), /larger than/);
    assert.match(rejected(normalize({ metadata: { s: 'é'.repeat(600) } }, limits)), /larger than/); // counted in bytes
  });

  it('rejects a 2 MiB event with the default limit', () => {
    assert.match(rejected(normalize({ metadata: { blob: 'x'.repeat(2 * 1024 * 1024) } })), /1048576 bytes/);
  });

  it('stores an object with too many keys as JSON text; rejects an event with too many top-level keys', () => {
    const limits = { ...DEFAULT_NORMALIZE_LIMITS, maxKeysPerObject: 3 };
    const wide = { a: 1, b: 2, c: 3, d: 4 };
    assert.deepEqual(row(normalize({ metadata: wide }, limits)).fields.metadata, JSON.stringify(wide));
    assert.deepEqual(row(normalize({ metadata: { a: 1, b: 2, c: 3 } }, limits)).fields.metadata, { a: 1, b: 2, c: 3 });
    assert.match(rejected(normalize({ message: 'm', id: 'i', ...wide }, limits)), /4 top-level fields; the limit is 3/);
  });
});
