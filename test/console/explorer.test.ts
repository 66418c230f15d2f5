import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { PRIVATE_KEY, startTestServer, type TestServer } from '../support/server.ts';
import { ARTIFACTS, chromiumMissing, launchChromium } from './browser.ts';

const WAIT = { timeout: 15_000 };
const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();

describe('the explorer as people use it, in Chromium', { skip: chromiumMissing() }, () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let token: string;
  const pageErrors: string[] = [];

  const open = async (path: string, viewport = { width: 1280, height: 900 }) => {
    const opened = await browser.newPage({ viewport });
    opened.on('pageerror', (error) => pageErrors.push(error.message));
    await opened.addInitScript((key) => sessionStorage.setItem('sawmill.key', key), PRIVATE_KEY);
    await opened.goto(`${server.url}/${path}`);
    return opened;
  };
  const rows = (on: Page) => on.getByTestId('event-row').allInnerTexts();
  const messages = async (on: Page) => (await on.locator('[data-testid="event-row"] td.message').allInnerTexts()).sort();

  before(async () => {
    server = await startTestServer();
    token = (await server.request('POST', '/api/sources', { body: { name: 'shop.web' } })).body.token;
    // Levels where the documented senders put them: at the top, in metadata, and none at all.
    const batch = [
      { message: 'checkout failed', level: 'error', timestamp: minutesAgo(5), metadata: { request: { path: '/rest/v1/orders' } } },
      { message: 'checkout ok', level: 'info', timestamp: minutesAgo(4), metadata: { request: { path: '/rest/v1/orders' } } },
      { message: 'cache cold', timestamp: minutesAgo(3), metadata: { level: 'warning' } },
      { message: 'login failed', timestamp: minutesAgo(2), metadata: { level: 'ERROR', request: { path: '/auth/v1/token' } } },
      { message: 'nightly job', timestamp: minutesAgo(3 * 60) },
    ];
    assert.equal((await server.request('POST', `/logs?source=${token}`, { body: { batch } })).status, 200);
    browser = await launchChromium();
    page = await open(`#/sources/${token}/explore`);
  });
  after(async () => {
    await browser?.close();
    await server?.stop({ removeData: true });
  });

  test('a level column shows each event level, wherever it was sent, in colour', async () => {
    await page.getByTestId('event-row').first().waitFor(WAIT);
    const levels = await page.getByTestId('event-level').allInnerTexts();
    assert.deepEqual(levels, ['ERROR', 'warning', 'info', 'error']);
    const colour = (index: number) => page.getByTestId('event-level').nth(index).evaluate((cell) => getComputedStyle(cell).color);
    assert.equal(await colour(0), 'rgb(185, 28, 28)');
    assert.equal(await colour(3), 'rgb(185, 28, 28)');
    assert.notEqual(await colour(2), await colour(0));
  });

  test('choosing a range runs the search; the address holds the query and the range', async () => {
    assert.equal((await rows(page)).length, 4);
    await page.getByLabel('Time range').selectOption('6h');
    await page.getByTestId('event-row').filter({ hasText: 'nightly job' }).waitFor(WAIT);
    await page.getByLabel('Search').fill('level:error');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="event-row"]').length === 2, undefined, WAIT);
    const address = page.url();
    assert.match(address, /#\/sources\/[0-9a-f-]{36}\/explore\?q=level%3Aerror&range=6h$/);

    // The address, opened elsewhere, is the same search.
    const shared = await open(address.slice(server.url.length + 1));
    await shared.waitForFunction(() => document.querySelectorAll('[data-testid="event-row"]').length === 2, undefined, WAIT);
    assert.equal(await shared.getByLabel('Search').inputValue(), 'level:error');
    assert.equal(await shared.getByLabel('Time range').inputValue(), '6h');
    assert.deepEqual(await messages(shared), ['checkout failed', 'login failed']);
    await shared.close();
  });

  test('the event JSON is the event as sent; a click on a field filters on it', async () => {
    await page.getByTestId('event-row').filter({ hasText: 'checkout failed' }).click();
    const json = JSON.parse(await page.getByTestId('event-json').locator('pre').innerText());
    // No NULLs for the fields other events have, objects as objects, the time in ISO 8601.
    assert.deepEqual(Object.keys(json).sort(), ['event_message', 'id', 'level', 'metadata', 'timestamp']);
    assert.deepEqual(json.metadata, { request: { path: '/rest/v1/orders' } });
    assert.match(json.timestamp, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

    await page.getByTestId('event-json').getByRole('button', { name: '"/rest/v1/orders"' }).click();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="event-row"]').length === 1, undefined, WAIT);
    assert.equal(await page.getByLabel('Search').inputValue(), 'level:error m.request.path:/rest/v1/orders');
    assert.deepEqual(await messages(page), ['checkout failed']);
    await page.screenshot({ path: join(ARTIFACTS, 'explorer-field-filter.png') });
  });

  test('a field in the schema opens the explorer on the events that have it', async () => {
    await page.getByRole('link', { name: 'Schema' }).click();
    await page.getByTestId('schema-tree').getByRole('link', { name: 'm.request.path' }).click();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="event-row"]').length === 3, undefined, WAIT);
    assert.equal(await page.getByLabel('Search').inputValue(), '-m.request.path:NULL');
    assert.deepEqual(await messages(page), ['checkout failed', 'checkout ok', 'login failed']);
  });

  test('at 390 px nothing is cut off and an opened event is in view', async () => {
    const phone = await open(`#/sources/${token}/explore`, { width: 390, height: 844 });
    await phone.getByTestId('event-row').first().waitFor(WAIT);
    const overflow = () => phone.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    await phone.screenshot({ path: join(ARTIFACTS, 'explorer-390.png'), fullPage: true });
    const wide = await phone.evaluate(() =>
      [...document.querySelectorAll('body *')].filter((element) => element.getBoundingClientRect().right > document.documentElement.clientWidth + 1).map((element) => `${element.tagName}.${element.className}`).slice(0, 8),
    );
    assert.equal(await overflow(), 0, `the page scrolls sideways: ${wide.join(', ')}`);
    await phone.getByTestId('event-row').last().click();
    const json = phone.getByTestId('event-json');
    await json.waitFor(WAIT);
    const box = await json.boundingBox();
    assert.ok(box && box.y >= 0 && box.y < 844 - 40, `the event opens out of view at y=${box?.y}`);
    assert.equal(await overflow(), 0, 'the page scrolls sideways with the event open');
    await phone.screenshot({ path: join(ARTIFACTS, 'explorer-390-event.png') });
    await phone.close();
  });

  test('the volume chart ends where its last bar does and says which time zone it shows', async () => {
    const zoned = await browser.newPage({ timezoneId: 'Asia/Kolkata' });
    zoned.on('pageerror', (error) => pageErrors.push(error.message));
    await zoned.addInitScript((key) => sessionStorage.setItem('sawmill.key', key), PRIVATE_KEY);
    await zoned.goto(`${server.url}/#/sources/${token}/explore`);
    await zoned.getByTestId('volume-summary').filter({ hasText: /times in Asia\/(Kolkata|Calcutta), UTC\+05:30/ }).waitFor(WAIT);
    const volume = await server.request('GET', `/api/sources/${token}/volume?from=${Date.now() - 3600_000}&to=${Date.now()}&buckets=80`);
    const last = volume.body.buckets.at(-1).time / 1e6;
    const xMax = Number(await zoned.getByTestId('volume-chart').getAttribute('data-x-max'));
    assert.ok(xMax >= last + volume.body.bucket_seconds, `the axis ends at ${xMax}, inside the last bar (${last} + ${volume.body.bucket_seconds} s)`);
    await zoned.close();
  });

  test('a key is kept beyond the tab only when asked, and Sign out forgets it', async () => {
    const context = await browser.newContext();
    const first = await context.newPage();
    await first.goto(`${server.url}/`);
    await first.getByLabel('API key').fill(PRIVATE_KEY);
    await first.getByLabel(/Keep me signed in/).check();
    await first.getByRole('button', { name: 'Sign in' }).click();
    await first.getByTestId('sources-table').waitFor(WAIT);
    const second = await context.newPage();
    await second.goto(`${server.url}/`);
    await second.getByTestId('sources-table').waitFor(WAIT);
    await second.getByRole('button', { name: 'Sign out' }).click();
    assert.equal(await second.evaluate(() => localStorage.length), 0);
    const third = await context.newPage();
    await third.goto(`${server.url}/`);
    await third.getByLabel('API key').waitFor(WAIT);
    await context.close();
  });

  test('the pages raised no script errors', () => {
    assert.deepEqual(pageErrors, []);
  });
});
