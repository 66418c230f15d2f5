/**
 * BigQuery's JSON functions as SQL, written once for every engine over the few operations each
 * engine supplies (JsonEngine: its list functions, its JSON text functions). A JSON value is
 * JSON text in every engine; these builders keep BigQuery's semantics on it: a mutator walks its
 * path (known at save) level by level and rebuilds the containers on the way back, a function
 * that reads a whole tree (JSON_STRIP_NULLS, JSON_KEYS, JSON_FLATTEN, the canonical text) walks
 * it to a fixed depth, past which it raises an error rather than answer differently.
 */

import { semanticError } from '../analyze.ts';
import type { SqlType } from '../catalog.ts';
import type { CallParts } from '../emitters.ts';
import type { JSON_FUNCTIONS } from '../functions/families/json.ts';
import { invalidSql } from '../parse.ts';
import { JsonPathError, parseJsonPath, type JsonPathMode, type JsonPathStep } from './path.ts';
import type { JsonKeysMode } from './tree.ts';
import { compareCodePoints, quoteJsonString } from './value.ts';

/** The JSON kinds an engine tells apart (BigQuery's JSON_TYPE names, numbers split). */
export type JsonKind = 'object' | 'array' | 'string' | 'int' | 'double' | 'boolean' | 'null';

/**
 * What an engine supplies: SQL builders over its list, pair and JSON text functions. A "list" is
 * the engine's array, a "pair" a (key STRING, value STRING) tuple, JSON text a STRING.
 */
export interface JsonEngine {
  /** A SQL string literal. */
  literal(text: string): string;
  /** `body` of `value` bound once to a name. */
  bind(value: string, body: (name: string) => string): string;
  map(list: string, body: (element: string) => string): string;
  /** `body` of each element and its 0-based position. */
  mapIndexed(list: string, body: (element: string, index: string) => string): string;
  filter(list: string, test: (element: string) => string): string;
  /** A list of lists made one list. */
  flatten(lists: string): string;
  concat(lists: readonly string[]): string;
  /** A list of these items of JSON text (or other strings); `[]` of strings when empty. */
  texts(items: readonly string[]): string;
  /** What stands for a NULL list of strings (an engine without NULL arrays has the empty one). */
  noList(): string;
  /** A list of these pairs; empty: no pairs. */
  pairs(items: readonly string[]): string;
  length(list: string): string;
  /** `count` copies of `item`. */
  repeat(item: string, count: string): string;
  /** The strings joined with `separator` (a literal). */
  join(list: string, separator: string): string;
  /** Strings sorted by their bytes, each once. */
  sortedDistinct(list: string): string;
  pair(key: string, value: string): string;
  pairKey(pair: string): string;
  pairValue(pair: string): string;
  /** Pairs sorted by key bytes (stable). */
  sortPairs(pairs: string): string;
  /** Pairs whose key is the first pair with that key. */
  firstPerKey(pairs: string): string;
  /** The engine's kind name of JSON text (compare with kindIs). */
  kind(text: string): string;
  /** A condition: the kind `kind` (from kind()) is one of `kinds`. */
  kindIs(kind: string, kinds: readonly JsonKind[]): string;
  /** Whether a STRING is JSON text at all (the STRING overloads read only such text). */
  valid(text: string): string;
  /** The member named `key` (a SQL STRING) of JSON text, its first if repeated; NULL if absent or not an object. */
  member(text: string, key: string): string;
  /** The element at `index` (a SQL INT64, 0-based) of JSON text; NULL if absent or not an array. */
  element(text: string, index: string): string;
  /**
   * JSON_QUERY's (`query`) or JSON_VALUE's (`scalar`) value at `steps` of JSON text a STRING holds,
   * NULL where it is not JSON, in fewer reads of the text where the engine can (these run over
   * every row of a log query); undefined where not.
   */
  fromText?(text: string, steps: readonly JsonPathStep[], shape: 'query' | 'scalar'): string | undefined;
  /** The same as following `steps` one by one, in fewer calls where the engine can; undefined where not. */
  path?(text: string, steps: readonly JsonPathStep[]): string | undefined;
  /** An object's members as pairs (JSON null values as 'null'), duplicates kept. */
  members(text: string): string;
  /** An array's elements as JSON text (JSON null as 'null'). */
  elements(text: string): string;
  /** The string a JSON string holds. */
  stringValue(text: string): string;
  /** A JSON string literal of a SQL string, escaped exactly as BigQuery writes one. */
  quote(text: string): string;
  /** A JSON string literal of a SQL string in the engine's own escaping (a JSON value's text, made exact where it is shown). */
  quickQuote(text: string): string;
  /** JSON number text as a FLOAT64; NULL where it is not one. */
  parseDouble(text: string): string;
  /** Every match of the RE2 `pattern` (no capturing groups) in `text`, in order. */
  extractAll(text: string, pattern: string): string;
  /** Whether `text` matches the RE2 pattern (a literal). */
  matches(text: string, pattern: string): string;
  replace(text: string, from: string, to: string): string;
  /** BigQuery's error `message` where the condition holds, else `value`; NULL there under SAFE. */
  failIf(condition: string, message: string, value: string): string;
  concatText(parts: readonly string[]): string;
  /** The first capture group of the RE2 `pattern` in `text`, '' where it does not match. */
  regexpExtract(text: string, pattern: string): string;
  /** `text` with every match of the RE2 `pattern` replaced (`\\1` refers to a group). */
  regexpReplace(text: string, pattern: string, replacement: string): string;
  /** Characters `from` (1-based) on, `length` of them when given. */
  substring(text: string, from: string, length?: string): string;
  textLength(text: string): string;
  repeatText(text: string, count: string): string;
  toInt(text: string): string;
  intText(value: string): string;
  /** A double's shortest round-trip digits, in the engine's own notation (`1e+100`, `1e100`, `0.1`). */
  shortestDouble(x: string): string;
  /**
   * The whole-tree functions, where the engine runs them itself (src/sql/json/tree.ts as
   * JavaScript); without, they are walked in SQL to TREE_DEPTH levels.
   */
  trees?: {
    stripNulls(json: string, includeArrays: boolean, removeEmpty: boolean): string;
    keys(json: string, maxDepth: string, mode: JsonKeysMode): string;
    flatten(json: string): string;
    /** BigQuery's text of a JSON value, indented from column `indent` when given. */
    text(json: string, indent: number | undefined): string;
  };
}

/** How deep a whole-tree walk goes; a deeper value is refused with an error. */
export const TREE_DEPTH = 8;

const kindOf = (engine: JsonEngine, text: string, body: (kind: string) => string) => engine.bind(engine.kind(text), body);

/**
 * A double as nlohmann::json writes it (BigQuery's JSON numbers): its shortest digits, fixed
 * while the decimal point falls within 15 digits (`.0` when integral), else `d.ddde+XX`
 * (value.ts formatDouble). `x` is a FLOAT64, not NaN or infinite.
 */
