/** Writes docs/functions.md from the function catalog and the engines' renderings (src/sql/functions/docs.ts). */

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderFunctionDocs } from '../src/sql/functions/docs.ts';
import { CLICKHOUSE_FUNCTIONS } from '../src/warehouse/clickhouse/functions/index.ts';
import { DUCKDB_FUNCTIONS } from '../src/warehouse/duckdb/functions/index.ts';

export const FUNCTION_DOCS_FILE = join(import.meta.dirname, '..', 'docs', 'functions.md');

export const functionDocs = () =>
  renderFunctionDocs([
    { name: 'DuckDB', functions: DUCKDB_FUNCTIONS },
    { name: 'ClickHouse', functions: CLICKHOUSE_FUNCTIONS },
  ]);

if (process.argv[1] === import.meta.filename) writeFileSync(FUNCTION_DOCS_FILE, functionDocs());
