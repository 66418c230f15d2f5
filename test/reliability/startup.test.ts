import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fatalMessage, freePort, spawnServer, startToExit, stopServer } from '../support/process.ts';

let root: string;

before(async () => {
  root = await mkdtemp(join(tmpdir(), 'sawmill-startup-'));
  await chmod(root, 0o755); // readable by the unprivileged user of the last test
});
after(() => rm(root, { recursive: true, force: true }));

test('a busy port is one log line, and nothing (data dir, key) is created first', async () => {
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const port = (blocker.address() as { port: number }).port;
  const dataDir = join(root, 'never-created');
  try {
    const run = await startToExit({ PORT: String(port), SAWMILL_DATA_DIR: dataDir });
    assert.equal(run.code, 1);
    assert.equal(fatalMessage(run), `port ${port} on 127.0.0.1 is already in use by another process: stop it or set PORT to a free port`);
    assert.equal(existsSync(dataDir), false, 'no data dir (and so no generated key) for a service that never ran');
  } finally {
    await new Promise((resolve) => blocker.close(resolve));
  }
});

test('a data dir another Sawmill holds is one log line naming its PID; the running one is untouched', async () => {
  const dataDir = join(root, 'shared');
  const first = await spawnServer({ SAWMILL_DATA_DIR: dataDir, SAWMILL_API_KEY: 'k-0123456789' }, await freePort());
  try {
    const run = await startToExit({ PORT: String(await freePort()), SAWMILL_DATA_DIR: dataDir, SAWMILL_API_KEY: 'k-0123456789' });
    assert.equal(run.code, 1);
    assert.match(fatalMessage(run), new RegExp(`^data dir ${dataDir} is in use by another process \\(PID ${first.child.pid}\\), most likely another Sawmill: stop it, or give this one its own SAWMILL_DATA_DIR$`));
    assert.ok(existsSync(join(dataDir, 'staging')), "the running instance's staging folder is still there");
    const stored = await fetch(`${first.url}/api/sources`, { headers: { 'x-api-key': 'k-0123456789' } });
    assert.equal(stored.status, 200);
  } finally {
    assert.equal(await stopServer(first), 0);
  }
});

test('a data dir this user cannot write is one log line', { skip: process.getuid?.() !== 0 && 'needs root to run the server as another user' }, async () => {
  const dataDir = join(root, 'read-only');
  await mkdir(dataDir, { mode: 0o755 }); // root's: the server below runs as nobody
  const run = await startToExit({ PORT: String(await freePort()), SAWMILL_DATA_DIR: dataDir, HOME: root }, { uid: 65534, gid: 65534 });
  assert.equal(run.code, 1);
  assert.equal(fatalMessage(run), `data dir ${dataDir} is not writable (EACCES): fix its permissions or set SAWMILL_DATA_DIR to a directory this user can write`);
  assert.deepEqual(await readdir(dataDir), []);
});