export function jsonDouble(engine: JsonEngine, x: string): string {
  return engine.bind(engine.shortestDouble(x), (text) => {
    const sign = `(CASE WHEN ${engine.substring(text, '1', '1')} = '-' THEN '-' ELSE '' END)`;
    const mantissa = engine.regexpExtract(text, '^-?([0-9.]+)');
    const exponent = `coalesce(${engine.toInt(`nullif(${engine.regexpExtract(text, '[eE]([+-]?[0-9]+)')}, '')`)}, 0)`;
    return engine.bind(engine.regexpExtract(mantissa, '^([0-9]*)'), (whole) =>
      engine.bind(engine.concatText([whole, engine.regexpExtract(mantissa, '[.]([0-9]*)')]), (all) =>
        engine.bind(engine.regexpReplace(engine.regexpReplace(all, '^0+', ''), '0+$', ''), (digits) =>
          engine.bind(`(${engine.textLength(whole)} + ${exponent} - (${engine.textLength(all)} - ${engine.textLength(engine.regexpReplace(all, '^0+', ''))}))`, (point) => {
            const k = engine.textLength(digits);
            const exp = `(${point} - 1)`;
            const scientific = engine.concatText([
              engine.substring(digits, '1', '1'),
              `(CASE WHEN ${k} > 1 THEN ${engine.concatText([engine.literal('.'), engine.substring(digits, '2')])} ELSE '' END)`,
              engine.literal('e'),
              `(CASE WHEN ${exp} < 0 THEN '-' ELSE '+' END)`,
              `(CASE WHEN abs(${exp}) < 10 THEN '0' ELSE '' END)`,
              engine.intText(`abs(${exp})`),
            ]);
            return engine.concatText([
              sign,
              `(CASE WHEN ${digits} = '' THEN '0.0'` +
                ` WHEN ${k} <= ${point} AND ${point} <= 15 THEN ${engine.concatText([digits, engine.repeatText("'0'", `${point} - ${k}`), engine.literal('.0')])}` +
                ` WHEN ${point} > 0 AND ${point} <= 15 THEN ${engine.concatText([engine.substring(digits, '1', point), engine.literal('.'), engine.substring(digits, `${point} + 1`)])}` +
                ` WHEN ${point} > -4 AND ${point} <= 0 THEN ${engine.concatText([engine.literal('0.'), engine.repeatText("'0'", `-${point}`), digits])}` +
                ` ELSE ${scientific} END)`,
            ]);
          }),
        ),
      ),
    );
  });
}

/**
 * A JSON string literal of a SQL string with BigQuery's escapes, from the engine's own JSON
 * escaping `native`, which writes a few control characters in upper-case hex (`\u001F`): a string
 * holding one is escaped here character by character instead.
 */
export function quotedJsonString(engine: JsonEngine, text: string, native: string): string {
  const escapes = new Map<string, string>([['\\', '\\\\'], ['"', '\\"'], ['\b', '\\b'], ['\f', '\\f'], ['\n', '\\n'], ['\r', '\\r'], ['\t', '\\t']]);
  for (let code = 0; code < 0x20; code++) {
    const char = String.fromCharCode(code);
    if (!escapes.has(char)) escapes.set(char, `\\u${code.toString(16).padStart(4, '0')}`);
  }
  const escaped = [...escapes].reduce((sql, [from, to]) => engine.replace(sql, from, to), text);
  return `(CASE WHEN ${engine.matches(text, '[\\x0b\\x0e\\x0f\\x1a-\\x1f]')} THEN ${engine.concatText([engine.literal('"'), escaped, engine.literal('"')])} ELSE ${native} END)`;
}

/** A double as BigQuery's CAST(… AS STRING) writes it: %.15g, or %.17g where that reads back as another double. */
export function float64Text(engine: JsonEngine, x: string): string {
  return engine.bind(`printf('%.15g', ${x})`, (short) => `(CASE WHEN CAST(${short} AS DOUBLE) = ${x} THEN ${short} ELSE printf('%.17g', ${x}) END)`);
}

export const objectText = (engine: JsonEngine, pairs: string) =>
  engine.concatText([engine.literal('{'), engine.join(engine.map(pairs, (pair) => engine.concatText([engine.quickQuote(engine.pairKey(pair)), engine.literal(':'), engine.pairValue(pair)])), ','), engine.literal('}')]);

export const arrayText = (engine: JsonEngine, list: string) => engine.concatText([engine.literal('['), engine.join(list, ','), engine.literal(']')]);

/** NULL where `inner` is (an ignored operation), else `value`. */
const unlessNull = (inner: string, value: string) => `(CASE WHEN ${inner} IS NULL THEN NULL ELSE ${value} END)`;

// ---- mutators ------------------------------------------------------------------------------

/**
 * A mutator's walk: `apply` gives the target's new text (NULL: leave the whole value as it was),
 * and each level on the way rebuilds its container with the new child. A missing member or
 * element, or a value of the wrong kind, ignores the operation; `create` (JSON_SET) builds the
 * missing part of the path instead, also in place of JSON null.
 */
function rebuild(engine: JsonEngine, node: string, steps: readonly JsonPathStep[], apply: (target: string) => string, create: boolean): string {
  const [step, ...rest] = steps;
  if (!step) return apply(node);
  const missing = create ? built(engine, steps, apply) : 'NULL';
  return engine.bind(node, (value) =>
    kindOf(engine, value, (kind) => {
      const whenNull = `WHEN ${engine.kindIs(kind, ['null'])} THEN ${missing}`;
      if (step.index === undefined) {
        const key = engine.literal(step.key!);
        const inObject = engine.bind(engine.member(value, key), (child) => {
          const replaced = engine.bind(rebuild(engine, child, rest, apply, create), (inner) => unlessNull(inner, replaceMember(engine, value, key, inner)));
          const added = create ? engine.bind(built(engine, rest, apply), (inner) => unlessNull(inner, addMember(engine, value, key, inner))) : 'NULL';
          return `(CASE WHEN ${child} IS NOT NULL THEN ${replaced} ELSE ${added} END)`;
        });
        return `(CASE WHEN ${engine.kindIs(kind, ['object'])} THEN ${inObject} ${whenNull} ELSE NULL END)`;
      }
      const index = step.index;
      const replaced = engine.bind(rebuild(engine, engine.element(value, String(index)), rest, apply, create), (inner) => unlessNull(inner, replaceElement(engine, value, index, inner)));
      const added = create ? engine.bind(built(engine, rest, apply), (inner) => unlessNull(inner, padded(engine, value, index, inner))) : 'NULL';
      const inArray = `(CASE WHEN ${index} < ${engine.length(engine.elements(value))} THEN ${replaced} ELSE ${added} END)`;
      return `(CASE WHEN ${engine.kindIs(kind, ['array'])} THEN ${inArray} ${whenNull} ELSE NULL END)`;
    }),
  );
}

/** The containers `steps` name around what `apply` makes of a missing value (JSON null); NULL where it ignores it. */
function built(engine: JsonEngine, steps: readonly JsonPathStep[], apply: (target: string) => string): string {
  return engine.bind(apply(engine.literal('null')), (inner) => {
    let text = inner;
    for (const step of [...steps].reverse()) {
      text =
        step.index === undefined
          ? engine.concatText([engine.literal(`{${quoteJsonString(step.key!)}:`), text, engine.literal('}')])
          : engine.concatText([engine.literal(`[${'null,'.repeat(step.index)}`), text, engine.literal(']')]);
    }
    return unlessNull(inner, text);
  });
}

