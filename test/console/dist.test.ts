import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

async function files(dir: string, prefix = ''): Promise<Map<string, Buffer>> {
  const found = new Map<string, Buffer>();
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) for (const [name, content] of await files(path, `${prefix}${entry.name}/`)) found.set(name, content);
    else found.set(`${prefix}${entry.name}`, await readFile(path));
  }
  return found;
}

// `npm start` serves the committed console/dist: it must be what the sources build to today.
test('console/dist is the build of the current console sources (run npm run build:console)', async () => {
  const out = await mkdtemp(join(tmpdir(), 'sawmill-console-build-'));
  try {
    await promisify(execFile)(process.execPath, [join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', 'console', '--outDir', out, '--emptyOutDir', '--logLevel', 'error'], { cwd: ROOT });
    const [built, committed] = await Promise.all([files(out), files(join(ROOT, 'console/dist'))]);
    assert.deepEqual([...committed.keys()].sort(), [...built.keys()].sort());
    for (const [name, content] of built) assert.ok(content.equals(committed.get(name)!), `${name} differs`);
  } finally {
    await rm(out, { recursive: true, force: true });
  }
});
