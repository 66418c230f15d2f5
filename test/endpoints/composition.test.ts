/**
 * Endpoint composition (Logflare's): an endpoint reads another endpoint of its owner by name, as a
 * table. Parameters reach both, a cycle is refused at save, the caller needs access to both,
 * cached results follow the definition of the endpoint read, and a sandboxed caller reads it
 * through the outer endpoint's CTEs. (composition-clickhouse.test.ts runs it on ClickHouse.)
 */

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestServer, type TestServer } from '../support/server.ts';

let server: TestServer;

before(async () => {
  server = await startTestServer();
  const source = await server.request('POST', '/api/sources', { body: { name: 'shop.orders' } });
  const events = [
    { message: 'order 1', metadata: { region: 'north', total: 30 } },
    { message: 'order 2', metadata: { region: 'south', total: 5 } },
    { message: 'order 3', metadata: { region: 'north', total: 12 } },
  ];
  assert.equal((await server.request('POST', `/logs?source=${source.body.token}`, { body: events })).status, 200);
});
after(() => server.stop({ removeData: true }));

const create = async (body: Record<string, unknown>) => {
  const reply = await server.request('POST', '/api/endpoints', { body });
  assert.equal(reply.status, 201, JSON.stringify(reply.body));
  return reply.body as { id: number; token: string };
};
const run = async (name: string, params = '', key?: string) => {
  const reply = await server.request('GET', `/api/endpoints/query/${name}${params}`, key === undefined ? {} : { key });
  assert.equal(reply.status, 200, JSON.stringify(reply.body));
  return reply.body.result as Array<Record<string, unknown>>;
};

test("an endpoint reads another's rows by its name, with a parameter passed through to it", async () => {
  await create({
    name: 'orders.by_region',
    query: 'select m.region, sum(m.total) as total from `shop.orders` as t cross join unnest(t.metadata) as m where m.total >= @min_total group by m.region',
  });
  await create({ name: 'orders.top', query: 'select region, total from `orders.by_region` where total > @above order by total desc' });
  assert.deepEqual(await run('orders.top', '?min_total=10&above=0'), [{ region: 'north', total: 42 }]);
  assert.deepEqual(await run('orders.top', '?min_total=0&above=0'), [
    { region: 'north', total: 42 },
    { region: 'south', total: 5 },
  ]);
  // Logflare's own case: a dotted name, read in backticks.
  await create({ name: 'my.date', query: 'select current_date() as testing' });
  await create({ name: 'my.date.reader', query: 'select testing from `my.date`' });
  assert.equal((await run('my.date.reader')).length, 1);
});

test('a chain of endpoints that comes back to one on it is refused at save, where the name is', async () => {
  await create({ name: 'loop.a', query: 'select 1 as x' });
  await create({ name: 'loop.b', query: 'select x from `loop.a`' });
  const saved = (await server.request('GET', '/api/endpoints')).body.find((endpoint: { name: string }) => endpoint.name === 'loop.a');
  const cycle = await server.request('PATCH', `/api/endpoints/${saved.token}`, { body: { query: 'select x\nfrom `loop.b`' } });
  assert.equal(cycle.status, 422, JSON.stringify(cycle.body));
  assert.match(cycle.body.error ?? cycle.body.errors.query[0], /endpoint loop\.a would read itself: loop\.a → loop\.b → loop\.a/);
  assert.deepEqual([cycle.body.line, cycle.body.column], [2, 6]);
  const itself = await server.request('PATCH', `/api/endpoints/${saved.token}`, { body: { query: 'select * from `loop.a`' } });
  assert.equal(itself.status, 422, JSON.stringify(itself.body));
  assert.deepEqual(await run('loop.b'), [{ x: 1 }], 'the refused change was not saved');
});

test('a key needs access to both endpoints', async () => {
  const inner = await create({ name: 'access.inner', query: "select 'secret' as word" });
  const outer = await create({ name: 'access.outer', query: 'select word from `access.inner`' });
  const token = async (scopes: string[]) => (await server.request('POST', '/api/access-tokens', { body: { scopes } })).body.token as string;
  const outerOnly = await token([`query:endpoint:${outer.id}`]);
  const refused = await server.request('GET', '/api/endpoints/query/access.outer', { key: outerOnly });
  assert.equal(refused.status, 403, JSON.stringify(refused.body));
  assert.match(JSON.stringify(refused.body), /access\.inner/);
  assert.deepEqual(await run('access.outer', '', await token([`query:endpoint:${outer.id}`, `query:endpoint:${inner.id}`])), [{ word: 'secret' }]);
});

test('cached results of an endpoint follow a change of the endpoint it reads', async () => {
  const inner = await create({ name: 'cache.inner', query: 'select 1 as n' });
  await create({ name: 'cache.outer', query: 'select n * 10 as tens from `cache.inner`', cache_duration_seconds: 600 });
  assert.deepEqual(await run('cache.outer'), [{ tens: 10 }]);
  assert.equal((await server.request('PATCH', `/api/endpoints/${inner.token}`, { body: { query: 'select 2 as n' } })).status, 204);
  assert.deepEqual(await run('cache.outer'), [{ tens: 20 }]);
});

test("a sandboxed caller reads another endpoint through the outer endpoint's CTE, and only so", async () => {
  await create({ name: 'sandbox.regions', query: "select 'north' as region union all select 'south'" });
  await create({ name: 'sandbox.outer', query: 'with regions as (select region from `sandbox.regions`) select * from regions', sandboxable: true });
  const sql = encodeURIComponent("select count(*) as n from regions where region != 'south'");
  assert.deepEqual(await run('sandbox.outer', `?sql=${sql}`), [{ n: 1 }]);
  const direct = await server.request('GET', `/api/endpoints/query/sandbox.outer?sql=${encodeURIComponent('select * from `sandbox.regions`')}`);
  assert.equal(direct.status, 400, JSON.stringify(direct.body));
});

test('a source of the same name wins over an endpoint, and an unknown name is still refused', async () => {
  await create({ name: 'shop.orders', query: "select 'endpoint' as origin" });
  const reader = await server.request('POST', '/api/endpoints', { body: { name: 'source.first', query: 'select count(*) as n from `shop.orders`' } });
  assert.equal(reader.status, 201, JSON.stringify(reader.body));
  assert.deepEqual(await run('source.first'), [{ n: 3 }]);
  const unknown = await server.request('POST', '/api/endpoints', { body: { name: 'reads.nothing', query: 'select * from `no.such.endpoint`' } });
  assert.equal(unknown.status, 422);
});