function replaceMember(engine: JsonEngine, object: string, key: string, value: string): string {
  const pairs = engine.map(engine.firstPerKey(engine.members(object)), (pair) =>
    engine.pair(engine.pairKey(pair), `(CASE WHEN ${engine.pairKey(pair)} = ${key} THEN ${value} ELSE ${engine.pairValue(pair)} END)`),
  );
  return objectText(engine, pairs);
}

function addMember(engine: JsonEngine, object: string, key: string, value: string): string {
  return objectText(engine, engine.concat([engine.firstPerKey(engine.members(object)), engine.pairs([engine.pair(key, value)])]));
}

function replaceElement(engine: JsonEngine, array: string, index: number, value: string): string {
  return arrayText(engine, engine.mapIndexed(engine.elements(array), (element, position) => `(CASE WHEN ${position} = ${index} THEN ${value} ELSE ${element} END)`));
}

/** The array with `value` at `index`, past its end: JSON nulls fill the gap. */
function padded(engine: JsonEngine, array: string, index: number, value: string): string {
  return engine.bind(engine.elements(array), (elements) =>
    arrayText(engine, engine.concat([elements, engine.repeat(engine.literal('null'), `(${index} - ${engine.length(elements)})`), engine.texts([value])])),
  );
}

/** Following an extractor's or a subscript's `steps` from JSON text: the value there, NULL where there is none. */
export function followPath(engine: JsonEngine, text: string, steps: readonly JsonPathStep[]): string {
  const fast = engine.path?.(text, steps);
  if (fast !== undefined) return fast;
  let current = text;
  for (const step of steps) {
    if (step.index === undefined) current = engine.member(current, engine.literal(step.key!));
    else if (step.key === undefined) current = engine.element(current, String(step.index));
    else {
      const { key, index } = step;
      current = engine.bind(current, (value) =>
        kindOf(engine, value, (kind) => `(CASE WHEN ${engine.kindIs(kind, ['array'])} THEN ${engine.element(value, String(index))} ELSE ${engine.member(value, engine.literal(key))} END)`),
      );
    }
  }
  return current;
}

/** JSON_SET's one path-value pair. */
export function jsonSet(engine: JsonEngine, json: string, steps: readonly JsonPathStep[], value: string, create: boolean): string {
  if (steps.length === 0) return value;
  return engine.bind(json, (original) => `coalesce(${rebuild(engine, original, steps, () => value, create)}, ${original})`);
}

/** JSON_REMOVE's one path (never `$`, refused at save). */
export function jsonRemove(engine: JsonEngine, json: string, steps: readonly JsonPathStep[]): string {
  const parent = steps.slice(0, -1);
  const last = steps[steps.length - 1]!;
  const remove = (node: string) =>
    engine.bind(node, (value) =>
      kindOf(engine, value, (kind) => {
        if (last.index === undefined) {
          const pairs = engine.firstPerKey(engine.members(value));
          const kept = engine.filter(pairs, (pair) => `${engine.pairKey(pair)} <> ${engine.literal(last.key!)}`);
          return `(CASE WHEN ${engine.kindIs(kind, ['object'])} AND ${engine.length(kept)} < ${engine.length(pairs)} THEN ${objectText(engine, kept)} END)`;
        }
        const elements = engine.elements(value);
        const kept = engine.filter(engine.mapIndexed(elements, (element, position) => `(CASE WHEN ${position} = ${last.index} THEN NULL ELSE ${element} END)`), (element) => `${element} IS NOT NULL`);
        return `(CASE WHEN ${engine.kindIs(kind, ['array'])} AND ${last.index} < ${engine.length(elements)} THEN ${arrayText(engine, kept)} END)`;
      }),
    );
  return engine.bind(json, (original) => `coalesce(${rebuild(engine, original, parent, remove, false)}, ${original})`);
}

/**
 * JSON_ARRAY_APPEND's and JSON_ARRAY_INSERT's one pair: `values` (a list of JSON text) added
 * to the array at the path (JSON null there becomes an array), at the end or at the index the
 * path ends with.
 */
export function jsonArrayAdd(engine: JsonEngine, json: string, steps: readonly JsonPathStep[], values: string, insert: boolean): string {
  const last = steps[steps.length - 1];
  if (insert && last?.index === undefined) return json;
  const toArray = steps.slice(0, insert ? -1 : steps.length);
  const add = (node: string) =>
    engine.bind(node, (array) =>
      kindOf(engine, array, (kind) => {
        const elements = `(CASE WHEN ${engine.kindIs(kind, ['null'])} THEN ${engine.texts([])} ELSE ${engine.elements(array)} END)`;
        const added = engine.bind(elements, (list) => {
          if (!insert) return arrayText(engine, engine.concat([list, values]));
          const index = last!.index!;
          const before = engine.filter(engine.mapIndexed(list, (element, position) => `(CASE WHEN ${position} < ${index} THEN ${element} END)`), (element) => `${element} IS NOT NULL`);
          const after = engine.filter(engine.mapIndexed(list, (element, position) => `(CASE WHEN ${position} >= ${index} THEN ${element} END)`), (element) => `${element} IS NOT NULL`);
          const gap = engine.repeat(engine.literal('null'), `greatest(${index} - ${engine.length(list)}, 0)`);
          return arrayText(engine, engine.concat([before, gap, values, after]));
        });
        return `(CASE WHEN ${engine.kindIs(kind, ['array', 'null'])} THEN ${added} END)`;
      }),
    );
  return engine.bind(json, (original) => `coalesce(${rebuild(engine, original, toArray, add, false)}, ${original})`);
}

// ---- whole-tree walks ----------------------------------------------------------------------

/**
 * A bottom-up walk of a JSON tree, `depth` levels deep: `combine` gets a value's text, its
 * kind, and its children (pairs: an object's members, or an array's elements under the key '')
 * already walked; deeper containers raise `tooDeep`.
 */
function walk(engine: JsonEngine, text: string, depth: number, tooDeep: string, combine: (node: { text: string; kind: string; children: string; level: number }) => string, level = 0): string {
  return engine.bind(text, (value) =>
    kindOf(engine, value, (kind) => {
      if (depth === 0) return engine.failIf(engine.kindIs(kind, ['object', 'array']), tooDeep, value);
      const pairs = `(CASE WHEN ${engine.kindIs(kind, ['object'])} THEN ${engine.members(value)} WHEN ${engine.kindIs(kind, ['array'])} THEN ${engine.map(engine.elements(value), (element) => engine.pair(engine.literal(''), element))} ELSE ${engine.pairs([])} END)`;
      const children = engine.map(pairs, (pair) => engine.pair(engine.pairKey(pair), walk(engine, engine.pairValue(pair), depth - 1, tooDeep, combine, level + 1)));
      return engine.bind(children, (walked) => combine({ text: value, kind, children: walked, level }));
    }),
  );
}

const tooDeep = (name: string) => `${name} of JSON nested deeper than ${TREE_DEPTH} levels is not supported`;

