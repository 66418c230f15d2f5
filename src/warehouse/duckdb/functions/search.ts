/** CONTAINS_SUBSTR and SEARCH on DuckDB: the primitives src/sql/search-sql.ts searches with. */

import type { CallParts, Renderings } from '../../../sql/emitters.ts';
import type { SEARCH_FUNCTIONS } from '../../../sql/functions/families/search.ts';
import { containsSubstrSql, searchSql, type SearchDialect } from '../../../sql/search-sql.ts';
import { quoteIdent } from '../types.ts';
import { scalarText } from './format.ts';
import { fail, literal } from './shared.ts';

/** A JSON text's string and other scalar tokens; a key is a string token followed by ':'. */
const JSON_TOKEN = '"(?:[^"\\\\]|\\\\.)*"\\s*:|"(?:[^"\\\\]|\\\\.)*"|[^\\s"\\[\\]{},:]+';

/** A JSON string token's text: quotes (and a key's colon) off, the common escapes read. */
const unquoted = (token: string) =>
  `replace(replace(replace(replace(regexp_replace(${token}, '^"|"\\s*:?$', '', 'g'), '\\"', '"'), '\\n', chr(10)), '\\/', '/'), '\\\\', '\\')`;


const DUCKDB_SEARCH: SearchDialect = {
  literal,
  matches: (text, pattern) => `regexp_matches(${text}, ${literal(pattern)})`,
  splitTokens: (text, pattern) => `regexp_split_to_array(${text}, ${literal(pattern)})`,
  extractTokens: (text, pattern) => `regexp_extract_all(${text}, ${literal(pattern)})`,
  hasElement: (list, value) => `list_contains(${list}, ${value})`,
  keptTokens: (list, stopWords) =>
    `list_filter(${list}, lambda sawmill_t: sawmill_t <> ''${stopWords.length > 0 ? ` AND NOT list_contains([${stopWords.join(', ')}], sawmill_t)` : ''})`,
  isEmpty: (list) => `(len(${list}) = 0)`,
  allElements: (list, element, test) => `(len(list_filter(${list}, lambda ${element}: NOT (${test}))) = 0)`,
  guard: (call, failing, message, value) => `(CASE WHEN ${failing} THEN ${fail(call, message)} ELSE ${value} END)`,
  lowerAscii: (text) => `translate(${text}, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')`,
  // ASCII text folds as lower-case; the rest goes to JavaScript (only the rows that need it).
  normalizeFold: (text) => `(CASE WHEN regexp_matches(${text}, '^[\\x00-\\x7f]*$') THEN lower(${text}) ELSE sawmill_normalize_casefold(${text}, 'NFKC') END)`,
  contains: (text, needle) => `contains(${text}, ${needle})`,
  anyElement: (list, element, test) =>
    `(CASE WHEN ${list} IS NULL THEN NULL WHEN len(list_filter(${list}, lambda ${element}: ${test})) > 0 THEN TRUE` +
    ` WHEN len(list_filter(${list}, lambda ${element}: (${test}) IS NULL)) > 0 THEN NULL ELSE FALSE END)`,
  field: (struct, index) => `struct_extract_at(${struct}, ${index + 1})`,
  row: (alias) => quoteIdent(alias),
  text: (value, type, call) => {
    if (type === 'STRING') return value;
    const text = scalarText(value, type, false, call);
    // CAST of a FLOAT64 to STRING writes no .0 where %t does.
    return `(CASE WHEN ${value} IS NULL THEN NULL ELSE ${type === 'FLOAT64' ? `regexp_replace(${text}, '\\.0$', '')` : text} END)`;
  },
  jsonParts: (json, scope) => {
    const token = 'sawmill_token';
    const tokens = `regexp_extract_all(CAST(${json} AS VARCHAR), ${literal(JSON_TOKEN)})`;
    const kept = scope === 'keys' ? `regexp_matches(${token}, ':$')` : `NOT regexp_matches(${token}, ':$') AND ${token} <> 'null'`;
    return `list_transform(list_filter(${tokens}, lambda ${token}: ${kept}), lambda ${token}: ${unquoted(token)})`;
  },
};

// A declaration, not a const: string.ts and this module import each other (through format.ts).
export function containsSubstr(call: CallParts): string {
  return containsSubstrSql(call, DUCKDB_SEARCH);
}

export const SEARCH: Renderings<typeof SEARCH_FUNCTIONS> = {
  search: (call) => searchSql(call, DUCKDB_SEARCH),
};
