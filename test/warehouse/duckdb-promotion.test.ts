import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, test } from 'node:test';
import { nestedReads } from '../../src/endpoints/nested-reads.ts';
import { translate } from '../../src/sql/index.ts';
import { DuckDbWarehouse, type DuckDbOptions } from '../../src/warehouse/duckdb/adapter.ts';
import { promotingDialect } from '../../src/warehouse/duckdb/rewrite.ts';
import { duckdbDialect } from '../../src/warehouse/duckdb/sql-generator.ts';
import { schemaForRows } from '../../src/warehouse/schema.ts';
import type { JsonValue, LogRow, ResultRow } from '../../src/warehouse/types.ts';

/**
 * Promoted columns (src/warehouse/duckdb/promotion.ts, rewrite.ts) against real DuckDB: every
 * rewritten query must return exactly the rows of the original UNNEST chain, whatever the lists
 * hold and whenever the rows were stored.
 */

let dir: string;
const source = randomUUID();
const options = { timeoutMs: 10_000, maxRows: 10_000 };
const open = (extra: Partial<DuckDbOptions> = {}) =>
  DuckDbWarehouse.open({ path: join(dir, 'w.duckdb'), stagingDir: join(dir, 'staging'), memoryLimit: '512MB', alterInPlaceMaxRows: 3, ...extra });

let sequence = 0;
function row(fields: Record<string, JsonValue>): LogRow {
  sequence++;
  return { id: `r${String(sequence).padStart(3, '0')}`, timestamp: Date.now() * 1000 - sequence * 1_000_000, event_message: `e${sequence}`, fields };
}

async function write(warehouse: DuckDbWarehouse, rows: LogRow[]): Promise<void> {
  await warehouse.append([{ sourceId: source, schema: schemaForRows(warehouse.schema(source), rows), rows }]);
}

const one = (project: string, path: string, status: JsonValue, ms = 10) => ({
  project,
  metadata: { project_ref: project, execution_time_ms: ms, request: { path, url: `https://${project}.example/${path}` }, response: { status_code: status } },
});

/** Every shape an UNNEST chain treats differently. */
function varied(status: (n: number) => JsonValue): LogRow[] {
  return [
    row(one('p1', '/rest/v1', status(200))),
    row(one('p1', '/auth/v1', status(500), 30)),
    row(one('p2', '/storage/v1', status(404))),
    // two metadata elements: the chain gives two rows
    row({ project: 'p1', metadata: [one('p1', '/rest/a', status(201)).metadata, one('p1', '/rest/b', status(502)).metadata] }),
    // two requests in one element
    row({ project: 'p1', metadata: { project_ref: 'p1', execution_time_ms: 5, request: [{ path: '/rest/x', url: 'p1/x' }, { path: '/realtime', url: 'p1/y' }], response: { status_code: status(200) } } }),
    // no response, empty request list, no metadata at all, an empty metadata list
    row({ project: 'p1', metadata: { project_ref: 'p1', execution_time_ms: 7, request: { path: '/rest/nr', url: 'p1/nr' } } }),
    row({ project: 'p1', metadata: { project_ref: 'p1', request: [], response: { status_code: status(200) } } }),
    row({ project: 'p1' }),
    row({ project: 'p1', metadata: [] }),
    // url stored split around path (promotion.ts): multi-byte text, a url without its path, an empty path
    row({ project: 'p1', metadata: { project_ref: 'p1', request: { path: '/rest/päth€', url: 'https://ü.p1/rest/päth€?q=é&x=/rest/päth€' }, response: { status_code: status(200) } } }),
    row({ project: 'p1', metadata: { project_ref: 'p1', request: { path: '/rest/elsewhere', url: 'https://p1.example/other' }, response: { status_code: status(200) } } }),
    row({ project: 'p1', metadata: { project_ref: 'p1', request: { path: '', url: 'https://p1.example/rest/empty' }, response: { status_code: status(200) } } }),
    row({ project: 'p1', metadata: { project_ref: 'p1', request: { url: 'https://p1.example/rest/no-path' }, response: { status_code: status(200) } } }),
  ];
}