/** JSON_STRIP_NULLS of a value (the path already followed). */
export function stripNulls(engine: JsonEngine, json: string, includeArrays: boolean, removeEmpty: boolean): string {
  if (engine.trees) return engine.trees.stripNulls(json, includeArrays, removeEmpty);
  const removed = (value: string) => {
    const empties = removeEmpty ? [engine.literal('{}'), ...(includeArrays ? [engine.literal('[]')] : [])] : [];
    return `${value} IN (${[engine.literal('null'), ...empties].join(', ')})`;
  };
  const stripped = walk(engine, json, TREE_DEPTH, tooDeep('JSON_STRIP_NULLS'), ({ text, kind, children }) => {
    const kept = engine.filter(children, (pair) => `NOT (${removed(engine.pairValue(pair))})`);
    const array = includeArrays ? kept : children;
    return `(CASE WHEN ${engine.kindIs(kind, ['object'])} THEN ${objectText(engine, kept)} WHEN ${engine.kindIs(kind, ['array'])} THEN ${arrayText(engine, engine.map(array, (pair) => engine.pairValue(pair)))} ELSE ${text} END)`;
  });
  if (!removeEmpty) return stripped;
  return engine.bind(stripped, (value) => `(CASE WHEN ${value} = ${engine.literal('{}')}${includeArrays ? ` OR ${value} = ${engine.literal('[]')}` : ''} THEN ${engine.literal('null')} ELSE ${value} END)`);
}

/** JSON_STRIP_NULLS: the subtree at the path stripped, the rest as it was. */
export function jsonStripNulls(engine: JsonEngine, json: string, steps: readonly JsonPathStep[], includeArrays: boolean, removeEmpty: boolean): string {
  if (steps.length === 0) return stripNulls(engine, json, includeArrays, removeEmpty);
  return engine.bind(json, (original) => `coalesce(${rebuild(engine, original, steps, (target) => stripNulls(engine, target, includeArrays, removeEmpty), false)}, ${original})`);
}

/** JSON_FLATTEN: the values of the array and of the arrays in it, in order; a non-array alone. */
export function jsonFlatten(engine: JsonEngine, json: string): string {
  if (engine.trees) return engine.trees.flatten(json);
  return walk(engine, json, TREE_DEPTH, tooDeep('JSON_FLATTEN'), ({ text, kind, children }) => {
    const inner = engine.flatten(engine.map(children, (pair) => engine.pairValue(pair)));
    return `(CASE WHEN ${engine.kindIs(kind, ['array'])} THEN ${inner} ELSE ${engine.texts([text])} END)`;
  });
}

/**
 * A JSON value's text as BigQuery writes it: members sorted by key, the first of duplicates kept,
 * numbers in BigQuery's form; with `indent` (TO_JSON_STRING's pretty_print), one value a line.
 */
export function canonicalJson(engine: JsonEngine, json: string, indent?: number): string {
  if (engine.trees) return engine.trees.text(json, indent);
  const walked = walk(engine, json, TREE_DEPTH, tooDeep('TO_JSON_STRING'), ({ text, kind, children, level }) => {
    const items = (pairs: string, object: boolean) =>
      engine.map(pairs, (pair) => {
        const key = object ? [engine.quickQuote(engine.pairKey(pair)), engine.literal(indent === undefined ? ':' : ': ')] : [];
        return engine.concatText([...(indent === undefined ? [] : [engine.literal(`\n${' '.repeat(indent + 2 * (level + 1))}`)]), ...key, engine.pairValue(pair)]);
      });
    const close = (bracket: string) => engine.literal(indent === undefined ? bracket : `\n${' '.repeat(indent + 2 * level)}${bracket}`);
    const container = (open: string, closing: string, list: string) =>
      engine.bind(list, (parts) => `(CASE WHEN ${engine.length(parts)} = 0 THEN ${engine.literal(`${open}${closing}`)} ELSE ${engine.concatText([engine.literal(open), engine.join(parts, ','), close(closing)])} END)`);
    const object = container('{', '}', items(engine.sortPairs(engine.firstPerKey(children)), true));
    const array = container('[', ']', items(children, false));
    return `(CASE WHEN ${engine.kindIs(kind, ['object'])} THEN ${object} WHEN ${engine.kindIs(kind, ['array'])} THEN ${array} ELSE ${text} END)`;
  });
  return exactText(engine, walked);
}

/**
 * JSON text with every string and double written as BigQuery writes them (the structure kept): a
 * pass over its string tokens and the numbers between them.
 */
function exactText(engine: JsonEngine, json: string): string {
  const numbers = (run: string) =>
    engine.join(
      engine.map(engine.extractAll(run, '-?[0-9][0-9.eE+-]*|[^-0-9]+|-'), (part) => `(CASE WHEN ${engine.matches(part, '^-?[0-9][0-9]*[.eE]')} THEN ${jsonDouble(engine, engine.parseDouble(part))} ELSE ${part} END)`),
      '',
    );
  const tokens = engine.extractAll(json, '"(?:[^"\\\\]|\\\\.)*"|[^"]+');
  return engine.join(engine.map(tokens, (token) => `(CASE WHEN ${engine.substring(token, '1', '1')} = '"' THEN ${engine.quote(engine.stringValue(token))} ELSE ${numbers(token)} END)`), '');
}

// ---- JSON_KEYS -------------------------------------------------------------------------------


/**
 * JSON_KEYS: every key path down to `maxDepth` (SQL INT64) object levels, sorted and distinct; a
 * key that needs it is quoted (`"a.b"`). Lax modes look for objects in arrays (and in arrays in
 * arrays for 'lax recursive'), at the same depth.
 */
export function jsonKeys(engine: JsonEngine, json: string, maxDepth: string, mode: JsonKeysMode): string {
  if (engine.trees) return engine.trees.keys(json, maxDepth, mode);
  const escaped = (key: string) =>
    `(CASE WHEN ${engine.matches(key, '[."\\\\\\x00-\\x1f\\x{2028}\\x{2029}]')} THEN ${engine.replace(engine.replace(engine.quickQuote(key), '\u2028', '\\u2028'), '\u2029', '\\u2029')} ELSE ${key} END)`;
  const looked: JsonKind[] = mode === 'lax recursive' ? ['object', 'array'] : ['object'];
  const keys = (text: string, prefix: string, remaining: string, depth: number): string =>
    engine.bind(text, (value) =>
      kindOf(engine, value, (kind) => {
        const isObject = engine.kindIs(kind, ['object']);
        const descends = mode === 'strict' ? isObject : engine.kindIs(kind, ['object', 'array']);
        if (depth === 0) return engine.failIf(`${remaining} > 0 AND ${descends}`, tooDeep('JSON_KEYS'), engine.texts([]));
        const named = engine.map(engine.firstPerKey(engine.members(value)), (pair) => {
          const key = escaped(engine.pairKey(pair));
          return engine.pair(`(CASE WHEN ${prefix} = '' THEN ${key} ELSE ${engine.concatText([prefix, engine.literal('.'), key])} END)`, engine.pairValue(pair));
        });
        // Objects in an array are read under the array's own key path, at its depth.
        const inArray = engine.map(
          engine.filter(engine.elements(value), (element) => engine.bind(engine.kind(element), (inner) => engine.kindIs(inner, looked))),
          (element) => engine.pair(prefix, element),
        );
        const arrays = mode === 'strict' ? '' : `WHEN ${engine.kindIs(kind, ['array'])} THEN ${inArray} `;
        const children = `(CASE WHEN ${isObject} THEN ${named} ${arrays}ELSE ${engine.pairs([])} END)`;
        return engine.bind(children, (pairs) =>
          engine.bind(`(CASE WHEN ${isObject} THEN ${remaining} - 1 ELSE ${remaining} END)`, (next) => {
            const own = `(CASE WHEN ${isObject} THEN ${engine.map(pairs, (pair) => engine.pairKey(pair))} ELSE ${engine.texts([])} END)`;
            const deeper = engine.flatten(engine.map(pairs, (pair) => `(CASE WHEN ${next} > 0 THEN ${keys(engine.pairValue(pair), engine.pairKey(pair), next, depth - 1)} ELSE ${engine.texts([])} END)`));
            return engine.concat([own, deeper]);
          }),
        );
      }),
    );
  return engine.sortedDistinct(keys(json, engine.literal(''), maxDepth, TREE_DEPTH));
}

