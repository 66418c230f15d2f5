/**
 * ClickHouse renderings of BigQuery's JSON functions (src/sql/json/render.ts writes them over the
 * operations below). A JSON value is JSON text in a String; members, elements and paths are read
 * with JSONExtractKeysAndValuesRaw, JSONExtractArrayRaw and JSONExtractRaw, whose integer keys
 * are 1-based and would read an object's members by position: an index is taken only from an array.
 */

import type { CallParts, Emitter, Renderings } from '../../../sql/emitters.ts';
import type { JSON_FUNCTIONS } from '../../../sql/functions/families/json.ts';
import type { JsonPathStep } from '../../../sql/json/path.ts';
import { type EngineConversions, followPath, type JsonCallEngine, type JsonKind, jsonRenderings, quotedJsonString } from '../../../sql/json/render.ts';
import { invalidSql } from '../../../sql/parse.ts';
import { quoteIdent as quoteIdentifier } from '../types.ts';
import { quoted as quoteString } from './shared.ts';

const KINDS: Record<JsonKind, string[]> = {
  object: ['Object'],
  array: ['Array'],
  string: ['String'],
  int: ['Int64', 'UInt64'],
  double: ['Double'],
  boolean: ['Bool'],
  null: ['Null'],
};

/** A step JSONExtractRaw's keys read as BigQuery does: a key that no array index could spell. */
const plainKey = (step: JsonPathStep) => step.key !== undefined && step.index === undefined && !/^[\s+-]*\d*\s*$/.test(step.key);

/** A string literal, control characters as \\xHH escapes. */
const literal = (text: string) => quoteString(text).replace(/[\x00-\x1f]/g, (char) => `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`);

function clickhouseJson(call: CallParts): JsonCallEngine {
  let names = 0;
  const name = () => `__json${++names}`;
  const lambda = (body: (element: string) => string) => {
    const element = name();
    return `${element} -> ${body(element)}`;
  };
  const engine: JsonCallEngine = {
    literal,
    bind: (value, body) => `arrayMap(${lambda(body)}, [${value}])[1]`,
    map: (list, body) => `arrayMap(${lambda(body)}, ${list})`,
    mapIndexed: (list, body) =>
      engine.bind(list, (values) => {
        const [element, index] = [name(), name()];
        return `arrayMap((${element}, ${index}) -> ${body(element, `(${index} - 1)`)}, ${values}, arrayEnumerate(${values}))`;
      }),
    filter: (list, test) => `arrayFilter(${lambda(test)}, ${list})`,
    flatten: (lists) => `arrayFlatten(${lists})`,
    concat: (lists) => `arrayConcat(${lists.join(', ')})`,
    texts: (items) => (items.length === 0 ? 'CAST([] AS Array(String))' : `[${items.join(', ')}]`),
    noList: () => 'CAST([] AS Array(String))',
    pairs: (items) => (items.length === 0 ? 'CAST([] AS Array(Tuple(String, String)))' : `[${items.join(', ')}]`),
    length: (list) => `length(${list})`,
    repeat: (item, count) => `arrayWithConstant(toUInt64(greatest(${count}, 0)), ${item})`,
    join: (list, separator) => `arrayStringConcat(${list}, ${quoteString(separator)})`,
    sortedDistinct: (list) => `arraySort(arrayDistinct(${list}))`,
    pair: (key, value) => `tuple(${key}, ${value})`,
    pairKey: (pair) => `tupleElement(${pair}, 1)`,
    pairValue: (pair) => `tupleElement(${pair}, 2)`,
    sortPairs: (pairs) => `arraySort(${lambda((pair) => `tupleElement(${pair}, 1)`)}, ${pairs})`,
    firstPerKey: (pairs) =>
      engine.bind(pairs, (list) => {
        const [pair, index] = [name(), name()];
        return `arrayFilter((${pair}, ${index}) -> indexOf(${engine.map(list, (other) => `tupleElement(${other}, 1)`)}, tupleElement(${pair}, 1)) = ${index}, ${list}, arrayEnumerate(${list}))`;
      }),
    kind: (text) => `JSONType(${text})`,
    kindIs: (kind, kinds) => `(${kind} IN (${kinds.flatMap((k) => KINDS[k]).map((k) => `'${k}'`).join(', ')}))`,
    valid: (text) => `isValidJSON(${text})`,
    member: (text, key) => `if(isNull(${key}), NULL, nullIf(JSONExtractRaw(${text}, assumeNotNull(${key})), ''))`,
    element: (text, index) =>
      engine.bind(text, (json) => `if(JSONType(${json}) = 'Array' AND ${index} >= 0, nullIf(JSONExtractRaw(${json}, toInt64(${index}) + 1), ''), NULL)`),
    path: (text, steps) => (steps.every(plainKey) ? `nullIf(JSONExtractRaw(${[text, ...steps.map((step) => quoteString(step.key!))].join(', ')}), '')` : undefined),
    // An array cannot be Nullable: NULL text has none.
    members: (text) => `JSONExtractKeysAndValuesRaw(ifNull(${text}, ''))`,
    elements: (text) => `JSONExtractArrayRaw(ifNull(${text}, ''))`,
    stringValue: (text) => `JSONExtractString(${text})`,
    // toJSONString escapes '/' as '\/': every '\/' it writes is one, and '/' needs none.
    quote: (text) => engine.bind(text, (value) => quotedJsonString(engine, value, `replace(toJSONString(${value}), '\\\\/', '/')`)),
    quickQuote: (text) => `replace(toJSONString(${text}), '\\/', '/')`,
    parseDouble: (text) => `toFloat64OrNull(${text})`,
    extractAll: (text, pattern) => `extractAll(${text}, ${quoteString(pattern)})`,
    matches: (text, pattern) => `match(${text}, ${quoteString(pattern)})`,
    replace: (text, from, to) => `replaceAll(${text}, ${literal(from)}, ${literal(to)})`,
    // An array element, so that the value may be of any type (an array of keys, say).
    failIf: (condition, message, value) => (call.safe ? `if(${condition}, NULL, ${value})` : `[${value}][throwIf(coalesce(${condition}, false), ${quoteString(message)}) + 1]`),
    concatText: (parts) => `concat(${parts.join(', ')})`,
    regexpExtract: (text, pattern) => `extract(${text}, ${quoteString(pattern)})`,
    regexpReplace: (text, pattern, replacement) => `replaceRegexpAll(${text}, ${quoteString(pattern)}, ${quoteString(replacement)})`,
    substring: (text, from, length) => (length === undefined ? `substring(${text}, ${from})` : `substring(${text}, ${from}, ${length})`),
    textLength: (text) => `length(${text})`,
    repeatText: (text, count) => `repeat(${text}, toUInt64(greatest(${count}, 0)))`,
    toInt: (text) => `toInt64OrNull(${text})`,
    intText: (value) => `toString(${value})`,
    shortestDouble: (x) => `toString(toFloat64(${x}))`,
    decimal: (value) => `toString(${value})`,
    bytesBase64: (value) => `base64Encode(${value})`,
    date: (value) => `toString(toDate32(${value}))`,
    dateTime: (value, zone) =>
      engine.bind(`((toUnixTimestamp64Micro(toDateTime64(${value}, 6)) % 1000000) + 1000000) % 1000000`, (micros) => {
        const base = `formatDateTime(${value}, '%Y-%m-%dT%H:%i:%S')`;
        const zoneText = zone ? `'Z'` : `''`;
        return `concat(${base}, multiIf(${micros} = 0, '', ${micros} % 1000 = 0, concat('.', leftPad(toString(intDiv(${micros}, 1000)), 3, '0')), concat('.', leftPad(toString(${micros}), 6, '0'))), ${zoneText})`;
      }),
    time: () => {
      throw invalidSql('TIME values are not supported on ClickHouse', call.at);
    },
    field: (value, index) => `tupleElement(${value}, ${index + 1})`,
    isNan: (value) => `isNaN(${value})`,
    jsonText: (value) => value,
    row: (alias, columns) => `tuple(${columns.map((column) => `${quoteIdentifier(alias)}.${quoteIdentifier(column)}`).join(', ')})`,
  };
  return engine;
}

