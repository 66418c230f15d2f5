import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { PRIVATE_KEY, startTestServer, type TestServer } from '../support/server.ts';
import { chromiumMissing, launchChromium } from './browser.ts';

const WAIT = { timeout: 20_000 };

describe('live tail and explorer after a restart of the service, in Chromium', { skip: chromiumMissing() }, () => {
  let server: TestServer;
  let browser: Browser;
  let tail: Page;
  let explorer: Page;
  let token: string;
  const pageErrors: string[] = [];

  const ingest = async (message: string) => assert.equal((await server.request('POST', `/logs?source=${token}`, { body: { message } })).status, 200);
  const open = async (tab: string) => {
    const page = await browser.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.addInitScript((key) => sessionStorage.setItem('sawmill.key', key), PRIVATE_KEY);
    await page.goto(`${server.url}/#/sources/${token}/${tab}`);
    return page;
  };

  before(async () => {
    server = await startTestServer();
    token = (await server.request('POST', '/api/sources', { body: { name: 'app.restarts' } })).body.token;
    await ingest('before the restart');
    browser = await launchChromium();
    tail = await open('tail');
    explorer = await open('explore');
  });
  after(async () => {
    await browser?.close();
    await server?.stop({ removeData: true });
  });

  test('both follow the service through a restart without a reload or a click', async () => {
    await tail.getByTestId('tail-status').filter({ hasText: 'live' }).waitFor(WAIT);
    await explorer.getByTestId('event-row').filter({ hasText: 'before the restart' }).waitFor(WAIT);

    const { dataDir } = server;
    const port = Number(new URL(server.url).port);
    await server.stop();
    await tail.getByTestId('tail-status').filter({ hasText: 'reconnecting' }).waitFor(WAIT);
    await explorer.getByRole('button', { name: 'Search' }).click();
    await explorer.getByRole('alert').filter({ hasText: 'not answering' }).waitFor(WAIT);

    server = await startTestServer({ dataDir, port });
    await tail.getByTestId('tail-status').filter({ hasText: 'live' }).waitFor(WAIT);
    await ingest('after the restart');
    await tail.getByTestId('tail-line').filter({ hasText: 'after the restart' }).waitFor(WAIT);
    await explorer.getByTestId('event-row').filter({ hasText: 'before the restart' }).waitFor(WAIT);
    await explorer.getByRole('alert').waitFor({ ...WAIT, state: 'detached' });
  });

  test('a tail filter that cannot match is refused, not waited on', async () => {
    await tail.getByLabel('Filter').fill('m.nope:1');
    await tail.getByRole('button', { name: 'Apply filter' }).click();
    await tail.getByRole('alert').filter({ hasText: 'unknown field m' }).waitFor(WAIT);
    await tail.getByTestId('tail-status').filter({ hasText: 'closed' }).waitFor(WAIT);
  });

  test('the pages raised no script errors', () => {
    assert.deepEqual(pageErrors, []);
  });
});
