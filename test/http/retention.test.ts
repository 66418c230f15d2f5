import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

let server: TestServer;

before(async () => {
  server = await startTestServer({ defaultRetentionDays: 30 });
});
after(() => server.stop({ removeData: true }));

test('SAWMILL_DEFAULT_RETENTION_DAYS is what a new source keeps unless it says otherwise; unset keeps forever', () => {
  assert.equal(loadConfig({}).defaultRetentionDays, null);
  assert.equal(loadConfig({ SAWMILL_DEFAULT_RETENTION_DAYS: '90' }).defaultRetentionDays, 90);
  assert.equal(loadConfig({ SAWMILL_DEFAULT_RETENTION_DAYS: 'forever' }).defaultRetentionDays, null);
  assert.throws(() => loadConfig({ SAWMILL_DEFAULT_RETENTION_DAYS: '0' }), /SAWMILL_DEFAULT_RETENTION_DAYS must be a whole number of days \(1 or more\) or "forever", got "0"/);
});

test('new sources get the default: created by the API, and those provisioned at first start', async () => {
  const plain = await server.request('POST', '/api/sources', { body: { name: 'default.kept' } });
  assert.equal(plain.body.retention_days, 30);
  const own = await server.request('POST', '/api/sources', { body: { name: 'own.kept', retention_days: 7 } });
  assert.equal(own.body.retention_days, 7);
  const forever = await server.request('POST', '/api/sources', { body: { name: 'forever.kept', retention_days: null } });
  assert.equal(forever.body.retention_days, null);
  const provisioned = (await server.request('GET', '/api/sources')).body.find((source: { name: string }) => source.name === 'postgres.logs');
  assert.equal(provisioned.retention_days, 30);
  // The explorer's list (console, CLI) shows it too.
  const listed = (await server.request('GET', '/api/explorer/sources')).body as Array<{ name: string; retention_days: number | null }>;
  assert.deepEqual(
    listed.filter((source) => source.name.endsWith('.kept')).map((source) => [source.name, source.retention_days]),
    [['default.kept', 30], ['own.kept', 7], ['forever.kept', null]],
  );
});