const NUMBER_KINDS = "('Int64', 'UInt64', 'Double')";

/** Half away from zero, as BigQuery rounds a number to an INT64; NULL outside INT64. */
const roundedInt64 = (double: string) => `if(isFinite(${double}) AND abs(${double}) < 9223372036854775808, toInt64(sign(${double}) * floor(abs(${double}) + 0.5)), NULL)`;

const CONVERSIONS: EngineConversions = {
  bool: (engine, json) => engine.bind(json, (value) => engine.failIf(`JSONType(${value}) != 'Bool'`, 'The provided JSON input is not a boolean', `toBool(JSONExtractBool(${value}))`)),
  int64: (engine, json) =>
    engine.bind(json, (value) => {
      const kind = `JSONType(${value})`;
      const double = `JSONExtractFloat(${value})`;
      const converted = `multiIf(${kind} = 'Int64', JSONExtractInt(${value}), ${kind} = 'Double' AND ${double} = trunc(${double}) AND abs(${double}) < 9223372036854775808, toInt64(${double}), NULL)`;
      const notNumber = engine.failIf(`${kind} NOT IN ${NUMBER_KINDS}`, 'The provided JSON input is not an integer', converted);
      return engine.failIf(`${kind} IN ('UInt64', 'Double') AND NOT (${kind} = 'Double' AND ${double} = trunc(${double}) AND abs(${double}) < 9223372036854775808)`, 'The provided JSON number cannot be converted to an int64', notNumber);
    }),
  float64: (engine, json, exact) =>
    engine.bind(json, (value) => {
      const kind = `JSONType(${value})`;
      const wide = `(${exact} AND ((${kind} = 'Int64' AND abs(JSONExtractInt(${value})) > 9007199254740992) OR (${kind} = 'UInt64' AND JSONExtractUInt(${value}) > 9007199254740992)))`;
      const checked = engine.failIf(wide, 'JSON number cannot be converted to FLOAT64 without loss of precision', `JSONExtractFloat(${value})`);
      return engine.failIf(`${kind} NOT IN ${NUMBER_KINDS}`, 'The provided JSON input is not a number', checked);
    }),
  string: (engine, json) => engine.bind(json, (value) => engine.failIf(`JSONType(${value}) != 'String'`, 'The provided JSON input is not a string', `JSONExtractString(${value})`)),
  laxBool: (engine, json) =>
    engine.bind(json, (value) => {
      const kind = `JSONType(${value})`;
      const text = `lower(JSONExtractString(${value}))`;
      return `multiIf(${kind} = 'Bool', toBool(JSONExtractBool(${value})), ${kind} IN ${NUMBER_KINDS}, toBool(JSONExtractFloat(${value}) != 0), ${kind} = 'String' AND ${text} IN ('true', 'false'), toBool(${text} = 'true'), NULL)`;
    }),
  laxInt64: (engine, json) =>
    engine.bind(json, (value) => {
      const kind = `JSONType(${value})`;
      // A string is read as a number (BIGNUMERIC in BigQuery), then rounded half away from zero.
      const text = `trim(JSONExtractString(${value}))`;
      const fromText = `coalesce(toInt64OrNull(${text}), ${roundedInt64(`toFloat64OrNull(${text})`)})`;
      return `multiIf(${kind} = 'Bool', toInt64(JSONExtractBool(${value})), ${kind} = 'Int64', JSONExtractInt(${value}), ${kind} = 'Double', ${roundedInt64(`JSONExtractFloat(${value})`)}, ${kind} = 'String', ${fromText}, NULL)`;
    }),
  laxFloat64: (engine, json) =>
    engine.bind(json, (value) => {
      const kind = `JSONType(${value})`;
      const text = `trim(JSONExtractString(${value}))`;
      const special = `multiIf(lower(${text}) = 'nan', nan, lower(${text}) IN ('inf', '+inf', 'infinity', '+infinity'), inf, lower(${text}) IN ('-inf', '-infinity'), -inf, NULL)`;
      const number = `if(match(${text}, '^[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?$'), toFloat64OrNull(${text}), NULL)`;
      return `multiIf(${kind} IN ${NUMBER_KINDS}, JSONExtractFloat(${value}), ${kind} = 'String', coalesce(${special}, ${number}), NULL)`;
    }),
  parse: (engine, text, exact) =>
    engine.bind(text, (value) => {
      // ClickHouse's parser refuses an integer past UINT64: it is read as a double, as BigQuery rounds it.
      const readable = `replaceRegexpAll(${value}, '(^|[^0-9.eE+-])(-?[0-9]{21,})([^0-9.eE]|$)', '\\1\\2.0\\3')`;
      const parsed = engine.bind(readable, (text) => engine.failIf(`NOT isValidJSON(${text})`, 'Invalid input to PARSE_JSON: syntax error while parsing JSON', `JSONExtractRaw(${text})`));
      return engine.failIf(`${exact} AND ${inexactNumbers(value)}`, 'Invalid input to PARSE_JSON: a number cannot round-trip through string representation', parsed);
    }),
};

