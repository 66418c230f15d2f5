import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestServer, type TestServer } from '../support/server.ts';

// A fold interval far longer than the test: only the read barrier can make events visible in time.
let server: TestServer;
before(async () => (server = await startTestServer({ foldIntervalMs: 60_000 })));
after(() => server.stop({ removeData: true }));

test('an endpoint query, the schema and the explorer see events acknowledged just before them', async () => {
  const source = (await server.request('POST', '/api/sources', { body: { name: 'fresh.reads' } })).body.token;
  const endpoint = (await server.request('POST', '/api/endpoints', { body: { name: 'fresh.count', query: 'select count(*) as n from `fresh.reads`' } })).body;
  const startedAt = Date.now();
  for (let round = 1; round <= 3; round++) {
    const sent = await server.request('POST', `/logs?source=${source}`, { body: [{ message: `round ${round}`, metadata: { [`field_${round}`]: round } }] });
    assert.equal(sent.status, 200);
    const counted = await server.request('GET', `/api/endpoints/query/${endpoint.token}`);
    assert.deepEqual(counted.body, { result: [{ n: round }] });
    const schema = await server.request('GET', `/api/sources/${source}/schema`);
    assert.ok(schema.body.metadata.fields[`field_${round}`], `field_${round} is in the schema`);
    const events = await server.request('GET', `/api/sources/${source}/events?limit=10`);
    assert.equal(events.status, 200);
    assert.equal(events.body.events.length, round);
  }
  assert.ok(Date.now() - startedAt < 30_000, 'nothing waited for the fold interval');
});
