import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { FileCatalog } from '../../src/catalog/file-catalog.ts';
import { EndpointService } from '../../src/endpoints/service.ts';
import { DuckDbWarehouse } from '../../src/warehouse/duckdb/adapter.ts';
import { promotingDialect } from '../../src/warehouse/duckdb/rewrite.ts';

test('a promotion the warehouse refuses is reported with its source, and the endpoint is saved all the same', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'sawmill-endpoints-'));
  const catalog = await FileCatalog.open(dir);
  const warehouse = await DuckDbWarehouse.open({ path: join(dir, 'w.duckdb'), stagingDir: join(dir, 'staging'), memoryLimit: '256MB' });
  const failures: Array<{ message: string; sourceId: string }> = [];
  const endpoints = new EndpointService(catalog, warehouse, promotingDialect((relation) => warehouse.promotionFor(relation)), {
    queryTimeoutMs: 10_000,
    cacheMaxBytes: 1 << 20,
    onPromotionFailed: (error, sourceId) => failures.push({ message: error instanceof Error ? error.message : String(error), sourceId }),
  });
  try {
    const schema = new Map([['metadata', { kind: 'record' as const, fields: new Map([['project_ref', { kind: 'string' as const }]]) }]]);
    const row = { id: 'a', timestamp: 1, event_message: '', fields: { metadata: [{ project_ref: 'p1' }] } };
    const [stored, broken] = [await catalog.createSource(1, { name: 'stored' }), await catalog.createSource(1, { name: 'broken' })];
    for (const source of [stored, broken]) {
      await warehouse.createSource(source.token);
      await warehouse.append([{ sourceId: source.token, schema, rows: [row] }]);
    }
    // Its table dropped behind the warehouse's back: adding the copies to it fails.
    const [segment] = await warehouse.query(`select table_name from duckdb_tables() where table_name like '${warehouse.relation(broken.token).slice(1, -1)}_%'`, {}, { timeoutMs: 10_000, maxRows: 10 });
    await warehouse.query(`drop table "${String(segment!.table_name)}"`, {}, { timeoutMs: 10_000, maxRows: 10 });
    const query = (source: string) => `select m.project_ref as p from \`${source}\` as t cross join unnest(t.metadata) as m`;

    await endpoints.create(1, { name: 'fine', query: query('stored') });
    assert.equal(failures.length, 0, 'a promotion that works is not reported');
    assert.ok(warehouse.promotionFor(warehouse.relation(stored.token)), 'stored source has promoted copies');

    const saved = await endpoints.create(1, { name: 'slow', query: query('broken') });
    assert.equal(failures.length, 1);
    assert.equal(failures[0]!.sourceId, broken.token);
    assert.match(failures[0]!.message, /does not exist/);
    assert.equal(catalog.endpointByName(1, 'slow')?.id, saved.id);
    assert.equal((await endpoints.run({ ownerId: 1, scopes: ['private'] }, 'fine', {})).body, JSON.stringify({ result: [{ p: 'p1' }] }));
  } finally {
    endpoints.stop();
    await warehouse.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test('the warehouse keeps copies of what the saved endpoints read, and drops them when no endpoint reads them', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'sawmill-endpoints-'));
  const catalog = await FileCatalog.open(dir);
  const warehouse = await DuckDbWarehouse.open({ path: join(dir, 'w.duckdb'), stagingDir: join(dir, 'staging'), memoryLimit: '256MB' });
  const endpoints = new EndpointService(catalog, warehouse, promotingDialect((relation) => warehouse.promotionFor(relation)), { queryTimeoutMs: 10_000, cacheMaxBytes: 1 << 20 });
  try {
    const source = await catalog.createSource(1, { name: 'logs' });
    await warehouse.createSource(source.token);
    const fields = new Map([
      ['project_ref', { kind: 'string' as const }],
      ['status', { kind: 'int' as const }],
    ]);
    const row = { id: 'a', timestamp: 1, event_message: '', fields: { metadata: [{ project_ref: 'p1', status: 200 }] } };
    await warehouse.append([{ sourceId: source.token, schema: new Map([['metadata', { kind: 'record' as const, fields }]]), rows: [row] }]);
    const leaves = () => [...(warehouse.promotionFor(warehouse.relation(source.token))?.leaves ?? [])].sort();
    const reading = (field: string) => `select m.${field} from logs as t cross join unnest(t.metadata) as m`;

    const projects = await endpoints.create(1, { name: 'projects', query: reading('project_ref') });
    const statuses = await endpoints.create(1, { name: 'statuses', query: reading('status') });
    assert.deepEqual(leaves(), ['metadata.project_ref', 'metadata.status']);
    await endpoints.update(statuses, { query: reading('project_ref') });
    assert.deepEqual(leaves(), ['metadata.project_ref']);
    await endpoints.delete(projects);
    assert.deepEqual(leaves(), ['metadata.project_ref'], 'still read by the other endpoint');
    await endpoints.delete(catalog.endpointByName(1, 'statuses')!);
    assert.deepEqual(leaves(), []);
  } finally {
    endpoints.stop();
    await warehouse.close();
    await rm(dir, { recursive: true, force: true });
  }
});