const QUERIES: Record<string, string> = {
  invocations: `select t.id, m.execution_time_ms, r.status_code from logs as t
    cross join unnest(t.metadata) as m cross join unnest(m.response) as r where m.project_ref = 'p1'`,
  apiCounts: `select count(*) as n, countif(req.path like '%/rest%') as rest, countif(req.path like '%/auth%') as auth from logs as t
    cross join unnest(t.metadata) as m cross join unnest(m.request) as req where regexp_contains(req.url, 'p1')`,
  logsAll: `with edge as (select t.id, t.timestamp, t.event_message, t.metadata from logs as t cross join unnest(t.metadata) as m where t.project = 'p1')
    select id, timestamp, event_message, metadata from edge order by timestamp desc limit 100`,
  // the limit bites: the newest rows include one with two metadata elements (two rows), the oldest empty and NULL lists (none)
  logsNewest: `with edge as (select t.id, t.timestamp, t.metadata from logs as t cross join unnest(t.metadata) as m)
    select id, timestamp, metadata from edge as e order by e.timestamp desc limit 5`,
  logsOldest: `with edge as (select t.id, t.timestamp, t.event_message from logs as t cross join unnest(t.metadata) as m cross join unnest(m.request) as r where t.project = 'p1')
    select id, event_message from edge order by 1 limit 4 offset 2`,
  functionLogs: `with fn as (select t.id, t.timestamp, t.event_message, t.metadata from logs as t cross join unnest(t.metadata) as m where m.project_ref = 'p1')
    select id, timestamp, event_message, metadata from fn order by timestamp desc limit 100`,
  paths: `select req.path as path, count(*) as requests, countif(cast(resp.status_code as string) like '5%') as errors from logs as t
    cross join unnest(t.metadata) as m cross join unnest(m.request) as req cross join unnest(m.response) as resp
    where t.project = 'p1' group by path order by requests desc, path`,
  // m.request is read as a field but is a record (a list): nothing to serve it from, not rewritten
  wholeList: `select t.id, m.request, m.project_ref from logs as t cross join unnest(t.metadata) as m`,
  urls: `select t.id, req.url, req.path from logs as t cross join unnest(t.metadata) as m cross join unnest(m.request) as req`,
  urlOnly: `select t.id, req.url from logs as t cross join unnest(t.metadata) as m cross join unnest(m.request) as req where regexp_contains(req.url, 'p1')`,
  // chain fields read by a window, by GROUP BY and by the query's ORDER BY; aliases in capitals
  windowed: `select M.project_ref, r.status_code, count(*) as n, rank() over (partition by M.project_ref order by r.status_code desc) as place
    from logs as T cross join unnest(T.metadata) as M cross join unnest(M.response) as r group by M.project_ref, r.status_code order by r.status_code, M.project_ref`,
  leftJoin: `select t.id, m.project_ref, r.status_code from logs as t cross join unnest(t.metadata) as m left join unnest(m.response) as r`,
};

function translations(warehouse: DuckDbWarehouse, query: string) {
  const context = { resolveTable: (name: string) => (name === 'logs' ? warehouse.relation(source) : undefined) };
  const original = translate(query, duckdbDialect, context);
  const rewritten = translate(query, promotingDialect((relation) => warehouse.promotionFor(relation)), context);
  return { original, rewritten };
}

const canonical = (rows: ResultRow[]) => rows.map((r) => JSON.stringify(r)).sort();

const NOT_REWRITTEN = new Set(['wholeList']);

async function assertSameRows(warehouse: DuckDbWarehouse, name: string, expectRewrite = !NOT_REWRITTEN.has(name)): Promise<void> {
  const { original, rewritten } = translations(warehouse, QUERIES[name]!);
  assert.equal(rewritten.sql.includes('sawmill:one:'), expectRewrite, `${name} rewritten: ${rewritten.sql}`);
  const want = await warehouse.query(original.sql, {}, options);
  const got = await warehouse.query(rewritten.sql, {}, options);
  assert.ok(want.length > 0, `${name} returns rows`);
  assert.deepEqual(canonical(got), canonical(want), name);
}

/** Promote what `queries` read, all together (a promotion is the whole of what a source's queries read). */
async function promoteAll(warehouse: DuckDbWarehouse, queries = Object.values(QUERIES)): Promise<void> {
  const all = queries.flatMap((query) => [...nestedReads(query).values()]);
  await warehouse.promote(source, { records: all.flatMap((reads) => reads.records), leaves: all.flatMap((reads) => reads.leaves) });
}