/**
 * Whether JSON text holds a number a double cannot hold exactly (wide_number_mode 'exact'): an
 * integer past INT64 and UINT64, or a number with more significant digits than its double's
 * shortest form. String tokens are matched whole, so digits inside strings are not read.
 */
function inexactNumbers(text: string): string {
  const tokens = `extractAll(${text}, '"(?:[^"\\\\\\\\]|\\\\\\\\.)*"|-?[0-9][0-9.eE+-]*')`;
  const significant = (number: string) => `length(replaceRegexpAll(replaceRegexpAll(replaceRegexpAll(replaceRegexpOne(${number}, '[eE].*$', ''), '[-.]', ''), '^0+', ''), '0+$', ''))`;
  const inexact = (token: string) =>
    `(NOT startsWith(${token}, '"') AND if(match(${token}, '^-?[0-9]+$'), isNull(toInt64OrNull(${token})) AND isNull(toUInt64OrNull(${token})), ${significant(token)} > ${significant(`toString(toFloat64(${token}))`)}))`;
  return `arrayExists(token -> ${inexact('token')}, ${tokens})`;
}

export const JSON: Renderings<typeof JSON_FUNCTIONS> = jsonRenderings(clickhouseJson, CONVERSIONS);

/** `json.key`, `json['key']`, `json[0]`: the member (objects only) or element (arrays only). */
export const jsonSubscript: Emitter = (call) => {
  const engine = clickhouseJson(call);
  const key = call.raw[1];
  if (key?.kind === 'string') return followPath(engine, call.args[0]!, [{ key: key.value }]);
  if (key?.kind === 'number') return followPath(engine, call.args[0]!, [{ index: Number(key.text) }]);
  const index = call.types[1]?.kind === 'scalar' && call.types[1].name === 'INT64';
  if (index) return engine.element(call.args[0]!, call.args[1]!);
  return engine.bind(call.args[0]!, (json) => `if(JSONType(${json}) = 'Object', ${engine.member(json, call.args[1]!)}, NULL)`);
};
