/** The file catalog keeps an endpoint's language, and reads endpoints saved before there was one as bq_sql. */

import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { FileCatalog } from '../../src/catalog/file-catalog.ts';

test('an endpoint saved without a language reads as bq_sql; a language given is kept across reopening', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'sawmill-catalog-'));
  try {
    const old = { id: 1, token: '00000000-0000-4000-8000-000000000001', owner_id: 1, name: 'old', query: 'select 1 as one', max_limit: 10 };
    await writeFile(join(dir, 'catalog.json'), JSON.stringify({ version: 1, next_id: 2, sources: [], endpoints: [old], access_tokens: [] }));
    const catalog = await FileCatalog.open(dir);
    assert.equal(catalog.endpointByName(1, 'old')?.language, 'bq_sql');
    const created = await catalog.createEndpoint(1, { name: 'ch', query: 'select 1', language: 'ch_sql' });
    assert.equal(created.language, 'ch_sql');
    const defaulted = await catalog.createEndpoint(1, { name: 'plain', query: 'select 1' });
    assert.equal(defaulted.language, 'bq_sql');

    const reopened = await FileCatalog.open(dir);
    assert.deepEqual(reopened.listEndpoints(1).map((endpoint) => [endpoint.name, endpoint.language]), [['old', 'bq_sql'], ['ch', 'ch_sql'], ['plain', 'bq_sql']]);
    const stored = JSON.parse(await readFile(join(dir, 'catalog.json'), 'utf8'));
    assert.equal(stored.endpoints[1].language, 'ch_sql');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
