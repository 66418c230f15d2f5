/**
 * Runs BigQuery's documented examples (extract.ts) the way an endpoint runs a query, the
 * translator then the warehouse's queryJson, and compares the reply with the printed rows
 * (compare.ts). See cli.ts for how the count is made and what is skipped.
 */

import { AppError } from '../../src/errors.ts';
import { translate, type SqlDialect } from '../../src/sql/index.ts';
import { compareRows, parseWire, type Wire } from './compare.ts';
import type { Example, SkipReason } from './extract.ts';
import { QueryText, tokenize } from './sql-text.ts';

// ---- pages and families --------------------------------------------------------------------------

interface PageInfo {
  family: string;
  /** Why the whole page is left out (a family issue 28 leaves out of scope). */
  outOfScope?: string;
  /** Sections (function headings) of the page that BigQuery does not have. */
  notInBigQuery?: string[];
}

/**
 * The function pages of ZetaSQL's reference that BigQuery's reference shares, by file name. Pages
 * not listed (syntax, concepts, operators, the all-functions concatenation) are not read.
 * `notInBigQuery` lists ZetaSQL functions missing from BigQuery's function lists (checked against
 * BigQuery's pages of the same name): their examples are skipped, not counted.
 */
export const PAGES: Record<string, PageInfo> = {
  aggregate_functions: { family: 'aggregate' },
  approximate_aggregate_functions: { family: 'approximate aggregate' },
  array_functions: {
    family: 'array',
    notInBigQuery: ['ARRAY_AVG', 'ARRAY_FILTER', 'ARRAY_INCLUDES', 'ARRAY_INCLUDES_ALL', 'ARRAY_INCLUDES_ANY', 'ARRAY_IS_DISTINCT', 'ARRAY_MAX', 'ARRAY_MIN', 'ARRAY_SUM', 'ARRAY_TRANSFORM', 'ARRAY_ZIP', 'FLATTEN'],
  },
  bit_functions: { family: 'bit', notInBigQuery: ['BIT_CAST_TO_INT32', 'BIT_CAST_TO_INT64', 'BIT_CAST_TO_UINT32', 'BIT_CAST_TO_UINT64'] },
  conditional_expressions: { family: 'conditional' },
  conversion_functions: { family: 'conversion', notInBigQuery: ['BIT_CAST_TO_INT32', 'BIT_CAST_TO_INT64', 'BIT_CAST_TO_UINT32', 'BIT_CAST_TO_UINT64'] },
  'format-elements': { family: 'format elements' },
  date_functions: { family: 'date' },
  datetime_functions: { family: 'datetime' },
  time_functions: { family: 'time' },
  timestamp_functions: { family: 'timestamp', notInBigQuery: ['TIMESTAMP_FROM_UNIX_MICROS', 'TIMESTAMP_FROM_UNIX_MILLIS', 'TIMESTAMP_FROM_UNIX_SECONDS'] },
  'time-series-functions': { family: 'time series' },
  interval_functions: { family: 'interval' },
  debugging_functions: { family: 'debugging', notInBigQuery: ['IFERROR', 'ISERROR', 'NULLIFERROR'] },
  hash_functions: { family: 'hash', notInBigQuery: ['HIGHWAY_FINGERPRINT128'] },
  json_functions: {
    family: 'JSON',
    notInBigQuery: [
      'BOOL_ARRAY', 'DOUBLE_ARRAY', 'FLOAT', 'FLOAT_ARRAY', 'INT32', 'INT32_ARRAY', 'INT64_ARRAY', 'JSON_CONTAINS', 'LAX_BOOL_ARRAY', 'LAX_DOUBLE_ARRAY',
      'LAX_FLOAT', 'LAX_FLOAT_ARRAY', 'LAX_INT32', 'LAX_INT32_ARRAY', 'LAX_INT64_ARRAY', 'LAX_STRING_ARRAY', 'LAX_UINT32', 'LAX_UINT32_ARRAY',
      'LAX_UINT64', 'LAX_UINT64_ARRAY', 'SAFE_TO_JSON', 'STRING_ARRAY', 'UINT32', 'UINT32_ARRAY', 'UINT64', 'UINT64_ARRAY',
    ],
  },
  mathematical_functions: { family: 'mathematical', notInBigQuery: ['PI', 'PI_BIGNUMERIC', 'PI_NUMERIC'] },
  navigation_functions: { family: 'navigation' },
  net_functions: { family: 'net', notInBigQuery: ['NET.FORMAT_IP', 'NET.FORMAT_PACKED_IP', 'NET.PARSE_IP', 'NET.PARSE_PACKED_IP', 'NET.IP_IN_NET', 'NET.MAKE_NET'] },
  numbering_functions: { family: 'numbering', notInBigQuery: ['IS_FIRST', 'IS_LAST'] },
  statistical_aggregate_functions: { family: 'statistical' },
  string_functions: { family: 'string', notInBigQuery: ['REGEXP_EXTRACT_GROUPS', 'REGEXP_MATCH'] },
  'window-function-calls': { family: 'window' },
  // Out of scope in issue 28: read, counted as skipped.
  'aggregate-dp-functions': { family: 'differential privacy', outOfScope: 'differential privacy' },
  geography_functions: { family: 'geography', outOfScope: 'geography' },
  hll_functions: { family: 'HLL', outOfScope: 'HyperLogLog sketches' },
  'range-functions': { family: 'range', outOfScope: 'RANGE type' },
  protocol_buffer_functions: { family: 'protocol buffer', outOfScope: 'protocol buffers' },
  'graph-gql-functions': { family: 'graph', outOfScope: 'graph queries' },
  security_functions: { family: 'security', outOfScope: 'SESSION_USER (the caller)' },
};

