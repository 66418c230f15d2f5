import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { PRIVATE_KEY, startTestServer, type TestServer } from '../support/server.ts';
import { ARTIFACTS, chromiumMissing, launchChromium } from './browser.ts';

const WAIT = { timeout: 15_000 };

/** Requests spread over the last ten minutes so the chart and per-minute queries have shape. */
function sampleEvents(count: number) {
  const now = Date.now();
  return Array.from({ length: count }, (_, i) => {
    const failed = i % 4 === 0;
    return {
      message: failed ? `GET /rest/v1/orders failed with 500 (#${i})` : `GET /${i % 2 ? 'rest/v1/orders' : 'auth/v1/user'} 200 (#${i})`,
      level: failed ? 'error' : 'info',
      timestamp: new Date(now - (count - i) * 15_000).toISOString(),
      metadata: { request: { path: failed || i % 2 ? '/rest/v1/orders' : '/auth/v1/user', method: 'GET' }, response: { status_code: failed ? 500 : 200 }, duration_ms: 10 + i },
    };
  });
}

describe('web console in Chromium', { skip: chromiumMissing() }, () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let token: string;
  const consoleErrors: string[] = [];

  const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
  const ingest = async (body: unknown) => assert.equal((await server.request('POST', `/logs?source=${token}`, { body })).status, 200);
  const rowsText = async (testId: string) => page.getByTestId(testId).allInnerTexts();

  before(async () => {
    server = await startTestServer();
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    // Refused requests (the wrong key, the bad query) are logged by the browser too; those are expected.
    page.on('console', (message) => message.type() === 'error' && !message.text().startsWith('Failed to load resource') && consoleErrors.push(message.text()));
    page.on('pageerror', (error) => consoleErrors.push(error.message));
  });
  after(async () => {
    await browser?.close();
    await server?.stop({ removeData: true });
  });

  test('the console is served at / and /console with a strict content security policy', async () => {
    for (const path of ['/', '/console', '/console/']) {
      const response = await fetch(server.url + path);
      assert.equal(response.status, 200, path);
      assert.match(response.headers.get('content-type') ?? '', /text\/html/);
      assert.match(response.headers.get('content-security-policy') ?? '', /script-src 'self'/);
      assert.equal(response.headers.get('cache-control'), 'no-store');
      const script = /<script type="module"[^>]+src="(\/console\/assets\/[^"]+\.js)"/.exec(await response.text())?.[1];
      assert.ok(script, `${path} has no module script`);
      const asset = await fetch(server.url + script);
      assert.equal(asset.status, 200);
      assert.match(asset.headers.get('cache-control') ?? '', /immutable/);
    }
  });

  test('a wrong key is refused; the private key signs in', async () => {
    await page.goto(`${server.url}/`);
    await page.getByLabel('API key').fill('not-a-key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'That key is not valid.' }).waitFor(WAIT);
    await page.getByLabel('API key').fill(PRIVATE_KEY);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByTestId('sources-table').waitFor(WAIT);
    assert.equal(await page.evaluate(() => sessionStorage.getItem('sawmill.key')), PRIVATE_KEY);
    assert.equal(await page.evaluate(() => localStorage.length), 0);
  });

  test('create a source; its page shows ingest snippets with its UUID', async () => {
    await page.getByPlaceholder(/new source name/).fill('shop.requests');
    await page.getByRole('button', { name: 'Create source' }).click();
    await page.getByTestId('source-name').filter({ hasText: 'shop.requests' }).waitFor(WAIT);
    token = decodeURIComponent(new URL(page.url()).hash).split('/')[2]!;
    assert.match(token, /^[0-9a-f-]{36}$/);
    assert.match(await page.getByTestId('snippet').innerText(), new RegExp(`/logs\\?source=${token}`));
    await page.getByRole('button', { name: 'Fluent Bit' }).click();
    assert.match(await page.getByTestId('snippet').innerText(), new RegExp(`URI\\s+/logs/json\\?source=${token}`));
  });

  test('events ingested through the API appear in the explorer, newest first, with the chart', async () => {
    await ingest({ batch: sampleEvents(40) });
    await page.getByRole('link', { name: 'Explorer' }).click();
    await page.getByTestId('event-row').first().waitFor(WAIT);
    const rows = await rowsText('event-row');
    assert.equal(rows.length, 40);
    assert.match(rows[0]!, /\(#39\)/);
    assert.match(rows[39]!, /\(#0\)/);
    await page.getByTestId('volume-chart').locator('canvas').waitFor(WAIT);
    await shot('explorer');
  });

  test('an LQL filter narrows the events; a click shows the event JSON', async () => {
    await page.getByLabel('Search').fill('m.response.status_code:>=500 m.request.path:~"^/rest"');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="event-row"]').length === 10, undefined, WAIT);
    const rows = await rowsText('event-row');
    assert.ok(rows.every((row) => row.includes('failed with 500')), rows.join('\n'));
    await page.getByTestId('event-row').first().click();
    const json = JSON.parse(await page.getByTestId('event-json').locator('pre').innerText());
    assert.equal(json.event_message, 'GET /rest/v1/orders failed with 500 (#36)');
    assert.deepEqual(json.metadata.response, { status_code: 500 });
    await shot('explorer-filtered');

    await page.getByLabel('Search').fill('m.nope:1');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('alert').filter({ hasText: 'unknown field m.nope' }).waitFor(WAIT);
  });

  test('the schema tree shows nested fields', async () => {
    await page.getByRole('link', { name: 'Schema' }).click();
    const tree = page.getByTestId('schema-tree');
    await tree.getByText('status_code', { exact: true }).waitFor(WAIT);
    assert.match(await tree.innerText(), /m\.response\.status_code/);
  });

  test('live tail shows new events as they are committed, filtered and pausable', async () => {
    await page.getByRole('link', { name: 'Live tail' }).click();
    await page.getByTestId('tail-status').filter({ hasText: 'live' }).waitFor(WAIT);
    await ingest({ message: 'tail: first event', level: 'info' });
    await page.getByTestId('tail-line').filter({ hasText: 'tail: first event' }).waitFor(WAIT);

    await page.getByLabel('Filter').fill('level:error');
    await page.getByRole('button', { name: 'Apply filter' }).click();
    await page.getByTestId('tail-status').filter({ hasText: 'live' }).waitFor(WAIT);
    await ingest({ batch: [{ message: 'tail: quiet info', level: 'info' }, { message: 'tail: loud error', level: 'error' }] });
    await page.getByTestId('tail-line').filter({ hasText: 'tail: loud error' }).waitFor(WAIT);
    assert.deepEqual(await rowsText('tail-line').then((lines) => lines.map((line) => line.split(/\s+/).slice(2).join(' '))), ['tail: loud error']);

    await page.getByTestId('tail-pause').click();
    await page.getByTestId('tail-status').filter({ hasText: 'paused' }).waitFor(WAIT);
    await ingest({ message: 'tail: while paused', level: 'error' });
    await page.getByRole('button', { name: 'Resume (1 new)' }).waitFor(WAIT);
    assert.equal(await page.getByTestId('tail-line').filter({ hasText: 'while paused' }).count(), 0);
    await page.getByRole('button', { name: 'Resume (1 new)' }).click();
    await page.getByTestId('tail-line').filter({ hasText: 'tail: while paused' }).waitFor(WAIT);
    await shot('live-tail');
  });

  test('create an endpoint in the SQL editor, run it with a parameter and see the rows', async () => {
    await page.getByRole('link', { name: 'Endpoints' }).click();
    await page.getByRole('link', { name: 'New endpoint' }).click();
    await page.getByLabel('Name').fill('slow-requests');
    const sql = 'select event_message, m.duration_ms from `shop.requests` t cross join unnest(t.metadata) m where m.duration_ms >= cast(@min_ms as int64) order by m.duration_ms desc';
    const editor = page.locator('.cm-content');
    await editor.click();
    await page.keyboard.press('ControlOrMeta+a');
    await editor.fill(sql);
    await page.keyboard.press('Escape');
    // Highlighting: keywords and the backticked source name are styled spans, not plain text.
    assert.ok((await page.locator('.cm-line span').count()) > 3);
    await page.getByLabel('@min_ms').fill('46');
    // An unsaved query runs as a draft; saving makes it the endpoint's.
    await page.getByTestId('run-endpoint').click();
    await page.getByTestId('result-summary').filter({ hasText: '4 rows' }).waitFor(WAIT);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Created.').waitFor(WAIT);
    await page.getByTestId('run-endpoint').click();
    await page.getByTestId('result-summary').filter({ hasText: '4 rows' }).waitFor(WAIT);
    const cells = await page.getByTestId('result-table').locator('tbody tr td:nth-child(2)').allInnerTexts();
    assert.deepEqual(cells, ['49', '48', '47', '46']);
    const url = await page.locator('.url-line code').innerText();
    assert.match(url, /\/api\/endpoints\/query\/[0-9a-f-]{36}\?min_ms=46$/);
    await shot('endpoint');

    // The saved endpoint answers over HTTP exactly as the console showed it.
    const reply = await fetch(url, { headers: { 'x-api-key': PRIVATE_KEY } }).then((response) => response.json());
    assert.deepEqual(reply.result.map((row: { duration_ms: number }) => row.duration_ms), [49, 48, 47, 46]);

    // A parameter left empty runs as NULL, as in Logflare; the console says so.
    assert.equal(await page.getByTestId('param-note').count(), 0);
    await page.getByLabel('@min_ms').fill('');
    await page.getByTestId('run-endpoint').click();
    await page.getByTestId('result-summary').filter({ hasText: '0 rows' }).waitFor(WAIT);
    assert.equal(await page.getByTestId('param-note').innerText(), 'Empty, so run as NULL: @min_ms.');
  });

  test('rows with a time column are drawn as a chart; settings are saved', async () => {
    await page.getByRole('link', { name: 'Endpoints' }).click();
    await page.getByRole('link', { name: 'New endpoint' }).click();
    await page.getByLabel('Name').fill('per-minute');
    const editor = page.locator('.cm-content');
    await editor.click();
    await page.keyboard.press('ControlOrMeta+a');
    await editor.fill('select timestamp_trunc(timestamp, minute) as minute, count(*) as events, countif(event_message like @pattern) as matching from `shop.requests` group by minute order by minute');
    await page.keyboard.press('Escape');
    await page.getByLabel(/Cache results for/).fill('30');
    await page.getByLabel('@pattern').fill('%failed%');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Created.').waitFor(WAIT);
    await page.getByTestId('run-endpoint').click();
    await page.getByTestId('result-chart').locator('canvas').waitFor(WAIT);
    await shot('endpoint-chart');
    const saved = await server.request('GET', '/api/endpoints');
    const endpoint = saved.body.find((item: { name: string }) => item.name === 'per-minute');
    assert.equal(endpoint.cache_duration_seconds, 30);

    await page.getByRole('link', { name: 'Endpoints' }).click();
    const listed = await page.getByTestId('endpoints-table').innerText();
    assert.match(listed, /slow-requests/);
    assert.match(listed, /per-minute\s+bq_sql\s+30s/);
  });

  test('a ClickHouse SQL endpoint: pick the language, see it highlighted, run the draft, save and run it', async () => {
    await page.getByRole('link', { name: 'Endpoints' }).click();
    await page.getByRole('link', { name: 'New endpoint' }).click();
    await page.getByLabel('Name').fill('ch-failures');
    await page.getByLabel('Language').selectOption('ch_sql');
    const editor = page.locator('.cm-content');
    // The untouched starter query becomes ClickHouse SQL's.
    await page.locator('.cm-content', { hasText: 'toStartOfMinute(timestamp)' }).waitFor(WAIT);
    await editor.click();
    await page.keyboard.press('ControlOrMeta+a');
    await editor.fill('select countIf(event_message like {pattern:String}) as failed, count() as events\nfrom `shop.requests`');
    await page.keyboard.press('Escape');
    // ClickHouse's types are highlighted in ClickHouse SQL, plain text in BigQuery SQL.
    const typeName = page.locator('.cm-line span', { hasText: /^String$/ });
    await typeName.first().waitFor(WAIT);
    await page.getByLabel('Language').selectOption('bq_sql');
    await page.waitForFunction(() => ![...document.querySelectorAll('.cm-line span')].some((span) => span.textContent === 'String'), undefined, WAIT);
    await page.getByLabel('Language').selectOption('ch_sql');
    await typeName.first().waitFor(WAIT);
    assert.match(await editor.innerText(), /countIf\(event_message like \{pattern:String\}\)/, 'switching language keeps a query that was typed');

    await page.getByLabel('@pattern').fill('%failed%');
    await page.getByTestId('run-endpoint').click();
    await page.getByTestId('result-summary').filter({ hasText: '1 row' }).waitFor(WAIT);
    const draftCells = await page.getByTestId('result-table').locator('tbody tr td').allInnerTexts();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Created.').waitFor(WAIT);
    const saved = (await server.request('GET', '/api/endpoints')).body.find((item: { name: string }) => item.name === 'ch-failures');
    assert.equal(saved.language, 'ch_sql');
    const reply = await server.request('GET', '/api/endpoints/query/ch-failures?pattern=%25failed%25');
    assert.deepEqual(draftCells, [String(reply.body.result[0].failed), String(reply.body.result[0].events)]);
    assert.ok(reply.body.result[0].failed > 0 && reply.body.result[0].failed < reply.body.result[0].events);

    await page.getByTestId('run-endpoint').click();
    await page.getByTestId('result-summary').filter({ hasText: '1 row' }).waitFor(WAIT);
    assert.deepEqual(await page.getByTestId('result-table').locator('tbody tr td').allInnerTexts(), draftCells);
    await shot('endpoint-clickhouse');

    await page.getByRole('link', { name: 'Endpoints' }).click();
    assert.match(await page.getByTestId('endpoints-table').innerText(), /ch-failures\s+ch_sql/);

    // LQL: the starter names its source with f:, drawn apart from fields and parameters.
    await page.getByRole('link', { name: 'New endpoint' }).click();
    await page.getByLabel('Language').selectOption('lql');
    await page.locator('.cm-content', { hasText: 'f:shop.requests @search' }).waitFor(WAIT);
    assert.deepEqual(await page.locator('.cm-lql-source').allInnerTexts(), ['f:shop.requests']);
    assert.deepEqual(await page.locator('.cm-lql-parameter').allInnerTexts(), ['@search']);
    await editor.click();
    await page.keyboard.press('ControlOrMeta+a');
    await editor.fill('f:shop.requests level:error m.response.status_code:>=@min_status');
    await page.keyboard.press('Escape');
    assert.deepEqual(await page.locator('.cm-lql-field').allInnerTexts(), ['level', 'm.response.status_code']);
    assert.deepEqual(await page.locator('.cm-lql-parameter').allInnerTexts(), ['@min_status']);
    await page.getByLabel('@min_status').waitFor(WAIT);
  });

  test("a new endpoint starts from the person's own source, and its starter runs as it stands", async () => {
    await ingest({ message: 'GET /rest/v1/orders 200 (starter)' });
    await page.getByRole('link', { name: 'Endpoints' }).click();
    await page.getByRole('link', { name: 'New endpoint' }).click();
    // shop.requests has the events; the nine Supabase sources have none.
    await page.locator('.cm-content', { hasText: 'from `shop.requests`' }).waitFor(WAIT);
    await page.getByLabel('@search').fill('(starter)');
    await page.getByTestId('run-endpoint').click();
    await page.getByTestId('result-summary').filter({ hasText: '1 row' }).waitFor(WAIT);
    for (const [language, text] of [['ch_sql', 'from `shop.requests`'], ['lql', 'f:shop.requests @search']] as const) {
      await page.getByLabel('Language').selectOption(language);
      await page.locator('.cm-content', { hasText: text }).waitFor(WAIT);
      const answered = page.waitForResponse((response) => response.url().endsWith('/api/endpoints/preview'), WAIT);
      await page.getByTestId('run-endpoint').click();
      const response = await answered;
      assert.equal(response.status(), 200, `${language}: ${await response.text()}`);
    }
  });

  test('the sources list shows counts, rate and last event', async () => {
    await page.getByRole('link', { name: 'Sources' }).click();
    const row = page.locator('tr[data-source="shop.requests"]');
    await row.waitFor(WAIT);
    // 40 sampled + 4 tailed events + 1 the starter found, all committed within the last minute.
    await row.getByTestId('source-events').filter({ hasText: '45' }).waitFor(WAIT);
    assert.match(await row.innerText(), /45\/min/);
    await shot('sources');
  });

  test('the page raised no script errors', () => {
    assert.deepEqual(consoleErrors, []);
  });
});
