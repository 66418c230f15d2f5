/** BigQuery's search functions (VECTOR_SEARCH is in the vector search family Sawmill leaves out). */

import { scalar, type ArgumentCheck, type Catalog } from '../entry.ts';
import { searchTerms } from '../../search-sql.ts';

const ANALYZERS: ReadonlySet<string> = new Set(['LOG_ANALYZER', 'NO_OP_ANALYZER', 'PATTERN_ANALYZER']);
const JSON_SCOPES: ReadonlySet<string> = new Set(['JSON_VALUES', 'JSON_KEYS', 'JSON_KEYS_AND_VALUES']);

/** json_scope, when given, is one of BigQuery's three scopes, as a literal. */
export const checkJsonScope: ArgumentCheck = (_args, _types, named) => {
  const scope = named.json_scope;
  if (scope === undefined) return undefined;
  if (scope.kind !== 'string' || !JSON_SCOPES.has(scope.value)) return { message: "json_scope must be one of 'JSON_VALUES', 'JSON_KEYS' and 'JSON_KEYS_AND_VALUES'" };
  return undefined;
};

/** The query must be there, the analyzer one Sawmill runs, and the query's terms readable. */
const checkSearch: ArgumentCheck = (args, types, named, given) => {
  const scope = checkJsonScope(args, types, named, given);
  if (scope) return scope;
  const query = args[1];
  if (query?.kind === 'null') return { message: 'SEARCH search_query cannot be NULL' };
  const analyzer = named.analyzer;
  if (analyzer !== undefined && (analyzer.kind !== 'string' || !ANALYZERS.has(analyzer.value))) {
    return { message: "analyzer must be one of 'LOG_ANALYZER', 'NO_OP_ANALYZER' and 'PATTERN_ANALYZER'" };
  }
  if (analyzer?.kind === 'string' && analyzer.value === 'PATTERN_ANALYZER') return { message: 'SEARCH with PATTERN_ANALYZER is not supported' };
  if (named.analyzer_options !== undefined) return { message: 'SEARCH with analyzer_options is not supported: Sawmill runs the analyzers with their default options' };
  if (query?.kind !== 'string') return { message: 'SEARCH needs its search_query as a string literal in Sawmill' };
  if (analyzer?.kind === 'string' && analyzer.value === 'NO_OP_ANALYZER') return undefined;
  const terms = searchTerms(query.value);
  return 'error' in terms ? { message: terms.error } : undefined;
};

export const SEARCH_FUNCTIONS = {
  search: scalar('search', ['(ANY, CONST STRING; json_scope => STRING, analyzer => STRING, analyzer_options => STRING) -> BOOL'], { check: checkSearch }),
} satisfies Catalog;