const storedHidden = async (warehouse: DuckDbWarehouse) =>
  (await warehouse.query(`select distinct column_name from duckdb_columns() where table_name like 'src_%' and column_name like 'sawmill:%' order by 1`, {}, options)).map((row) => String(row.column_name));

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sawmill-promote-'));
  sequence = 0;
});
afterEach(() => rm(dir, { recursive: true, force: true }));

test('rewritten chains return the rows of the original, for rows stored before and after promotion and across widened segments', async () => {
  const warehouse = await open();
  await warehouse.createSource(source);
  await write(warehouse, varied((n) => n)); // before any promotion: copies come from the backfill
  await promoteAll(warehouse);
  const [filled] = await warehouse.query(`select count(*) as n from duckdb_columns() where column_name like 'sawmill:%' and table_name like 'src_%_0001'`, {}, options);
  assert.ok(Number(filled!.n) >= 6, 'the segment stored before the promotion was backfilled');
  await write(warehouse, varied((n) => n)); // with stored copies, in a new segment
  for (const name of Object.keys(QUERIES)) await assertSameRows(warehouse, name);

  // status_code widens from int to string: a new segment, older ones cast up
  await write(warehouse, varied((n) => `${n}`));
  for (const name of Object.keys(QUERIES)) await assertSameRows(warehouse, name);
  await warehouse.close();

  const reopened = await open();
  assert.ok(reopened.promotionFor(reopened.relation(source)), 'promotions survive a restart');
  await write(reopened, varied((n) => `${n}`));
  for (const name of Object.keys(QUERIES)) await assertSameRows(reopened, name);
  await reopened.close();
});

test('promotion before any data: the first rows get stored copies in place', async () => {
  const warehouse = await open();
  await warehouse.createSource(source);
  await promoteAll(warehouse);
  await write(warehouse, varied((n) => n));
  const segments = await warehouse.query(`select table_name from duckdb_tables() where table_name like 'src_%' order by 1`, {}, options);
  assert.equal(segments.length, 1, 'one segment');
  const stored = await warehouse.query(`select column_name from duckdb_columns() where table_name = '${String(segments[0]!.table_name)}' and column_name like 'sawmill:%'`, {}, options);
  assert.ok(stored.length >= 6, `stored copies: ${stored.map((r) => r.column_name).join(', ')}`);
  assert.ok(stored.some((r) => String(r.column_name) === 'sawmill:tail:metadata.request.url|metadata.request.path'), 'url is stored split around path');
  for (const name of Object.keys(QUERIES)) await assertSameRows(warehouse, name);
  await warehouse.close();
});

test('NULL list elements go down the original chain', async () => {
  const warehouse = await open();
  await warehouse.createSource(source);
  await promoteAll(warehouse);
  await write(warehouse, varied((n) => n));
  // Ingestion drops nulls, so write NULL elements straight into the segment: n1 with no flags at
  // all (NULL must mean "not known to be single"), n2 with the flag a commit would compute for [NULL].
  const [segment] = await warehouse.query(`select table_name from duckdb_tables() where table_name like 'src_%' order by 1`, {}, options);
  const table = `"${String(segment!.table_name)}"`;
  await warehouse.query(
    `insert into ${table} by name select 'n1' as id, now() as timestamp, 'x' as event_message, 'p1' as project, [NULL, m] as metadata from (select metadata[1] as m from ${table} where id = 'r001')`,
    {},
    options,
  );
  await warehouse.query(
    `insert into ${table} by name select 'n2' as id, now() as timestamp, 'x' as event_message, 'p1' as project, [NULL] as metadata, true as "sawmill:one:metadata" from ${table} limit 1`,
    {},
    options,
  );
  for (const name of ['invocations', 'apiCounts', 'logsAll', 'functionLogs', 'leftJoin']) await assertSameRows(warehouse, name);
  await warehouse.close();
});

