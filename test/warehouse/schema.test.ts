import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fits, inferType, mergeTypes, sameType, schemaForRows } from '../../src/warehouse/schema.ts';
import type { FieldType, JsonValue } from '../../src/warehouse/types.ts';

/** A small seeded generator, so a failure names a value that can be replayed. */
function random(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function randomValue(next: () => number, depth = 0): JsonValue {
  const pick = Math.floor(next() * (depth > 2 ? 5 : 8));
  const keys = ['a', 'b', 'A', 'c'];
  switch (pick) {
    case 0: return next() < 0.5;
    case 1: return Math.floor(next() * 100);
    case 2: return next() * 10;
    case 3: return ['x', 'y', ''][Math.floor(next() * 3)]!;
    case 4: return Math.floor(next() * 3) === 0 ? 2 ** 60 : 'long';
    case 5: return Array.from({ length: Math.floor(next() * 3) }, () => randomValue(next, depth + 1));
    default: {
      const object: { [key: string]: JsonValue } = {};
      for (let i = Math.floor(next() * 3); i > 0; i--) object[keys[Math.floor(next() * keys.length)]!] = randomValue(next, depth + 1);
      return object;
    }
  }
}

test('fits agrees with merging for thousands of random values and types', () => {
  const next = random(42);
  let checked = 0;
  for (let i = 0; i < 5000; i++) {
    const type = inferType(randomValue(next));
    const value = randomValue(next);
    const inferred = inferType(value);
    if (!type) continue;
    const expected = inferred === undefined || sameType(mergeTypes(type, inferred), type);
    assert.equal(fits(value, type), expected, `value ${JSON.stringify(value)} into ${JSON.stringify(type, (_k, v) => (v instanceof Map ? Object.fromEntries(v) : v))}`);
    checked++;
  }
  assert.ok(checked > 3000);
});

test('schemaForRows returns the same schema object when every row fits', () => {
  const schema = schemaForRows(new Map(), [{ fields: { metadata: { n: 1, s: 'x', list: [1, 2] } } }]);
  assert.equal(schemaForRows(schema, [{ fields: { metadata: { n: 2, list: [] } } }, { fields: {} }]), schema);
  const widened = schemaForRows(schema, [{ fields: { metadata: { n: 2.5 } } }]);
  assert.notEqual(widened, schema);
  const metadata = widened.get('metadata') as Extract<FieldType, { kind: 'record' }>;
  assert.equal(metadata.fields.get('n')!.kind, 'float');
});

