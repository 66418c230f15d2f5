import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { AppError } from '../../src/errors.ts';
import { type CheckpointReport, DuckDbWarehouse, type DuckDbOptions } from '../../src/warehouse/duckdb/adapter.ts';
import { schemaForRows } from '../../src/warehouse/schema.ts';
import type { JsonValue, LogRow } from '../../src/warehouse/types.ts';

let dir: string;
const source = randomUUID();
const open = (options: Partial<DuckDbOptions> = {}) =>
  DuckDbWarehouse.open({ path: join(dir, 'w.duckdb'), stagingDir: join(dir, 'staging'), memoryLimit: '512MB', ...options });

let sequence = 0;
function row(fields: Record<string, JsonValue>, id = `r${++sequence}`): LogRow {
  return { id, timestamp: 1_700_000_000_000_000 + sequence, event_message: id, fields };
}

async function write(warehouse: DuckDbWarehouse, rows: LogRow[]): Promise<void> {
  await warehouse.append([{ sourceId: source, schema: schemaForRows(warehouse.schema(source), rows), rows }]);
}

const all = (warehouse: DuckDbWarehouse, columns = '*') =>
  warehouse.query(`select ${columns} from ${warehouse.relation(source)} order by id`, {}, { timeoutMs: 5000, maxRows: 1000 });

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sawmill-duckdb-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

test('values round-trip in BigQuery shape: records as lists, scalars typed', async () => {
  const warehouse = await open();
  await warehouse.createSource(source);
  await write(warehouse, [row({ project: 'p', metadata: { n: 3, f: 1.5, ok: true, tags: ['a', 'b'], req: [{ path: '/a' }, { path: '/b' }], one: { deep: { x: 1 } } } }, 'a')]);
  const [stored] = await all(warehouse);
  assert.equal(stored!.project, 'p');
  assert.deepEqual(stored!.metadata, [{ n: 3, f: 1.5, ok: true, tags: ['a', 'b'], req: [{ path: '/a' }, { path: '/b' }], one: [{ deep: [{ x: 1 }] }] }]);
  assert.equal(stored!.timestamp, 1_700_000_000_000_000 + sequence, 'TIMESTAMP as integer microseconds');
  await warehouse.close();
});

test('a large segment is not rewritten: the wider schema opens a new segment behind the same view', async () => {
  const warehouse = await open({ alterInPlaceMaxRows: 1 });
  await warehouse.createSource(source);
  await write(warehouse, [row({ metadata: { n: 1 } }, 'a'), row({ metadata: { n: 2 } }, 'b')]);
  await write(warehouse, [row({ metadata: { n: 'text', extra: { y: true } } }, 'c')]);
  const tables = await warehouse.query(`select table_name from duckdb_tables() where table_name like 'src_%' order by 1`, {}, { timeoutMs: 5000, maxRows: 10 });
  assert.equal(tables.length, 2, 'two segments');
  assert.deepEqual((await all(warehouse)).map((r) => r.metadata), [[{ n: '1', extra: null }], [{ n: '2', extra: null }], [{ n: 'text', extra: [{ y: true }] }]]);
  await warehouse.close();

  const reopened = await open({ alterInPlaceMaxRows: 1 });
  assert.deepEqual([...reopened.schema(source).keys()], ['metadata']);
  assert.equal((await all(reopened)).length, 3);
  await reopened.close();
});

test('a statement run again reads the layout of the moment, with only the parameters of its own call', async () => {
  const warehouse = await open({ alterInPlaceMaxRows: 1, readConnections: 1 });
  await warehouse.createSource(source);
  const sql = `select id, metadata from ${warehouse.relation(source)} where $id is null or id = $id order by id`;
  const byId = async (params: Record<string, string | null>) =>
    (await warehouse.query(sql, params, { timeoutMs: 5000, maxRows: 10 })).map((r) => [r.id, r.metadata]);
  await write(warehouse, [row({ metadata: { n: 1 } }, 'a'), row({ metadata: { n: 2 } }, 'b')]);
  assert.deepEqual(await byId({ id: 'a' }), [['a', [{ n: 1 }]]]);
  // A new segment of a wider type behind the same view: the same SQL text now reads both.
  await write(warehouse, [row({ metadata: { n: 'text', extra: { y: true } } }, 'c')]);
  assert.deepEqual(await byId({ id: null }), [
    ['a', [{ n: '1', extra: null }]],
    ['b', [{ n: '2', extra: null }]],
    ['c', [{ n: 'text', extra: [{ y: true }] }]],
  ]);
  assert.deepEqual(await byId({ id: 'c' }), [['c', [{ n: 'text', extra: [{ y: true }] }]]]);
  await assert.rejects(byId({}), (error: AppError) => error.status === 400 && /id/.test(error.message), 'a parameter left out is not the last call\'s');
  assert.deepEqual(await byId({ id: 'b' }), [['b', [{ n: '2', extra: null }]]]);
  await warehouse.close();
});

