/**
 * The translation corpus (test/sql/corpus/*.sqltest), run as node:test cases against one engine.
 * corpus.test.ts runs it on DuckDB, corpus-clickhouse.test.ts on ClickHouse (chdb): the same
 * cases and the same expected rows. Case format (see corpus/README.md):
 *
 *   === case name
 *   params: {"project": "default"}      (optional; JSON, values strings or null)
 *   unordered                          (optional; compare rows as a multiset)
 *   --- sql
 *   <BigQuery SQL>
 *   --- rows                           (first line: column names; then one JSON array per row)
 *   ["a", "b"]
 *   [1, "x"]
 *   --- error                          (instead of rows: a substring of the error message)
 *   is not supported
 *   --- rows clickhouse                (optional: what ClickHouse returns where it must differ;
 *   --- error clickhouse                or the error it raises instead)
 */

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';

const CORPUS = join(import.meta.dirname, 'corpus');

export type Engine = 'duckdb' | 'clickhouse';

export interface Case {
  file: string;
  name: string;
  params: Record<string, string | null>;
  unordered: boolean;
  sql: string;
  columns?: string[];
  rows?: unknown[][];
  error?: string;
  /** What one engine returns where its storage must differ (see corpus/README.md). */
  engineRows: Partial<Record<Engine, { columns: string[]; rows: unknown[][] } | { error: string }>>;
}

/** How one engine runs a case: translate, bind every parameter the SQL uses, return plain rows. */
export interface CorpusRunner {
  engine: Engine;
  run(testCase: Case): Promise<{ columns: string[]; rows: unknown[][]; sql: string }>;
  close(): Promise<void> | void;
}

function parseRows(body: string): { columns: string[]; rows: unknown[][] } {
  const [columns, ...rows] = body
    .split('\n')
    .filter((line) => line.trim() && !line.trim().startsWith('#'))
    .map((line) => JSON.parse(line) as unknown[]);
  return { columns: (columns ?? []) as string[], rows };
}

export function parseCorpus(file: string, text: string): Case[] {
  const cases: Case[] = [];
  for (const chunk of text.split(/^=== /m).slice(1)) {
    const [header = '', ...sectionTexts] = chunk.split(/^--- /m);
    const [name = '', ...options] = header.split('\n').map((line) => line.trim());
    const current: Case = { file, name, params: {}, unordered: false, sql: '', engineRows: {} };
    for (const option of options.filter((line) => line && !line.startsWith('#'))) {
      if (option.startsWith('params:')) current.params = JSON.parse(option.slice('params:'.length)) as Case['params'];
      else if (option === 'unordered') current.unordered = true;
      else throw new Error(`${file}: ${name}: unknown option ${option}`);
    }
    for (const section of sectionTexts) {
      const [kind = '', ...lines] = section.split('\n');
      const body = lines.join('\n').trim();
      const [sectionName, engine] = kind.trim().split(/\s+/);
      if (sectionName === 'sql') current.sql = body;
      else if (sectionName === 'error' && engine === undefined) current.error = body;
      else if (sectionName === 'rows' && engine === undefined) Object.assign(current, parseRows(body));
      else if (sectionName === 'rows' && (engine === 'duckdb' || engine === 'clickhouse')) current.engineRows[engine] = parseRows(body);
      else if (sectionName === 'error' && (engine === 'duckdb' || engine === 'clickhouse')) current.engineRows[engine] = { error: body };
      else throw new Error(`${file}: ${name}: unknown section ${kind}`);
    }
    if (!current.sql || (current.rows === undefined) === (current.error === undefined)) {
      throw new Error(`${file}: ${name}: a case needs --- sql and exactly one of --- rows / --- error`);
    }
    cases.push(current);
  }
  return cases;
}

function sameValue(actual: unknown, expected: unknown): boolean {
  if (typeof actual === 'number' && typeof expected === 'number') {
    return Math.abs(actual - expected) <= 1e-9 * Math.max(1, Math.abs(expected));
  }
  if (Array.isArray(actual) && Array.isArray(expected)) {
    return actual.length === expected.length && actual.every((item, index) => sameValue(item, expected[index]));
  }
  if (actual && expected && typeof actual === 'object' && typeof expected === 'object') {
    const keys = Object.keys(expected);
    return keys.length === Object.keys(actual).length && keys.every((key) => sameValue((actual as Record<string, unknown>)[key], (expected as Record<string, unknown>)[key]));
  }
  return actual === expected;
}

const sortKey = (row: unknown[]) => JSON.stringify(row);

/** Register every corpus case as a test against the engine `open` starts. */
export function defineCorpus(open: () => Promise<CorpusRunner>): void {
  let runner: CorpusRunner;
  before(async () => {
    runner = await open();
  });
  after(() => runner.close());

  for (const file of readdirSync(CORPUS).filter((name) => name.endsWith('.sqltest')).sort()) {
    describe(file, () => {
      for (const testCase of parseCorpus(file, readFileSync(join(CORPUS, file), 'utf8'))) {
        test(testCase.name, async () => {
          const override = testCase.engineRows[runner.engine];
          const expectedError = override ? ('error' in override ? override.error : undefined) : testCase.error;
          if (expectedError !== undefined) {
            await assert.rejects(runner.run(testCase), (error: Error) => {
              assert.ok(
                error.message.toLowerCase().includes(expectedError.toLowerCase()),
                `expected an error containing "${expectedError}", got: ${error.message}`,
              );
              return true;
            });
            return;
          }
          const { columns, rows, sql } = await runner.run(testCase);
          const context = `\ngenerated SQL: ${sql}\nactual rows: ${JSON.stringify(rows)}`;
          const expectation = override && 'rows' in override ? override : { columns: testCase.columns ?? [], rows: testCase.rows ?? [] };
          assert.deepEqual(columns, expectation.columns, `column names differ${context}`);
          const expected = expectation.rows;
          const [actualRows, expectedRows] = testCase.unordered
            ? [[...rows].sort((a, b) => sortKey(a).localeCompare(sortKey(b))), [...expected].sort((a, b) => sortKey(a).localeCompare(sortKey(b)))]
            : [rows, expected];
          assert.equal(actualRows.length, expectedRows.length, `row count differs${context}`);
          actualRows.forEach((row, index) => {
            assert.ok(sameValue(row, expectedRows[index]), `row ${index} differs: expected ${JSON.stringify(expectedRows[index])}${context}`);
          });
        });
      }
    });
  }
}
