/**
 * How many of BigQuery's documented function examples give BigQuery's printed result, per
 * function family and per engine (issue 28's measure).
 *
 *   npm run doc-examples -- --docs <zetasql checkout or its docs/ folder> [--ref <git rev>]
 *                           [--engine duckdb|clickhouse|both] [--out <dir>] [--page <page>]… [--list]
 *
 * The examples are read from ZetaSQL's documentation, the source BigQuery's function reference is
 * generated from (a git checkout, bare or not, read at --ref, default HEAD; or a folder of its
 * markdown). Nothing of it is copied into this repository. `--out` writes `<engine>.json` there:
 * every example's id (page/function/ordinal), outcome, reason, query and the engine's SQL.
 *
 * How the count is made:
 * - An example is a query in a code block followed by its printed result table, a markdown table
 *   right after the block, or a row of an HTML input/result table (`X | SQRT(X)`) whose cells are
 *   literals. Its function is the heading it sits under.
 * - Each runs as an endpoint runs a query: translate() with the engine's dialect, then the
 *   warehouse's queryJson (DuckDB in a temporary file, ClickHouse on chdb), no tables.
 * - pass: the reply's rows are the printed ones (compare.ts: values by the reply's type; integers
 *   exactly, other numbers within a relative 1e-9, or to the last decimal printed when the page
 *   prints three or more; TIMESTAMPs as instants whatever zone the page
 *   prints them in; DATETIMEs as wall clocks; BYTES as base64; JSON and BYTES told from STRING by
 *   the query, sql-text.ts; columns by position unless the printed header names a subset or a
 *   reordering of the reply's columns; rows as a multiset unless the query orders them).
 *   refused: the translator refuses the query, as at an endpoint's save ("… is not supported",
 *   "No matching signature …", "Function not found", a syntax error). wrong: anything after that,
 *   an engine error or other rows, with a one-line reason. pass % = pass / (pass + refused + wrong).
 * - zone (listed, not counted): the query uses the default time zone (a TIMESTAMP from a civil
 *   time without a zone, or a TIMESTAMP turned into a date, a time or text without one). ZetaSQL's
 *   pages were printed with America/Los_Angeles as the default zone, BigQuery's default is UTC, so
 *   the printed answer need not be BigQuery's. Each is still run, and its outcome is recorded.
 * - skipped (not counted), with the reason: no printed result; an error stated instead of a result;
 *   a table the page defines elsewhere that is not given as `CREATE TABLE … AS` or
 *   `WITH t AS (…) SELECT * FROM t` (those are inlined as a CTE); a printed table the harness cannot
 *   read; nondeterministic (CURRENT_*, RAND, GENERATE_UUID); out of scope for issue 28 (geography,
 *   differential privacy, HLL, KLL, RANGE, protocol buffers, graph, AEAD, ML, collation); not in
 *   BigQuery (ZetaSQL functions and types BigQuery lacks, see PAGES in run.ts; `DOUBLE` is read as
 *   `FLOAT64`, as BigQuery's pages write it).
 */

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ClickHouseWarehouse } from '../../src/warehouse/clickhouse/adapter.ts';
import { clickhouseDialect } from '../../src/warehouse/clickhouse/sql-generator.ts';
import { DuckDbWarehouse } from '../../src/warehouse/duckdb/adapter.ts';
import { duckdbDialect } from '../../src/warehouse/duckdb/sql-generator.ts';
import { extractExamples, type Example } from './extract.ts';
import { formatTally, PAGES, runExample, tally, type Engine, type Result } from './run.ts';

interface DocsSource {
  pages: Array<{ name: string; markdown: string }>;
  description: { source: string; ref?: string; commit?: string };
}

