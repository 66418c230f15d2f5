/** CONTAINS_SUBSTR and SEARCH on ClickHouse: the primitives src/sql/search-sql.ts searches with. */

import type { CallParts, Renderings } from '../../../sql/emitters.ts';
import type { SEARCH_FUNCTIONS } from '../../../sql/functions/families/search.ts';
import { containsSubstrSql, searchSql, type SearchDialect } from '../../../sql/search-sql.ts';
import { quoteIdent } from '../types.ts';
import { scalarText } from './format.ts';
import { guarded, quoted } from './shared.ts';

/** A JSON text's string and other scalar tokens; a key is a string token followed by ':'. */
const JSON_TOKEN = '"(?:[^"\\\\]|\\\\.)*"\\s*:|"(?:[^"\\\\]|\\\\.)*"|[^\\s"\\[\\]{},:]+';

const unquoted = (token: string) =>
  `replaceAll(replaceAll(replaceAll(replaceAll(replaceRegexpAll(${token}, '^"|"\\\\s*:?$', ''), '\\\\"', '"'), '\\\\n', '\\n'), '\\\\/', '/'), '\\\\\\\\', '\\\\')`;


const CLICKHOUSE_SEARCH: SearchDialect = {
  literal: quoted,
  matches: (text, pattern) => `match(${text}, ${quoted(`(?-s)${pattern}`)})`,
  splitTokens: (text, pattern) => `splitByRegexp(${quoted(pattern)}, ${text})`,
  // extractAll gives a pattern's first capturing group: one around the whole pattern.
  extractTokens: (text, pattern) => `extractAll(${text}, ${quoted(`(?-s)(${pattern})`)})`,
  hasElement: (list, value) => `has(${list}, ${value})`,
  keptTokens: (list, stopWords) =>
    `arrayFilter(sawmill_t -> sawmill_t != ''${stopWords.length > 0 ? ` AND NOT has([${stopWords.join(', ')}], sawmill_t)` : ''}, ${list})`,
  isEmpty: (list) => `empty(${list})`,
  allElements: (list, element, test) => `arrayAll(${element} -> ${test}, ${list})`,
  guard: guarded,
  // ClickHouse's lower (not lowerUTF8) changes A-Z only.
  lowerAscii: (text) => `lower(${text})`,
  normalizeFold: (text) => `lowerUTF8(upperUTF8(lowerUTF8(normalizeUTF8NFKC(${text}))))`,
  contains: (text, needle) => `(position(${text}, ${needle}) > 0)`,
  anyElement: (list, element, test) => `multiIf(arrayExists(${element} -> coalesce(${test}, 0) = 1, ${list}), TRUE, arrayExists(${element} -> isNull(${test}), ${list}), NULL, FALSE)`,
  field: (struct, index) => `tupleElement(${struct}, ${index + 1})`,
  row: (alias, columns) => `tuple(${columns.map((column) => `${quoteIdent(alias)}.${quoteIdent(column)}`).join(', ')})`,
  text: (value, type, call) => {
    if (type === 'STRING') return value;
    const text = scalarText(value, type, false, call);
    return `if(isNull(${value}), NULL, ${type === 'FLOAT64' ? `replaceRegexpOne(${text}, '\\\\.0$', '')` : text})`;
  },
  jsonParts: (json, scope) => {
    const token = 'sawmill_token';
    const tokens = `extractAll(${json}, ${quoted(JSON_TOKEN)})`;
    const kept = scope === 'keys' ? `endsWith(${token}, ':')` : `NOT endsWith(${token}, ':') AND ${token} != 'null'`;
    return `arrayMap(${token} -> ${unquoted(token)}, arrayFilter(${token} -> ${kept}, ${tokens}))`;
  },
};

// A declaration, not a const: string.ts and this module import each other (through format.ts).
export function containsSubstr(call: CallParts): string {
  return containsSubstrSql(call, CLICKHOUSE_SEARCH);
}

export const SEARCH: Renderings<typeof SEARCH_FUNCTIONS> = {
  search: (call) => searchSql(call, CLICKHOUSE_SEARCH),
};