/** Called functions (prefix match) of families issue 28 leaves out. */
const OUT_OF_SCOPE_CALLS: Array<[RegExp, string]> = [
  [/^ST_/, 'geography'],
  [/^(KLL_QUANTILES|KLL_)/, 'KLL sketches'],
  [/^HLL_COUNT\./, 'HyperLogLog sketches'],
  [/^(AEAD|KEYS|DETERMINISTIC_)/, 'AEAD encryption'],
  [/^ML\./, 'ML'],
  [/^(RANGE|RANGE_\w+|GENERATE_RANGE_ARRAY)$/, 'RANGE type'],
  [/^COLLATE$/, 'collation'],
  [/^(ANON_|DIFFERENTIAL_PRIVACY)/, 'differential privacy'],
  [/^(NEW|PROTO_|FILTER_FIELDS|REPLACE_FIELDS|FROM_PROTO|TO_PROTO|ENUM_VALUE_DESCRIPTOR_PROTO)/, 'protocol buffers'],
];

/** ZetaSQL types and date parts BigQuery does not have. */
const NOT_BIGQUERY_WORDS = new Set(['INT32', 'UINT32', 'UINT64', 'PROTO', 'ENUM', 'NANOSECOND', 'PICOSECOND', 'FLOAT_ARRAY', 'DOUBLE_ARRAY']);
const NONDETERMINISTIC = new Set(['CURRENT_DATE', 'CURRENT_DATETIME', 'CURRENT_TIME', 'CURRENT_TIMESTAMP', 'GENERATE_UUID', 'RAND', 'SESSION_USER']);

/** ZetaSQL's `DOUBLE` is BigQuery's `FLOAT64` (the same section of BigQuery's pages). */
function bigQuerySpelling(sql: string): string {
  return tokenize(sql)
    .map((t) => (t.kind === 'ident' && /^(LAX_)?DOUBLE$/i.test(t.text) ? t.text.replace(/DOUBLE$/i, 'FLOAT64') : t.text))
    .join('');
}