// ---- SQL values as JSON ---------------------------------------------------------------------

/** How a SQL value becomes JSON: TO_JSON's encoding, or TO_JSON_STRING's (numbers and strings differ). */
export interface Encoding {
  target: 'json' | 'string';
  /** TO_JSON's stringify_wide_numbers: integers past ±2^53 as strings. */
  stringifyWideNumbers?: boolean;
  /** TO_JSON_STRING's pretty_print: the indentation of the value's own line. */
  indent?: number;
}

/** How an engine writes the SQL types whose JSON text is engine-specific. */
export interface ScalarTexts {
  /** INT64, NUMERIC … as decimal text without trailing zeros. */
  decimal(value: string): string;
  bytesBase64(value: string): string;
  date(value: string): string;
  /** TIMESTAMP (with `Z`) or DATETIME as ISO 8601, the fraction as 0, 3 or 6 digits. */
  dateTime(value: string, zone: boolean): string;
  time(value: string): string;
  /** A struct's field (0-based position, name). */
  field(value: string, index: number, name: string): string;
  /** The condition that a FLOAT64 is NaN. */
  isNan(value: string): string;
  /** A JSON value as the STRING of its text (an engine whose JSON is its own type casts it). */
  jsonText(value: string): string;
  /** A table's row as a struct value (`TO_JSON(t)`), given its alias and columns as printed. */
  row(alias: string, columns: readonly string[]): string;
}

const INT53 = '9007199254740992';

/**
 * The JSON text of a SQL value of `type` (never NULL: SQL NULL is `null`), as TO_JSON and the
 * constructors (`target: 'json'`) or TO_JSON_STRING (`'string'`) write it.
 */
export function encodeJson(engine: JsonEngine & ScalarTexts, value: string, type: SqlType, encoding: Encoding): string {
  const text = encodeNonNull(engine, value, type, encoding);
  return `coalesce(${text}, ${engine.literal('null')})`;
}

/** An anonymous struct field (`STRUCT(1, 2)`, named `_field_1` by the analyzer) is "" in JSON. */
const fieldKey = (name: string) => (/^_field_\d+$/.test(name) ? '' : name);

function encodeNonNull(engine: JsonEngine & ScalarTexts, value: string, type: SqlType, encoding: Encoding): string {
  const quoted = (inner: string) => engine.concatText([engine.literal('"'), inner, engine.literal('"')]);
  switch (type.kind) {
    case 'unknown':
    case 'map':
      // A value of no known type is a NULL written plainly (`STRUCT(NULL AS x)`); no other can be written.
      return engine.failIf(`${value} IS NOT NULL`, `${encoding.target === 'json' ? 'TO_JSON' : 'TO_JSON_STRING'} cannot write a value whose type is not known`, 'NULL');
    case 'array': {
      const inner = { ...encoding, ...(encoding.indent !== undefined ? { indent: encoding.indent + 2 } : {}) };
      const items = engine.map(value, (element) => encodeJson(engine, element, type.element, inner));
      if (encoding.indent === undefined) return `(CASE WHEN ${value} IS NOT NULL THEN ${arrayText(engine, items)} END)`;
      const line = `\n${' '.repeat(encoding.indent + 2)}`;
      const pretty = engine.concatText([engine.literal(`[${line}`), engine.join(items, `,${line}`), engine.literal(`\n${' '.repeat(encoding.indent)}]`)]);
      return `(CASE WHEN ${value} IS NULL THEN NULL WHEN ${engine.length(value)} = 0 THEN ${engine.literal('[]')} ELSE ${pretty} END)`;
    }
    case 'struct': {
      const inner = { ...encoding, ...(encoding.indent !== undefined ? { indent: encoding.indent + 2 } : {}) };
      let fields = type.fields.map((field, index) => ({ key: fieldKey(field.name), index, field }));
      // TO_JSON keeps the first of duplicate names, in key order (a JSON object); TO_JSON_STRING all, in field order.
      if (encoding.target === 'json') fields = fields.filter((field, position) => fields.findIndex((other) => other.key === field.key) === position).sort((a, b) => compareCodePoints(a.key, b.key));
      if (fields.length === 0) return `(CASE WHEN ${value} IS NOT NULL THEN ${engine.literal('{}')} END)`;
      const line = encoding.indent === undefined ? '' : `\n${' '.repeat(encoding.indent + 2)}`;
      const separator = encoding.indent === undefined ? ':' : ': ';
      const parts = fields.flatMap(({ key, index, field }, position) => [
        engine.literal(`${position === 0 ? '{' : ','}${line}${quoteJsonString(key)}${separator}`),
        encodeJson(engine, engine.field(value, index, field.name), field.type, inner),
      ]);
      const close = encoding.indent === undefined ? '}' : `\n${' '.repeat(encoding.indent)}}`;
      return `(CASE WHEN ${value} IS NOT NULL THEN ${engine.concatText([...parts, engine.literal(close)])} END)`;
    }
    case 'scalar':
      break;
  }
  switch (type.name) {
    case 'BOOL':
      return `(CASE WHEN ${value} THEN 'true' WHEN NOT ${value} THEN 'false' END)`;
    case 'INT64': {
      const wide = `NOT (${value} BETWEEN -${INT53} AND ${INT53})`;
      const stringified = encoding.target === 'string' || encoding.stringifyWideNumbers;
      return stringified ? `(CASE WHEN ${wide} THEN ${quoted(engine.decimal(value))} ELSE ${engine.decimal(value)} END)` : engine.decimal(value);
    }
    case 'NUMERIC':
    case 'BIGNUMERIC': {
      const integral = `(${value} = trunc(${value}))`;
      if (encoding.target === 'string') return `(CASE WHEN ${integral} AND ${value} BETWEEN -${INT53} AND ${INT53} THEN ${engine.decimal(value)} ELSE ${quoted(engine.decimal(value))} END)`;
      const asDouble = `CAST(${value} AS DOUBLE)`;
      const exact = `(${float64Text(engine, asDouble)} = ${engine.decimal(value)})`;
      const wide = encoding.stringifyWideNumbers ? `WHEN NOT ${exact} THEN ${quoted(engine.decimal(value))} ` : '';
      return `(CASE WHEN ${integral} AND ${value} BETWEEN -9223372036854775808 AND 9223372036854775807 THEN ${engine.decimal(value)} ${wide}ELSE ${jsonDouble(engine, asDouble)} END)`;
    }
    case 'FLOAT64': {
      const finite = encoding.target === 'string' ? float64Text(engine, value) : jsonDouble(engine, value);
      return `(CASE WHEN ${engine.isNan(value)} THEN '"NaN"' WHEN ${value} = CAST('inf' AS DOUBLE) THEN '"Infinity"' WHEN ${value} = CAST('-inf' AS DOUBLE) THEN '"-Infinity"' ELSE ${finite} END)`;
    }
    case 'STRING':
      if (encoding.target === 'json') return engine.quickQuote(value);
      return engine.replace(engine.replace(engine.quote(value), '\u2028', '\\u2028'), '\u2029', '\\u2029');
    case 'BYTES':
      return quoted(engine.bytesBase64(value));
    case 'DATE':
      return quoted(engine.date(value));
    case 'TIMESTAMP':
    case 'DATETIME':
      return quoted(engine.dateTime(value, type.name === 'TIMESTAMP'));
    case 'TIME':
      return quoted(engine.time(value));
    case 'JSON':
      return encoding.target === 'json' ? engine.jsonText(value) : canonicalJson(engine, engine.jsonText(value), encoding.indent);
    case 'INTERVAL':
      throw invalidSql(`${encoding.target === 'json' ? 'TO_JSON' : 'TO_JSON_STRING'} of an INTERVAL is not supported`);
  }
}

