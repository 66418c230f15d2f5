/**
 * GitHub webhooks to `/logs/github?api_key=<key>&source=<uuid>` with "Content type:
 * application/json". GitHub sends the event as JSON with X-GitHub-Event, X-GitHub-Delivery,
 * X-GitHub-Hook-ID, X-GitHub-Hook-Installation-Target-*, User-Agent GitHub-Hookshot/<id>, and,
 * when the webhook has a secret, X-Hub-Signature (HMAC-SHA1) and X-Hub-Signature-256
 * (`sha256=` + hex HMAC-SHA256 of the raw body). Payloads below follow GitHub's documented
 * examples (shortened: every object GitHub sends has many more `*_url` keys).
 */
import assert from 'node:assert/strict';
import { createHmac, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { INGEST_KEY, startTestServer, type TestServer } from '../support/server.ts';
import { createSource, only, storedRows } from './helpers.ts';

let server: TestServer;
const SECRET = 'It’s a Secret to Everybody';

before(async () => {
  server = await startTestServer();
});
after(() => server.stop({ removeData: true }));

const repository = {
  id: 1296269,
  node_id: 'MDEwOlJlcG9zaXRvcnkxMjk2MjY5',
  name: 'Hello-World',
  full_name: 'octocat/Hello-World',
  private: false,
  owner: { login: 'octocat', id: 1, avatar_url: 'https://github.com/images/error/octocat_happy.gif', url: 'https://api.github.com/users/octocat', type: 'User' },
  html_url: 'https://github.com/octocat/Hello-World',
  url: 'https://api.github.com/repos/octocat/Hello-World',
  issues_url: 'https://api.github.com/repos/octocat/Hello-World/issues{/number}',
  default_branch: 'main',
};
const sender = { login: 'hubot', id: 2, avatar_url: 'https://github.com/images/error/hubot_happy.gif', url: 'https://api.github.com/users/hubot', type: 'User' };

const payloads = {
  push: {
    ref: 'refs/heads/main',
    before: '6113728f27ae82c7b1a177c8d03f9e96e0adf246',
    after: '59b20b8d5c6ff8d09518454d4dd8b7b30f095ab5',
    created: false,
    deleted: false,
    forced: false,
    compare: 'https://github.com/octocat/Hello-World/compare/6113728f27ae...59b20b8d5c6f',
    commits: [
      {
        id: '59b20b8d5c6ff8d09518454d4dd8b7b30f095ab5',
        message: 'Fix all the bugs',
        timestamp: '2026-11-20T10:00:00Z',
        url: 'https://github.com/octocat/Hello-World/commit/59b20b8d5c6f',
        author: { name: 'Monalisa Octocat', email: 'mona@github.com', username: 'octocat' },
        added: [],
        removed: [],
        modified: ['README.md'],
      },
    ],
    head_commit: { id: '59b20b8d5c6ff8d09518454d4dd8b7b30f095ab5', message: 'Fix all the bugs', url: 'https://github.com/octocat/Hello-World/commit/59b20b8d5c6f' },
    pusher: { name: 'octocat', email: 'mona@github.com' },
    repository,
    sender,
  },
  issues: {
    action: 'opened',
    issue: {
      url: 'https://api.github.com/repos/octocat/Hello-World/issues/1347',
      html_url: 'https://github.com/octocat/Hello-World/issues/1347',
      comments_url: 'https://api.github.com/repos/octocat/Hello-World/issues/1347/comments',
      id: 1,
      number: 1347,
      state: 'open',
      title: 'Found a bug',
      body: "I'm having a problem with this.",
      user: { login: 'octocat', id: 1, avatar_url: 'https://github.com/images/error/octocat_happy.gif' },
      labels: [{ id: 208045946, name: 'bug', color: 'f29513', url: 'https://api.github.com/repos/octocat/Hello-World/labels/bug' }],
    },
    repository,
    sender,
  },
  pull_request: {
    action: 'opened',
    number: 1,
    pull_request: {
      url: 'https://api.github.com/repos/octocat/Hello-World/pulls/1',
      html_url: 'https://github.com/octocat/Hello-World/pull/1',
      diff_url: 'https://github.com/octocat/Hello-World/pull/1.diff',
      id: 1,
      number: 1,
      state: 'open',
      title: 'Amazing new feature',
      user: { login: 'octocat', id: 1, avatar_url: 'https://github.com/images/error/octocat_happy.gif' },
      head: { ref: 'new-topic', sha: '6dcb09b5b57875f334f61aebed695e2e4193db5e' },
      base: { ref: 'main', sha: '6dcb09b5b57875f334f61aebed695e2e4193db5e' },
      draft: false,
      merged: false,
      additions: 100,
      deletions: 3,
      changed_files: 5,
    },
    repository,
    sender,
  },
} as const;

/**
 * The request GitHub makes for one delivery; `secret` signs it, as a webhook with a secret does.
 * "Content type: application/x-www-form-urlencoded" (the default GitHub offers) sends the same
 * JSON as the form field `payload` and signs those form bytes.
 */
function delivery(event: keyof typeof payloads, body: string, secret: string, contentType = 'application/json') {
  return {
    'content-type': contentType,
    'user-agent': 'GitHub-Hookshot/a1b2c3d',
    'x-github-event': event,
    'x-github-delivery': randomUUID(),
    'x-github-hook-id': '292430182',
    'x-github-hook-installation-target-id': '79929171',
    'x-github-hook-installation-target-type': 'repository',
    'x-hub-signature': `sha1=${createHmac('sha1', secret).update(body).digest('hex')}`,
    'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
  };
}

describe('GitHub webhooks', () => {
  test('push, issues and pull_request deliveries, signed with the source secret', async () => {
    const token = await createSource(server, 'github.hooks', { webhook_secret: SECRET });
    for (const event of ['push', 'issues', 'pull_request'] as const) {
      // GitHub pretty-prints nothing and signs the exact bytes it sends.
      const body = JSON.stringify(payloads[event]);
      const reply = await server.request('POST', `/logs/github?api_key=${INGEST_KEY}&source=${token}`, { key: null, body, headers: delivery(event, body, SECRET) });
      assert.equal(reply.status, 200, `${event}: ${JSON.stringify(reply.body)}`);
    }
    const rows = await storedRows(server, token);
    assert.deepEqual(rows.map((row) => row.event_message).sort(), [
      'octocat/Hello-World | hubot | opened',
      'octocat/Hello-World | hubot | opened',
      'octocat/Hello-World | hubot | push',
    ]);
    for (const row of rows) assert.ok(!/_url"/.test(JSON.stringify(row.metadata)), 'every key ending in _url is dropped, at any depth');

    const push = only(rows.find((row) => row.event_message.endsWith('push'))!.metadata);
    assert.equal(push.ref, 'refs/heads/main');
    assert.equal(push.commits[0].message, 'Fix all the bugs');
    assert.equal(only(push.repository).url, 'https://api.github.com/repos/octocat/Hello-World', '"url" itself does not end in _url');
    const pull = rows.map((row) => only(row.metadata)).find((metadata) => metadata.pull_request !== undefined && metadata.pull_request !== null)!;
    assert.equal(only(pull.pull_request).title, 'Amazing new feature');
    assert.equal(only(only(pull.pull_request).head).ref, 'new-topic');
  });

  test('form-encoded deliveries (GitHub\'s default content type) are read from their payload field', async () => {
    const token = await createSource(server, 'github.form', { webhook_secret: SECRET });
    for (const event of ['push', 'issues'] as const) {
      const body = new URLSearchParams({ payload: JSON.stringify(payloads[event]) }).toString();
      const headers = delivery(event, body, SECRET, 'application/x-www-form-urlencoded');
      const reply = await server.request('POST', `/logs/github?api_key=${INGEST_KEY}&source=${token}`, { key: null, body, headers });
      assert.equal(reply.status, 200, `${event}: ${JSON.stringify(reply.body)}`);
    }
    const rows = await storedRows(server, token);
    assert.deepEqual(rows.map((row) => row.event_message).sort(), ['octocat/Hello-World | hubot | opened', 'octocat/Hello-World | hubot | push']);
    const issue = rows.map((row) => only(row.metadata)).find((metadata) => metadata.issue?.length)!;
    assert.equal(only(issue.issue).body, "I'm having a problem with this.", 'form-decoded text is the text GitHub sent');
    const empty = await server.request('POST', `/logs/github?api_key=${INGEST_KEY}&source=${token}`, { key: null, body: 'zen=hi', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    assert.deepEqual([empty.status, empty.body.error.code], [415, 'unsupported_media_type']);
  });

  test('a delivery signed with another secret, or unsigned, is refused and not stored', async () => {
    const token = await createSource(server, 'github.guarded', { webhook_secret: SECRET });
    const body = JSON.stringify(payloads.issues);
    const forged = await server.request('POST', `/logs/github?api_key=${INGEST_KEY}&source=${token}`, { key: null, body, headers: delivery('issues', body, 'not the secret') });
    assert.equal(forged.status, 401);
    assert.equal(forged.body.error.code, 'invalid_signature');
    const { 'x-hub-signature-256': _dropped, ...unsigned } = delivery('issues', body, SECRET);
    const missing = await server.request('POST', `/logs/github?api_key=${INGEST_KEY}&source=${token}`, { key: null, body, headers: unsigned });
    assert.equal(missing.status, 401);
    assert.equal((await storedRows(server, token)).length, 0);
  });

  test('without a secret on the source, deliveries are accepted on the key alone', async () => {
    const token = await createSource(server, 'github.open');
    const body = JSON.stringify(payloads.issues);
    const reply = await server.request('POST', `/logs/github?api_key=${INGEST_KEY}&source=${token}`, { key: null, body, headers: delivery('issues', body, 'whatever') });
    assert.equal(reply.status, 200);
    assert.equal((await storedRows(server, token)).length, 1);
  });
});