test('a small segment is widened in place', async () => {
  const warehouse = await open();
  await warehouse.createSource(source);
  await write(warehouse, [row({ metadata: { n: 1 } }, 'a')]);
  await write(warehouse, [row({ top: 'x', metadata: { n: 2, more: ['m'] } }, 'b')]);
  const tables = await warehouse.query(`select table_name from duckdb_tables() where table_name like 'src_%'`, {}, { timeoutMs: 5000, maxRows: 10 });
  assert.equal(tables.length, 1);
  assert.deepEqual((await all(warehouse, 'id, top, metadata')).map((r) => [r.id, r.top, r.metadata]), [
    ['a', null, [{ n: 1, more: null }]],
    ['b', 'x', [{ n: 2, more: ['m'] }]],
  ]);
  await warehouse.close();
});

test('acknowledged writes with nested widening survive a kill -9 (WAL replay)', async () => {
  const child = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./crash-writer.ts', import.meta.url)), dir, source], { encoding: 'utf8' });
  assert.equal(child.signal, 'SIGKILL', child.stderr);
  assert.equal(child.stdout.trim().split('\n').length, 3, 'three commits acknowledged');
  const warehouse = await open();
  const rows = await all(warehouse, 'id, metadata');
  assert.deepEqual(rows.map((r) => r.id), ['row-0', 'row-1', 'row-2']);
  assert.deepEqual(rows[2]!.metadata, [{ a: 'three', b: [{ c: 'y', d: true }] }]);
  await warehouse.close();
});

test('queries cannot reach files or change settings', async () => {
  const warehouse = await open();
  for (const sql of [`select * from read_csv('/etc/passwd')`, `select * from read_text('/etc/hostname')`, `set enable_external_access = true`]) {
    await assert.rejects(warehouse.query(sql, {}, { timeoutMs: 5000, maxRows: 10 }), (error: Error & { status?: number }) => error.status === 400);
  }
  await warehouse.close();
});

test('DuckDB runs on the threads it is given, and on one per core when not told', async () => {
  const threads = async (options: Partial<DuckDbOptions>) => {
    const warehouse = await open(options);
    const [row] = await warehouse.query(`select current_setting('threads') as threads`, {}, { timeoutMs: 5000, maxRows: 1 });
    await warehouse.close();
    return Number(row!.threads);
  };
  assert.equal(await threads({ threads: 1 }), 1);
  assert.equal(await threads({}), availableParallelism());
});

test('a query past its timeout is cancelled with 504', async () => {
  const warehouse = await open();
  const slow = `select count(*) from range(100000000000) a`;
  await assert.rejects(warehouse.query(slow, {}, { timeoutMs: 200, maxRows: 10 }), (error: Error & { status?: number }) => error.status === 504);
  await warehouse.close();
});

test('field names that differ only in case land in one field', async () => {
  const warehouse = await open();
  await warehouse.createSource(source);
  await write(warehouse, [row({ Project: 'a', metadata: { userId: 1 } }, 'a')]);
  await write(warehouse, [row({ project: 'b', metadata: { USERID: 2, userid: 3 } }, 'b')]);
  assert.deepEqual([...warehouse.schema(source).keys()], ['Project', 'metadata']);
  assert.deepEqual((await all(warehouse, 'id, Project, metadata')).map((r: any) => [r.Project, r.metadata[0].userId]), [['a', 1], ['b', 3]]);
  await warehouse.close();
});

test('retention deletes events older than the source keeps, and is remembered across restarts', async () => {
  const warehouse = await open();
  await warehouse.createSource(source);
  const day = 86_400_000_000;
  const now = Date.now() * 1000;
  const rows = [
    { id: 'old', timestamp: now - 3 * day, event_message: 'old', fields: {} },
    { id: 'recent', timestamp: now - day / 2, event_message: 'recent', fields: {} },
  ];
  await warehouse.append([{ sourceId: source, schema: new Map(), rows }]);
  await warehouse.setRetention(source, 2);
  await warehouse.enforceRetention();
  assert.deepEqual((await all(warehouse, 'id')).map((r) => r.id), ['recent']);
  await warehouse.append([{ sourceId: source, schema: new Map(), rows: [{ ...rows[0]!, id: 'old-again' }] }]);
  await warehouse.close();

  const reopened = await open();
  await reopened.enforceRetention();
  assert.deepEqual((await all(reopened, 'id')).map((r) => r.id), ['recent']);
  await reopened.setRetention(source, null);
  await reopened.append([{ sourceId: source, schema: new Map(), rows: [{ ...rows[0]!, id: 'kept' }] }]);
  await reopened.enforceRetention();
  assert.deepEqual((await all(reopened, 'id')).map((r) => r.id), ['kept', 'recent']);
  await reopened.close();
});

