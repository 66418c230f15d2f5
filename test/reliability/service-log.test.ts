/**
 * What the service itself prints, run as `npm start` runs it: its version, a line on an
 * unsupported Node, and (SAWMILL_LOG_FORMAT) the form of its lines.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { SAWMILL_VERSION } from '../../src/data-format.ts';
import { SUPPORTED_NODE, satisfies, unsupportedNodeMessage } from '../../src/node-support.ts';
import { freePort, spawnServer, stopServer } from '../support/process.ts';

let root: string;
before(async () => {
  root = await mkdtemp(join(tmpdir(), 'sawmill-service-log-'));
});
after(() => rm(root, { recursive: true, force: true }));

describe('versions', () => {
  test("Node versions against package.json's engines", () => {
    assert.equal(SUPPORTED_NODE, '^22.12.0 || ^24.0.0');
    const supported = ['22.12.0', '22.20.1', '24.0.0', '24.11.3', 'v24.1.0'];
    const unsupported = ['20.20.2', '22.11.0', '23.0.0', '25.1.0', '18.0.0'];
    assert.deepEqual(supported.filter((version) => !satisfies(version, SUPPORTED_NODE)), []);
    assert.deepEqual(unsupported.filter((version) => satisfies(version, SUPPORTED_NODE)), []);
    assert.equal(unsupportedNodeMessage('24.11.3'), undefined);
    assert.equal(
      unsupportedNodeMessage('20.20.2'),
      'Node 20.20.2 is not a supported version (package.json engines: ^22.12.0 || ^24.0.0): Sawmill may run, but it is tested on those; upgrade Node',
    );
    assert.equal(satisfies('20.0.0', '>=18'), true, 'a range it cannot read raises no alarm');
  });

  test('the start names the version, and this Node in one line when engines does not cover it', async () => {
    const server = await spawnServer({ SAWMILL_DATA_DIR: join(root, 'versions'), SAWMILL_API_KEY: 'k-0123456789', SAWMILL_LOG_LEVEL: 'info' }, await freePort());
    try {
      const health = await fetch(`${server.url}/health`).then((reply) => reply.json());
      assert.deepEqual(health, { status: 'ok', version: SAWMILL_VERSION });
      assert.match(server.output(), new RegExp(`"msg":"Sawmill ${SAWMILL_VERSION.replaceAll('.', '\\.')} listening on http://127\\.0\\.0\\.1:\\d+"`));
      const nodeLines = server.output().split('\n').filter((line) => line.includes('is not a supported version'));
      // This machine's Node decides which holds; both are checked wherever the suite runs on both.
      assert.equal(nodeLines.length, satisfies(process.versions.node, SUPPORTED_NODE) ? 0 : 1, server.output());
      if (nodeLines.length) assert.match(nodeLines[0]!, new RegExp(`"level":40,.*"msg":"Node ${process.versions.node} is not a supported version`));
    } finally {
      assert.equal(await stopServer(server), 0);
    }
  });
});
