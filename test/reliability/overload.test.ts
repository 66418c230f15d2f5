/**
 * Overload: a full ingest queue answers 429 with Retry-After before reading the body, memory stays
 * bounded under more load than the writer can take, and nothing acknowledged is lost.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { EventGenerator } from '../../bench/generator.ts';
import { AppError } from '../../src/errors.ts';
import { rowsOfStaged } from '../../src/warehouse/staged-rows.ts';
import type { AppendBatch } from '../../src/warehouse/types.ts';
import { freePort, spawnServer, stopServer } from '../support/process.ts';
import { startTestServer } from '../support/server.ts';
import { rssOf, sleep, storedIds, tally } from './support.ts';

const KEY = 'overload-private-key-0123456789';
const dirs: string[] = [];
after(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

test('a full queue answers 429 with Retry-After, before the body is read, and recovers', async () => {
  const server = await startTestServer({ maxQueuedEvents: 1000, commitIntervalMs: 1 });
  try {
    const source = (await server.request('POST', '/api/sources', { body: { name: 'slow.disk' } })).body.token;
    // A disk that takes 300 ms per commit.
    const warehouse = server.services.warehouse;
    const append = warehouse.append.bind(warehouse);
    let peakBacklog = 0;
    warehouse.append = async (batches) => {
      peakBacklog = Math.max(peakBacklog, server.services.writer.backlog);
      await sleep(300);
      return append(batches);
    };
    const batch = (r: number) => Array.from({ length: 200 }, (_, i) => ({ id: `q${r}-${i}`, message: `queued ${r}` }));
    const replies = await Promise.all(Array.from({ length: 20 }, (_, r) => server.request('POST', `/logs?source=${source}`, { body: batch(r) })));
    const refused = replies.filter((reply) => reply.status === 429);
    const accepted = replies.filter((reply) => reply.status === 200);
    assert.equal(refused.length + accepted.length, 20, `only 200 and 429: ${replies.map((reply) => reply.status)}`);
    assert.ok(refused.length >= 5, `${refused.length} refused`);
    for (const reply of refused) {
      assert.equal(reply.headers.get('retry-after'), '1');
      assert.equal(reply.body.error.code, 'queue_full');
    }
    assert.ok(peakBacklog <= 1000, `the queue held ${peakBacklog} events, over its bound of 1000`);

    // While the queue is full a request is refused at once: even an unparseable body gets 429, not 400.
    const filling = Promise.all([0, 1, 2, 3, 4].map((r) => server.request('POST', `/logs?source=${source}`, { body: batch(100 + r) })));
    await sleep(20);
    const early = await server.request('POST', `/logs?source=${source}`, { body: '{not json', headers: { 'content-type': 'application/json' } });
    assert.equal(early.status, 429);
    assert.equal(early.headers.get('connection'), 'close', 'kept alive, the server would have to read the refused body');
    await filling;

    // What a client does with Retry-After: wait, send again; everything then goes in.
    warehouse.append = append;
    const sendUntilAccepted = async (r: number) => {
      for (let attempt = 0; attempt < 100; attempt++) {
        const reply = await server.request('POST', `/logs?source=${source}`, { body: batch(r) });
        if (reply.status !== 429) return reply.status;
        await sleep(50);
      }
      return 429;
    };
    const retried = await Promise.all(replies.map((reply, r) => (reply.status === 429 ? sendUntilAccepted(r) : reply.status)));
    assert.deepEqual(retried, replies.map(() => 200));
    const all = await warehouse.query(`select id from ${warehouse.relation(source)}`, {}, { timeoutMs: 5000, maxRows: 10_000 });
    const counts = tally(all.map((row) => String(row.id)));
    for (let r = 0; r < 20; r++) for (let i = 0; i < 200; i++) assert.equal(counts.get(`q${r}-${i}`), 1, `q${r}-${i}`);
  } finally {
    await server.stop({ removeData: true });
  }
});

test('more load than the writer can take: RSS stays under the bound and every acknowledged event is stored', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'sawmill-overload-'));
  dirs.push(dataDir);
  // The bound this configuration promises: the idle process, plus DuckDB's memory limit, plus the
  // queue and the bodies in flight (16 senders × 0.35 MB bodies, parsed into objects several times their size).
  const memoryLimitBytes = 256 * 1024 * 1024;
  const server = await spawnServer(
    { SAWMILL_DATA_DIR: dataDir, SAWMILL_API_KEY: KEY, SAWMILL_MAX_QUEUED_EVENTS: '3000', SAWMILL_MEMORY_LIMIT: '256MB' },
    await freePort(),
  );
  const headers = { 'x-api-key': KEY, 'content-type': 'application/json' };
  const source = (await (await fetch(`${server.url}/api/sources`, { method: 'POST', headers, body: JSON.stringify({ name: 'flood' }) })).json()).token;
  const pid = server.child.pid!;
  const idleRss = await rssOf(pid);
  const bound = idleRss + memoryLimitBytes + 192 * 1024 * 1024;

  // Bodies are built before the flood so the senders cost the server's two cores as little as possible.
  const bodies = Array.from({ length: 24 }, (_, b) =>
    JSON.stringify(
      Array.from({ length: 1000 }, (_, i) => ({
        id: `flood-${b}-${i}`,
        message: `flood ${b} ${i}`,
        metadata: Object.fromEntries(Array.from({ length: 12 }, (_, k) => [`field_${k}`, `value ${k} ${i}`])),
      })),
    ),
  );
  const acknowledged = new Set<number>();
  let refusals = 0;
  let peakRss = idleRss;
  const sampling = setInterval(() => void rssOf(pid).then((rss) => (peakRss = Math.max(peakRss, rss)), () => undefined), 50);
  const pending = bodies.map((_, b) => b);
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      for (let b = pending.shift(); b !== undefined; b = pending.shift()) {
        const reply = await fetch(`${server.url}/logs?source=${source}`, { method: 'POST', headers, body: bodies[b] });
        await reply.arrayBuffer();
        if (reply.status === 200) acknowledged.add(b);
        else {
          assert.equal(reply.status, 429);
          assert.equal(reply.headers.get('retry-after'), '1');
          refusals++;
          pending.push(b);
          await sleep(100);
        }
      }
    }),
  );
  clearInterval(sampling);
  assert.ok(refusals > 0, 'the load exceeded what the writer could take');
  assert.equal(acknowledged.size, bodies.length);
  assert.ok(peakRss < bound, `peak RSS ${(peakRss / 2 ** 20).toFixed(0)} MB, bound ${(bound / 2 ** 20).toFixed(0)} MB`);
  assert.equal(await stopServer(server), 0);
  const counts = tally(await storedIds(dataDir, source));
  assert.equal(counts.size, 24_000);
  assert.ok([...counts.values()].every((count) => count === 1));
});

test('after an overload of 1 MB bodies, RSS is back under idle + the memory limit within a minute', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'sawmill-overload-'));
  dirs.push(dataDir);
  // Issue 29 saw 670 MB against 153 + 512 MB; a lower limit makes the promise as tight for the memory DuckDB frees.
  const memoryLimitBytes = 256 * 1024 * 1024;
  const server = await spawnServer({ SAWMILL_DATA_DIR: dataDir, SAWMILL_API_KEY: KEY, SAWMILL_MEMORY_LIMIT: '256MB' }, await freePort());
  const headers = { 'x-api-key': KEY, 'content-type': 'application/json' };
  // The provisioned edge-log source, with the typed copies its built-in endpoints read.
  const sources = (await (await fetch(`${server.url}/api/sources`, { headers })).json()) as Array<{ name: string; token: string }>;
  const source = sources.find((one) => one.name === 'cloudflare.logs.prod')!.token;
  // A failed assertion must not leave the server running: its process would keep the test file's alive.
  try {
    const pid = server.child.pid!;
    await sleep(10_000); // idle: start-up's garbage and young generation are given back by then (src/http/idle-memory.ts)
    const bound = (await rssOf(pid)) + memoryLimitBytes;

    // 64 senders of 1 MB bodies of Supabase edge-log events (900 each) for a while: what issue 29 measured.
    const generator = new EventGenerator({ seed: 29, fromMs: Date.now() - 86_400_000, toMs: Date.now() - 60_000 });
    const bodies = Array.from({ length: 8 }, () => JSON.stringify(Array.from({ length: 900 }, () => generator.event('edge'))));
    let peakRss = 0;
    const sampling = setInterval(() => void rssOf(pid).then((rss) => (peakRss = Math.max(peakRss, rss)), () => undefined), 100);
    sampling.unref(); // nor the sampling, if an assertion fails before it is cleared
    const until = Date.now() + 8_000;
    let acknowledged = 0;
    await Promise.all(
      Array.from({ length: 64 }, async (_, sender) => {
        for (let n = sender; Date.now() < until; n++) {
          const reply = await fetch(`${server.url}/logs?source=${source}`, { method: 'POST', headers, body: bodies[n % bodies.length] });
          await reply.arrayBuffer();
          if (reply.status === 200) acknowledged++;
          else await sleep(200);
        }
      }),
    );
    assert.ok(acknowledged > 0);
    // The folds of what was acknowledged go on after the senders stop: RSS must come down once they are done.
    let rss = Infinity;
    for (const deadline = Date.now() + 60_000; Date.now() < deadline && rss > bound; await sleep(1000)) rss = await rssOf(pid);
    clearInterval(sampling);
    const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;
    assert.ok(rss <= bound, `RSS ${mb(rss)} a minute after the load (peak ${mb(peakRss)}), above idle + limit = ${mb(bound)}`);
    assert.equal(await stopServer(server), 0);
  } finally {
    if (server.child.exitCode === null) await stopServer(server, 'SIGKILL');
  }
});

test('DuckDB: events refused by the warehouse after their acknowledgement are retried, set aside only for their content, never lost', async () => {
  const server = await startTestServer({ foldIntervalMs: 50 });
  try {
    const source = (await server.request('POST', '/api/sources', { body: { name: 'failing.disk' } })).body.token;
    const warehouse = server.services.warehouse;
    const append = warehouse.append.bind(warehouse);
    // A warehouse that refuses a "poison" event for its content, and one that is out of disk.
    let diskFull = false;
    warehouse.append = async (batches, position) => {
      if (diskFull) throw new AppError(503, 'storage_busy', 'IO Error: No space left on device');
      // Events that fit the schema arrive as staged lines, the others as rows: look at both.
      const rowsOf = (batch: AppendBatch) => [...batch.rows, ...(batch.staged ?? []).flatMap(rowsOfStaged)];
      if (batches.some((batch) => rowsOf(batch).some((row) => row.event_message === 'poison'))) throw new Error('Conversion Error: poison');
      return append(batches, position);
    };
    // Acknowledged from the journal, so the warehouse's refusal reaches no sender.
    const replies = await Promise.all(
      ['fine 1', 'poison', 'fine 2', 'fine 3'].map((message) => server.request('POST', `/logs?source=${source}`, { body: [{ id: message, message }] })),
    );
    assert.deepEqual(replies.map((reply) => reply.status), [200, 200, 200, 200]);
    diskFull = true;
    assert.equal((await server.request('POST', `/logs?source=${source}`, { body: [{ id: 'during', message: 'while the disk is full' }] })).status, 200);
    let degraded = await server.request('GET', '/health', { key: null });
    for (let i = 0; i < 300 && degraded.status === 200; i++) {
      await sleep(100); // until a fold has met the full disk
      degraded = await server.request('GET', '/health', { key: null });
    }
    assert.equal(degraded.status, 503, 'the service stays up and says what fails');
    assert.match(degraded.body.problems.join(' '), /No space left on device/);
    diskFull = false;
    for (let i = 0; i < 100 && (await server.request('GET', '/health', { key: null })).status !== 200; i++) await sleep(100);
    // Once folds go in again, everything acknowledged is folded in or set aside.
    const stored = await warehouse.query(`select id from ${warehouse.relation(source)} order by id`, {}, { timeoutMs: 10_000, maxRows: 10 });
    assert.deepEqual(stored.map((row) => row.id), ['during', 'fine 1', 'fine 2', 'fine 3'], 'every acknowledged event the warehouse accepts');
    const rejectedDir = join(server.dataDir, 'journal', 'rejected');
    const setAside = await Promise.all((await readdir(rejectedDir)).map(async (name) => JSON.parse(await readFile(join(rejectedDir, name), 'utf8'))));
    assert.deepEqual(
      setAside.map((record) => [record.sourceId, record.reason, record.rows.map((row: { id: string }) => row.id)]),
      [[source, 'Conversion Error: poison', ['poison']]],
    );
  } finally {
    await server.stop({ removeData: true });
  }
});

test('DuckDB: while folds stall (as a checkpoint does under load), senders with requests in flight are held back, not refused, and everything acknowledged is stored', async () => {
  const maxQueuedEvents = 10_000;
  const server = await startTestServer({ maxQueuedEvents });
  try {
    const source = (await server.request('POST', '/api/sources', { body: { name: 'stalling.folds' } })).body.token;
    const warehouse = server.services.warehouse;
    const append = warehouse.append.bind(warehouse);
    let folds = 0;
    let peakBacklog = 0;
    warehouse.append = async (batches, position) => {
      peakBacklog = Math.max(peakBacklog, server.services.writer.backlog);
      if (++folds % 3 === 0) await sleep(1500);
      return append(batches, position);
    };
    // 16 senders of 100 events each keep a request in flight for 5 s: 1,600 events, within the
    // fifth of the queue's bound that acknowledgements held back leave free.
    const statuses = new Map<number, number>();
    let sent = 0;
    const until = Date.now() + 5000;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (Date.now() < until) {
          const batch = sent++;
          const reply = await server.request('POST', `/logs?source=${source}`, { body: Array.from({ length: 100 }, (_, i) => ({ id: `s${batch}-${i}`, message: 'stalled' })) });
          statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
        }
      }),
    );
    assert.deepEqual([...statuses.keys()], [200], `statuses: ${JSON.stringify([...statuses])}`);
    assert.ok(folds >= 3, `${folds} folds, so at least one stalled`);
    assert.ok(peakBacklog <= maxQueuedEvents, `the queue held ${peakBacklog} events`);
    // A query folds what was acknowledged before it (fewer than the reader limit wait).
    const stored = await warehouse.query(`select count(*) as n, count(distinct id) as ids from ${warehouse.relation(source)}`, {}, { timeoutMs: 30_000, maxRows: 1 });
    assert.deepEqual(stored.map((row) => [Number(row.n), Number(row.ids)]), [[sent * 100, sent * 100]]);
  } finally {
    await server.stop({ removeData: true });
  }
});

test('DuckDB: a server stopped while folds fail stops retrying them (the events stay in the journal)', async () => {
  const server = await startTestServer({ foldIntervalMs: 20 });
  const source = (await server.request('POST', '/api/sources', { body: { name: 'stuck.disk' } })).body.token;
  let attempts = 0;
  server.services.warehouse.append = async () => {
    attempts++;
    throw new AppError(503, 'storage_busy', 'IO Error: No space left on device');
  };
  assert.equal((await server.request('POST', `/logs?source=${source}`, { body: [{ message: 'kept in the journal' }] })).status, 200);
  for (let i = 0; i < 100 && attempts === 0; i++) await sleep(50);
  await server.stop({ removeData: true });
  const afterStop = attempts;
  await sleep(1_500); // several retry periods (0.25 s doubling)
  assert.equal(attempts, afterStop, 'no fold is tried after the server stopped');
});

test('ClickHouse: a failed commit acknowledges nothing (503, retried by clients), and one refused request does not fail those sharing its commit', async () => {
  const chdbDir = await mkdtemp(join(tmpdir(), 'sawmill-chdb-'));
  dirs.push(chdbDir);
  const clickhouse = { url: `chdb:${chdbDir}`, username: undefined, password: undefined, database: 'overload' };
  const server = await startTestServer({ warehouse: 'clickhouse', clickhouse, commitIntervalMs: 50 });
  try {
    const source = (await server.request('POST', '/api/sources', { body: { name: 'failing.disk' } })).body.token;
    const warehouse = server.services.warehouse;
    const append = warehouse.append.bind(warehouse);
    // A disk that refuses any commit holding a "poison" event, and then one that refuses everything.
    let diskFull = false;
    warehouse.append = async (batches) => {
      if (diskFull || batches.some((batch) => batch.rows.some((row) => row.event_message === 'poison'))) throw new Error('No space left on device');
      return append(batches);
    };
    // Sent together, so they share one commit (50 ms to gather).
    const replies = await Promise.all(
      ['fine 1', 'poison', 'fine 2', 'fine 3'].map((message) => server.request('POST', `/logs?source=${source}`, { body: [{ id: message, message }] })),
    );
    assert.deepEqual(replies.map((reply) => reply.status), [200, 503, 200, 200]);
    assert.deepEqual(replies[1]!.body, { error: { code: 'write_failed', message: 'events could not be stored, retry' } });
    diskFull = true;
    const refused = await server.request('POST', `/logs?source=${source}`, { body: [{ id: 'during', message: 'while the disk is full' }] });
    assert.equal(refused.status, 503);
    assert.equal((await server.request('GET', '/health', { key: null })).status, 200, 'the service stays up');
    diskFull = false;
    const stored = await warehouse.query(`select id from ${warehouse.relation(source)} order by id`, {}, { timeoutMs: 5000, maxRows: 10 });
    assert.deepEqual(stored.map((row) => row.id), ['fine 1', 'fine 2', 'fine 3'], 'exactly the acknowledged events');
  } finally {
    await server.stop({ removeData: true });
  }
});