// ---- the functions -----------------------------------------------------------------------------

/** An engine for one call: its JSON operations, and how it writes SQL values as JSON text. */
export type JsonCallEngine = JsonEngine & ScalarTexts;

/** What each engine renders its own way: the conversions of JSON to SQL values and PARSE_JSON. */
export interface EngineConversions {
  /** BOOL, INT64, FLOAT64 and STRING of JSON text: BigQuery's error where it is of another kind. */
  bool(engine: JsonCallEngine, json: string): string;
  int64(engine: JsonCallEngine, json: string): string;
  float64(engine: JsonCallEngine, json: string, exact: string): string;
  string(engine: JsonCallEngine, json: string): string;
  laxBool(engine: JsonCallEngine, json: string): string;
  laxInt64(engine: JsonCallEngine, json: string): string;
  laxFloat64(engine: JsonCallEngine, json: string): string;
  /** PARSE_JSON: the text checked as JSON (and, `exact`, for numbers a double cannot hold). */
  parse(engine: JsonCallEngine, text: string, exact: string): string;
}

type Renderer = (call: CallParts) => string;

/** A string option (`wide_number_mode => 'exact'`): its literal value, or the SQL of a value known only at run time. */
function stringOption(call: CallParts, name: string): string | undefined {
  const raw = call.rawNamed[name];
  return raw?.kind === 'string' ? raw.value : undefined;
}

/** A BOOL option written as a literal; NULL → null, absent → the default. A value known only at run time is refused. */
function boolOption(call: CallParts, functionName: string, name: string, fallback: boolean): boolean | null {
  const raw = call.rawNamed[name];
  if (raw === undefined) return fallback;
  if (raw.kind === 'bool') return raw.value;
  if (raw.kind === 'null' || (raw.kind === 'cast' && raw.expr.kind === 'null')) return null;
  throw invalidSql(`${functionName}'s ${name} must be TRUE, FALSE or NULL written in the query`, call.at);
}

/**
 * The JSONPath at argument `index` (the root when not given), parsed and checked; null for a
 * NULL path. A path known only when the query runs (a parameter) is refused.
 */
export function pathArgument(call: CallParts, index: number, functionName: string, mode: JsonPathMode): JsonPathStep[] | null {
  const raw = call.raw[index];
  if (raw === undefined) return [];
  if (raw.kind === 'null' || (raw.kind === 'cast' && raw.expr.kind === 'null')) return null;
  if (raw.kind !== 'string') throw invalidSql(`${functionName}: the JSONPath must be written in the query as a string literal`, call.at);
  try {
    return parseJsonPath(raw.value, mode);
  } catch (error) {
    if (!(error instanceof JsonPathError)) throw error;
    throw semanticError(mode === 'strict' ? `Invalid input to ${functionName}: ${error.message}` : error.message, call.at);
  }
}

/** Argument `index` as a value: a table's row (`TO_JSON(t)`) as a struct of its columns. */
function valueArgument(engine: JsonCallEngine, call: CallParts, index: number): string {
  const raw = call.raw[index];
  const type = call.types[index];
  if (raw?.kind === 'ref' && raw.path.length === 1 && type?.kind === 'struct') return engine.row(raw.path[0]!, type.fields.map((field) => field.name));
  return call.args[index]!;
}

/** The JSON text of argument `index` as TO_JSON encodes it (SQL NULL and `[]` written plainly need no type). */
function encodedArgument(engine: JsonCallEngine, call: CallParts, index: number): string {
  const raw = call.raw[index];
  if (raw?.kind === 'null') return engine.literal('null');
  if (raw?.kind === 'array' && raw.elements.length === 0) return engine.literal('[]');
  return encodeJson(engine, valueArgument(engine, call, index), call.types[index] ?? { kind: 'unknown' }, { target: 'json' });
}

/** Argument `index` as a list of JSON text: its elements when it is an array and `each`, else itself. */
function encodedElements(engine: JsonCallEngine, call: CallParts, index: number, each: boolean): { list: string; nullArray?: string } {
  const type = call.types[index];
  if (!each || type?.kind !== 'array' || call.raw[index]?.kind === 'null') return { list: engine.texts([encodedArgument(engine, call, index)]) };
  const raw = call.raw[index];
  if (raw?.kind === 'array' && raw.elements.length === 0) return { list: engine.texts([]) };
  const value = call.args[index]!;
  return { list: engine.map(value, (element) => encodeJson(engine, element, type.element, { target: 'json' })), nullArray: `${value} IS NULL` };
}

/** The scalar a JSON value holds as BigQuery's JSON_VALUE writes it; NULL for null, objects and arrays. */
function scalarText(engine: JsonEngine, json: string, fromString: boolean): string {
  return engine.bind(json, (value) =>
    kindOf(engine, value, (kind) => {
      const number = fromString ? value : `(CASE WHEN ${engine.kindIs(kind, ['double'])} THEN ${jsonDouble(engine, engine.parseDouble(value))} ELSE ${value} END)`;
      return `(CASE WHEN ${engine.kindIs(kind, ['string'])} THEN ${engine.stringValue(value)} WHEN ${engine.kindIs(kind, ['int', 'double', 'boolean'])} THEN ${number} END)`;
    }),
  );
}

/** The elements of a JSON array as JSON text; NULL when it is not an array. */
function arrayElements(engine: JsonEngine, json: string): string {
  return engine.bind(json, (value) => kindOf(engine, value, (kind) => `(CASE WHEN ${engine.kindIs(kind, ['array'])} THEN ${engine.elements(value)} ELSE ${engine.noList()} END)`));
}

/** The scalars of a JSON array as strings (JSON null → NULL); NULL when it is not an array of scalars. */
function arrayScalars(engine: JsonEngine, json: string, fromString: boolean): string {
  return engine.bind(json, (value) =>
    kindOf(engine, value, (kind) =>
      engine.bind(engine.elements(value), (elements) => {
        const containers = engine.filter(elements, (element) => engine.bind(engine.kind(element), (inner) => engine.kindIs(inner, ['object', 'array'])));
        return `(CASE WHEN ${engine.kindIs(kind, ['array'])} AND ${engine.length(containers)} = 0 THEN ${engine.map(elements, (element) => scalarText(engine, element, fromString))} ELSE ${engine.noList()} END)`;
      }),
    ),
  );
}