/** The function pages (PAGES) of a docs folder, a checkout with docs/, or a git repository at `ref`. */
export function readDocs(source: string, ref: string | undefined, only: string[]): DocsSource {
  const names = Object.keys(PAGES).filter((name) => only.length === 0 || only.includes(name));
  const folder = [join(source, 'docs'), source].find((dir) => existsSync(dir) && statSync(dir).isDirectory() && readdirSync(dir).some((f) => f.endsWith('_functions.md')));
  if (folder && ref === undefined) {
    const pages = names.filter((name) => existsSync(join(folder, `${name}.md`))).map((name) => ({ name, markdown: readFileSync(join(folder, `${name}.md`), 'utf8') }));
    return { pages, description: { source: resolve(folder) } };
  }
  const git = (...args: string[]) => execFileSync('git', ['-C', source, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const rev = ref ?? 'HEAD';
  const commit = git('rev-parse', `${rev}^{commit}`).trim();
  const files = new Set(git('ls-tree', '--name-only', `${commit}:docs`).split('\n'));
  const pages = names.filter((name) => files.has(`${name}.md`)).map((name) => ({ name, markdown: git('show', `${commit}:docs/${name}.md`) }));
  return { pages, description: { source: resolve(source), ref: rev, commit } };
}

async function withEngine<T>(name: 'duckdb' | 'clickhouse', use: (engine: Engine) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), `sawmill-doc-examples-${name}-`));
  const options = { timeoutMs: 10_000, maxRows: 10_000 };
  try {
    if (name === 'duckdb') {
      const warehouse = await DuckDbWarehouse.open({ path: join(dir, 'w.duckdb'), stagingDir: join(dir, 'staging'), memoryLimit: '512MB' });
      try {
        return await use({ name: 'DuckDB', dialect: duckdbDialect, queryJson: (sql) => warehouse.queryJson(sql, {}, options) });
      } finally {
        await warehouse.close();
      }
    }
    const warehouse = await ClickHouseWarehouse.open({ url: `chdb:${dir}`, database: 'doc_examples', schemaRefreshMs: 0 });
    try {
      return await use({ name: 'ClickHouse (chdb)', dialect: clickhouseDialect, queryJson: (sql) => warehouse.queryJson(sql, {}, options) });
    } finally {
      await warehouse.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function runAll(engine: Engine, examples: Example[]): Promise<Result[]> {
  const results: Result[] = [];
  for (const example of examples) results.push(await runExample(engine, example));
  return results;
}

function sawmillCommit(): string | undefined {
  try {
    return execFileSync('git', ['-C', import.meta.dirname, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    return undefined;
  }
}

/** Each family's examples that are not a pass, by id with the reason. */
function failureList(results: Result[]): string {
  const lines: string[] = [];
  for (const family of [...new Set(results.map((r) => r.family))].sort()) {
    const failing = results.filter((r) => r.family === family && (r.outcome === 'wrong' || r.outcome === 'refused'));
    if (failing.length === 0) continue;
    lines.push(`${family}:`, ...failing.map((r) => `  ${r.outcome.padEnd(7)} ${r.id}: ${r.reason}`));
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      docs: { type: 'string' },
      ref: { type: 'string' },
      engine: { type: 'string', default: 'both' },
      out: { type: 'string' },
      page: { type: 'string', multiple: true, default: [] },
      list: { type: 'boolean', default: false },
    },
  });
  if (!values.docs) {
    console.error('usage: npm run doc-examples -- --docs <zetasql checkout or docs folder> [--ref <rev>] [--engine duckdb|clickhouse|both] [--out <dir>] [--page <page>]… [--list]');
    process.exit(2);
  }
  const unknown = values.page.filter((page) => !(page in PAGES));
  if (unknown.length > 0) throw new Error(`unknown page ${unknown.join(', ')}; pages: ${Object.keys(PAGES).join(', ')}`);
  const docs = readDocs(values.docs, values.ref, values.page);
  const examples = docs.pages.flatMap((page) => extractExamples(page.name, page.markdown));
  const engines = values.engine === 'both' ? (['duckdb', 'clickhouse'] as const) : [values.engine as 'duckdb' | 'clickhouse'];
  if (!engines.every((e) => e === 'duckdb' || e === 'clickhouse')) throw new Error(`--engine must be duckdb, clickhouse or both, not ${values.engine}`);
  for (const name of engines) {
    const started = Date.now();
    const results = await withEngine(name, (engine) => runAll(engine, examples));
    console.log(formatTally(name === 'duckdb' ? 'DuckDB' : 'ClickHouse (chdb)', results));
    console.log(`(${examples.length} examples from ${docs.pages.length} pages in ${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
    if (values.list) console.log(`${failureList(results)}\n`);
    if (values.out) {
      mkdirSync(values.out, { recursive: true });
      const { byFamily, inScope } = tally(results);
      const report = { engine: name, generatedAt: new Date().toISOString(), sawmillCommit: sawmillCommit(), docs: docs.description, inScope, families: Object.fromEntries(byFamily), results };
      writeFileSync(join(values.out, `${name}.json`), `${JSON.stringify(report, null, 1)}\n`);
    }
  }
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