test('hidden columns never show: schema, SELECT *, t.*, and whole-element reads are not rewritten', async () => {
  const warehouse = await open();
  await warehouse.createSource(source);
  await promoteAll(warehouse);
  await write(warehouse, varied((n) => n));
  assert.deepEqual([...warehouse.schema(source).keys()], ['project', 'metadata']);
  const relation = warehouse.relation(source);
  for (const columns of ['*', 't.*']) {
    const [first] = await warehouse.query(`select ${columns} from ${relation} as t limit 1`, {}, options);
    assert.deepEqual(Object.keys(first!), ['id', 'timestamp', 'event_message', 'project', 'metadata']);
  }
  const star = translations(warehouse, `select t.* from logs as t cross join unnest(t.metadata) as m where m.project_ref = 'p1'`);
  assert.ok(!star.rewritten.sql.includes('sawmill:'), 't.* is not rewritten');
  const whole = translations(warehouse, `select m from logs as t cross join unnest(t.metadata) as m`);
  assert.ok(!whole.rewritten.sql.includes('sawmill:'), 'a whole element is not rewritten');
  const unpromoted = translations(warehouse, `select m.execution_time_ms, m.project_ref, t.id from logs as t cross join unnest(t.metadata) as m cross join unnest(m.request) as q where q.url is null`);
  assert.ok(unpromoted.rewritten.sql.includes('sawmill:'), 'promoted fields only: rewritten');
  const unread = translations(
    warehouse,
    `with a as (select m.project_ref as p from logs as t cross join unnest(t.metadata) as m), b as (select m.execution_time_ms as e from logs as t cross join unnest(t.metadata) as m) select * from b`,
  );
  assert.ok(unread.rewritten.sql.includes('sawmill:one:'), 'the CTE read is rewritten');
  const cteA = unread.rewritten.sql.slice(0, unread.rewritten.sql.indexOf('"b" AS ('));
  assert.ok(!cteA.includes('sawmill:'), `a CTE never read is left alone: ${cteA}`);
  const other = translations(warehouse, `select q.nope from logs as t cross join unnest(t.metadata) as m cross join unnest(m.request) as q`);
  assert.ok(!other.rewritten.sql.includes('sawmill:'), 'a field not promoted: not rewritten');
  await warehouse.close();
});

test('segments from before a field existed answer through the computed copy, and read the same rows', async () => {
  const warehouse = await open();
  await warehouse.createSource(source);
  const withoutResponse = varied((n) => n).map((r) => ({ ...r, fields: JSON.parse(JSON.stringify(r.fields).replaceAll('"response"', '"other"')) as LogRow['fields'] }));
  await write(warehouse, withoutResponse);
  await promoteAll(warehouse);
  await write(warehouse, varied((n) => n)); // adds metadata.response: a new segment, the old one has no copy of it
  const old = await warehouse.query(`select column_name from duckdb_columns() where column_name like 'sawmill:%response%' and table_name like 'src_%_0001'`, {}, options);
  assert.equal(old.length, 0, 'the old segment stores nothing for a field it never had');
  for (const name of Object.keys(QUERIES)) await assertSameRows(warehouse, name);
  await warehouse.close();
});

test('the translation epoch moves when promoted columns become usable, not on every commit', async () => {
  const warehouse = await open();
  await warehouse.createSource(source);
  await promoteAll(warehouse); // nothing in the schema yet: nothing usable
  const before = warehouse.translationEpoch();
  assert.ok(!translations(warehouse, QUERIES.apiCounts!).rewritten.sql.includes('sawmill:'), 'not rewritten before the fields exist');
  await write(warehouse, varied((n) => n));
  const after = warehouse.translationEpoch();
  assert.ok(after > before, 'the first rows make the promotions usable');
  assert.ok(translations(warehouse, QUERIES.apiCounts!).rewritten.sql.includes('sawmill:'), 'rewritten once they do');
  await write(warehouse, varied((n) => n));
  assert.equal(warehouse.translationEpoch(), after, 'rows of the same shape change nothing');
  await warehouse.close();
});

