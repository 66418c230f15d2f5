/**
 * CONTAINS_SUBSTR and SEARCH for every engine: both look through a value field by field (a
 * STRUCT's fields, an ARRAY's elements, recursively; a table's row is the STRUCT of its columns;
 * JSON by json_scope), from a few primitives each engine supplies (SearchDialect).
 *
 * - CONTAINS_SUBSTR: each field as text (BigQuery casts it to STRING), NFKC-normalized and case
 *   folded, contains the search value, so normalized; TRUE if one field does, else NULL if one is
 *   NULL, else FALSE (SQL's OR of the fields).
 * - SEARCH with BigQuery's default LOG_ANALYZER: text is lower-cased (ASCII letters only) and cut
 *   into tokens at its delimiters; the query is cut at whitespace into terms, a term in backticks
 *   is a phrase that must appear as written (between token boundaries), any other term is cut into
 *   tokens too; TRUE when every token and phrase of the query is in the data, in any field. Only
 *   STRING fields (and JSON) are searched. NO_OP_ANALYZER takes each STRING field and the query
 *   whole.
 */

import type { SqlType } from './catalog.ts';
import { arg, type CallParts } from './emitters.ts';
import type * as ir from './ir.ts';
import { invalidSql } from './parse.ts';

export interface SearchDialect {
  literal(text: string): string;
  /** A SQL boolean: `text` matches the RE2 `pattern` (a literal pattern). */
  matches(text: string, pattern: string): string;
  /** Every match of the RE2 `pattern` in `text` replaced. */
  replaceAll(text: string, pattern: string, replacement: string): string;
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
  if (raw?.kind !== 'string') return 'NULL';
  const needle = dialect.literal(normalizeFold(raw.value));
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

/**
 * The log analyzer's delimiters, as an RE2 alternation that takes the longest first: the
 * characters [ ] < > ( ) { } | ! ; , ' " * & ? + / : = @ . - $ % \ _ and whitespace, and the
 * percent-encoded forms of some (text is lower-cased first, so one case suffices).
 */
export const LOG_DELIMITERS = `(?:%2526|%2520|%21|%26|%3b|%7c|%20|%2b|%3d|%5d|%5b|%3a|%0a|%2c|%28|%29|[\\[\\]<>(){}|!;,'"*&?+/:=@.$%\\\\_\\s-])`;

/** A STRING's tokens under the log analyzer, in TypeScript (for the query). */
export function logTokens(text: string): string[] {
  const lowered = text.replace(/[A-Z]/g, (letter) => letter.toLowerCase());
  return lowered.split(new RegExp(LOG_DELIMITERS, 'u')).filter((token) => token !== '');
}

type QueryTerm = { kind: 'token'; text: string } | { kind: 'phrase'; text: string };

/**
 * A SEARCH query's terms under the log analyzer: cut at unescaped whitespace; text between
 * backticks is a phrase, taken as written (a backslash in it stays); elsewhere a backslash makes
 * the next character part of the term (`foo\ bar` is one term), and each term is cut into
 * tokens. BigQuery's refusal of a query with nothing to search for.
 */
export function searchTerms(query: string): QueryTerm[] | { error: string } {
  const terms: QueryTerm[] = [];
  let term = '';
  const endTerm = () => {
    for (const token of logTokens(term)) terms.push({ kind: 'token', text: token });
    term = '';
  };
  for (let index = 0; index < query.length; index++) {
    const char = query[index]!;
    if (char === '\\') {
      if (index + 1 === query.length) return { error: 'Invalid search query: it ends with an unescaped backslash' };
      term += query[++index];
    } else if (char === '`') {
      const close = query.indexOf('`', index + 1);
      if (close < 0) return { error: 'Invalid search query: unmatched backtick' };
      endTerm();
      const phrase = query.slice(index + 1, close).replace(/[A-Z]/g, (letter) => letter.toLowerCase());
      if (logTokens(phrase).length > 0) terms.push({ kind: 'phrase', text: phrase });
      index = close;
    } else if (/\s/.test(char)) endTerm();
    else term += char;
  }
  endTerm();
  if (terms.length === 0) return { error: 'SEARCH query has no tokens' };
  return terms;
}

const escapeRegex = (text: string) => text.replace(/[\\^$.|?*+()[\]{}]/g, (char) => `\\${char}`);

/** SEARCH(data, query[, json_scope => …][, analyzer => …]). */
export function searchSql(call: CallParts, dialect: SearchDialect): string {
  const raw = call.raw[1];
  if (raw?.kind !== 'string') throw invalidSql('SEARCH needs its query as a string literal');
  const analyzer = namedLiteral(call, 'analyzer') ?? 'LOG_ANALYZER';
  const scope = jsonScope(call, 'SEARCH');
  const data = dataArgument(call, dialect);
  if (analyzer === 'NO_OP_ANALYZER') {
    const query = dialect.literal(raw.value);
    const equal = (text: string) => `(${text} = ${query})`;
    return coalesced(acrossFields(data, call.types[0], dialect, (value, type, depth) => searchedLeaf(dialect, value, type, depth, scope, equal)));
  }
  const terms = searchTerms(raw.value);
  if ('error' in terms) throw invalidSql(terms.error);
  // The data's text with every delimiter (the longest first) made one space, between spaces.
  const tokenized = (text: string) => `(' ' || ${dialect.replaceAll(dialect.lowerAscii(text), LOG_DELIMITERS, ' ')} || ' ')`;
  const conditions = terms.map((term) => {
    const test =
      term.kind === 'token'
        ? (text: string) => dialect.contains(tokenized(text), dialect.literal(` ${term.text} `))
        : (text: string) => dialect.matches(dialect.lowerAscii(text), `(?:^|${LOG_DELIMITERS})${escapeRegex(term.text)}(?:${LOG_DELIMITERS}|$)`);
    return coalesced(acrossFields(data, call.types[0], dialect, (value, type, depth) => searchedLeaf(dialect, value, type, depth, scope, test)));
  });
  return conditions.length === 1 ? conditions[0]! : `(${conditions.join(' AND ')})`;
}

/** SEARCH looks in STRING fields and JSON; other fields are not searched. */
function searchedLeaf(dialect: SearchDialect, value: string, type: ir.ScalarTypeName | 'NULL', depth: number, scope: JsonScope, test: (text: string) => string): string | undefined {
  if (type === 'STRING') return test(value);
  if (type === 'JSON') return acrossJson(dialect, value, scope, depth, test);
  return undefined;
}

/** SEARCH is TRUE or FALSE, never NULL: a NULL field holds no tokens. */
const coalesced = (condition: string | undefined) => (condition === undefined ? 'FALSE' : `coalesce(${condition}, FALSE)`);