/** The example with the reason it is not run, when there is one. */
export function classify(example: Example): Example {
  if (example.skip) return example;
  const page = PAGES[example.page];
  if (page?.outOfScope) return { ...example, skip: 'out of scope', skipDetail: page.outOfScope };
  const notInBigQuery = new Set(Object.values(PAGES).flatMap((p) => p.notInBigQuery ?? []));
  if (notInBigQuery.has(example.functionName.toUpperCase())) return { ...example, skip: 'not in BigQuery', skipDetail: example.functionName };
  const query = new QueryText(example.sql);
  const calls = query.functionsCalled();
  for (const call of calls) {
    const family = OUT_OF_SCOPE_CALLS.find(([pattern]) => pattern.test(call));
    if (family) return { ...example, skip: 'out of scope', skipDetail: `${call} (${family[1]})` };
    if (notInBigQuery.has(call)) return { ...example, skip: 'not in BigQuery', skipDetail: call };
  }
  const words = query.words();
  const zetaOnly = [...words].find((word) => NOT_BIGQUERY_WORDS.has(word));
  if (zetaOnly) return { ...example, skip: 'not in BigQuery', skipDetail: zetaOnly };
  if (/\bRANGE\s*(<|')/i.test(example.sql) && !/\bRANGE\s+BETWEEN/i.test(example.sql)) return { ...example, skip: 'out of scope', skipDetail: 'RANGE type' };
  const random = [...words].find((word) => NONDETERMINISTIC.has(word)) ?? query.limitsUnordered();
  if (random) return { ...example, skip: 'nondeterministic', skipDetail: random };
  return { ...example, sql: bigQuerySpelling(example.sql) };
}

// ---- running ---------------------------------------------------------------------------------------

/** How an engine runs a query the way an endpoint does: SQL text in, the endpoint's JSON rows out. */
export interface Engine {
  name: string;
  dialect: SqlDialect;
  queryJson(sql: string): Promise<string>;
}

export type Outcome = 'pass' | 'refused' | 'wrong' | 'skipped' | 'zone';

export interface Result {
  id: string;
  page: string;
  family: string;
  functionName: string;
  line: number;
  outcome: Outcome;
  /** Why not a pass: the refusal, the engine's error, or what differs; for skipped, the reason. */
  reason?: string;
  skip?: SkipReason;
  /** For `zone`: how the example fares when compared anyway (UTC, against the printed instants). */
  zoneOutcome?: 'pass' | 'refused' | 'wrong';
  sql: string;
  engineSql?: string;
}

export async function runExample(engine: Engine, raw: Example): Promise<Result> {
  const example = classify(raw);
  const base = { id: example.id, page: example.page, family: PAGES[example.page]?.family ?? example.page, functionName: example.functionName, line: example.line, sql: example.sql };
  if (example.skip) return { ...base, outcome: 'skipped', skip: example.skip, reason: example.skipDetail ? `${example.skip}: ${example.skipDetail}` : example.skip };
  const zone = zoneDependence(example);
  const compared = await compareOnEngine(engine, example);
  if (compared.unreadable) return { ...base, outcome: 'skipped', skip: 'unreadable printed table', reason: compared.reason, engineSql: compared.engineSql };
  if (zone) return { ...base, outcome: 'zone', zoneOutcome: compared.outcome, reason: `${zone}${compared.reason ? `; ${compared.reason}` : ''}`, engineSql: compared.engineSql };
  return { ...base, outcome: compared.outcome, reason: compared.reason, engineSql: compared.engineSql };
}

/** Why the example's result may depend on the default time zone, if it may. */
function zoneDependence(example: Example): string | undefined {
  if (/Results depend upon where this query was executed/i.test(example.docSql)) return 'the page says the result depends on where the query runs';
  return new QueryText(example.sql).defaultZoneUse();
}

async function compareOnEngine(engine: Engine, example: Example): Promise<{ outcome: 'pass' | 'refused' | 'wrong'; reason?: string; engineSql?: string; unreadable?: boolean }> {
  let engineSql: string | undefined;
  let reply: Wire;
  try {
    engineSql = translate(example.sql, engine.dialect, { resolveTable: () => undefined }).sql;
    reply = parseWire(await engine.queryJson(engineSql));
  } catch (error) {
    const status = error instanceof AppError ? error.status : 500;
    const message = oneLine(error instanceof Error ? error.message : String(error));
    // Refused: the translator says no at save, as an endpoint would ("… is not supported", "No
    // matching signature …", a syntax it does not parse). Anything later is wrong.
    const refused = engineSql === undefined && error instanceof AppError && error.code === 'invalid_sql';
    return { outcome: refused ? 'refused' : 'wrong', reason: refused ? message : `status ${status}: ${message}`, engineSql };
  }
  const query = new QueryText(example.sql);
  const mismatch = compareRows(example.table!, reply, query.columnHints(), query.ordersRows());
  if (!mismatch) return { outcome: 'pass', engineSql };
  return { outcome: 'wrong', reason: oneLine(mismatch.reason), engineSql, unreadable: mismatch.unreadable };
}

const oneLine = (text: string) => {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 400 ? `${line.slice(0, 400)}…` : line;
};

// ---- figures -----------------------------------------------------------------------------------------

export interface Tally {
  examples: number;
  pass: number;
  refused: number;
  wrong: number;
  zone: number;
  skipped: Partial<Record<SkipReason, number>>;
}

const emptyTally = (): Tally => ({ examples: 0, pass: 0, refused: 0, wrong: 0, zone: 0, skipped: {} });

/** The examples that count: passed, refused or wrong (not skipped, not time-zone dependent). */
export const counted = (t: Tally) => t.pass + t.refused + t.wrong;
const passRate = (t: Tally) => (counted(t) === 0 ? 0 : t.pass / counted(t));

export function tally(results: Result[]): { total: Tally; inScope: Tally; byFamily: Map<string, Tally> } {
  const total = emptyTally();
  const inScope = emptyTally();
  const byFamily = new Map<string, Tally>();
  for (const result of results) {
    const family = byFamily.get(result.family) ?? emptyTally();
    byFamily.set(result.family, family);
    const scoped = !PAGES[result.page]?.outOfScope;
    for (const counts of scoped ? [total, inScope, family] : [total, family]) {
      counts.examples++;
      if (result.outcome === 'skipped') counts.skipped[result.skip!] = (counts.skipped[result.skip!] ?? 0) + 1;
      else counts[result.outcome]++;
    }
  }
  return { total, inScope, byFamily };
}

/** The figures as a table, one line a family, then the families in scope together. */
export function formatTally(engine: string, results: Result[]): string {
  const { inScope, byFamily } = tally(results);
  const skippedCount = (t: Tally) => Object.values(t.skipped).reduce((sum, n) => sum + (n ?? 0), 0);
  const line = (name: string, t: Tally) =>
    [
      name.padEnd(36),
      String(t.examples).padStart(8),
      String(counted(t)).padStart(7),
      String(t.pass).padStart(5),
      String(t.refused).padStart(7),
      String(t.wrong).padStart(5),
      String(t.zone).padStart(5),
      String(skippedCount(t)).padStart(7),
      counted(t) ? `${(100 * passRate(t)).toFixed(1)}%`.padStart(7) : '      -',
    ].join(' ');
  const families = [...byFamily].sort(([a], [b]) => a.localeCompare(b));
  return [
    `BigQuery's documented examples on ${engine}:`,
    ['family'.padEnd(36), 'examples'.padStart(8), 'counted'.padStart(7), 'pass'.padStart(5), 'refused'.padStart(7), 'wrong'.padStart(5), 'zone'.padStart(5), 'skipped'.padStart(7), 'pass %'.padStart(7)].join(' '),
    ...families.filter(([, t]) => counted(t) > 0 || t.zone > 0).map(([name, t]) => line(name, t)),
    line('in scope, together', inScope),
    ...families.filter(([, t]) => counted(t) === 0 && t.zone === 0).map(([name, t]) => line(`${name} (none counted)`, t)),
    `skipped: ${Object.entries(inScope.skipped).map(([reason, n]) => `${reason} ${n}`).join(', ')}`,
  ].join('\n');
}
