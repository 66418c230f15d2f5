/**
 * Every "Send logs" snippet, read from the page as a person would copy it, then run: the shell
 * ones by bash with SAWMILL_API_KEY set, the pino one by node. Vector and Fluent Bit are not
 * installed here, so their configurations are read for what those tools send (the URL, method,
 * headers and body framing of Vector's `http` sink with `codec: json` and Fluent Bit's `http`
 * output with `Format json`) and that request is made.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { storedRows } from '../clients/helpers.ts';
import { INGEST_KEY, PRIVATE_KEY, startTestServer, type TestServer } from '../support/server.ts';
import { chromiumMissing, launchChromium } from './browser.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const WAIT = { timeout: 15_000 };
const run = promisify(execFile);

/** One `key: value` (YAML) or `Key  value` (Fluent Bit) setting of a configuration snippet. */
function setting(text: string, pattern: RegExp): string {
  const match = pattern.exec(text);
  assert.ok(match, `no ${pattern} in\n${text}`);
  return match[1]!.trim();
}

/** `${NAME}` as both tools expand environment variables in their configuration. */
const expand = (text: string) => text.replaceAll('${SAWMILL_API_KEY}', INGEST_KEY);

describe('the Send logs snippets, run as shown', { skip: chromiumMissing() }, () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let token: string;
  let workDir: string;

  before(async () => {
    server = await startTestServer();
    const created = await server.request('POST', '/api/sources', { body: { name: 'shop.web' } });
    assert.equal(created.status, 201);
    token = created.body.token;
    // Inside the repository, so the pino snippet's imports resolve to its node_modules. A fresh
    // clone has no test-artifacts until some test makes it: this file may run first, or alone.
    await mkdir(join(ROOT, 'test-artifacts'), { recursive: true });
    workDir = await mkdtemp(join(ROOT, 'test-artifacts', 'snippets-'));
    browser = await launchChromium();
    page = await browser.newPage();
    await page.addInitScript((key) => sessionStorage.setItem('sawmill.key', key), PRIVATE_KEY);
    await page.goto(`${server.url}/#/sources/${token}/send`);
    await page.getByTestId('snippet').waitFor(WAIT);
  });
  after(async () => {
    await browser?.close();
    await server?.stop({ removeData: true });
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  const snippet = async (tab: string) => {
    await page.getByRole('button', { name: tab, exact: true }).click();
    return page.getByTestId('snippet').innerText();
  };
  const shell = (script: string) => run('bash', ['-c', script], { env: { ...process.env, SAWMILL_API_KEY: INGEST_KEY }, timeout: 20_000 });
  /** The snippet's event is stored (senders in the background give no other signal). */
  const landed = async (message: string) => {
    for (let attempt = 0; attempt < 100; attempt++) {
      const rows = await storedRows(server, token);
      if (rows.some((row) => String(row.event_message).includes(message))) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.fail(`no event "${message}" was stored`);
  };

  test('every tab is run below', async () => {
    const tabs = await page.locator('.snippets .tabs button').allInnerTexts();
    assert.deepEqual(tabs.filter((label) => label !== 'Copy'), ['curl', 'pino', 'Vector', 'Fluent Bit', 'by name']);
  });

  test('curl', async () => {
    const { stdout } = await shell(await snippet('curl'));
    assert.match(stdout, /Logged!/);
    await landed('hello from curl');
  });

  test('by name', async () => {
    const { stdout } = await shell(await snippet('by name'));
    assert.match(stdout, /Logged!/, stdout);
    await landed('hi');
  });

  test('pino: the line is stored exactly once', async () => {
    const file = join(workDir, 'pino-snippet.mjs');
    await writeFile(file, await snippet('pino'));
    await run(process.execPath, [file], { env: { ...process.env, SAWMILL_API_KEY: INGEST_KEY }, cwd: workDir, timeout: 20_000 });
    await landed('hello from pino');
    // A second post may still be on its way when the process has exited.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const stored = (await storedRows(server, token)).filter((row) => row.event_message === 'hello from pino');
    assert.equal(stored.length, 1, 'the snippet stored its line more than once');
  });

  test('Vector', async () => {
    const config = expand(await snippet('Vector'));
    assert.equal(setting(config, /encoding: \{ codec: (\w+) \}/), 'json');
    const reply = await fetch(setting(config, /uri: "([^"]+)"/), {
      method: setting(config, /method: (\w+)/).toUpperCase(),
      // The http sink with codec json sends a batch as one JSON array.
      headers: { 'x-api-key': setting(config, /x-api-key: "([^"]+)"/), 'content-type': 'application/json' },
      body: JSON.stringify([{ message: 'hello from vector', timestamp: new Date().toISOString() }]),
    });
    assert.equal(reply.status, 200, await reply.text());
    await landed('hello from vector');
  });

  test('Fluent Bit', async () => {
    const config = expand(await snippet('Fluent Bit'));
    assert.equal(setting(config, /Format\s+(\S+)/), 'json');
    const [headerName, headerValue] = setting(config, /Header\s+(.+)/).split(/\s+/);
    const url = `http://${setting(config, /Host\s+(\S+)/)}:${setting(config, /Port\s+(\S+)/)}${setting(config, /URI\s+(\S+)/)}`;
    const dateKey = setting(config, /Json_date_key\s+(\S+)/);
    const reply = await fetch(url, {
      method: 'POST',
      headers: { [headerName!]: headerValue!, 'content-type': 'application/json', 'user-agent': 'Fluent-Bit' },
      body: JSON.stringify([{ [dateKey]: new Date().toISOString(), log: 'hello from fluent bit' }]),
    });
    assert.equal(reply.status, 200, await reply.text());
    await landed('hello from fluent bit');
  });
});
