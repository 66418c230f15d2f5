import type * as ir from '../ir.ts';
import { invalidSql } from '../parse.ts';

/**
 * ClickHouse's JSONExtract* keys as a JSONPath: a string is an object key, an integer a 1-based
 * array index (negative counts from the end). The keys must be literals.
 */
export function jsonPathOf(keys: ir.Expr[]): string {
  let path = '$';
  for (const key of keys) {
    if (key.kind === 'string') {
      if (!/^[A-Za-z0-9_\- ]*$/.test(key.value) || key.value === '') throw invalidSql(`JSON key '${key.value}' is not supported: keys may hold letters, digits, '_', '-' and spaces`);
      path += `."${key.value}"`;
      continue;
    }
    const index = key.kind === 'number' ? Number(key.text) : key.kind === 'negate' && key.expr.kind === 'number' ? -Number(key.expr.text) : Number.NaN;
    if (!Number.isInteger(index) || index === 0) throw invalidSql('JSONExtract keys are string literals or non-zero integer literals (1-based indexes)');
    path += index > 0 ? `[${index - 1}]` : `[#${index}]`;
  }
  return path;
}
