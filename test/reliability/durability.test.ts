/**
 * Durability of the real entry point: SIGKILL mid-stream at several points, a damaged
 * write-ahead log, stray staging files, and SIGTERM with requests in flight. What a 2xx promises
 * is checked against the DuckDB file itself once the server is gone.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { appendFile, mkdtemp, readdir, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { viewName } from '../../src/warehouse/duckdb/layout.ts';
import { freePort, spawnServer, stopServer, type ServerProcess } from '../support/process.ts';
import { seededRandom, sleep, storedIds, tally } from './support.ts';

const KEY = 'durability-private-key-0123456789';
const dirs: string[] = [];
/** Data dirs of tests that failed stay for inspection (a DuckDB file that will not open is worth a look). */
const kept = new Set<string>();
after(() => Promise.all(dirs.filter((dir) => !kept.has(dir)).map((dir) => rm(dir, { recursive: true, force: true }))));

async function freshDataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'sawmill-durability-'));
  dirs.push(dir);
  return dir;
}

const start = async (dataDir: string, env: Record<string, string> = {}) => spawnServer({ SAWMILL_DATA_DIR: dataDir, SAWMILL_API_KEY: KEY, ...env }, await freePort());

async function call(server: ServerProcess, method: string, path: string, body?: unknown) {
  const reply = await fetch(server.url + path, {
    method,
    headers: { 'x-api-key': KEY, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: reply.status, body: (await reply.json().catch(() => undefined)) as any };
}

interface Ledger {
  /** Ids in batches answered 2xx. */
  acknowledged: Set<string>;
  /** Every id ever sent, answered or not. */
  sent: Set<string>;
}

/**
 * `senders` concurrent loops posting batches of unique ids until the server stops answering;
 * a batch counts as acknowledged only when its reply is a 2xx.
 */
function sendUntilGone(server: ServerProcess, source: string, label: string, senders: number, ledger: Ledger, batchSize = 50, keepGoing = () => true): Promise<void> {
  const loop = async (sender: number) => {
    for (let batch = 0; keepGoing(); batch++) {
      const ids = Array.from({ length: batchSize }, (_, i) => `${label}-s${sender}-b${batch}-e${i}`);
      for (const id of ids) ledger.sent.add(id);
      try {
        const reply = await fetch(`${server.url}/logs?source=${source}`, {
          method: 'POST',
          headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
          body: JSON.stringify({ batch: ids.map((id) => ({ id, message: `event ${id}`, metadata: { sender, batch } })) }),
        });
        await reply.arrayBuffer();
        if (reply.ok) for (const id of ids) ledger.acknowledged.add(id);
      } catch {
        return; // the server is gone
      }
    }
  };
  return Promise.all(Array.from({ length: senders }, (_, sender) => loop(sender))).then(() => undefined);
}

/** Every acknowledged id stored exactly once, nothing stored twice, nothing stored that was not sent. */
async function assertLedgerHolds(dataDir: string, source: string, ledger: Ledger): Promise<void> {
  const counts = tally(await storedIds(dataDir, source));
  const missing = [...ledger.acknowledged].filter((id) => counts.get(id) !== 1);
  assert.deepEqual(missing.slice(0, 5), [], `${missing.length} acknowledged events are missing or repeated`);
  const repeated = [...counts].filter(([, count]) => count > 1);
  assert.deepEqual(repeated.slice(0, 5), [], 'no event is stored twice');
  const unknown = [...counts.keys()].filter((id) => !ledger.sent.has(id));
  assert.deepEqual(unknown.slice(0, 5), [], 'only events that were sent are stored');
}

async function createSource(server: ServerProcess, name: string): Promise<string> {
  const created = await call(server, 'POST', '/api/sources', { name });
  assert.equal(created.status, 201);
  return created.body.token;
}

test('SIGKILL mid-stream, three rounds: every acknowledged event is stored exactly once after restart', async () => {
  const random = seededRandom(4);
  const dataDir = await freshDataDir();
  const ledger: Ledger = { acknowledged: new Set(), sent: new Set() };
  let server = await start(dataDir);
  const source = await createSource(server, 'durable');
  const counter = await call(server, 'POST', '/api/endpoints', { name: 'durable.count', query: 'select count(*) as n, count(distinct id) as d from `durable`' });
  assert.equal(counter.status, 201);

  for (let round = 0; round < 3; round++) {
    if (round > 0) server = await start(dataDir);
    const sending = sendUntilGone(server, source, `r${round}`, 4, ledger);
    await sleep(random.int(400, 1500)); // a different kill point each round
    const before = ledger.acknowledged.size;
    assert.equal(await stopServer(server, 'SIGKILL'), null);
    await sending;
    assert.ok(ledger.acknowledged.size > before || before > 0, `round ${round} acknowledged some events`);
  }
  assert.ok(ledger.acknowledged.size >= 1000, `only ${ledger.acknowledged.size} events were acknowledged`);
  assert.ok(ledger.sent.size > ledger.acknowledged.size, 'some batches were in flight at each kill');

  server = await start(dataDir);
  const counted = await call(server, 'GET', '/api/endpoints/query/durable.count');
  assert.equal(counted.status, 200);
  const [{ n, d }] = counted.body.result;
  assert.ok(n >= ledger.acknowledged.size && n <= ledger.sent.size, `${n} stored, ${ledger.acknowledged.size} acknowledged`);
  assert.equal(n, d, 'no id twice');
  assert.equal(await stopServer(server), 0);
  await assertLedgerHolds(dataDir, source, ledger);
});

/** Polls `check` every 5 ms until it holds or `ms` pass; whether it held. */
async function waitFor(check: () => boolean, ms: number): Promise<boolean> {
  for (const deadline = Date.now() + ms; Date.now() < deadline; await sleep(5)) if (check()) return true;
  return false;
}

const fileSize = (path: string) => (existsSync(path) ? statSync(path).size : 0);

test('SIGKILL during a bulk fold and during a checkpoint: every acknowledged event is stored exactly once after restart', async (t) => {
  const random = seededRandom(19);
  const dataDir = await freshDataDir();
  let finished = false;
  t.after(() => {
    if (finished) return;
    kept.add(dataDir);
    t.diagnostic(`data dir kept for inspection: ${dataDir}`);
  });
  const ledger: Ledger = { acknowledged: new Set(), sent: new Set() };
  const staging = join(dataDir, 'staging');
  const database = join(dataDir, 'sawmill.duckdb');
  let server = await start(dataDir);
  const source = await createSource(server, 'bulk');

  // A fold is in progress while its staging file exists: killed at a random point inside it.
  for (let round = 0; round < 2; round++) {
    if (round > 0) server = await start(dataDir);
    const sending = sendUntilGone(server, source, `fold${round}`, 4, ledger, 1000);
    assert.ok(await waitFor(() => readdirSync(staging).length > 0, 60_000), `round ${round}: a fold started`);
    await sleep(random.int(0, 300));
    assert.equal(await stopServer(server, 'SIGKILL'), null);
    await sending;
  }

  // A checkpoint is the first write to the database file once senders stopped and the last fold
  // (into DuckDB's log) is done: killed at that write, before the log is emptied.
  server = await start(dataDir);
  let sendingOn = true;
  const sending = sendUntilGone(server, source, 'checkpoint', 4, ledger, 1000, () => sendingOn);
  await sleep(3_000);
  sendingOn = false;
  await sending;
  ledger.sent.add('last');
  assert.equal((await call(server, 'POST', `/logs?source=${source}&wait=visible`, [{ id: 'last', message: 'last' }])).status, 200);
  ledger.acknowledged.add('last');
  const written = statSync(database).mtimeMs;
  assert.ok(await waitFor(() => statSync(database).mtimeMs !== written, 30_000), 'the idle checkpoint started');
  assert.equal(await stopServer(server, 'SIGKILL'), null);
  assert.ok(fileSize(`${database}.wal`) > 0, 'killed before the checkpoint emptied the log');

  server = await start(dataDir);
  assert.equal(await stopServer(server), 0);
  assert.ok(ledger.acknowledged.size >= 10_000, `only ${ledger.acknowledged.size} events were acknowledged`);
  await assertLedgerHolds(dataDir, source, ledger);
  finished = true;
});

/**
 * Senders of requests that mix the fast path and the other one (src/pipeline/encode-events.ts):
 * events that fit the schema (staged lines), one with a field never seen (a row beside them in
 * the same journal record) and one the adapter refuses (reported by index). Every 2xx's report
 * is checked as it comes; acknowledged events go into the ledger with the value they carry.
 */
function sendMixedUntilGone(server: ServerProcess, source: string, label: string, senders: number, ledger: Ledger & { values: Map<string, number> }, keepGoing = () => true): Promise<void> {
  const loop = async (sender: number) => {
    for (let batch = 0; keepGoing(); batch++) {
      const ids = Array.from({ length: 40 }, (_, i) => `${label}-s${sender}-b${batch}-e${i}`);
      const events: unknown[] = ids.map((id, i) => ({ id, message: `event ${id}`, metadata: { sender, batch, n: i } }));
      const widen = batch % 3 === 0;
      if (widen) (events[7] as Record<string, unknown>)[`extra_${label}_${sender}_${batch % 12}`] = { at: batch };
      events.splice(11, 0, 42); // refused: not an object
      for (const id of ids) ledger.sent.add(id);
      try {
        const reply = await fetch(`${server.url}/logs?source=${source}`, {
          method: 'POST',
          headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
          body: JSON.stringify(events),
        });
        const body = (await reply.json().catch(() => undefined)) as { accepted: number; rejected: number; errors: Array<{ index: number }> } | undefined;
        if (!reply.ok) continue;
        assert.deepEqual([body!.accepted, body!.rejected, body!.errors.map((error) => error.index)], [40, 1, [11]]);
        ids.forEach((id, i) => {
          ledger.acknowledged.add(id);
          ledger.values.set(id, i);
        });
      } catch (error) {
        if (error instanceof assert.AssertionError) throw error;
        return; // the server is gone
      }
    }
  };
  return Promise.all(Array.from({ length: senders }, (_, sender) => loop(sender))).then(() => undefined);
}

test('SIGKILL during folds and a checkpoint of staged lines mixed with new fields and refused events: every acknowledged event stored once, with its values', async (t) => {
  const random = seededRandom(30);
  const dataDir = await freshDataDir();
  let finished = false;
  t.after(() => {
    if (finished) return;
    kept.add(dataDir);
    t.diagnostic(`data dir kept for inspection: ${dataDir}`);
  });
  const ledger = { acknowledged: new Set<string>(), sent: new Set<string>(), values: new Map<string, number>() };
  const staging = join(dataDir, 'staging');
  const database = join(dataDir, 'sawmill.duckdb');
  let server = await start(dataDir);
  const source = await createSource(server, 'mixed');

  for (let round = 0; round < 3; round++) {
    if (round > 0) server = await start(dataDir);
    const sending = sendMixedUntilGone(server, source, `fold${round}`, 4, ledger);
    assert.ok(await waitFor(() => readdirSync(staging).length > 0, 60_000), `round ${round}: a fold started`);
    await sleep(random.int(0, 300));
    assert.equal(await stopServer(server, 'SIGKILL'), null);
    await sending;
  }

  // Killed at the first write of the idle checkpoint, before it emptied DuckDB's log.
  server = await start(dataDir);
  let sendingOn = true;
  const sending = sendMixedUntilGone(server, source, 'checkpoint', 4, ledger, () => sendingOn);
  await sleep(3_000);
  sendingOn = false;
  await sending;
  assert.equal((await call(server, 'POST', `/logs?source=${source}&wait=visible`, [{ id: 'last', message: 'last' }])).status, 200);
  ledger.sent.add('last');
  ledger.acknowledged.add('last');
  const written = statSync(database).mtimeMs;
  assert.ok(await waitFor(() => statSync(database).mtimeMs !== written, 30_000), 'the idle checkpoint started');
  assert.equal(await stopServer(server, 'SIGKILL'), null);

  server = await start(dataDir);
  assert.equal(await stopServer(server), 0);
  assert.ok(ledger.acknowledged.size >= 4_000, `only ${ledger.acknowledged.size} events were acknowledged`);
  await assertLedgerHolds(dataDir, source, ledger);
  // Each staged line and row kept its values: metadata.n is the event's place in its request.
  const stored = await storedValues(dataDir, source);
  const wrong = [...ledger.values].filter(([id, n]) => stored.get(id) !== n);
  assert.deepEqual(wrong.slice(0, 5), [], `${wrong.length} events lost their values`);
  finished = true;
});

async function storedValues(dataDir: string, source: string): Promise<Map<string, number>> {
  const instance = await DuckDBInstance.create(join(dataDir, 'sawmill.duckdb'));
  try {
    const connection = await instance.connect();
    const reader = await connection.runAndReadAll(`select id, metadata[1].n from "${viewName(source)}" where id <> 'last'`);
    return new Map(reader.getRows().map(([id, n]) => [String(id), Number(n)]));
  } finally {
    instance.closeSync();
  }
}

test('a damaged write-ahead log tail never stops the service from starting or loses an acknowledged event', async () => {
  const dataDir = await freshDataDir();
  const wal = join(dataDir, 'sawmill.duckdb.wal');
  const ledger: Ledger = { acknowledged: new Set(), sent: new Set() };
  // Folds every 100 ms: the kill below must find one in DuckDB's log, which an idle checkpoint empties.
  const frequentFolds = { SAWMILL_FOLD_INTERVAL_MS: '100' };
  let server = await start(dataDir, frequentFolds);
  const source = await createSource(server, 'torn');
  const random = seededRandom(7);
  const damages: Array<[string, () => Promise<void>]> = [
    // The file grew but its new blocks never reached the disk: zeros where an entry should be.
    ['zero-filled tail', () => appendFile(wal, Buffer.alloc(8192))],
    ['random bytes', () => appendFile(wal, Buffer.from(Array.from({ length: 4096 }, () => random.int(0, 255))))],
    // A header that claims a checksum over bytes that are not there as written.
    ['bad checksum', () => appendFile(wal, Buffer.concat([Buffer.from([16, 0, 0, 0, 0, 0, 0, 0]), Buffer.alloc(8, 0xab), Buffer.alloc(16, 0x11)]))],
  ];
  for (const [label, damage] of damages) {
    const sending = sendUntilGone(server, source, label.replaceAll(' ', '_'), 3, ledger);
    // Killed once a fold has written DuckDB's log (a fixed wait missed it on a loaded machine).
    for (let waited = 0; waited < 30_000 && !existsSync(wal); waited += 100) await sleep(100);
    await sleep(300);
    assert.equal(await stopServer(server, 'SIGKILL'), null);
    await sending;
    assert.ok(existsSync(wal), 'the killed server left a write-ahead log to replay');
    const walBytes = (await stat(wal)).size;
    await damage();
    // An interrupted commit can leave its staging file behind; start-up clears it.
    await writeFile(join(dataDir, 'staging', 'left-over.ndjson'), '{"id":"never-sent"}\n');
    server = await start(dataDir, frequentFolds);
    assert.equal((await call(server, 'GET', '/health')).status, 200, label);
    assert.deepEqual(await readdir(join(dataDir, 'staging')), [], 'staging is emptied on start');
    if (label === 'zero-filled tail' || label === 'bad checksum') {
      assert.match(server.output(), /damaged tail/, `${label}: the repair is logged`);
    }
    assert.ok(walBytes > 0);
  }
  const saved = (await readdir(dataDir)).filter((name) => name.includes('.wal.damaged-'));
  assert.ok(saved.length >= 2, 'the damaged logs are kept for inspection');
  assert.equal(await stopServer(server), 0);
  await assertLedgerHolds(dataDir, source, ledger);
});

test("a DuckDB WAL cut in the middle of the last fold: the journal replays that fold, every acknowledged event once", async () => {
  const dataDir = await freshDataDir();
  const ledger: Ledger = { acknowledged: new Set(), sent: new Set() };
  let server = await start(dataDir);
  const source = await createSource(server, 'cut');
  // Two folds, one after the other (a query waits for each), so the WAL ends with the second.
  const post = async (ids: string[]) => {
    for (const id of ids) ledger.sent.add(id);
    const reply = await call(server, 'POST', `/logs?source=${source}`, ids.map((id) => ({ id, message: id })));
    assert.equal(reply.status, 200);
    for (const id of ids) ledger.acknowledged.add(id);
    assert.equal((await call(server, 'GET', `/api/sources/${source}/schema`)).status, 200);
  };
  await post(Array.from({ length: 100 }, (_, i) => `first-${i}`));
  const walAfterFirst = (await stat(join(dataDir, 'sawmill.duckdb.wal'))).size;
  await post(Array.from({ length: 100 }, (_, i) => `second-${i}`));
  assert.equal(await stopServer(server, 'SIGKILL'), null);
  const walAfterSecond = (await stat(join(dataDir, 'sawmill.duckdb.wal'))).size;
  assert.ok(walAfterSecond > walAfterFirst, 'the second fold is in the WAL');
  // As if the machine died while DuckDB was writing the second fold: the journal still has it.
  await truncate(join(dataDir, 'sawmill.duckdb.wal'), Math.floor((walAfterFirst + walAfterSecond) / 2));
  server = await start(dataDir);
  assert.equal(await stopServer(server), 0);
  const counts = tally(await storedIds(dataDir, source));
  assert.equal(counts.size, 200);
  await assertLedgerHolds(dataDir, source, ledger);
});

test('SIGTERM with requests in flight: they finish with 200, the process exits 0, and their events are stored', async () => {
  const dataDir = await freshDataDir();
  let server = await start(dataDir);
  const source = await createSource(server, 'drain');
  const ledger: Ledger = { acknowledged: new Set(), sent: new Set() };
  let signalled = false;
  let completedAfterSignal = 0;
  const requests = Array.from({ length: 12 }, async (_, r) => {
    const ids = Array.from({ length: 3000 }, (_, i) => `drain-${r}-${i}`);
    for (const id of ids) ledger.sent.add(id);
    try {
      const reply = await fetch(`${server.url}/logs?source=${source}`, {
        method: 'POST',
        headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
        body: JSON.stringify(ids.map((id) => ({ id, message: `drain ${id}`, metadata: { padding: 'p'.repeat(200) } }))),
      });
      await reply.arrayBuffer();
      if (reply.status === 200) {
        for (const id of ids) ledger.acknowledged.add(id);
        if (signalled) completedAfterSignal++;
      } else {
        assert.equal(reply.status, 503, 'a request the server never started is refused with 503');
      }
    } catch {
      // Refused before it was read: nothing was promised.
    }
  });
  // Signal as soon as the first request is answered, while the others are being worked on.
  await Promise.race(requests);
  server.child.kill('SIGTERM');
  signalled = true;
  const [code] = await Promise.all([new Promise((resolve) => server.child.once('exit', resolve)), Promise.all(requests)]);
  assert.equal(code, 0);
  assert.ok(completedAfterSignal >= 1, 'requests in flight at SIGTERM were answered 200');
  server = await start(dataDir);
  assert.equal(await stopServer(server), 0);
  await assertLedgerHolds(dataDir, source, ledger);
});
