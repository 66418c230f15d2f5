/**
 * DuckDB renderings of BigQuery's JSON functions (src/sql/json/render.ts writes them over the
 * operations below). A JSON value is DuckDB's JSON (text); an object's members and an array's
 * elements are read with casts to MAP(VARCHAR, JSON) and JSON[], a path with json_extract and a
 * JSON pointer, which reads `/0` as an array's element or an object's member "0" as BigQuery does.
 */

import type { SqlType } from '../../../sql/catalog.ts';
import type { CallParts, Emitter, Renderings } from '../../../sql/emitters.ts';
import type { JSON_FUNCTIONS } from '../../../sql/functions/families/json.ts';
import { type EngineConversions, followPath, type JsonCallEngine, type JsonKind, jsonRenderings, quotedJsonString } from '../../../sql/json/render.ts';
import type { JsonPathStep } from '../../../sql/json/path.ts';
import { quoteIdent as quoteIdentifier } from '../types.ts';
import { fail, literal, quoted as quoteString } from './shared.ts';

const KINDS: Record<JsonKind, string[]> = {
  object: ['OBJECT'],
  array: ['ARRAY'],
  string: ['VARCHAR'],
  int: ['BIGINT', 'UBIGINT'],
  double: ['DOUBLE'],
  boolean: ['BOOLEAN'],
  null: ['NULL'],
};

/** A JSON pointer token: `~` and `/` escaped (RFC 6901). */
const pointerToken = (key: string) => key.replaceAll('~', '~0').replaceAll('/', '~1');

/** A step json_extract's JSON pointer reads as BigQuery does: a plain key, or an index spelled as one. */
const pointerSafe = (step: JsonPathStep) =>
  step.key === undefined ? false : step.index === undefined ? !/^[\s+-]*\d*\s*$/.test(step.key) : step.key === String(step.index);


/** The length under which a bound value is repeated rather than bound. */
const INLINE_LIMIT = 160;

