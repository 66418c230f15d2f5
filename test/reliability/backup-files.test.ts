/**
 * Backups and the data dir's files (issue 27): `sawmill restore` takes only the files a backup
 * holds, a backup never lands inside the data dir however the path is spelled, and what the
 * service writes is readable by its own user alone.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { MANIFEST_FILE, restoreDataDir } from '../../src/backup.ts';
import { freePort, spawnServer, stopServer, type ServerProcess } from '../support/process.ts';

const KEY = 'backup-files-test-private-key-0123456789';
let root: string;
let server: ServerProcess;
const api = async (method: string, path: string, body?: unknown) => {
  const reply = await fetch(server.url + path, { method, headers: { 'x-api-key': KEY, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: reply.status, body: (await reply.json()) as any };
};

/** Every file and folder below `dir` with its permission bits. */
async function modes(dir: string): Promise<Array<[string, number]>> {
  const found: Array<[string, number]> = [[dir, (await stat(dir)).mode & 0o777]];
  for (const name of await readdir(dir, { recursive: true })) found.push([name, (await stat(join(dir, name))).mode & 0o777]);
  return found;
}

before(async () => {
  root = await mkdtemp(join(tmpdir(), 'sawmill-backup-files-'));
  // Started the way a careless shell would start it: files readable by everyone unless the service says otherwise.
  const umask = process.umask(0o022);
  try {
    server = await spawnServer({ SAWMILL_DATA_DIR: join(root, 'data'), SAWMILL_API_KEY: KEY }, await freePort());
  } finally {
    process.umask(umask);
  }
  const source = (await api('POST', '/api/sources', { name: 'kept' })).body;
  assert.equal((await api('POST', `/logs?source=${source.token}&wait=visible`, { batch: [{ message: 'one' }, { message: 'two' }] })).status, 200);
});
after(async () => {
  if (server) await stopServer(server);
  await rm(root, { recursive: true, force: true });
});

test('inside the data dir every file is 0600 and every folder 0700; so are the files of a backup into an existing open folder', async () => {
  for (const [name, mode] of await modes(join(root, 'data'))) assert.equal(mode & 0o077, 0, `${name} is ${mode.toString(8)}`);
  const names = (await readdir(join(root, 'data'))).sort();
  for (const expected of ['journal', 'staging', 'sawmill.duckdb', 'catalog.json']) assert.ok(names.includes(expected), `${expected} in ${names.join(', ')}`);
  const open = join(root, 'open-backup');
  await mkdir(open, { mode: 0o755 });
  assert.equal((await api('POST', '/api/backup', { dir: open })).status, 200);
  for (const [name, mode] of (await modes(open)).slice(1)) assert.equal(mode, 0o600, `${name} is ${mode.toString(8)}`);
});

describe('a backup is never written inside the data dir', () => {
  test('a name beginning with .. is inside, not above', async () => {
    const reply = await api('POST', '/api/backup', { dir: join(root, 'data', '..bk') });
    assert.equal(reply.status, 400, JSON.stringify(reply.body));
    assert.match(reply.body.error.message, /is inside the data dir/);
    assert.equal(existsSync(join(root, 'data', '..bk')), false);
  });

  test('nor through a symbolic link, to the dir itself or to a parent of a new one', async () => {
    await symlink(join(root, 'data'), join(root, 'data-link'));
    await symlink(join(root, 'data', 'journal'), join(root, 'journal-link'));
    for (const dir of [join(root, 'data-link', 'bk'), join(root, 'journal-link'), join(root, 'journal-link', 'new', 'bk')]) {
      const reply = await api('POST', '/api/backup', { dir });
      assert.equal(reply.status, 400, `${dir}: ${JSON.stringify(reply.body)}`);
      assert.match(reply.body.error.message, /is inside the data dir/);
    }
    assert.deepEqual((await readdir(join(root, 'data', 'journal'))).filter((name) => !name.endsWith('.journal') && name !== 'next.spare'), []);
  });
});

describe('sawmill restore takes only the files a backup holds', () => {
  let backup: string;
  before(async () => {
    backup = join(root, 'backup');
    assert.equal((await api('POST', '/api/backup', { dir: backup })).status, 200);
  });

  const withManifest = async (name: string, change: (manifest: any) => void) => {
    const dir = join(root, name);
    await mkdir(dir);
    for (const file of await readdir(backup)) await writeFile(join(dir, file), await readFile(join(backup, file)));
    const manifest = JSON.parse(await readFile(join(backup, MANIFEST_FILE), 'utf8'));
    change(manifest);
    await writeFile(join(dir, MANIFEST_FILE), JSON.stringify(manifest));
    return dir;
  };

  test('a name with ../ is refused before anything is written: nothing read from outside the backup, nothing written outside the data dir', async () => {
    await writeFile(join(root, 'secret'), 'outside the backup');
    await mkdir(join(root, 'restore-1'));
    await writeFile(join(root, 'restore-1', 'victim'), 'keep me');
    const altered = await withManifest('altered-1', (manifest) => manifest.files.push('../secret', '../restore-1/victim'));
    const target = join(root, 'restore-1', 'data');
    await assert.rejects(restoreDataDir(altered, target), /lists "\.\.\/secret", which is not a file a backup holds/);
    assert.equal(existsSync(target), false);
    assert.equal(existsSync(join(root, 'restore-1', 'secret')), false);
    assert.equal(await readFile(join(root, 'restore-1', 'victim'), 'utf8'), 'keep me');
  });

  test('an absolute name, a name twice, a listed file that is a link or missing: each refused with nothing written', async () => {
    const cases: Array<[string, (manifest: any, dir: string) => Promise<void> | void, RegExp]> = [
      ['absolute', (manifest) => void manifest.files.push('/etc/passwd'), /lists "\/etc\/passwd"/],
      ['twice', (manifest) => void manifest.files.push('catalog.json'), /lists catalog\.json twice/],
      ['not a list', (manifest) => void (manifest.files = 'catalog.json'), /lacks its format or its list of files/],
    ];
    for (const [name, change, error] of cases) {
      const dir = await withManifest(`altered-${name}`, (manifest) => change(manifest, ''));
      await assert.rejects(restoreDataDir(dir, join(root, `restore-${name}`)), error, name);
      assert.equal(existsSync(join(root, `restore-${name}`)), false, name);
    }
    const linked = await withManifest('altered-link', () => undefined);
    await rm(join(linked, 'catalog.json'));
    await symlink(join(root, 'secret'), join(linked, 'catalog.json'));
    await assert.rejects(restoreDataDir(linked, join(root, 'restore-link')), /catalog\.json, listed in the backup's manifest, is not a regular file/);
    const missing = await withManifest('altered-missing', () => undefined);
    await rm(join(missing, 'sawmill.duckdb'));
    await assert.rejects(restoreDataDir(missing, join(root, 'restore-missing')), /sawmill\.duckdb, listed in the backup's manifest, is missing/);
    for (const name of ['restore-link', 'restore-missing']) assert.equal(existsSync(join(root, name)), false);
  });

  test('the backup as made restores, its files 0600 in a 0700 dir', async () => {
    const target = join(root, 'restored');
    const manifest = await restoreDataDir(backup, target);
    assert.ok(manifest.files.includes('sawmill.duckdb'));
    for (const [name, mode] of await modes(target)) assert.equal(mode, name === target ? 0o700 : 0o600, name);
  });
});