test('a journal position is stored with the rows of the same commit, and only moves forward', async () => {
  const warehouse = await open();
  await warehouse.createSource(source);
  assert.equal(await warehouse.committedPosition(), 0);
  await warehouse.append([{ sourceId: source, schema: new Map(), rows: [row({}, 'p1')] }], 7);
  assert.equal(await warehouse.committedPosition(), 7);
  // A fold at a position the file holds already was stored (DuckDB can report a durable commit as failed): it is not stored twice.
  await warehouse.append([{ sourceId: source, schema: new Map(), rows: [row({}, 'p2')] }], 5);
  assert.equal(await warehouse.committedPosition(), 7, 'an older position never replaces a newer one');
  // A commit that fails half way (its second source has no storage) stores neither its rows nor its position.
  const failing = [
    { sourceId: source, schema: new Map(), rows: [row({}, 'p3')] },
    { sourceId: randomUUID(), schema: new Map(), rows: [row({}, 'p4')] },
  ];
  await assert.rejects(warehouse.append(failing, 9));
  assert.equal(await warehouse.committedPosition(), 7);
  assert.deepEqual((await all(warehouse, 'id')).map((r) => r.id), ['p1']);
  await warehouse.close();
  const reopened = await open();
  assert.equal(await reopened.committedPosition(), 7);
  await reopened.close();
});

test('a pause in appends checkpoints: no WAL is left to replay', async () => {
  const warehouse = await open();
  await warehouse.createSource(source);
  await write(warehouse, [row({ project: 'p' })]);
  const walBytes = async () => (await stat(join(dir, 'w.duckdb.wal')).catch(() => undefined))?.size ?? 0;
  assert.ok((await walBytes()) > 0, 'the append is in the WAL first');
  const deadline = Date.now() + 10_000;
  while ((await walBytes()) > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
  assert.equal(await walBytes(), 0);
  assert.equal((await all(warehouse)).length, 1);
  await warehouse.close();
});

test('a query running across a table change holds checkpoints off: counted, reported, a problem; backups copy the WAL; the retry folds it once the query ends', async () => {
  const reports: CheckpointReport[] = [];
  const warehouse = await DuckDbWarehouse.open(
    { path: join(dir, 'w.duckdb'), stagingDir: join(dir, 'staging'), memoryLimit: '512MB', checkpointProblemAfterMs: 0 },
    { onCheckpoint: (report) => reports.push(report) },
  );
  await warehouse.createSource(source);
  await write(warehouse, [row({ project: 'p' })]);
  const walBytes = async () => (await stat(join(dir, 'w.duckdb.wal')).catch(() => undefined))?.size ?? 0;
  const settled = async () => {
    const deadline = Date.now() + 15_000;
    while ((await walBytes()) > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  };
  await settled();
  assert.equal(await walBytes(), 0);
  assert.deepEqual(warehouse.checkpoints().failed, 0);

  // A query over the source that runs until its deadline, and a catalog change committed while it runs.
  const running = warehouse.query(`select count(*) from ${warehouse.relation(source)}, range(100000000000) a`, {}, { timeoutMs: 3_000, maxRows: 1 });
  await new Promise((resolve) => setTimeout(resolve, 300));
  await warehouse.setRetention(source, 30);
  await write(warehouse, [row({ project: 'q' })]);

  const backupDir = join(dir, 'backup');
  await mkdir(backupDir);
  assert.deepEqual(await warehouse.backup(backupDir), ['w.duckdb', 'w.duckdb.wal']);
  assert.ok(warehouse.checkpoints().failed >= 1);
  assert.match(warehouse.problem() ?? '', /^checkpoints have failed since .* \(\d+ attempts?, last: TransactionContext Error: Cannot CHECKPOINT: there are other write transactions active/);
  assert.deepEqual(
    reports.map((report) => report.outcome),
    ['failing', 'problem'],
  );

  await assert.rejects(running, (error: Error & { status?: number }) => error.status === 504);
  await settled();
  assert.equal(await walBytes(), 0, 'the checkpoint tried again once the query ended');
  assert.equal(warehouse.problem(), undefined);
  assert.equal(reports.at(-1)?.outcome, 'recovered');
  assert.ok(warehouse.checkpoints().ok >= 2);
  await warehouse.close();

  // The file with its WAL, as copied, opens with both events and the retention.
  const restored = await DuckDbWarehouse.open({ path: join(backupDir, 'w.duckdb'), stagingDir: join(dir, 'staging-restored'), memoryLimit: '512MB' });
  assert.deepEqual(
    (await all(restored, 'event_message')).map((stored) => stored.event_message),
    [`r${sequence - 1}`, `r${sequence}`],
  );
  await restored.close();
});
