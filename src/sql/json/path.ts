/**
 * BigQuery's JSONPath, parsed once at save (every function takes it as a literal): `$`, then
 * `.key`, `[0]` and an escaped key, `['a.b']` for JSON_EXTRACT and its family, `."a.b"` for
 * JSON_QUERY, JSON_VALUE and the mutators. As in ZetaSQL (json_internal.cc), an extractor's
 * token is a key that also reads an array element when it spells an index (`$.a.0` and `$.a[0]`
 * are the same), while a mutator's `[0]` is an index and `.0` a key. An invalid path is refused
 * in BigQuery's words.
 */

/** Which grammar a function reads its path in. */
export type JsonPathMode =
  /** JSON_EXTRACT, JSON_EXTRACT_SCALAR, JSON_EXTRACT_ARRAY, JSON_EXTRACT_STRING_ARRAY: `['a.b']`, `[key]`. */
  | 'legacy'
  /** JSON_QUERY, JSON_VALUE, JSON_QUERY_ARRAY, JSON_VALUE_ARRAY: `."a.b"`. */
  | 'standard'
  /** JSON_SET, JSON_REMOVE, JSON_STRIP_NULLS, JSON_ARRAY_APPEND, JSON_ARRAY_INSERT: keys and indexes apart. */
  | 'strict';

/**
 * One step. `key`: the member it reads in an object. `index`: the element it reads in an array,
 * when it has one (an extractor's key that spells a non-negative integer, a strict `[n]`);
 * a strict index step has no key.
 */
export interface JsonPathStep {
  key?: string;
  index?: number;
}

export class JsonPathError extends Error {}

const KEY = /^\.([\p{L}\p{N}_\-:\s]+)/u;
const LEGACY_OFFSET = /^\[\s*([\p{L}\p{N}_-]+)\s*\]/u;
const STANDARD_OFFSET = /^\[\s*([\p{N}_-]+)\s*\]/u;
const STRICT_OFFSET = /^\[\s*(\p{N}+)\s*\]/u;
const LEGACY_ESCAPED = /^\[\s*'((?:[^\\']|\\'|\\[^'])*)'\s*\]/u;
const STANDARD_ESCAPED = /^\."((?:[^\\"]|\\"|\\[^"])*)"/u;
const UNSUPPORTED = /(\*|\.\.|@)/;

/** The steps of `path`, or a JsonPathError with BigQuery's message. */
export function parseJsonPath(path: string, mode: JsonPathMode): JsonPathStep[] {
  if (!path.startsWith('$')) throw new JsonPathError("JSONPath must start with '$'");
  let rest = path.slice(1);
  const steps: JsonPathStep[] = [];
  while (rest.length > 0) {
    const step = mode === 'strict' ? strictStep(rest) : extractorStep(rest, mode);
    if (!step) {
      // A trailing '.' is allowed in the legacy grammar.
      if (rest === '.' && mode === 'legacy') break;
      const unsupported = UNSUPPORTED.exec(rest);
      if (unsupported) throw new JsonPathError(`Unsupported operator in JSONPath: ${unsupported[1]}`);
      throw new JsonPathError(`Invalid token in JSONPath at: ${rest}`);
    }
    steps.push(step.step);
    rest = rest.slice(step.length);
  }
  return steps;
}

function extractorStep(rest: string, mode: 'legacy' | 'standard'): { step: JsonPathStep; length: number } | undefined {
  const offset = (mode === 'legacy' ? LEGACY_OFFSET : STANDARD_OFFSET).exec(rest) ?? KEY.exec(rest);
  if (offset) return { step: keyStep(offset[1]!), length: offset[0].length };
  const escaped = (mode === 'legacy' ? LEGACY_ESCAPED : STANDARD_ESCAPED).exec(rest);
  if (!escaped) return undefined;
  const quote = mode === 'legacy' ? "'" : '"';
  return { step: keyStep(escaped[1]!.replaceAll(`\\${quote}`, quote)), length: escaped[0].length };
}

function strictStep(rest: string): { step: JsonPathStep; length: number } | undefined {
  const key = KEY.exec(rest) ?? STANDARD_ESCAPED.exec(rest);
  if (key) return { step: { key: key[1]! }, length: key[0].length };
  const offset = STRICT_OFFSET.exec(rest);
  if (!offset) return undefined;
  const index = Number(offset[1]);
  if (!Number.isSafeInteger(index)) throw new JsonPathError(`JSONPath contains invalid array index: ${offset[1]}`);
  return { step: { index }, length: offset[0].length };
}

/** An extractor's token: a key, and an array index when it reads as a non-negative integer (absl::SimpleAtoi). */
function keyStep(token: string): JsonPathStep {
  const number = /^\s*\+?(\d+)\s*$/.exec(token);
  const index = number ? Number(number[1]) : undefined;
  return index !== undefined && Number.isSafeInteger(index) ? { key: token, index } : { key: token };
}

