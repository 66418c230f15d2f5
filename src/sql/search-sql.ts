/**
 * CONTAINS_SUBSTR and SEARCH for every engine: both look through a value field by field (a
 * STRUCT's fields, an ARRAY's elements, recursively; a table's row is the STRUCT of its columns;
 * JSON by json_scope), from a few primitives each engine supplies (SearchDialect).
 *
 * - CONTAINS_SUBSTR: each field as text (BigQuery casts it to STRING), NFKC-normalized and case
 *   folded, contains the search value, so normalized; TRUE if one field does, else NULL if one is
 *   NULL, else FALSE (SQL's OR of the fields).
 * - SEARCH: the query's tokens (and LOG_ANALYZER's backtick phrases) are made at save by the text
 *   analyzer (src/sql/text-analyzer.ts); TRUE when every one is among the tokens of some field of
 *   the data, cut by the engine with the same delimiters or pattern. Only STRING fields (and JSON)
 *   are searched. NO_OP_ANALYZER compares each STRING field with the query, whole.
 */

import type { SqlType } from './catalog.ts';
import { arg, type CallParts } from './emitters.ts';
import type * as ir from './ir.ts';
import { invalidSql } from './parse.ts';
import { LOG_DELIMITERS, phrasePattern, queryTerms, textAnalyzer, type TextAnalyzer } from './text-analyzer.ts';

export interface SearchDialect {
  literal(text: string): string;
  /** A SQL boolean: `text` matches the RE2 `pattern` (a literal pattern). */
  matches(text: string, pattern: string): string;
  /** The parts of `text` between matches of the RE2 `pattern` (an array of STRING; empty parts may stay). */
  splitTokens(text: string, pattern: string): string;
  /** Every match of the RE2 `pattern` in `text`, left to right, not overlapping (an array of STRING). */
  extractTokens(text: string, pattern: string): string;
  /** A SQL boolean: the array `list` has the element `value`. */
  hasElement(list: string, value: string): string;
  /** The array `list` without empty strings and without the (SQL literal) `stopWords`. */
  keptTokens(list: string, stopWords: readonly string[]): string;
  /** A SQL boolean: the array is empty. */
  isEmpty(list: string): string;
  /** A SQL boolean: `test` (of the lambda variable `element`) holds for every element. */
  allElements(list: string, element: string, test: string): string;
  /** `value`, or BigQuery's error `message` where `failing` holds (NULL there under SAFE.). */
  guard(call: CallParts, failing: string, message: string, value: string): string;
  /** A-Z lower-cased, other characters kept (the log analyzer's case folding). */
  lowerAscii(text: string): string;
  /** NFKC normalization and full case folding (CONTAINS_SUBSTR's). */
  normalizeFold(text: string): string;
  /** `needle` (SQL text) is a substring of `text`. */
  contains(text: string, needle: string): string;
  /** TRUE if `test` (of the lambda variable `element`) holds for an element, NULL if for none but it is NULL for one, else FALSE; NULL for a NULL array. */
  anyElement(list: string, element: string, test: string): string;
  /** The struct's field at a 0-based position. */
  field(struct: string, index: number, name: string): string;
  /** A table's row (`FROM t` … `f(t)`) as a struct value. */
  row(alias: string, columns: readonly string[]): string;
  /** A scalar as BigQuery casts it to STRING (NULL for NULL). */
  text(value: string, type: ir.ScalarTypeName, call: CallParts): string;
  /** A JSON value's members' keys, or its scalar values as text, everywhere in it (an array of STRING). */
  jsonParts(json: string, scope: 'keys' | 'values'): string;
}

export type JsonScope = 'JSON_VALUES' | 'JSON_KEYS' | 'JSON_KEYS_AND_VALUES';

/** The named argument's string literal, if given as one. */
function namedLiteral(call: CallParts, name: string): string | undefined {
  const raw = call.rawNamed[name];
  return raw?.kind === 'string' ? raw.value : undefined;
}

/** The data argument, a table's row made a struct value. */
function dataArgument(call: CallParts, dialect: SearchDialect): string {
  const raw = call.raw[0];
  const type = call.types[0];
  if (raw?.kind === 'ref' && raw.path.length === 1 && type?.kind === 'struct') return dialect.row(raw.path[0]!, type.fields.map((field) => field.name));
  return arg(call, 0);
}

/** A searched scalar's boolean, or undefined when it is not searched; `depth` is its nesting in arrays. */
type Leaf = (value: string, type: ir.ScalarTypeName | 'NULL', depth: number) => string | undefined;