/**
 * Every JSON function rendered over an engine (`make` gives the engine for one call) and the
 * conversions it writes itself.
 */
export function jsonRenderings(make: (call: CallParts) => JsonCallEngine, conversions: EngineConversions): Record<keyof typeof JSON_FUNCTIONS, Renderer> {
  const isJson = (call: CallParts) => call.types[0]?.kind === 'scalar' && call.types[0].name === 'JSON';
  /** An extractor: the value at the path of JSON (or of JSON text, read only where valid; JSON null is SQL NULL there). */
  const extractor =
    (name: string, mode: JsonPathMode, shape: (engine: JsonCallEngine, value: string, fromString: boolean) => string, list = false, fast?: 'query' | 'scalar'): Renderer =>
    (call) => {
      const engine = make(call);
      const none = list ? engine.noList() : 'NULL';
      const steps = pathArgument(call, 1, name, mode);
      if (steps === null) return none;
      if (isJson(call)) return shape(engine, followPath(engine, call.args[0]!, steps), false);
      const quick = fast && engine.fromText?.(call.args[0]!, steps, fast);
      if (quick) return quick;
      return engine.bind(call.args[0]!, (text) => `(CASE WHEN ${engine.valid(text)} THEN ${shape(engine, followPath(engine, text, steps), true)} ELSE ${none} END)`);
    };
  const query = (engine: JsonCallEngine, value: string, fromString: boolean) => (fromString ? `nullif(${value}, ${engine.literal('null')})` : value);
  const scalar = (engine: JsonCallEngine, value: string, fromString: boolean) => scalarText(engine, value, fromString);
  const array = (engine: JsonCallEngine, value: string) => arrayElements(engine, value);
  const scalars = (engine: JsonCallEngine, value: string, fromString: boolean) => arrayScalars(engine, value, fromString);
  const converter =
    (convert: (engine: JsonCallEngine, json: string) => string): Renderer =>
    (call) =>
      convert(make(call), call.args[0]!);

  /** A mutator over its path-value pairs, applied left to right; `option` NULL returns the JSON as it is. */
  const pairwise =
    (name: string, optionName: string, apply: (engine: JsonCallEngine, json: string, steps: JsonPathStep[], call: CallParts, valueIndex: number, option: boolean) => string): Renderer =>
    (call) => {
      const engine = make(call);
      const option = boolOption(call, name, optionName, true);
      if (option === null) return call.args[0]!;
      let json = call.args[0]!;
      for (let index = 1; index + 1 < call.args.length; index += 2) {
        const steps = pathArgument(call, index, name, 'strict');
        if (steps !== null) json = apply(engine, json, steps, call, index + 1, option);
      }
      return json;
    };
  const arrayAdd = (insert: boolean) => (engine: JsonCallEngine, json: string, steps: JsonPathStep[], call: CallParts, valueIndex: number, each: boolean) => {
    const { list, nullArray } = encodedElements(engine, call, valueIndex, each);
    const added = jsonArrayAdd(engine, json, steps, list, insert);
    return nullArray ? `(CASE WHEN ${nullArray} THEN ${json} ELSE ${added} END)` : added;
  };

  return {
    json_extract: extractor('JSON_EXTRACT', 'legacy', query, false, 'query'),
    json_query: extractor('JSON_QUERY', 'standard', query, false, 'query'),
    json_extract_scalar: extractor('JSON_EXTRACT_SCALAR', 'legacy', scalar, false, 'scalar'),
    json_value: extractor('JSON_VALUE', 'standard', scalar, false, 'scalar'),
    json_extract_array: extractor('JSON_EXTRACT_ARRAY', 'legacy', array, true),
    json_query_array: extractor('JSON_QUERY_ARRAY', 'standard', array, true),
    json_extract_string_array: extractor('JSON_EXTRACT_STRING_ARRAY', 'legacy', scalars, true),
    json_value_array: extractor('JSON_VALUE_ARRAY', 'standard', scalars, true),
    bool: converter(conversions.bool),
    int64: converter(conversions.int64),
    float64: (call) => {
      const engine = make(call);
      const mode = call.named.wide_number_mode;
      if (mode === undefined) return conversions.float64(engine, call.args[0]!, 'FALSE');
      const literal = stringOption(call, 'wide_number_mode');
      if (literal !== undefined && literal !== 'exact' && literal !== 'round') throw semanticError(`Invalid \`wide_number_mode\` specified: ${literal}`, call.at);
      const exact = `(${mode} = 'exact')`;
      const checked = engine.failIf(`${mode} NOT IN ('exact', 'round')`, 'Invalid `wide_number_mode` specified', conversions.float64(engine, call.args[0]!, exact));
      return literal === undefined ? checked : conversions.float64(engine, call.args[0]!, literal === 'exact' ? 'TRUE' : 'FALSE');
    },
    string: (call) => {
      if (!isJson(call)) throw invalidSql('STRING of a TIMESTAMP, DATE, DATETIME or TIME is not supported', call.at);
      return conversions.string(make(call), call.args[0]!);
    },
    lax_bool: converter(conversions.laxBool),
    lax_int64: converter(conversions.laxInt64),
    lax_float64: converter(conversions.laxFloat64),
    lax_string: converter((engine, json) =>
      engine.bind(json, (value) =>
        kindOf(engine, value, (kind) => {
          const double = engine.bind(engine.parseDouble(value), (x) => `(CASE WHEN ${x} = 0 THEN '0' ELSE ${float64Text(engine, x)} END)`);
          return `(CASE WHEN ${engine.kindIs(kind, ['string'])} THEN ${engine.stringValue(value)} WHEN ${engine.kindIs(kind, ['double'])} THEN ${double} WHEN ${engine.kindIs(kind, ['int', 'boolean'])} THEN ${value} END)`;
        }),
      ),
    ),
    parse_json: (call) => {
      const engine = make(call);
      const mode = call.named.wide_number_mode;
      if (mode === undefined) return conversions.parse(engine, call.args[0]!, 'TRUE');
      const literal = stringOption(call, 'wide_number_mode');
      if (literal !== undefined && literal !== 'exact' && literal !== 'round') throw semanticError(`Invalid \`wide_number_mode\` specified for PARSE_JSON: ${literal}`, call.at);
      if (literal !== undefined) return conversions.parse(engine, call.args[0]!, literal === 'exact' ? 'TRUE' : 'FALSE');
      const parsed = conversions.parse(engine, call.args[0]!, `(${mode} = 'exact')`);
      return `(CASE WHEN ${mode} IS NULL THEN NULL ELSE ${engine.failIf(`${mode} NOT IN ('exact', 'round')`, 'Invalid `wide_number_mode` specified for PARSE_JSON', parsed)} END)`;
    },
    to_json: (call) => {
      const engine = make(call);
      const stringify = boolOption(call, 'TO_JSON', 'stringify_wide_numbers', false);
      if (stringify === null) return 'NULL';
      if (call.raw[0]?.kind === 'null' || (call.raw[0]?.kind === 'array' && call.raw[0].elements.length === 0)) return encodedArgument(engine, call, 0);
      return encodeJson(engine, valueArgument(engine, call, 0), call.types[0] ?? { kind: 'unknown' }, { target: 'json', stringifyWideNumbers: stringify });
    },
    to_json_string: (call) => {
      const engine = make(call);
      const raw = call.raw[0];
      if (raw?.kind === 'null') return engine.literal('null');
      if (raw?.kind === 'array' && raw.elements.length === 0) return engine.literal('[]');
      const type = call.types[0] ?? { kind: 'unknown' };
      const value = valueArgument(engine, call, 0);
      const compact = encodeJson(engine, value, type, { target: 'string' });
      const pretty = call.raw[1];
      if (pretty === undefined || (pretty.kind === 'bool' && !pretty.value) || pretty.kind === 'null') return compact;
      const indented = encodeJson(engine, value, type, { target: 'string', indent: 0 });
      if (pretty.kind === 'bool') return indented;
      return `(CASE WHEN ${call.args[1]} THEN ${indented} ELSE ${compact} END)`;
    },
    json_array: (call) => {
      const engine = make(call);
      return arrayText(engine, engine.texts(call.args.map((_, index) => encodedArgument(engine, call, index))));
    },
    json_object: (call) => {
      const engine = make(call);
      if (call.types[0]?.kind === 'array') return objectOfArrays(engine, call);
      return objectOfPairs(engine, call);
    },
    json_set: pairwise('JSON_SET', 'create_if_missing', (engine, json, steps, call, valueIndex, create) => jsonSet(engine, json, steps, encodedArgument(engine, call, valueIndex), create)),
    json_array_append: pairwise('JSON_ARRAY_APPEND', 'append_each_element', arrayAdd(false)),
    json_array_insert: pairwise('JSON_ARRAY_INSERT', 'insert_each_element', arrayAdd(true)),
    json_remove: (call) => {
      const engine = make(call);
      let json = call.args[0]!;
      for (let index = 1; index < call.args.length; index++) {
        const steps = pathArgument(call, index, 'JSON_REMOVE', 'strict');
        if (steps === null) continue;
        if (steps.length === 0) throw semanticError("Invalid input to JSON_REMOVE: The JSONPath cannot be '$'", call.at);
        json = jsonRemove(engine, json, steps);
      }
      return json;
    },
    json_strip_nulls: (call) => {
      const engine = make(call);
      const steps = pathArgument(call, 1, 'JSON_STRIP_NULLS', 'strict');
      const includeArrays = boolOption(call, 'JSON_STRIP_NULLS', 'include_arrays', true);
      const removeEmpty = boolOption(call, 'JSON_STRIP_NULLS', 'remove_empty', false);
      if (steps === null || includeArrays === null || removeEmpty === null) return call.args[0]!;
      return jsonStripNulls(engine, call.args[0]!, steps, includeArrays, removeEmpty);
    },
    json_keys: (call) => {
      const engine = make(call);
      const written = call.rawNamed.mode;
      if (written?.kind === 'null') return engine.noList();
      const mode = written === undefined ? 'strict' : stringOption(call, 'mode')?.toLowerCase();
      if (mode === undefined) throw invalidSql("JSON_KEYS's mode must be written in the query as a string literal", call.at);
      if (mode !== 'strict' && mode !== 'lax' && mode !== 'lax recursive') throw semanticError('Invalid JSON mode specified', call.at);
      // A NULL max_depth reads every level.
      const depth = `coalesce(${call.args[1] ?? 'NULL'}, 9223372036854775807)`;
      const keys = engine.bind(call.args[0]!, (json) => `(CASE WHEN ${json} IS NOT NULL THEN ${jsonKeys(engine, json, depth, mode)} ELSE ${engine.noList()} END)`);
      return engine.failIf(`${depth} <= 0`, 'max_depth must be positive.', keys);
    },
    json_type: (call) => {
      const engine = make(call);
      return kindOf(engine, call.args[0]!, (kind) => {
        const names: Array<[JsonKind[], string]> = [[['object'], 'object'], [['array'], 'array'], [['string'], 'string'], [['int', 'double'], 'number'], [['boolean'], 'boolean'], [['null'], 'null']];
        return `(CASE ${names.map(([kinds, name]) => `WHEN ${engine.kindIs(kind, kinds)} THEN '${name}'`).join(' ')} END)`;
      });
    },
    json_flatten: (call) => {
      const engine = make(call);
      return jsonFlatten(engine, call.args[0]!);
    },
  };
}