function duckdbJson(call: CallParts): JsonCallEngine {
  let names = 0;
  const name = () => `__json${++names}`;
  const lambda = (body: (element: string) => string) => {
    const element = name();
    return `lambda ${element}: ${body(element)}`;
  };
  const engine: JsonCallEngine = {
    literal,
    // A short value is written out where it is used: binding it in a lambda costs a list per row
    // (JSON_VALUE of a column: 5x slower), reading short JSON again costs less.
    bind: (value, body) => (value.length <= INLINE_LIMIT && !/lambda|random|uuid/i.test(value) ? body(`(${value})`) : `list_transform([${value}], ${lambda(body)})[1]`),
    map: (list, body) => `list_transform(${list}, ${lambda(body)})`,
    mapIndexed: (list, body) => {
      const [element, index] = [name(), name()];
      return `list_transform(${list}, lambda ${element}, ${index}: ${body(element, `(${index} - 1)`)})`;
    },
    filter: (list, test) => `list_filter(${list}, ${lambda(test)})`,
    flatten: (lists) => `flatten(${lists})`,
    concat: (lists) => lists.reduceRight((rest, list) => `list_concat(${list}, ${rest})`),
    texts: (items) => (items.length === 0 ? 'CAST([] AS VARCHAR[])' : `CAST([${items.join(', ')}] AS VARCHAR[])`),
    noList: () => 'NULL',
    pairs: (items) => (items.length === 0 ? 'CAST([] AS STRUCT(k VARCHAR, v VARCHAR)[])' : `[${items.join(', ')}]`),
    length: (list) => `len(${list})`,
    repeat: (item, count) => `list_transform(range(greatest(${count}, 0)), ${lambda(() => item)})`,
    join: (list, separator) => `array_to_string(${list}, ${quoteString(separator)})`,
    sortedDistinct: (list) => `list_sort(list_distinct(${list}))`,
    pair: (key, value) => `{'k': ${key}, 'v': CAST(${value} AS VARCHAR)}`,
    pairKey: (pair) => `${pair}.k`,
    pairValue: (pair) => `${pair}.v`,
    sortPairs: (pairs) => `list_sort(${pairs})`,
    firstPerKey: (pairs) =>
      engine.bind(pairs, (list) => {
        const [pair, index] = [name(), name()];
        return `list_filter(${list}, lambda ${pair}, ${index}: list_position(${engine.map(list, (other) => `${other}.k`)}, ${pair}.k) = ${index})`;
      }),
    kind: (text) => `json_type(${text})`,
    kindIs: (kind, kinds) => `(${kind} IN (${kinds.flatMap((k) => KINDS[k]).map((k) => `'${k}'`).join(', ')}))`,
    valid: (text) => `json_valid(${text})`,
    // json_extract's JSON is text here (see asText).
    member: (text, key) =>
      engine.bind(text, (json) => `(CASE WHEN json_type(${json}) = 'OBJECT' THEN CAST(json_extract(${json}, '/' || replace(replace(${key}, '~', '~0'), '/', '~1')) AS VARCHAR) END)`),
    element: (text, index) =>
      engine.bind(text, (json) => `(CASE WHEN json_type(${json}) = 'ARRAY' AND ${index} >= 0 THEN CAST(json_extract(${json}, CAST(${index} AS BIGINT)) AS VARCHAR) END)`),
    // try(): JSON text that is not JSON gives NULL, read once. json_value is NULL for an object or array.
    fromText: (text, steps, shape) => {
      if (!steps.every(pointerSafe)) return undefined;
      const pointer = quoteString(steps.length === 0 ? '$' : steps.map((step) => `/${pointerToken(step.key!)}`).join(''));
      if (shape === 'scalar') return `try(json_extract_string(json_value(${text}, ${pointer}), '$'))`;
      return `try(nullif(CAST(json_extract(${text}, ${pointer}) AS VARCHAR), 'null'))`;
    },
    path: (text, steps) =>
      steps.every(pointerSafe) ? `CAST(json_extract(${text}, ${quoteString(steps.length === 0 ? '$' : steps.map((step) => `/${pointerToken(step.key!)}`).join(''))}) AS VARCHAR)` : undefined,
    // JSON null comes out of these casts as SQL NULL: it is 'null' again.
    // Of another kind: none (TRY_CAST).
    members: (text) => `list_transform(coalesce(map_entries(TRY_CAST(CAST(${text} AS JSON) AS MAP(VARCHAR, JSON))), []), ${lambda((entry) => `{'k': ${entry}.key, 'v': coalesce(CAST(${entry}.value AS VARCHAR), 'null')}`)})`,
    elements: (text) => `list_transform(coalesce(TRY_CAST(CAST(${text} AS JSON) AS JSON[]), []), ${lambda((element) => `coalesce(CAST(${element} AS VARCHAR), 'null')`)})`,
    stringValue: (text) => `json_extract_string(${text}, '$')`,
    quote: (text) => engine.bind(`CAST(${text} AS VARCHAR)`, (value) => quotedJsonString(engine, value, `CAST(to_json(${value}) AS VARCHAR)`)),
    quickQuote: (text) => `CAST(to_json(CAST(${text} AS VARCHAR)) AS VARCHAR)`,
    parseDouble: (text) => `TRY_CAST(${text} AS DOUBLE)`,
    extractAll: (text, pattern) => `regexp_extract_all(${text}, ${quoteString(pattern)})`,
    matches: (text, pattern) => `regexp_matches(${text}, ${quoteString(pattern)})`,
    replace: (text, from, to) => `replace(${text}, ${literal(from)}, ${literal(to)})`,
    failIf: (condition, message, value) => `(CASE WHEN ${condition} THEN ${fail(call, message)} ELSE ${value} END)`,
    concatText: (parts) => `(${parts.join(' || ')})`,
    regexpExtract: (text, pattern) => `regexp_extract(${text}, ${quoteString(pattern)}, 1)`,
    regexpReplace: (text, pattern, replacement) => `regexp_replace(${text}, ${quoteString(pattern)}, ${quoteString(replacement)}, 'g')`,
    substring: (text, from, length) => (length === undefined ? `substring(${text}, ${from})` : `substring(${text}, ${from}, ${length})`),
    textLength: (text) => `length(${text})`,
    repeatText: (text, count) => `repeat(${text}, CAST(greatest(${count}, 0) AS BIGINT))`,
    toInt: (text) => `CAST(${text} AS BIGINT)`,
    intText: (value) => `CAST(${value} AS VARCHAR)`,
    shortestDouble: (x) => `CAST(CAST(${x} AS DOUBLE) AS VARCHAR)`,
    // JavaScript functions registered at open (udfs.ts): DuckDB binds deeply nested lambdas slowly.
    trees: {
      stripNulls: (json, includeArrays, removeEmpty) => `sawmill_json_strip_nulls(${json}, ${includeArrays}, ${removeEmpty})`,
      keys: (json, maxDepth, mode) => `sawmill_json_keys(${json}, ${maxDepth}, ${quoteString(mode)})`,
      flatten: (json) => `sawmill_json_flatten(${json})`,
      text: (json, indent) => `sawmill_json_text(${json}, ${indent ?? -1})`,
    },
    // SQL values as JSON text
    decimal: (value) => engine.bind(`CAST(${value} AS VARCHAR)`, (text) => `(CASE WHEN contains(${text}, '.') THEN rtrim(rtrim(${text}, '0'), '.') ELSE ${text} END)`),
    bytesBase64: (value) => `base64(${value})`,
    date: (value) => `strftime(${value}, '%Y-%m-%d')`,
    dateTime: (value, zone) =>
      engine.bind(`((epoch_us(${value}) % 1000000) + 1000000) % 1000000`, (micros) => {
        const format = (fraction: string) => `strftime(${value}, '%Y-%m-%dT%H:%M:%S${fraction}${zone ? 'Z' : ''}')`;
        return `(CASE WHEN ${micros} = 0 THEN ${format('')} WHEN ${micros} % 1000 = 0 THEN ${format('.%g')} ELSE ${format('.%f')} END)`;
      }),
    time: (value) =>
      engine.bind(`epoch_us(DATE '2000-01-01' + ${value}) % 1000000`, (micros) => {
        const format = (fraction: string) => `strftime(DATE '2000-01-01' + ${value}, '%H:%M:%S${fraction}')`;
        return `(CASE WHEN ${micros} = 0 THEN ${format('')} WHEN ${micros} % 1000 = 0 THEN ${format('.%g')} ELSE ${format('.%f')} END)`;
      }),
    field: (value, index) => `struct_extract_at(${value}, ${index + 1})`,
    isNan: (value) => `isnan(${value})`,
    jsonText: (value) => `CAST(${value} AS VARCHAR)`,
    row: (alias) => quoteIdentifier(alias),
  };
  return engine;
}