test('substring filters on the url stored split read its parts and match what the joined url matches', async () => {
  const warehouse = await open();
  await warehouse.createSource(source);
  await promoteAll(warehouse);
  const request = (path: string, url: string) => row({ project: 'p1', metadata: { project_ref: 'p1', request: { path, url }, response: { status_code: 200 } } });
  // parts that do not start as a URL's path and query do: matches across them need the joined value
  await write(warehouse, [...varied((n) => n), request('abc', 'xxabcyy'), request('/p', 'https://h/p#frag')]);
  const needles = ['p1', 'example//rest', 'ü.p1/rest/pä', 'päth€?q', 'th€?', '€', 'other', 'rest/empty', 'no-path', '', 'zzz', 'xab', 'cyy', 'bcy', 'xxabcyy', 'p#f', '#frag'];
  const patterns = ['p1.*rest', '^https', 'v1$', 'P1'];
  const chain = `select t.id, req.url from logs as t cross join unnest(t.metadata) as m cross join unnest(m.request) as req where`;
  const cases = [
    ...[...needles, ...patterns].map((needle) => ({ sql: `${chain} regexp_contains(req.url, @needle)`, params: { needle }, parts: true })),
    ...[...needles, ...patterns].map((needle) => ({ sql: `${chain} regexp_contains(req.url, '${needle}')`, params: {}, parts: !/[.?*^$]/.test(needle) })),
    ...needles.map((needle) => ({ sql: `${chain} req.url like '%${needle}%'`, params: {}, parts: true })),
    ...needles.map((needle) => ({ sql: `${chain} req.url not like '%${needle}%'`, params: {}, parts: true })),
  ];
  let matched = 0;
  for (const { sql, params, parts } of cases) {
    const { original, rewritten } = translations(warehouse, sql);
    assert.equal(rewritten.sql.includes('strpos("t"."req.url|head"'), parts, `${sql} reads the parts: ${rewritten.sql}`);
    const run = (text: string) => warehouse.query(text, params, options).catch((error: Error) => error.message);
    const [want, got] = [await run(original.sql), await run(rewritten.sql)];
    assert.deepEqual(typeof got === 'string' ? got : canonical(got), typeof want === 'string' ? want : canonical(want), `${sql} ${JSON.stringify(params)}`);
    matched += typeof want === 'string' ? 0 : want.length;
  }
  assert.ok(matched > 100, `the filters match rows (${matched})`);
  await warehouse.close();
});

test('a file whose promoted views predate the url parts gets them at open', async () => {
  const warehouse = await open();
  await warehouse.createSource(source);
  await promoteAll(warehouse);
  await write(warehouse, varied((n) => n));
  const [view] = await warehouse.query(`select view_name, sql from duckdb_views() where view_name like '%_promoted'`, {}, options);
  const body = String(view!.sql).replace(/^CREATE VIEW \S+ AS /, '').replace(/;$/, '');
  const parts = `"sawmill:head:metadata.request.url|metadata.request.path", "sawmill:tail:metadata.request.url|metadata.request.path"`;
  await warehouse.query(`create or replace view ${String(view!.view_name)} as select * exclude (${parts}) from (${body})`, {}, options);
  await warehouse.close();
  const reopened = await open();
  await assertSameRows(reopened, 'apiCounts');
  await reopened.close();
});

test('copies nothing reads any more are dropped from stored rows, and every query still returns its rows', async () => {
  const warehouse = await open();
  await warehouse.createSource(source);
  await promoteAll(warehouse);
  await write(warehouse, varied((n) => n));
  assert.ok((await storedHidden(warehouse)).includes('sawmill:tail:metadata.request.url|metadata.request.path'));

  // Only the url is read now: it is stored whole, and nothing of the response or the path is kept.
  await promoteAll(warehouse, [QUERIES.urlOnly!]);
  assert.deepEqual(await storedHidden(warehouse), ['sawmill:leaf:metadata.request.url', 'sawmill:one:metadata', 'sawmill:one:metadata.request']);
  assert.deepEqual([...warehouse.promotionFor(warehouse.relation(source))!.leaves], ['metadata.request.url']);
  await write(warehouse, varied((n) => n));
  for (const name of ['urlOnly', 'urls', 'apiCounts', 'invocations', 'paths']) await assertSameRows(warehouse, name, name === 'urlOnly');

  await promoteAll(warehouse, []);
  assert.deepEqual(await storedHidden(warehouse), []);
  assert.equal(warehouse.promotionFor(warehouse.relation(source)), undefined);
  await write(warehouse, varied((n) => n));
  for (const name of ['urlOnly', 'apiCounts']) await assertSameRows(warehouse, name, false);
  await warehouse.close();
});