/** JSON_OBJECT(key, value, …): keys written as literals are ordered and deduplicated at save. */
function objectOfPairs(engine: JsonCallEngine, call: CallParts): string {
  const pairs = Array.from({ length: call.args.length / 2 }, (_, index) => ({ key: call.raw[2 * index]!, keySql: call.args[2 * index]!, value: encodedArgument(engine, call, 2 * index + 1) }));
  if (pairs.every((pair) => pair.key.kind === 'string')) {
    const seen = new Set<string>();
    const kept = pairs.filter((pair) => {
      const key = (pair.key as { value: string }).value;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
    kept.sort((a, b) => compareCodePoints((a.key as { value: string }).value, (b.key as { value: string }).value));
    if (kept.length === 0) return engine.literal('{}');
    return engine.concatText(kept.flatMap((pair, index) => [engine.literal(`${index === 0 ? '{' : ','}${quoteJsonString((pair.key as { value: string }).value)}:`), pair.value]).concat(engine.literal('}')));
  }
  const list = engine.pairs(pairs.map((pair) => engine.pair(pair.keySql, pair.value)));
  const nullKey = pairs.map((pair) => `${pair.keySql} IS NULL`).join(' OR ');
  return engine.failIf(nullKey, 'Invalid input to JSON_OBJECT: A key cannot be NULL', objectText(engine, engine.sortPairs(engine.firstPerKey(list))));
}

/** JSON_OBJECT(keys, values): two arrays of the same length, no NULL key. */
function objectOfArrays(engine: JsonCallEngine, call: CallParts): string {
  const [keys, values] = [call.args[0]!, call.args[1]!];
  const elementType = call.types[1]?.kind === 'array' ? call.types[1].element : { kind: 'unknown' as const };
  const valuesRaw = call.raw[1];
  const encoded = valuesRaw?.kind === 'array' && valuesRaw.elements.length === 0 ? engine.texts([]) : engine.map(values, (value) => encodeJson(engine, value, elementType, { target: 'json' }));
  return engine.bind(keys, (keyList) =>
    engine.bind(encoded, (valueList) => {
      const pairs = engine.mapIndexed(keyList, (key, index) => engine.pair(key, `${valueList}[${index} + 1]`));
      const object = objectText(engine, engine.sortPairs(engine.firstPerKey(pairs)));
      const checks: Array<[string, string]> = [
        [`${keyList} IS NULL`, 'Invalid input to JSON_OBJECT: The keys array cannot be NULL'],
        [`${values} IS NULL`, 'Invalid input to JSON_OBJECT: The values array cannot be NULL'],
        [`${engine.length(keyList)} <> ${engine.length(valueList)}`, 'Invalid input to JSON_OBJECT: The number of keys and values must match'],
        [`${engine.length(engine.filter(keyList, (key) => `${key} IS NULL`))} > 0`, 'Invalid input to JSON_OBJECT: A key cannot be NULL'],
      ];
      return checks.reduceRight((value, [condition, message]) => engine.failIf(condition, message, value), object);
    }),
  );
}
