/**
 * The function catalog: every BigQuery function Sawmill knows, once, as data (kind, family,
 * signatures, clauses), after ZetaSQL's built-in function catalog. The analyzer resolves each
 * call against it (resolve.ts); each engine renders every entry (src/warehouse/<engine>/functions/,
 * a missing rendering is a compile error); the docs table is generated from it (docs.ts).
 * Anything not listed is refused by name, so no engine function (file readers, settings,
 * extensions) can be reached by writing its name in a query.
 *
 * Special forms, which have their own syntax and are lowered by lower.ts rather than resolved
 * here, are listed in SPECIAL_FORMS for the docs.
 */

import type { Catalog, FunctionEntry } from './entry.ts';
import { AGGREGATE_FUNCTIONS } from './families/aggregate.ts';
import { APPROXIMATE_AGGREGATE_FUNCTIONS } from './families/approximate.ts';
import { ARRAY_FUNCTIONS } from './families/array.ts';
import { BIT_FUNCTIONS } from './families/bit.ts';
import { CONDITIONAL_FUNCTIONS } from './families/conditional.ts';
import { CONVERSION_FUNCTIONS } from './families/conversion.ts';
import { DATE_FUNCTIONS } from './families/date.ts';
import { DATETIME_FUNCTIONS } from './families/datetime.ts';
import { ENCODING_FUNCTIONS } from './families/encoding.ts';
import { HASH_FUNCTIONS } from './families/hash.ts';
import { INTERNAL_FUNCTIONS } from './families/internal.ts';
import { INTERVAL_FUNCTIONS, TEMPORAL_OPERATORS } from './families/interval.ts';
import { JSON_FUNCTIONS } from './families/json.ts';
import { MATHEMATICAL_FUNCTIONS } from './families/mathematical.ts';
import { NAVIGATION_FUNCTIONS } from './families/navigation.ts';
import { NET_FUNCTIONS } from './families/net.ts';
import { NUMBERING_FUNCTIONS } from './families/numbering.ts';
import { SEARCH_FUNCTIONS } from './families/search.ts';
import { STATISTICAL_FUNCTIONS } from './families/statistical.ts';
import { STRING_FUNCTIONS } from './families/string.ts';
import { TIME_FUNCTIONS } from './families/time.ts';
import { TIME_SERIES_FUNCTIONS } from './families/time_series.ts';
import { TIMESTAMP_FUNCTIONS } from './families/timestamp.ts';
import { DEBUGGING_FUNCTIONS, UTILITY_FUNCTIONS } from './families/utility.ts';
import { ENUM_SETS } from './signature.ts';

export type { Clause, Family, FunctionEntry, FunctionKind } from './entry.ts';
export type { Signature, TypePattern } from './signature.ts';
export { describeSignature } from './signature.ts';
export { resolveCall, type CallArgument, type ResolvedCall } from './resolve.ts';
export { argumentType } from './coercion.ts';

/** The functions BigQuery SQL may name, by lower-case name (`net.host` for NET.HOST). */
export const BIGQUERY_FUNCTIONS = {
  ...AGGREGATE_FUNCTIONS,
  ...APPROXIMATE_AGGREGATE_FUNCTIONS,
  ...ARRAY_FUNCTIONS,
  ...BIT_FUNCTIONS,
  ...CONDITIONAL_FUNCTIONS,
  ...CONVERSION_FUNCTIONS,
  ...DATE_FUNCTIONS,
  ...DATETIME_FUNCTIONS,
  ...DEBUGGING_FUNCTIONS,
  ...ENCODING_FUNCTIONS,
  ...HASH_FUNCTIONS,
  ...INTERVAL_FUNCTIONS,
  ...JSON_FUNCTIONS,
  ...MATHEMATICAL_FUNCTIONS,
  ...NAVIGATION_FUNCTIONS,
  ...NET_FUNCTIONS,
  ...NUMBERING_FUNCTIONS,
  ...SEARCH_FUNCTIONS,
  ...STATISTICAL_FUNCTIONS,
  ...STRING_FUNCTIONS,
  ...TIME_FUNCTIONS,
  ...TIME_SERIES_FUNCTIONS,
  ...TIMESTAMP_FUNCTIONS,
  ...UTILITY_FUNCTIONS,
} satisfies Catalog;