/** A JSON number's text as a DOUBLE, and whether it is integral. */
const CONVERSIONS: EngineConversions = {
  bool: (engine, json) =>
    engine.bind(json, (value) => engine.failIf(`json_type(${value}) <> 'BOOLEAN'`, 'The provided JSON input is not a boolean', `TRY_CAST(${value} AS BOOLEAN)`)),
  int64: (engine, json) =>
    engine.bind(json, (value) => {
      const kind = `json_type(${value})`;
      const integral = `(TRY_CAST(${value} AS DOUBLE) = trunc(TRY_CAST(${value} AS DOUBLE)) AND abs(TRY_CAST(${value} AS DOUBLE)) < 9223372036854775808)`;
      const converted = `(CASE WHEN ${kind} IN ('BIGINT', 'UBIGINT') THEN TRY_CAST(${value} AS BIGINT) WHEN ${kind} = 'DOUBLE' AND ${integral} THEN CAST(TRY_CAST(${value} AS DOUBLE) AS BIGINT) END)`;
      const notNumber = engine.failIf(`${kind} NOT IN ('BIGINT', 'UBIGINT', 'DOUBLE')`, 'The provided JSON input is not an integer', converted);
      return engine.failIf(`${kind} IN ('UBIGINT', 'DOUBLE') AND ${converted} IS NULL`, `The provided JSON number cannot be converted to an int64`, notNumber);
    }),
  float64: (engine, json, exact) =>
    engine.bind(json, (value) => {
      const kind = `json_type(${value})`;
      const wide = `(${exact} AND ${kind} IN ('BIGINT', 'UBIGINT') AND abs(CAST(${value} AS HUGEINT)) > 9007199254740992)`;
      const checked = engine.failIf(wide, 'JSON number cannot be converted to FLOAT64 without loss of precision', `TRY_CAST(${value} AS DOUBLE)`);
      return engine.failIf(`${kind} NOT IN ('BIGINT', 'UBIGINT', 'DOUBLE')`, 'The provided JSON input is not a number', checked);
    }),
  string: (engine, json) =>
    engine.bind(json, (value) => engine.failIf(`json_type(${value}) <> 'VARCHAR'`, 'The provided JSON input is not a string', `json_extract_string(${value}, '$')`)),
  laxBool: (engine, json) =>
    engine.bind(json, (value) => {
      const kind = `json_type(${value})`;
      const text = `lower(json_extract_string(${value}, '$'))`;
      return `(CASE WHEN ${kind} = 'BOOLEAN' THEN TRY_CAST(${value} AS BOOLEAN) WHEN ${kind} IN ('BIGINT', 'UBIGINT', 'DOUBLE') THEN TRY_CAST(${value} AS DOUBLE) <> 0 WHEN ${kind} = 'VARCHAR' AND ${text} IN ('true', 'false') THEN ${text} = 'true' END)`;
    }),
  laxInt64: (engine, json) =>
    engine.bind(json, (value) => {
      const kind = `json_type(${value})`;
      // A string is read as a number (BIGNUMERIC in BigQuery), then rounded half away from zero.
      const text = engine.bind(`json_extract_string(${value}, '$')`, (string) => `coalesce(TRY_CAST(${string} AS DECIMAL(38, 0)), TRY_CAST(round(TRY_CAST(${string} AS DOUBLE)) AS DECIMAL(38, 0)))`);
      return `(CASE WHEN ${kind} = 'BOOLEAN' THEN CAST(TRY_CAST(${value} AS BOOLEAN) AS BIGINT) WHEN ${kind} = 'BIGINT' THEN CAST(${value} AS BIGINT) WHEN ${kind} = 'UBIGINT' THEN TRY_CAST(${value} AS BIGINT) WHEN ${kind} = 'DOUBLE' THEN TRY_CAST(round(TRY_CAST(${value} AS DOUBLE)) AS BIGINT) WHEN ${kind} = 'VARCHAR' THEN TRY_CAST(${text} AS BIGINT) END)`;
    }),
  laxFloat64: (engine, json) =>
    engine.bind(json, (value) => {
      const kind = `json_type(${value})`;
      const text = `trim(json_extract_string(${value}, '$'))`;
      const special = `(CASE lower(${text}) WHEN 'nan' THEN CAST('nan' AS DOUBLE) WHEN 'inf' THEN CAST('inf' AS DOUBLE) WHEN '+inf' THEN CAST('inf' AS DOUBLE) WHEN 'infinity' THEN CAST('inf' AS DOUBLE) WHEN '+infinity' THEN CAST('inf' AS DOUBLE) WHEN '-inf' THEN CAST('-inf' AS DOUBLE) WHEN '-infinity' THEN CAST('-inf' AS DOUBLE) END)`;
      const number = `(CASE WHEN regexp_matches(${text}, '^[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?$') THEN TRY_CAST(${text} AS DOUBLE) END)`;
      return `(CASE WHEN ${kind} IN ('BIGINT', 'UBIGINT', 'DOUBLE') THEN TRY_CAST(${value} AS DOUBLE) WHEN ${kind} = 'VARCHAR' THEN coalesce(${special}, ${number}) END)`;
    }),
  parse: (engine, text, exact) =>
    engine.bind(text, (value) => {
      const parsed = engine.failIf(`NOT json_valid(${value})`, 'Invalid input to PARSE_JSON: syntax error while parsing JSON', `json(${value})`);
      return engine.failIf(`${exact} AND ${inexactNumbers(value)}`, 'Invalid input to PARSE_JSON: a number cannot round-trip through string representation', parsed);
    }),
};