/** The lambda variable of an array nested `depth` arrays deep (unique along one nesting, so the SQL is the same each time). */
const elementName = (depth: number) => `sawmill_e${depth}`;

/**
 * `test` over the searchable fields of `value`, combined with SQL's OR (TRUE wins, then NULL);
 * `leaf` turns a scalar field into the boolean, or undefined when the field is not searched.
 */
function acrossFields(value: string, type: SqlType | undefined, dialect: SearchDialect, leaf: Leaf, depth = 0): string | undefined {
  if (!type || type.kind === 'map') return undefined;
  // A field of no known type is a NULL literal's (`(23, NULL, 41)`).
  if (type.kind === 'unknown') return leaf(value, 'NULL', depth);
  if (type.kind === 'scalar') return leaf(value, type.name, depth);
  if (type.kind === 'array') {
    const item = elementName(depth);
    const test = acrossFields(item, type.element, dialect, leaf, depth + 1);
    return test === undefined ? undefined : dialect.anyElement(value, item, test);
  }
  const fields = type.fields.flatMap((field, index) => acrossFields(dialect.field(value, index, field.name), field.type, dialect, leaf, depth) ?? []);
  if (fields.length === 0) return undefined;
  return `(CASE WHEN ${value} IS NULL THEN NULL ELSE (${fields.join(' OR ')}) END)`;
}

/** CONTAINS_SUBSTR's normalization of the search value, done here for a literal (as the engines do for data). */
export function normalizeFold(text: string): string {
  return text.normalize('NFKC').toLowerCase().toUpperCase().toLowerCase();
}

const JSON_SCOPES: ReadonlySet<string> = new Set(['JSON_VALUES', 'JSON_KEYS', 'JSON_KEYS_AND_VALUES']);

function jsonScope(call: CallParts, name: string): JsonScope {
  const scope = namedLiteral(call, 'json_scope') ?? 'JSON_VALUES';
  if (!JSON_SCOPES.has(scope)) throw invalidSql(`${name}'s json_scope is one of JSON_VALUES, JSON_KEYS and JSON_KEYS_AND_VALUES`);
  return scope as JsonScope;
}

/** `test` over the parts of a JSON value json_scope searches (keys, values as text), SQL's OR. */
function acrossJson(dialect: SearchDialect, json: string, scope: JsonScope, depth: number, test: (text: string) => string): string {
  const parts: Array<'keys' | 'values'> = scope === 'JSON_KEYS' ? ['keys'] : scope === 'JSON_VALUES' ? ['values'] : ['keys', 'values'];
  const item = elementName(depth);
  return `(${parts.map((part) => dialect.anyElement(dialect.jsonParts(json, part), item, test(item))).join(' OR ')})`;
}

/** CONTAINS_SUBSTR(value, search_value[, json_scope => …]). */
export function containsSubstrSql(call: CallParts, dialect: SearchDialect): string {
  const raw = call.raw[1];
  // A query parameter is normalized when the query runs, as the data is.
  const needle = raw?.kind === 'string' ? dialect.literal(normalizeFold(raw.value)) : dialect.normalizeFold(arg(call, 1));
  const scope = jsonScope(call, 'CONTAINS_SUBSTR');
  const found = (text: string) => dialect.contains(dialect.normalizeFold(text), needle);
  const result = acrossFields(dataArgument(call, dialect), call.types[0], dialect, (value, type, depth) => {
    if (type === 'JSON') return `(CASE WHEN ${value} IS NULL THEN NULL ELSE ${acrossJson(dialect, value, scope, depth, found)} END)`;
    if (type === 'NULL') return `(CASE WHEN ${value} IS NULL THEN NULL ELSE FALSE END)`;
    if (type === 'BYTES' || type === 'INTERVAL') return undefined;
    return found(dialect.text(value, type, call));
  });
  return result ?? 'CAST(NULL AS BOOLEAN)';
}

// ---- SEARCH ---------------------------------------------------------------------------------------

