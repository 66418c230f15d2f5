/**
 * Google's ZetaSQL compliance cases (../shared/reference/zetasql/cases.json, see its README): BigQuery's
 * reference semantics, SQL in and the rows an endpoint should return out. Each case runs the way an
 * endpoint runs it: the BigQuery translator, then the warehouse's queryJson (the text an endpoint
 * replies with). zetasql-duckdb.test.ts and zetasql-clickhouse.test.ts run them on each engine.
 *
 * A case ends as one of:
 * - pass: the rows BigQuery gives (floats within a relative tolerance, anonymous columns by
 *   position, rows as a multiset unless the query fixes the order, a NULL ARRAY column as [] as
 *   BigQuery's query results give it), or any 4xx where BigQuery raises an error;
 * - refused: the translator's named refusal ("… is not supported") of a construct it does not map;
 * - wrong: anything else (other rows, an engine error, a 5xx, an error where BigQuery has rows).
 */

import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { AppError } from '../../src/errors.ts';
import { translate, type SqlDialect } from '../../src/sql/index.ts';
import { sharedPath, skipUnlessShared } from '../support/shared.ts';

const CASES = 'reference/zetasql/cases.json';

/** Why the cases cannot run here (no ../shared beside the checkout), or false. */
export const skipWithoutCases = (): string | false => skipUnlessShared(CASES, 'the ZetaSQL compliance cases');

type ColumnType = string | { array: ColumnType } | { struct: unknown };

export interface ZetaSqlCase {
  id: string;
  category: string;
  sql: string;
  expect:
    | { error: unknown }
    | {
        columns: Array<{ name: string; named: boolean; type: ColumnType }>;
        rows: Array<Record<string, unknown>>;
        ordered: boolean;
        unorderedNested: boolean;
      };
}

export function loadCases(): ZetaSqlCase[] {
  return (JSON.parse(readFileSync(sharedPath(CASES), 'utf8')) as { cases: ZetaSqlCase[] }).cases;
}

export type Outcome = 'pass' | 'refused' | 'wrong';

export interface CaseResult {
  id: string;
  category: string;
  outcome: Outcome;
  /** Why it is not a pass: the error, or what differs. */
  detail?: string;
  sql?: string;
}

/** How an engine runs a query the way an endpoint does: SQL text in, the endpoint's JSON rows out. */
export interface Engine {
  dialect: SqlDialect;
  queryJson(sql: string): Promise<string>;
}

/** The translator's refusal by name of what it does not map (src/sql/lower.ts and the emitters). */
const REFUSAL = /is not supported|are not supported|is not BigQuery syntax|not supported here/;

export async function runCase(engine: Engine, testCase: ZetaSqlCase): Promise<CaseResult> {
  const base = { id: testCase.id, category: testCase.category };
  let sql: string | undefined;
  let body: string;
  try {
    sql = translate(testCase.sql, engine.dialect, { resolveTable: () => undefined }).sql;
    body = await engine.queryJson(sql);
  } catch (error) {
    const status = error instanceof AppError ? error.status : 500;
    const message = error instanceof Error ? error.message : String(error);
    if ('error' in testCase.expect) {
      return status >= 400 && status < 500 ? { ...base, outcome: 'pass' } : { ...base, outcome: 'wrong', detail: `status ${status}: ${message}`, sql };
    }
    const refused = sql === undefined && error instanceof AppError && error.code === 'invalid_sql' && REFUSAL.test(message);
    return { ...base, outcome: refused ? 'refused' : 'wrong', detail: `status ${status}: ${message}`, sql };
  }
  if ('error' in testCase.expect) return { ...base, outcome: 'wrong', detail: `BigQuery raises an error; got ${clip(body)}`, sql };
  const difference = differenceFrom(testCase.expect, JSON.parse(body) as Array<Record<string, unknown>>);
  return difference ? { ...base, outcome: 'wrong', detail: difference, sql } : { ...base, outcome: 'pass' };
}

const clip = (text: string) => (text.length > 300 ? `${text.slice(0, 300)}…` : text);

type Expectation = Exclude<ZetaSqlCase['expect'], { error: unknown }>;

/** Undefined when the rows are BigQuery's, else what differs. */
function differenceFrom(expected: Expectation, actual: Array<Record<string, unknown>>): string | undefined {
  const got = () => `; got ${clip(JSON.stringify(actual))}`;
  if (actual.length !== expected.rows.length) return `${expected.rows.length} rows expected, ${actual.length} returned${got()}`;
  if (actual.length === 0) return undefined;
  const names = Object.keys(actual[0]!);
  if (names.length !== expected.columns.length) return `columns ${expected.columns.map((c) => c.name).join(', ')} expected, got ${names.join(', ')}`;
  for (const [index, column] of expected.columns.entries()) {
    if (column.named && names[index] !== column.name) return `column ${index + 1} should be named ${column.name}, got ${names[index]}`;
  }
  // Both sides by position: the expected row's values in column order against the actual row's.
  const positional = (row: Record<string, unknown>, keys: string[]) => keys.map((key) => row[key]);
  // ZetaSQL's reference returns a NULL ARRAY; BigQuery's query results turn it into [] (and so does Sawmill).
  const asResult = (row: unknown[]) => row.map((value, index) => (value === null && isArrayType(expected.columns[index]?.type) ? [] : value));
  const expectedRows = expected.rows.map((row) => asResult(positional(row, expected.columns.map((c) => c.name))));
  const actualRows = actual.map((row) => positional(row, names));
  const nested = expected.unorderedNested;
  if (expected.ordered) {
    const index = expectedRows.findIndex((row, i) => !sameValue(actualRows[i], row, nested));
    return index < 0 ? undefined : `row ${index + 1} should be ${JSON.stringify(expected.rows[index])}${got()}`;
  }
  const missing = unmatched(expectedRows, actualRows, nested);
  return missing === undefined ? undefined : `no returned row matches ${JSON.stringify(expected.rows[missing])}${got()}`;
}

