/**
 * Regular expressions users write and Node evaluates (the live tail's `path:~"…"`): RE2 syntax
 * and linear time (src/explorer/regex.ts), so one event cannot stop the process (issue 27).
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { compileMatcher, parseLql, type TailEvent } from '../../src/explorer/lql.ts';
import { MAX_TEST_COST, RegexBudget, RegexSkipped, compileRegex, regexTester } from '../../src/explorer/regex.ts';
import { freePort, spawnServer, stopServer, type ServerProcess } from '../support/process.ts';

const event = (path: string): TailEvent => ({ id: 'x', timestamp: 0, event_message: 'm', fields: { metadata: { path } } });

describe('LQL regexes are RE2', () => {
  test('RE2 syntax is what is accepted: inline flags yes, lookaround and backreferences no (as BigQuery and DuckDB)', () => {
    const matches = compileMatcher(parseLql('m.path:~"(?i)^/REST"'));
    assert.equal(matches(event('/rest/v1')), true);
    assert.equal(matches(event('/auth')), false);
    for (const pattern of ['(?=a)b', '(?<=a)b', '(a)\\\\1', '(?!x)', 'a++']) {
      assert.throws(() => parseLql(`m.path:~"${pattern}"`), /invalid regular expression for metadata\.path \(RE2 syntax/, pattern);
    }
  });

  test('a pattern compiling to more than 1,000 instructions is refused', () => {
    assert.throws(() => parseLql('m.path:~"a{1000}b{100}"'), /too large: \d+ RE2 instructions, at most 1000/);
    assert.doesNotThrow(() => parseLql('m.path:~"a{500}"'));
  });

  test('a test longer than the cost bound, or past the budget, is not run: it says so', () => {
    const regex = compileRegex('^(a+)+$', 'path');
    const longest = Math.floor(MAX_TEST_COST / regex.programSize());
    const test = regexTester(regex, new RegexBudget());
    assert.equal(test('a'.repeat(longest)), true);
    assert.throws(() => test('a'.repeat(longest + 1)), RegexSkipped);
    const spent = new RegexBudget(100);
    spent.spend(10_000); // refills at 100 ms a second: closed for the next 100 s
    assert.throws(() => regexTester(regex, spent)('aaa'), RegexSkipped);
  });
});

/** Server-sent events of one tail, collected as they come. */
async function openTail(url: string, key: string) {
  const controller = new AbortController();
  const response = await fetch(url, { headers: { 'x-api-key': key }, signal: controller.signal });
  assert.equal(response.status, 200);
  const received: Array<{ event: string; data: any }> = [];
  const reading = (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of response.body!) {
      buffer += decoder.decode(chunk as Uint8Array, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) !== -1) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const name = /^event: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (name) received.push({ event: name, data: JSON.parse(data!) });
      }
    }
  })().catch(() => undefined);
  return { received, stop: () => controller.abort(), reading };
}

describe('a live tail with a catastrophic regex, in a real server process', () => {
  let dir: string;
  let server: ServerProcess;
  const key = 'regex-test-private-key-0123456789';
  // Every request has a deadline: a process stuck in a regex answers none.
  const api = (method: string, path: string, body?: unknown) =>
    fetch(server.url + path, { method, headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(20_000) });

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sawmill-regex-'));
    server = await spawnServer({ SAWMILL_DATA_DIR: dir, SAWMILL_API_KEY: key, SAWMILL_FOLD_INTERVAL_MS: '50' }, await freePort());
  });
  after(async () => {
    // A process stuck in a backtracking regex answers no SIGTERM.
    if (server.child.exitCode === null) server.child.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });

  test('an event built to backtrack stalls nothing; a value past the cost bound is reported, not matched', async () => {
    const source = (await (await api('POST', '/api/sources', { name: 'regex.tail' })).json()) as { token: string };
    const queryKey = ((await (await api('POST', '/api/access-tokens', { scopes: 'query' })).json()) as { token: string }).token;
    // The field must exist before a tail may filter on it.
    assert.equal((await api('POST', `/logs?source=${source.token}&wait=visible`, { message: 'first', metadata: { path: '/' } })).status, 200);
    const tail = await openTail(`${server.url}/api/sources/${source.token}/tail?q=${encodeURIComponent('m.path:~"^(a+)+$"')}`, queryKey);
    try {
      // JavaScript's RegExp takes 2^40 steps for this one (27 a's took 5.9 s).
      assert.equal((await api('POST', `/logs?source=${source.token}`, { message: 'evil', metadata: { path: `${'a'.repeat(40)}b` } })).status, 200);
      assert.equal((await api('POST', `/logs?source=${source.token}`, { message: 'long', metadata: { path: 'a'.repeat(300_000) } })).status, 200);
      assert.equal((await api('POST', `/logs?source=${source.token}`, { message: 'good', metadata: { path: 'aaaa' } })).status, 200);
      const deadline = Date.now() + 20_000;
      while (!tail.received.some((item) => item.event === 'events' && item.data.some((one: any) => one.event_message === 'good')) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const health = await fetch(`${server.url}/health`, { signal: AbortSignal.timeout(20_000) });
      assert.equal(health.status, 200);
      const sent = tail.received.filter((item) => item.event === 'events').flatMap((item) => item.data.map((one: any) => one.event_message));
      assert.deepEqual(sent, ['good']);
      assert.deepEqual(tail.received.filter((item) => item.event === 'dropped').map((item) => item.data), [{ events: 1, reason: 'regex_budget' }]);
    } finally {
      tail.stop();
    }
    assert.equal(await stopServer(server), 0);
  });
});
