/**
 * A full disk, on a real size-limited file system (tmpfs; mounting needs root, which CI has):
 * nothing acknowledged is lost or set aside, clients are told to retry, /health says why, queries
 * answer at once, and storing resumes by itself when space comes back; the service also starts
 * on a disk that is still full.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm, rmdir, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { freePort, spawnServer, stopServer, type ServerProcess } from '../support/process.ts';
import { sleep, storedIds, tally } from './support.ts';

const KEY = 'disk-full-private-key-0123456789';
const mounts: string[] = [];
const servers: ServerProcess[] = [];

function mountTmpfs(dir: string, size: string): boolean {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'ignore' });
    mounts.push(dir);
    return true;
  } catch {
    return false;
  }
}

after(async () => {
  for (const server of servers) if (server.child.exitCode === null) await stopServer(server, 'SIGKILL');
  for (const dir of mounts) {
    execFileSync('umount', [dir], { stdio: 'ignore' });
    await rmdir(dir);
  }
});

/** A fresh tmpfs of `size`, or why there is none (mounting needs root; CI runs as root and must have one). */
async function smallDisk(size: string): Promise<string | undefined> {
  const dir = await mkdtemp(join(tmpdir(), 'sawmill-disk-'));
  if (mountTmpfs(dir, size)) return dir;
  await rmdir(dir);
  if (process.env.CI) throw new Error('CI must be able to mount a tmpfs (run as root) for the disk-full tests');
  return undefined;
}
const NO_MOUNT = 'mounting a tmpfs needs root: the disk-full tests run in CI';

/** Takes all the space left but `leaveBytes`, in a file that can be removed to give it back. */
function fill(disk: string, leaveBytes = 0): void {
  const free = Number(execFileSync('df', ['--output=avail', '-B1', disk]).toString().split('\n')[1]);
  const megabytes = Math.max(1, Math.floor((free - leaveBytes) / (1 << 20)));
  try {
    execFileSync('dd', ['if=/dev/zero', `of=${join(disk, 'filler')}`, 'bs=1M', `count=${megabytes}`], { stdio: 'ignore' });
  } catch {
    // dd stops at the end of the disk when asked for more than there is: that is the point
  }
}

async function start(dataDir: string): Promise<ServerProcess> {
  const server = await spawnServer({ SAWMILL_DATA_DIR: dataDir, SAWMILL_API_KEY: KEY }, await freePort(), undefined, (status) => status === 200 || status === 503);
  servers.push(server);
  return server;
}

async function call(server: ServerProcess, method: string, path: string, body?: unknown) {
  const reply = await fetch(server.url + path, {
    method,
    headers: { 'x-api-key': KEY, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(20_000),
  });
  return { status: reply.status, headers: reply.headers, body: (await reply.json().catch(() => undefined)) as any };
}

interface Ledger {
  acknowledged: Set<string>;
  sent: Set<string>;
}

async function postBatch(server: ServerProcess, source: string, ids: string[], ledger: Ledger) {
  for (const id of ids) ledger.sent.add(id);
  const reply = await call(server, 'POST', `/logs?source=${source}`, { batch: ids.map((id) => ({ id, message: `event ${id} ${'x'.repeat(400)}`, metadata: { pad: 'y'.repeat(400) } })) });
  if (reply.status === 200) for (const id of ids) ledger.acknowledged.add(id);
  return reply;
}

/** Four senders post batches of 100 until the disk has refused 20 of them (bounded: 90 s). */
async function sendUntilFull(server: ServerProcess, source: string, ledger: Ledger) {
  const refusals: Array<{ status: number; code: string; retryAfter: string | null }> = [];
  const deadline = Date.now() + 90_000;
  await Promise.all(
    [0, 1, 2, 3].map(async (sender) => {
      for (let batch = 0; refusals.length < 20 && Date.now() < deadline; batch++) {
        const reply = await postBatch(server, source, Array.from({ length: 100 }, (_, i) => `s${sender}-b${batch}-e${i}`), ledger);
        if (reply.status !== 200) refusals.push({ status: reply.status, code: reply.body?.error?.code, retryAfter: reply.headers.get('retry-after') });
      }
    }),
  );
  return refusals;
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(200);
  }
}

async function assertLedgerHolds(dataDir: string, source: string, ledger: Ledger) {
  const counts = tally(await storedIds(dataDir, source));
  const missing = [...ledger.acknowledged].filter((id) => counts.get(id) !== 1);
  assert.equal(missing.length, 0, `${missing.length} of ${ledger.acknowledged.size} acknowledged events are missing or repeated, e.g. ${missing.slice(0, 3)}`);
  assert.deepEqual([...counts].filter(([, count]) => count > 1).slice(0, 3), [], 'no event is stored twice');
  assert.deepEqual([...counts.keys()].filter((id) => !ledger.sent.has(id)).slice(0, 3), [], 'only events that were sent are stored');
  const rejected = join(dataDir, 'journal', 'rejected');
  assert.deepEqual(existsSync(rejected) ? await readdir(rejected) : [], [], 'nothing acknowledged is set aside for a disk error');
}

async function setUp(server: ServerProcess) {
  const source = (await call(server, 'POST', '/api/sources', { name: 'disk' })).body.token as string;
  // Uncached: a count read while folds wait must not be served again once they went in.
  const endpoint = await call(server, 'POST', '/api/endpoints', { name: 'disk-count', query: 'select count(*) as n from `disk`', cache_duration_seconds: 0 });
  assert.equal(endpoint.status, 201, JSON.stringify(endpoint.body));
  return { source, count: async () => call(server, 'GET', '/api/endpoints/query/disk-count') };
}