/**
 * Whether JSON text holds a number a double cannot hold exactly (wide_number_mode 'exact'): an
 * integer past INT64 and UINT64, or a number with more significant digits than its double's
 * shortest form. String tokens are matched whole, so digits inside strings are not read.
 */
function inexactNumbers(text: string): string {
  const tokens = `regexp_extract_all(${text}, '"(?:[^"\\\\]|\\\\.)*"|-?[0-9][0-9.eE+-]*')`;
  const significant = (number: string) => `length(regexp_replace(regexp_replace(regexp_replace(regexp_replace(${number}, '[eE].*$', ''), '[-.]', '', 'g'), '^0+', ''), '0+$', ''))`;
  const inexact = (token: string) =>
    `(NOT starts_with(${token}, '"') AND (CASE WHEN regexp_matches(${token}, '^-?[0-9]+$') THEN TRY_CAST(${token} AS HUGEINT) NOT BETWEEN -9223372036854775808 AND 18446744073709551615 ELSE ${significant(token)} > ${significant(`CAST(TRY_CAST(${token} AS DOUBLE) AS VARCHAR)`)} END))`;
  return `len(list_filter(${tokens}, lambda token: ${inexact('token')})) > 0`;
}

const isJsonType = (type: SqlType | undefined): boolean => type?.kind === 'scalar' && type.name === 'JSON';

