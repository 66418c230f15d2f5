/**
 * Runs every translation case in test/sql/corpus/*.sqltest against a real DuckDB loaded with the
 * fixture sources. Case format (see corpus/README.md):
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
 */

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { translate } from '../../src/sql/index.ts';
import { duckdbDialect } from '../../src/warehouse/duckdb/sql-generator.ts';
import { type Fixture, openFixture, plainValue } from './fixtures.ts';

const CORPUS = join(import.meta.dirname, 'corpus');

interface Case {
  file: string;
  name: string;
  params: Record<string, string | null>;
  unordered: boolean;
  sql: string;
  columns?: string[];
  rows?: unknown[][];
  error?: string;
}

export function parseCorpus(file: string, text: string): Case[] {
  const cases: Case[] = [];
  for (const chunk of text.split(/^=== /m).slice(1)) {
    const [header = '', ...sectionTexts] = chunk.split(/^--- /m);
    const [name = '', ...options] = header.split('\n').map((line) => line.trim());
    const current: Case = { file, name, params: {}, unordered: false, sql: '' };
    for (const option of options.filter((line) => line && !line.startsWith('#'))) {
      if (option.startsWith('params:')) current.params = JSON.parse(option.slice('params:'.length)) as Case['params'];
      else if (option === 'unordered') current.unordered = true;
      else throw new Error(`${file}: ${name}: unknown option ${option}`);
    }
    for (const section of sectionTexts) {
      const [kind = '', ...lines] = section.split('\n');
      const body = lines.join('\n').trim();
      if (kind.trim() === 'sql') current.sql = body;
      else if (kind.trim() === 'error') current.error = body;
      else if (kind.trim() === 'rows') {
        const [columns, ...rows] = body
          .split('\n')
          .filter((line) => line.trim() && !line.trim().startsWith('#'))
          .map((line) => JSON.parse(line) as unknown[]);
        current.columns = (columns ?? []) as string[];
        current.rows = rows;
      } else throw new Error(`${file}: ${name}: unknown section ${kind}`);
    }
    if (!current.sql || (current.rows === undefined) === (current.error === undefined)) {
      throw new Error(`${file}: ${name}: a case needs --- sql and exactly one of --- rows / --- error`);
    }
    cases.push(current);
  }
  return cases;
}

/**
 * Run a case exactly as the service will: translate, then prepare and bind every parameter the
 * translation uses, as a string or NULL.
 */
async function run(fixture: Fixture, testCase: Case): Promise<{ columns: string[]; rows: unknown[][]; sql: string }> {
  const translation = translate(testCase.sql, duckdbDialect, fixture);
  const values: Record<string, string | null> = {};
  for (const name of translation.parameters) values[name] = testCase.params[name] ?? null;
  const prepared = await fixture.connection.prepare(translation.sql);
  prepared.bind(values);
  const reader = await prepared.runAndReadAll();
  return { columns: reader.columnNames(), rows: reader.getRows().map((row) => row.map(plainValue)), sql: translation.sql };
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

let fixture: Fixture;
before(async () => {
  fixture = await openFixture();
});
after(() => fixture.close());

for (const file of readdirSync(CORPUS).filter((name) => name.endsWith('.sqltest')).sort()) {
  describe(file, () => {
    for (const testCase of parseCorpus(file, readFileSync(join(CORPUS, file), 'utf8'))) {
      test(testCase.name, async () => {
        if (testCase.error !== undefined) {
          await assert.rejects(run(fixture, testCase), (error: Error) => {
            assert.ok(
              error.message.toLowerCase().includes((testCase.error ?? '').toLowerCase()),
              `expected an error containing "${testCase.error}", got: ${error.message}`,
            );
            return true;
          });
          return;
        }
        const { columns, rows, sql } = await run(fixture, testCase);
        const context = `\ngenerated SQL: ${sql}\nactual rows: ${JSON.stringify(rows)}`;
        assert.deepEqual(columns, testCase.columns, `column names differ${context}`);
        const expected = testCase.rows ?? [];
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
