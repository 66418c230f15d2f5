import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fits, inferType, mergeTypes, sameType, schemaForRows } from '../../src/warehouse/schema.ts';
import type { FieldType, JsonValue } from '../../src/warehouse/types.ts';
import { random, randomValue } from '../support/random-json.ts';

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