test('a full disk: nothing acknowledged is lost, clients are told to retry, and storing resumes by itself when space returns', async (t) => {
  const disk = await smallDisk('64m');
  if (!disk) return t.skip(NO_MOUNT);
  const dataDir = join(disk, 'data');
  let server = await start(dataDir);
  const { source, count } = await setUp(server);
  fill(disk, 34 << 20);
  const ledger: Ledger = { acknowledged: new Set(), sent: new Set() };

  const refusals = await sendUntilFull(server, source, ledger);
  assert.ok(refusals.length >= 20, 'the disk filled up');
  assert.ok(ledger.acknowledged.size > 0);
  for (const refusal of refusals) {
    assert.equal(refusal.status, 503);
    assert.ok(['disk_full', 'queue_full'].includes(refusal.code), `refused as ${refusal.code}`);
    assert.ok(Number(refusal.retryAfter) > 0, 'with Retry-After');
  }
  const health = await call(server, 'GET', '/health');
  assert.equal(health.status, 503);
  assert.equal(health.body.status, 'degraded');
  assert.match(health.body.problems.join(' '), /no space left on device|disk is full/i);

  // Queries do not wait for folds that cannot happen: rows or a clear 503, in bounded time.
  const during = await count();
  assert.ok(during.status === 200 || (during.status === 503 && during.body.error.code === 'storage_unavailable'), JSON.stringify(during.body));

  // The disk stays full a while: longer than DuckDB's idle checkpoint waits, which fails on it.
  await sleep(8_000);
  await rm(join(disk, 'filler'));
  const resumed = await until('ingestion resumes', async () => {
    const reply = await postBatch(server, source, Array.from({ length: 100 }, (_, i) => `after-${Date.now()}-${i}`), ledger);
    return reply.status === 200 ? reply : undefined;
  });
  assert.equal(resumed.status, 200);
  // Folds shrink to fit the room left and grow again; a bigger one may meet the disk once more.
  await until('every acknowledged event is queryable', async () => {
    const reply = await count();
    return reply.status === 200 && reply.body.result[0].n === ledger.acknowledged.size ? true : undefined;
  });
  await until('/health is ok again', async () => ((await call(server, 'GET', '/health')).status === 200 ? true : undefined));

  assert.equal(await stopServer(server, 'SIGKILL'), null);
  server = await start(dataDir);
  await stopServer(server);
  await assertLedgerHolds(dataDir, source, ledger);
});

test('a checkpoint that failed on a full disk is tried again once space returns, with no fold to start it', async (t) => {
  const disk = await smallDisk('64m');
  if (!disk) return t.skip(NO_MOUNT);
  const dataDir = join(disk, 'data');
  const server = await start(dataDir);
  const { source } = await setUp(server);
  const events = Array.from({ length: 3_000 }, (_, i) => ({ id: `e${i}`, message: `event ${i} ${randomBytes(200).toString('hex')}` }));
  assert.equal((await call(server, 'POST', `/logs?source=${source}&wait=visible`, { batch: events })).status, 200);
  // Folded into DuckDB's log; the idle checkpoint that follows finds no room to write the file.
  fill(disk, -(1 << 20)); // to the last block
  const checkpoints = async () => {
    const metrics = await (await fetch(`${server.url}/metrics`, { headers: { 'x-api-key': KEY } })).text();
    const count = (outcome: string) => Number(new RegExp(`^sawmill_checkpoints_total\\{outcome="${outcome}"\\} (\\d+)$`, 'm').exec(metrics)?.[1]);
    return { ok: count('ok'), failed: count('failed') };
  };
  await until('the checkpoint fails on the full disk', async () => ((await checkpoints()).failed > 0 ? true : undefined), 20_000);
  const okBefore = (await checkpoints()).ok;

  await rm(join(disk, 'filler'));
  // Nothing is ingested: the next checkpoint must come by itself, and fold the log into the file.
  await until('a checkpoint works', async () => ((await checkpoints()).ok > okBefore ? true : undefined), 30_000);
  const wal = await stat(join(dataDir, 'sawmill.duckdb.wal')).catch(() => undefined);
  assert.ok((wal?.size ?? 0) < 64 * 1024, `the log is folded into the file (${wal?.size} bytes left)`);
  await stopServer(server);
});

test('the service starts on a disk that is still full, answers queries, and stores again once space returns', async (t) => {
  const disk = await smallDisk('48m');
  if (!disk) return t.skip(NO_MOUNT);
  const dataDir = join(disk, 'data');
  let server = await start(dataDir);
  const { source } = await setUp(server);
  fill(disk, 20 << 20);
  const ledger: Ledger = { acknowledged: new Set(), sent: new Set() };
  assert.ok((await sendUntilFull(server, source, ledger)).length >= 20, 'the disk filled up');
  await stopServer(server, 'SIGKILL');

  server = await start(dataDir);
  const counted = await until('the endpoint answers on the full disk', async () => {
    const reply = await call(server, 'GET', '/api/endpoints/query/disk-count');
    return reply.status === 200 ? reply : undefined;
  });
  assert.ok(counted.body.result[0].n <= ledger.acknowledged.size);
  assert.equal((await postBatch(server, source, ['while-full'], ledger)).status, 503, 'nothing is acknowledged while the disk is full');

  await rm(join(disk, 'filler'));
  await until('ingestion resumes', async () => ((await postBatch(server, source, [`after-${Date.now()}`], ledger)).status === 200 ? true : undefined));
  const exit = await stopServer(server);
  assert.equal(exit, 0, 'SIGTERM finishes');
  // What the last folds could not take is folded from the journal at the next start.
  server = await start(dataDir);
  await stopServer(server);
  await assertLedgerHolds(dataDir, source, ledger);
});
