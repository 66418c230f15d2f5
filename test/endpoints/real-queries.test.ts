/**
 * Replays the real queries Supabase and Logflare wrote (../shared/reference/real-queries/) against
 * a real server: through `logs.all`'s sandbox (`sql=`) and/or saved as endpoints, as each
 * query's `via` says, over events shaped like ../shared/samples/supabase/. Rows are checked where
 * the file names an oracle (computed in real-queries-fixture.ts) or gives them, the columns
 * otherwise; `error` queries must be refused with a 4xx. What still fails is listed below with
 * the reason, and a listed query that starts passing fails the test so the list stays true.
 */

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { startTestServer, type TestServer } from '../support/server.ts';
import { sharedPath, skipUnlessShared } from '../support/shared.ts';
import { LOGFLARE_EVENTS, ORACLES, SUPABASE_EVENTS } from './real-queries-fixture.ts';

interface RealQuery {
  id: string;
  category: string;
  via: 'endpoint' | 'sandbox' | 'both';
  sql: string;
  expect: { oracle?: string; error?: string; columns?: string[]; min_rows?: number; rows?: Record<string, unknown>[] };
}

const QUERIES = 'reference/real-queries/queries.json';
const skip = skipUnlessShared(QUERIES, 'the real queries');
const corpus = (skip ? { queries: [] } : JSON.parse(readFileSync(sharedPath(QUERIES), 'utf8'))) as { queries: RealQuery[] };

/** Queries that do not pass yet, by id and way of running, with the reason. */
const KNOWN_FAILURES: Record<string, string> = {};

/** The sandboxable endpoint Logflare's sandboxing tests query (their CTEs `cte1`, `cte2`). */
const LOGFLARE_SANDBOX = { name: 'logflare.sandbox', query: "with cte1 as (select 'val' as a), cte2 as (select 'val' as b) select a from cte1", sandboxable: true };

let server: TestServer;

before(async () => {
  if (skip) return;
  server = await startTestServer();
  const tokens: Record<string, string> = Object.fromEntries((await server.request('GET', '/api/sources')).body.map((s: { name: string; token: string }) => [s.name, s.token]));
  const createSource = async (name: string) => {
    const reply = await server.request('POST', '/api/sources', { body: { name } });
    assert.equal(reply.status, 201, JSON.stringify(reply.body));
    tokens[name] = reply.body.token;
  };
  const ingest = async (name: string, events: object[]) => {
    const reply = await server.request('POST', `/logs?source=${tokens[name]}`, { body: events });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
  };
  for (const { source, view, events } of SUPABASE_EVENTS) {
    await ingest(source, events);
    // As an endpoint, Studio's short names are sources of their own holding the same events.
    await createSource(view);
    await ingest(view, events);
  }
  for (const { source, events } of LOGFLARE_EVENTS) {
    await createSource(source);
    await ingest(source, events);
  }
  assert.equal((await server.request('POST', '/api/endpoints', { body: LOGFLARE_SANDBOX })).status, 201);
  // Logflare's composition test reads the endpoint `my.date`.
  assert.equal((await server.request('POST', '/api/endpoints', { body: { name: 'my.date', query: 'select current_date() as testing' } })).status, 201);
});
after(() => server?.stop({ removeData: true }));

type Outcome = { ok: true } | { ok: false; reason: string };

/** Rows compared as a multiset: ORDER BY ties and engines' orders of equal keys may differ. */
function canonical(rows: Record<string, unknown>[]): string[] {
  const sortKeys = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(sortKeys);
    if (value && typeof value === 'object') return Object.fromEntries(Object.keys(value).sort().map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]));
    return value;
  };
  return rows.map((row) => JSON.stringify(sortKeys(row))).sort();
}

