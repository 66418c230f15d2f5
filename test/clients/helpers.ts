/** Shared by the real-client tests: sources to send into, and reading back what landed. */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import type { TestServer } from '../support/server.ts';

/** Creates a source through the management API and returns its token. */
export async function createSource(server: TestServer, name: string, extra: Record<string, unknown> = {}): Promise<string> {
  const reply = await server.request('POST', '/api/sources', { body: { name, ...extra } });
  assert.equal(reply.status, 201, JSON.stringify(reply.body));
  return reply.body.token;
}

/** The stored rows of a source, oldest first, straight from the warehouse. */
export async function storedRows(server: TestServer, token: string, where = 'true'): Promise<Record<string, any>[]> {
  const { warehouse } = server.services;
  const sql = `select * from ${warehouse.relation(token)} where ${where} order by timestamp, event_message`;
  return warehouse.query(sql, {}, { timeoutMs: 5000, maxRows: 10_000 });
}

/**
 * Polls until `count` rows are stored, for senders that deliver in the background (a logger's
 * worker thread) and give no signal when their request has been answered.
 */
export async function waitForRows(server: TestServer, token: string, count: number, timeoutMs = 10_000): Promise<Record<string, any>[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const rows = await storedRows(server, token);
    if (rows.length >= count || Date.now() > deadline) return rows;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The one element of a BigQuery-style repeated record, as query results return nested objects. */
export function only<T = Record<string, any>>(value: unknown): T {
  assert.ok(Array.isArray(value) && value.length === 1, `expected a one-element record, got ${JSON.stringify(value)}`);
  return value[0] as T;
}

/** Microseconds since the epoch, the unit stored timestamps are read back in. */
export const micros = (iso: string) => Date.parse(iso) * 1000;

export interface RawReply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends `request` byte for byte over a plain TCP connection, for senders whose exact framing
 * matters (Fluent Bit, Heroku logplex), and reads one HTTP/1.1 reply sized by Content-Length.
 */
export function sendRaw(baseUrl: string, request: Buffer): Promise<RawReply> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => socket.write(request));
    let received = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk]);
      const headerEnd = received.indexOf('\r\n\r\n');
      if (headerEnd === -1) return;
      const [statusLine, ...lines] = received.subarray(0, headerEnd).toString('latin1').split('\r\n');
      const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
      const length = Number(headers['content-length'] ?? 0);
      if (received.length < headerEnd + 4 + length) return;
      socket.destroy();
      resolve({ status: Number(statusLine!.split(' ')[1]), headers, body: received.subarray(headerEnd + 4, headerEnd + 4 + length).toString('utf8') });
    });
    socket.on('error', reject);
  });
}

/** An HTTP/1.1 request as bytes: request line, headers in the given order, blank line, body. */
export function httpRequest(method: string, path: string, headers: Array<[string, string]>, body: Buffer): Buffer {
  const head = [`${method} ${path} HTTP/1.1`, ...headers.map(([name, value]) => `${name}: ${value}`), '', ''].join('\r\n');
  return Buffer.concat([Buffer.from(head, 'latin1'), body]);
}