export type BigQueryFunction = keyof typeof BIGQUERY_FUNCTIONS;
export type InternalFunction = keyof typeof INTERNAL_FUNCTIONS | keyof typeof TEMPORAL_OPERATORS;
/** Every function a tree may call: BigQuery's, and the internal ones of the ClickHouse front end. */
export type FunctionName = BigQueryFunction | InternalFunction;

const CATALOG: Record<FunctionName, FunctionEntry> = { ...BIGQUERY_FUNCTIONS, ...INTERNAL_FUNCTIONS, ...TEMPORAL_OPERATORS };

export function functionEntry(name: FunctionName): FunctionEntry {
  return CATALOG[name];
}

/** The entry BigQuery SQL reaches by `name` (any case, dotted names joined by '.'), if any. */
export function lookupFunction(name: string): { name: BigQueryFunction; entry: FunctionEntry } | undefined {
  const key = name.toLowerCase();
  if (!Object.hasOwn(BIGQUERY_FUNCTIONS, key)) return undefined;
  const known = key as BigQueryFunction;
  return { name: known, entry: BIGQUERY_FUNCTIONS[known] };
}

/** Argument positions where some signature of the entry takes a date-part keyword. */
export function datePartPositions(entry: FunctionEntry): ReadonlySet<number> {
  const positions = new Set<number>();
  for (const signature of entry.signatures) signature.params.forEach((param, index) => param.type.kind === 'part' && positions.add(index));
  return positions;
}

/** Argument positions where some signature of the entry takes a keyword of a fixed set (NORMALIZE's mode), with the set's names. */
export function enumPositions(entry: FunctionEntry): ReadonlyMap<number, ReadonlySet<string>> {
  const positions = new Map<number, ReadonlySet<string>>();
  for (const signature of entry.signatures) signature.params.forEach((param, index) => param.type.kind === 'enum' && positions.set(index, ENUM_SETS[param.type.set]));
  return positions;
}

/**
 * Families of BigQuery's reference that Sawmill leaves out, by the prefix or names of their
 * functions: a call of one is refused at save with the family named, not as an unknown function.
 */
export const OUT_OF_SCOPE_FAMILIES: ReadonlyArray<{ family: string; matches: (name: string) => boolean }> = [
  { family: 'geography functions', matches: (name) => name.startsWith('st_') || name === 's2_cellidfrompoint' || name === 's2_coveringcellids' },
  { family: 'machine learning functions', matches: (name) => name.startsWith('ml.') || name.startsWith('ai.') || name.startsWith('vector_search') },
  { family: 'AEAD and KMS encryption functions', matches: (name) => name.startsWith('aead.') || name.startsWith('keys.') || name.startsWith('deterministic_') },
  { family: 'differential privacy functions', matches: (name) => name.startsWith('dp.') || name.startsWith('anon_') },
  { family: 'federated query functions', matches: (name) => name === 'external_query' || name === 'external_object_transform' },
  { family: 'text analysis functions', matches: (name) => ['text_analyze', 'bag_of_words', 'tf_idf'].includes(name) },
  { family: 'vector search functions', matches: (name) => name === 'vector_search' || name === 'vector_index' },
  { family: 'HyperLogLog++ sketch functions', matches: (name) => name.startsWith('hll_count.') },
  { family: 'KLL quantile sketch functions', matches: (name) => name.startsWith('kll_quantiles.') },
];

export function outOfScopeFamily(name: string): string | undefined {
  const key = name.toLowerCase();
  return OUT_OF_SCOPE_FAMILIES.find((family) => family.matches(key))?.family;
}

/** Constructs with their own syntax, lowered by lower.ts into the tree (listed in the docs). */
export const SPECIAL_FORMS: ReadonlyArray<{ name: string; family: string; lowering: string }> = [
  { name: 'CAST, SAFE_CAST', family: 'conversion', lowering: 'a cast node' },
  { name: 'EXTRACT', family: 'date', lowering: 'an extract node (DATE, TIME, DATETIME parts: the functions of those names)' },
  { name: 'IF', family: 'conditional', lowering: 'CASE' },
  { name: 'APPROX_QUANTILES', family: 'approximate_aggregate', lowering: 'quantile nodes (`[OFFSET(k)]` reads one)' },
  { name: 'ARRAY(subquery)', family: 'array', lowering: 'an array subquery' },
];
