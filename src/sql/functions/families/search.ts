/** BigQuery's search functions (VECTOR_SEARCH is in the vector search family Sawmill leaves out). */

import { scalar, type ArgumentCheck, type Catalog } from '../entry.ts';
import { queryTerms, textAnalyzer } from '../../text-analyzer.ts';

const ANALYZERS: ReadonlySet<string> = new Set(['LOG_ANALYZER', 'NO_OP_ANALYZER', 'PATTERN_ANALYZER']);
const JSON_SCOPES: ReadonlySet<string> = new Set(['JSON_VALUES', 'JSON_KEYS', 'JSON_KEYS_AND_VALUES']);

/** json_scope, when given, is one of BigQuery's three scopes, as a literal. */
export const checkJsonScope: ArgumentCheck = (_args, _types, named) => {
  const scope = named.json_scope;
  if (scope === undefined) return undefined;
  if (scope.kind !== 'string' || !JSON_SCOPES.has(scope.value)) return { message: "json_scope must be one of 'JSON_VALUES', 'JSON_KEYS' and 'JSON_KEYS_AND_VALUES'" };
  return undefined;
};

/** The query must be there (a literal or a parameter), the analyzer one BigQuery has with options Sawmill runs, and a literal query's terms readable. */
const checkSearch: ArgumentCheck = (args, types, named, given) => {
  const scope = checkJsonScope(args, types, named, given);
  if (scope) return scope;
  const query = args[1];
  if (query?.kind === 'null') return { message: 'SEARCH search_query cannot be NULL' };
  const analyzer = named.analyzer;
  if (analyzer !== undefined && (analyzer.kind !== 'string' || !ANALYZERS.has(analyzer.value))) {
    return { message: "analyzer must be one of 'LOG_ANALYZER', 'NO_OP_ANALYZER' and 'PATTERN_ANALYZER'" };
  }
  const name = analyzer?.kind === 'string' ? analyzer.value : 'LOG_ANALYZER';
  const options = named.analyzer_options;
  if (options !== undefined && options.kind !== 'string') return { message: 'SEARCH needs analyzer_options as a string literal' };
  if (name === 'NO_OP_ANALYZER') return options === undefined ? undefined : { message: 'NO_OP_ANALYZER takes no analyzer_options' };
  const parsed = textAnalyzer(name as 'LOG_ANALYZER' | 'PATTERN_ANALYZER', options?.value);
  if ('error' in parsed) return { message: parsed.error };
  // A query parameter is read when the query runs.
  if (query?.kind !== 'string') return undefined;
  const terms = queryTerms(parsed, query.value);
  return 'error' in terms ? { message: terms.error } : undefined;
};

export const SEARCH_FUNCTIONS = {
  search: scalar('search', ['(ANY, CONST STRING; json_scope => STRING, analyzer => STRING, analyzer_options => STRING) -> BOOL'], { check: checkSearch }),
} satisfies Catalog;