/**
 * DuckDB's JSON is a type of its own, which CASE would cast other text to: the renderings read
 * JSON arguments as VARCHAR, and a JSON result (or an array of them) is cast back.
 */
function asText(render: Emitter): Emitter {
  return (call) => {
    const printed = render({ ...call, args: call.args.map((arg, index) => (isJsonType(call.types[index]) ? `CAST(${arg} AS VARCHAR)` : arg)) });
    if (isJsonType(call.result)) return `CAST(${printed} AS JSON)`;
    if (call.result.kind === 'array' && isJsonType(call.result.element)) return `CAST(${printed} AS JSON[])`;
    return printed;
  };
}

const RENDERINGS = jsonRenderings(duckdbJson, CONVERSIONS);

export const JSON = Object.fromEntries(Object.entries(RENDERINGS).map(([name, render]) => [name, asText(render)])) as Renderings<typeof JSON_FUNCTIONS>;

/** `json.key`, `json['key']`, `json[0]`: the member (objects only) or element (arrays only). */
export const jsonSubscript: Emitter = asText((call) => {
  const engine = duckdbJson(call);
  const key = call.raw[1];
  if (key?.kind === 'string') return followPath(engine, call.args[0]!, [{ key: key.value }]);
  if (key?.kind === 'number') return followPath(engine, call.args[0]!, [{ index: Number(key.text) }]);
  const index = call.types[1]?.kind === 'scalar' && call.types[1].name === 'INT64';
  return index ? engine.element(call.args[0]!, call.args[1]!) : engine.member(call.args[0]!, call.args[1]!);
});
