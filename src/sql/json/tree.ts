/**
 * BigQuery's JSON functions that read a whole tree, over JSON values (value.ts), as ZetaSQL's
 * json.cc does them: where an engine runs JavaScript (DuckDB's functions registered at open),
 * these are its renderings; render.ts writes the same in SQL to a fixed depth for the others.
 */

import { compareCodePoints, quoteJsonString, type JsonValue } from './value.ts';

/** JSON_STRIP_NULLS of a value: nulls (and, `removeEmpty`, emptied containers) removed at every level. */
export function stripNulls(value: JsonValue, includeArrays: boolean, removeEmpty: boolean): JsonValue {
  const removed = (item: JsonValue) =>
    item.kind === 'null' || (removeEmpty && ((item.kind === 'object' && item.members.size === 0) || (includeArrays && item.kind === 'array' && item.items.length === 0)));
  const strip = (node: JsonValue): JsonValue => {
    if (node.kind === 'object') {
      const members = new Map<string, JsonValue>();
      for (const [key, member] of node.members) {
        const stripped = strip(member);
        if (!removed(stripped)) members.set(key, stripped);
      }
      return { kind: 'object', members };
    }
    if (node.kind === 'array') {
      const items = node.items.map(strip);
      return { kind: 'array', items: includeArrays ? items.filter((item) => !removed(item)) : items };
    }
    return node;
  };
  const result = strip(value);
  const emptied = removeEmpty && ((result.kind === 'object' && result.members.size === 0) || (includeArrays && result.kind === 'array' && result.items.length === 0));
  return emptied ? { kind: 'null' } : result;
}

export type JsonKeysMode = 'strict' | 'lax' | 'lax recursive';

/**
 * JSON_KEYS: every key path down to `maxDepth` object levels, in byte order, each once; a key
 * holding '.' or a character JSON escapes is written as a JSON string. Lax modes read the objects
 * in arrays (and, recursive, in arrays in arrays) under the array's own path and depth.
 */
export function jsonKeys(value: JsonValue, maxDepth: bigint, mode: JsonKeysMode): string[] {
  const keys = new Set<string>();
  const visit = (node: JsonValue, prefix: string, remaining: bigint) => {
    if (node.kind === 'object') {
      for (const [key, member] of node.members) {
        const path = prefix === '' ? escapedKey(key) : `${prefix}.${escapedKey(key)}`;
        keys.add(path);
        if (remaining > 1n) visit(member, path, remaining - 1n);
      }
    } else if (node.kind === 'array' && mode !== 'strict') {
      for (const item of node.items) if (item.kind === 'object' || (mode === 'lax recursive' && item.kind === 'array')) visit(item, prefix, remaining);
    }
  };
  visit(value, '', maxDepth);
  return [...keys].sort(compareCodePoints);
}

function escapedKey(key: string): string {
  if (!/[."\\\u0000-\u001f\u2028\u2029]/.test(key)) return key;
  return quoteJsonString(key).replaceAll('\u2028', '\\u2028').replaceAll('\u2029', '\\u2029');
}

/** JSON_FLATTEN: the non-array values of an array and of the arrays in it, in order; a non-array alone. */
export function jsonFlatten(value: JsonValue): JsonValue[] {
  if (value.kind !== 'array') return [value];
  return value.items.flatMap((item) => (item.kind === 'array' ? jsonFlatten(item) : [item]));
}