function check(query: RealQuery, status: number, body: { result?: Record<string, unknown>[]; error?: unknown }): Outcome {
  const { expect } = query;
  if (expect.error !== undefined) return status >= 400 && status < 500 ? { ok: true } : { ok: false, reason: `expected a 4xx, got ${status}` };
  if (status !== 200 || !Array.isArray(body.result)) return { ok: false, reason: `${status} ${JSON.stringify(body).slice(0, 300)}` };
  const rows = body.result;
  const expected = expect.oracle !== undefined ? ORACLES[expect.oracle]?.() : expect.rows;
  if (expect.oracle !== undefined && !expected) return { ok: false, reason: `no oracle ${expect.oracle}` };
  if (expected) {
    const [got, want] = [canonical(rows), canonical(expected)];
    return JSON.stringify(got) === JSON.stringify(want) ? { ok: true } : { ok: false, reason: `rows ${JSON.stringify(got).slice(0, 400)} != ${JSON.stringify(want).slice(0, 400)}` };
  }
  if (rows.length < (expect.min_rows ?? 0)) return { ok: false, reason: `${rows.length} rows, expected at least ${expect.min_rows}` };
  const columns = rows[0] ? Object.keys(rows[0]) : expect.columns;
  return JSON.stringify(columns) === JSON.stringify(expect.columns) ? { ok: true } : { ok: false, reason: `columns ${JSON.stringify(columns)}` };
}

const isLogflareSandbox = (query: RealQuery) => query.id.startsWith('logflare/sql_test/');

async function runSandboxed(query: RealQuery): Promise<Outcome> {
  const endpoint = isLogflareSandbox(query) ? LOGFLARE_SANDBOX.name : 'logs.all';
  const project = query.id.endsWith('other project') ? 'another-project' : 'default';
  const params = new URLSearchParams({ project, project_tier: 'ENTERPRISE', sql: query.sql });
  const reply = await server.request('GET', `/api/endpoints/query/${endpoint}?${params}`);
  return check(query, reply.status, reply.body);
}

let saved = 0;
async function runAsEndpoint(query: RealQuery): Promise<Outcome> {
  const created = await server.request('POST', '/api/endpoints', { body: { name: `real-${saved++}`, query: query.sql } });
  if (created.status !== 201) return check(query, created.status, created.body);
  if (query.expect.error !== undefined) return { ok: false, reason: 'saved (201) though BigQuery refuses it' };
  const reply = await server.request('GET', `/api/endpoints/query/${created.body.token}?testing=abc`);
  return check(query, reply.status, reply.body);
}

const runs = corpus.queries.flatMap((query) => [
  ...(query.via !== 'endpoint' ? [{ query, way: 'sandbox' as const }] : []),
  ...(query.via !== 'sandbox' ? [{ query, way: 'endpoint' as const }] : []),
]);

const warehouse = process.env.SAWMILL_TEST_WAREHOUSE === 'clickhouse' ? 'ClickHouse' : 'DuckDB';
const counted = skip ? '' : ` (${corpus.queries.length} queries, ${runs.length} runs)`;

test(`the real queries${counted} answer as BigQuery would, on ${warehouse}`, { skip }, async () => {
  const unexpected: string[] = [];
  const tally = new Map<string, { passed: number; total: number }>();
  for (const { query, way } of runs) {
    const key = `${query.id} ${way}`;
    const outcome = way === 'sandbox' ? await runSandboxed(query) : await runAsEndpoint(query);
    const counts = tally.get(query.category) ?? { passed: 0, total: 0 };
    counts.total++;
    if (outcome.ok) counts.passed++;
    tally.set(query.category, counts);
    const known = KNOWN_FAILURES[key];
    if (outcome.ok && known) unexpected.push(`${key}: passes now; remove it from KNOWN_FAILURES`);
    if (!outcome.ok && !known) unexpected.push(`${key}: ${outcome.reason}`);
  }
  if (process.env.REAL_QUERIES_REPORT) {
    for (const [category, { passed, total }] of tally) console.log(`${category}: ${passed}/${total}`);
  }
  assert.deepEqual(unexpected, []);
});