/** SEARCH(data, query[, json_scope => …][, analyzer => …][, analyzer_options => …]). */
export function searchSql(call: CallParts, dialect: SearchDialect): string {
  const raw = call.raw[1];
  const name = namedLiteral(call, 'analyzer') ?? 'LOG_ANALYZER';
  const scope = jsonScope(call, 'SEARCH');
  const data = dataArgument(call, dialect);
  const across = (test: (text: string) => string) =>
    coalesced(acrossFields(data, call.types[0], dialect, (value, type, depth) => searchedLeaf(dialect, value, type, depth, scope, test)));
  if (name === 'NO_OP_ANALYZER') {
    const query = raw?.kind === 'string' ? dialect.literal(raw.value) : arg(call, 1);
    const result = across((text) => `(${text} = ${query})`);
    return raw?.kind === 'string' ? result : dialect.guard(call, `${query} IS NULL`, NULL_QUERY, result);
  }
  if (name !== 'LOG_ANALYZER' && name !== 'PATTERN_ANALYZER') throw invalidSql(`SEARCH has no analyzer ${name}`);
  const analyzer = textAnalyzer(name, namedLiteral(call, 'analyzer_options'));
  if ('error' in analyzer) throw invalidSql(analyzer.error);
  const normalize = (text: string) => (analyzer.lower ? dialect.lowerAscii(text) : text);
  const tokensOf = (text: string) =>
    analyzer.name === 'LOG_ANALYZER' ? dialect.splitTokens(normalize(text), analyzer.pattern) : dialect.extractTokens(normalize(text), analyzer.pattern);
  const hasToken = (token: string) => across((text) => dialect.hasElement(tokensOf(text), token));
  if (raw?.kind !== 'string') return runtimeQuery(call, dialect, analyzer, hasToken);
  const terms = queryTerms(analyzer, raw.value);
  if ('error' in terms) throw invalidSql(terms.error);
  const conditions = terms.map((term) =>
    term.kind === 'token' ? hasToken(dialect.literal(term.text)) : across((text) => dialect.matches(normalize(text), phrasePattern(analyzer, term.text))),
  );
  return conditions.length === 1 ? conditions[0]! : `(${conditions.join(' AND ')})`;
}

const NULL_QUERY = 'SEARCH search_query cannot be NULL';

/**
 * A query known only when the query runs (a query parameter): its tokens are cut by the engine
 * as the data's are, each must be in the data, and BigQuery's refusals become run-time errors. A
 * backtick phrase (and, with delimiters of one's own, a backslash escape) is not read there: such
 * a query is an error rather than a different answer.
 */
function runtimeQuery(call: CallParts, dialect: SearchDialect, analyzer: TextAnalyzer, hasToken: (token: string) => string): string {
  const query = arg(call, 1);
  // NULL is refused below; arrays of a NULL text are no value on ClickHouse.
  const text = `coalesce(${query}, '')`;
  const normalized = analyzer.lower ? dialect.lowerAscii(text) : text;
  // Whitespace separates a query's terms whatever the delimiters.
  const cut =
    analyzer.name === 'PATTERN_ANALYZER'
      ? dialect.extractTokens(normalized, analyzer.pattern)
      : dialect.splitTokens(normalized, analyzer.pattern === LOG_DELIMITERS ? analyzer.pattern : `(?:${analyzer.pattern}|\\s)`);
  const tokens = dialect.keptTokens(cut, [...analyzer.stopWords].map((word) => dialect.literal(word)));
  const token = 'sawmill_query_token';
  let result = dialect.guard(call, dialect.isEmpty(tokens), 'SEARCH query has no tokens', dialect.allElements(tokens, token, hasToken(token)));
  if (analyzer.name === 'LOG_ANALYZER') {
    const ownDelimiters = analyzer.pattern !== LOG_DELIMITERS;
    const unread = ownDelimiters ? 'a backtick or a backslash in a query parameter, with delimiters of its own,' : 'a backtick in a query parameter';
    result = dialect.guard(call, dialect.matches(query, ownDelimiters ? '[`\\\\]' : '`'), `SEARCH with ${unread} is not supported`, result);
  }
  return dialect.guard(call, `${query} IS NULL`, NULL_QUERY, result);
}

/** SEARCH looks in STRING fields and JSON; other fields are not searched. */
function searchedLeaf(dialect: SearchDialect, value: string, type: ir.ScalarTypeName | 'NULL', depth: number, scope: JsonScope, test: (text: string) => string): string | undefined {
  if (type === 'STRING') return test(value);
  if (type === 'JSON') return acrossJson(dialect, value, scope, depth, test);
  return undefined;
}

/** SEARCH is TRUE or FALSE, never NULL: a NULL field holds no tokens. */
const coalesced = (condition: string | undefined) => (condition === undefined ? 'FALSE' : `coalesce(${condition}, FALSE)`);
