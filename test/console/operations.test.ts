import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { PRIVATE_KEY, startTestServer, type TestServer } from '../support/server.ts';
import { ARTIFACTS, chromiumMissing, launchChromium } from './browser.ts';

const WAIT = { timeout: 15_000 };

describe('operations in the console (Chromium): status, retention', { skip: chromiumMissing() }, () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;

  before(async () => {
    server = await startTestServer();
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  });
  after(async () => {
    await browser?.close();
    await server?.stop({ removeData: true });
  });

  test('shows ingestion by source, endpoint latency and cache hits from /metrics', async () => {
    const source = (await server.request('POST', '/api/sources', { body: { name: 'status.demo' } })).body;
    for (let i = 0; i < 2; i++) await server.request('POST', `/logs?source=${source.token}`, { body: { batch: [{ message: 'a' }, { message: 'b' }, { message: 'c' }] } });
    await server.request('POST', '/api/endpoints', { body: { name: 'status.count', query: 'select count(*) as n from `status.demo`', cache_duration_seconds: 60 } });
    for (let i = 0; i < 3; i++) assert.equal((await server.request('GET', '/api/endpoints/query/status.count')).status, 200);

    await page.goto(`${server.url}/`);
    await page.getByLabel('API key').fill(PRIVATE_KEY);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Status', exact: true }).click();
    const ingest = page.getByTestId('status-ingest').getByRole('row', { name: /status\.demo/ });
    await ingest.waitFor(WAIT);
    assert.deepEqual(await ingest.getByRole('cell').allInnerTexts(), ['status.demo', '6', '0', '2', '0']);
    const endpoint = page.getByTestId('status-endpoints').getByRole('row', { name: /status\.count/ });
    assert.equal((await endpoint.getByRole('cell').allInnerTexts())[1], '3');
    const figures = await page.getByTestId('status-figures').innerText();
    assert.match(figures, /Endpoint cache hits\s+2 of 3/);
    assert.match(figures, /Queue\s+0 of 250,000 events/);
    assert.match(figures, /DuckDB file\s+[\d.]+ (kB|MB)/);
    // The page is a page: not drawn as the live tail's status pill (grey text in a pale ellipse).
    const look = await page.getByTestId('status').evaluate((section) => {
      const style = getComputedStyle(section);
      return [style.borderTopLeftRadius, style.backgroundColor, style.fontSize, getComputedStyle(section.querySelector('td')!).color];
    });
    assert.deepEqual(look, ['0px', 'rgba(0, 0, 0, 0)', '14px', 'rgb(15, 23, 42)']);
    await page.screenshot({ path: join(ARTIFACTS, 'status.png'), fullPage: true });
  });

  test('at 390 px the Sources, Endpoints and Status pages fit the screen', async () => {
    const source = (await server.request('POST', '/api/sources', { body: { name: 'phone.web.requests.production', description: 'a long name, as real ones are' } })).body;
    await server.request('POST', `/logs?source=${source.token}`, { body: { message: 'from a phone' } });
    await server.request('POST', '/api/endpoints', { body: { name: 'errors-by-path-per-hour', query: 'select count(*) as n from `phone.web.requests.production`', cache_duration_seconds: 60 } });
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await phone.addInitScript((key) => sessionStorage.setItem('sawmill.key', key), PRIVATE_KEY);
    try {
      for (const [route, ready] of [['sources', 'sources-table'], ['endpoints', 'endpoints-table'], ['status', 'status-ingest']] as const) {
        await phone.goto(`${server.url}/#/${route}`);
        await phone.getByTestId(ready).waitFor(WAIT);
        await phone.screenshot({ path: join(ARTIFACTS, `${route}-390.png`), fullPage: true });
        const wide = await phone.evaluate(() =>
          [...document.querySelectorAll('body *')]
            .filter((element) => element.getBoundingClientRect().right > document.documentElement.clientWidth + 1 && !element.closest('.table-scroll'))
            .map((element) => `${element.tagName}.${element.className}`),
        );
        assert.deepEqual(wide, [], `${route}: wider than the screen`);
        // Tables may scroll inside their own box; none needs to on these pages.
        const scrolling = await phone.evaluate(() => [...document.querySelectorAll('.table-scroll')].filter((box) => box.scrollWidth > box.clientWidth + 1).length);
        assert.equal(scrolling, 0, `${route}: a table is wider than the screen`);
      }
    } finally {
      await phone.close();
    }
  });

  test('a source shows how long it keeps events, and the private key changes it', async () => {
    const source = (await server.request('POST', '/api/sources', { body: { name: 'kept.logs' } })).body;
    await page.goto(`${server.url}/#/sources/${source.token}/explore`);
    const retention = page.getByTestId('retention');
    await retention.getByTestId('retention-value').filter({ hasText: 'forever' }).waitFor(WAIT);
    await retention.getByRole('button', { name: 'Change' }).click();
    await retention.getByLabel(/Days to keep events/).fill('14');
    await retention.getByRole('button', { name: 'Save retention' }).click();
    await retention.getByTestId('retention-value').filter({ hasText: '14 days' }).waitFor(WAIT);
    assert.equal((await server.request('GET', `/api/sources/${source.token}`)).body.retention_days, 14);

    await retention.getByRole('button', { name: 'Change' }).click();
    await retention.getByLabel(/Days to keep events/).fill('');
    await retention.getByRole('button', { name: 'Save retention' }).click();
    await retention.getByTestId('retention-value').filter({ hasText: 'forever' }).waitFor(WAIT);
    assert.equal((await server.request('GET', `/api/sources/${source.token}`)).body.retention_days, null);
    await page.screenshot({ path: join(ARTIFACTS, 'retention.png') });
  });
});
