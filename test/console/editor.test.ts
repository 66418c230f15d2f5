import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, beforeEach, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { PRIVATE_KEY, startTestServer, type TestServer } from '../support/server.ts';
import { ARTIFACTS, chromiumMissing, launchChromium } from './browser.ts';

const WAIT = { timeout: 15_000 };

/**
 * A hung main thread never answers: every step a person takes must finish within this bound.
 * Not a speed measurement: a working page answers in milliseconds, a frozen one never.
 */
async function answers<T>(what: string, step: Promise<T>, seconds = 30): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the page stopped answering during: ${what}`)), seconds * 1000);
  });
  try {
    return await Promise.race([step, hung]);
  } finally {
    clearTimeout(timer);
  }
}

/** The editor's document as the page shows it, line by line. */
const editorText = (page: Page) => page.locator('.cm-content .cm-line').evaluateAll((lines) => lines.map((line) => line.textContent ?? '').join('\n'));

/** Auto-indentation and closed brackets may add spaces; the words and symbols typed must all be there, in order. */
const words = (text: string) => text.replace(/\s+/g, ' ').trim();

describe('the SQL editor under fast typing, in Chromium', { skip: chromiumMissing() }, () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  before(async () => {
    server = await startTestServer();
    assert.equal((await server.request('POST', '/api/sources', { body: { name: 'shop.requests' } })).status, 201);
    browser = await launchChromium();
  });
  /** A page of its own per test, signed in: one frozen by a failing test leaves the next one alone. */
  beforeEach(async () => {
    await page?.close();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.addInitScript((key) => sessionStorage.setItem('sawmill.key', key), PRIVATE_KEY);
  });
  after(async () => {
    await browser?.close();
    await server?.stop({ removeData: true });
  });

  // Lines end in a symbol or a number, so no completion list is open when Enter is pressed.
  const LINES = ['select count(*) as n,', '  max(id) as newest', 'from `shop.requests`', 'where id > 0'];

  test('typing fast with Enter and Backspace keeps every key, the page answering, and saves what was typed', async () => {
    await page.goto(`${server.url}/#/endpoints/new`);
    await page.getByLabel('Name').fill('typed-fast');
    const editor = page.locator('.cm-content');
    await editor.waitFor(WAIT);
    for (let round = 0; round < 4; round++) {
      await answers(`round ${round}`, (async () => {
        await editor.click();
        await page.keyboard.press('ControlOrMeta+a');
        await page.keyboard.press('Backspace');
        for (const [index, line] of LINES.entries()) {
          // A typo fixed at once: the Backspace lands right after the key it removes.
          await page.keyboard.type(`${line}zq`, { delay: round % 2 });
          await page.keyboard.press('Backspace');
          await page.keyboard.press('Backspace');
          if (index < LINES.length - 1) await page.keyboard.press('Enter');
        }
        await page.keyboard.type(' and id < 9x', { delay: 0 });
        await page.keyboard.press('Backspace');
      })());
      const shown = await answers('reading the document', editorText(page));
      assert.equal(words(shown), words(`${LINES.join('\n')} and id < 9`), `round ${round}`);
    }
    await page.screenshot({ path: join(ARTIFACTS, 'editor-typed.png') });

    // What the page holds is what gets saved: nothing typed is lost between the editor and the draft.
    const shown = await editorText(page);
    await answers('saving', page.getByRole('button', { name: 'Save', exact: true }).click());
    await page.getByText('Created.').waitFor(WAIT);
    const saved = await server.request('GET', '/api/endpoints');
    assert.equal(saved.body.find((endpoint: { name: string }) => endpoint.name === 'typed-fast')?.query, shown);
  });

  test('an endpoint loaded from the server replaces the document once, and typing continues from there', async () => {
    const created = await server.request('POST', '/api/endpoints', { body: { name: 'loaded', query: 'select 1 as one' } });
    assert.equal(created.status, 201);
    await page.goto(`${server.url}/#/endpoints/${created.body.token}`);
    await page.locator('.cm-line').filter({ hasText: 'select 1 as one' }).waitFor(WAIT);
    await page.locator('.cm-content').click();
    await page.keyboard.press('ControlOrMeta+End');
    await answers('typing', page.keyboard.type(', 2 as two', { delay: 0 }));
    assert.equal(await editorText(page), 'select 1 as one, 2 as two');
  });

  test('a SQL error is marked at its line and column, old rows go, and a changed query runs without being saved', async () => {
    const created = await server.request('POST', '/api/endpoints', { body: { name: 'live-one', query: 'select 1 as one' } });
    assert.equal(created.status, 201);
    const callers = async () => (await server.request('GET', '/api/endpoints/query/live-one')).body.result;
    await page.goto(`${server.url}/#/endpoints/${created.body.token}`);
    await page.locator('.cm-line').filter({ hasText: 'select 1 as one' }).waitFor(WAIT);
    await page.getByTestId('run-endpoint').click();
    await page.getByTestId('result-summary').filter({ hasText: '1 row' }).waitFor(WAIT);

    await page.locator('.cm-content').click();
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type('select 1 as one,\nfoo(2) as two\nfrom `shop.requests`', { delay: 0 });
    await page.getByRole('button', { name: 'Run draft' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor(WAIT);
    assert.match(await alert.innerText(), /function foo is not supported \(line 2, column 1\)/);
    assert.equal(await page.getByTestId('result-table').count(), 0, 'the rows of the earlier run still show under the error');
    const mark = page.locator('.cm-error-mark');
    assert.equal(await mark.innerText(), 'foo');
    assert.equal(await page.locator('.cm-line').nth(1).locator('.cm-error-mark').count(), 1);
    await page.screenshot({ path: join(ARTIFACTS, 'editor-error.png') });

    // A misspelt table, in BigQuery's words and position form.
    await page.locator('.cm-content').click();
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type('select 1 as one\nfrom `shop.request`', { delay: 0 });
    await page.getByRole('button', { name: 'Run draft' }).click();
    await page.getByRole('alert').filter({ hasText: 'at [2:6]' }).waitFor(WAIT);
    assert.equal(await mark.innerText(), '`shop.request`');
    assert.equal(await page.locator('.cm-line').nth(1).locator('.cm-error-mark').count(), 1);

    // Editing clears the mark; the draft runs while callers still get the saved query.
    await page.locator('.cm-content').click();
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type('select 2 as two', { delay: 0 });
    assert.equal(await mark.count(), 0);
    await page.getByRole('button', { name: 'Run draft' }).click();
    await page.getByTestId('result-summary').filter({ hasText: '1 row' }).waitFor(WAIT);
    assert.deepEqual(await page.getByTestId('result-table').locator('th').allInnerTexts(), ['two']);
    assert.deepEqual(await callers(), [{ one: 1 }]);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Saved.').waitFor(WAIT);
    assert.deepEqual(await callers(), [{ two: 2 }]);
  });

  test('the page raised no script errors', () => {
    assert.deepEqual(pageErrors, []);
  });
});