/** The index of an expected item no actual item matches, pairing each actual item once. */
function unmatched(expected: unknown[], actual: unknown[], nested: boolean): number | undefined {
  const used = new Set<number>();
  for (const [index, item] of expected.entries()) {
    const match = actual.findIndex((candidate, i) => !used.has(i) && sameValue(candidate, item, nested));
    if (match < 0) return index;
    used.add(match);
  }
  return undefined;
}

const isArrayType = (type: ColumnType | undefined) => typeof type === 'object' && type !== null && 'array' in type;

function sameValue(actual: unknown, expected: unknown, unorderedNested: boolean): boolean {
  if (typeof actual === 'number' && typeof expected === 'number') {
    return actual === expected || Math.abs(actual - expected) <= 1e-9 * Math.max(Math.abs(actual), Math.abs(expected)) || Math.abs(actual - expected) < 1e-12;
  }
  if (Array.isArray(actual) && Array.isArray(expected)) {
    if (actual.length !== expected.length) return false;
    if (unorderedNested) return unmatched(expected, actual, true) === undefined;
    return actual.every((item, index) => sameValue(item, expected[index], false));
  }
  if (actual && expected && typeof actual === 'object' && typeof expected === 'object') {
    const actualValues = Object.values(actual);
    const expectedValues = Object.values(expected);
    // Struct fields by position: BigQuery's anonymous fields have no name to compare.
    return actualValues.length === expectedValues.length && expectedValues.every((value, index) => sameValue(actualValues[index], value, unorderedNested));
  }
  return actual === expected;
}

export interface Tally {
  cases: number;
  pass: number;
  refused: number;
  wrong: number;
}

export function tally(results: CaseResult[]): { total: Tally; byCategory: Map<string, Tally> } {
  const empty = (): Tally => ({ cases: 0, pass: 0, refused: 0, wrong: 0 });
  const total = empty();
  const byCategory = new Map<string, Tally>();
  for (const result of results) {
    const category = byCategory.get(result.category) ?? empty();
    byCategory.set(result.category, category);
    for (const counts of [total, category]) {
      counts.cases++;
      counts[result.outcome]++;
    }
  }
  return { total, byCategory };
}

/** The figures as a table, per category then in total. */
export function formatTally(engine: string, results: CaseResult[]): string {
  const { total, byCategory } = tally(results);
  const line = (name: string, t: Tally) =>
    `${name.padEnd(12)} ${String(t.cases).padStart(5)} ${String(t.pass).padStart(5)} ${String(t.refused).padStart(8)} ${String(t.wrong).padStart(6)}  ${((100 * t.pass) / t.cases).toFixed(1)}%`;
  return [
    `ZetaSQL cases on ${engine}:`,
    `${'category'.padEnd(12)} ${'cases'.padStart(5)} ${'pass'.padStart(5)} ${'refused'.padStart(8)} ${'wrong'.padStart(6)}`,
    ...[...byCategory].sort(([a], [b]) => a.localeCompare(b)).map(([name, t]) => line(name, t)),
    line('total', total),
  ].join('\n');
}

/** With ZETASQL_REPORT=<file>, every result is written there (for grouping failures by cause). */
export function writeReport(results: CaseResult[]): void {
  const file = process.env.ZETASQL_REPORT;
  if (file) writeFileSync(file, JSON.stringify(results, null, 1));
}

/**
 * The ratchet of each engine's test: at least `passing` cases pass, every case that goes wrong is
 * in `knownWrong` with its cause, and a listed case that no longer goes wrong leaves the list.
 */
export function assertRatchet(results: CaseResult[], passing: number, knownWrong: Record<string, string>): void {
  const unlisted = results.filter((result) => result.outcome === 'wrong' && !(result.id in knownWrong));
  assert.deepEqual(unlisted.map((result) => `${result.id}: ${result.detail}`), [], 'cases that went wrong and are not in KNOWN_WRONG');
  const fixed = results.filter((result) => result.outcome !== 'wrong' && result.id in knownWrong).map((result) => result.id);
  assert.deepEqual(fixed, [], 'cases in KNOWN_WRONG that no longer go wrong: remove them from the list');
  assert.ok(tally(results).total.pass >= passing, `${tally(results).total.pass} cases pass, fewer than the ${passing} that passed before`);
}
