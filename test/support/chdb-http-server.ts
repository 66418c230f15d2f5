/**
 * A test fixture, not part of Sawmill: ClickHouse (chdb 26.7, in this process) behind the subset
 * of ClickHouse's HTTP interface that @clickhouse/client uses, so several Sawmill processes can
 * share one warehouse in tests. chdb is a library and cannot listen on a port itself
 * (engines.md §6.1). Production deployments run real ClickHouse servers (docs/scale-out.md).
 *
 *   node --import tsx test/support/chdb-http-server.ts <data dir> <port>   (prints "listening")
 *
 * Handles: GET /ping; POST with the SQL in the body or in `query=` (INSERT … FORMAT X with the
 * rows in the body); `param_<name>` query parameters (TSV-escaped, `\N` is NULL); any other URL
 * parameter as a setting; errors as HTTP 500 `Code: N. DB::Exception: …`. One statement at a
 * time: chdb's settings are session-wide, and every Sawmill statement states all it relies on.
 */

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Session } from 'chdb';

const [dataDir, portText] = process.argv.slice(2);
if (!dataDir || !portText) throw new Error('usage: chdb-http-server.ts <data dir> <port>');
const session = new Session(dataDir);

/** URL parameters that are the HTTP protocol's own, not settings. */
const PROTOCOL = new Set(['query', 'query_id', 'database', 'default_format', 'session_id', 'session_timeout', 'role', 'user', 'password', 'enable_http_compression', 'wait_end_of_query']);

function unescapeParam(value: string): string | null {
  if (value === '\\N') return null;
  return value.replace(/\\(.)/g, (_, char: string) => ({ t: '\t', n: '\n', r: '\r', 0: '\0' })[char as 't'] ?? char);
}

const literal = (value: string) => (/^-?\d+(\.\d+)?$/.test(value) ? value : `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`);

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

let chain: Promise<unknown> = Promise.resolve();
const serially = <T>(work: () => Promise<T>): Promise<T> => {
  const result = chain.then(work);
  chain = result.catch(() => undefined);
  return result;
};

async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
  const url = new URL(request.url ?? '/', 'http://localhost');
  if (url.pathname === '/ping') {
    response.end('Ok.\n');
    return;
  }
  const body = await readBody(request);
  const inUrl = url.searchParams.get('query');
  const sql = inUrl ? `${inUrl}\n${body}` : body;
  const params: Record<string, string | null> = {};
  const settings: string[] = [];
  for (const [name, value] of url.searchParams) {
    if (name.startsWith('param_')) params[name.slice('param_'.length)] = unescapeParam(value);
    else if (!PROTOCOL.has(name) && /^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) settings.push(`SET ${name} = ${literal(value)}`);
  }
  const format = url.searchParams.get('default_format') ?? 'TabSeparated';
  const statement = [...settings, sql].join('; ');
  try {
    const result = await serially(() =>
      Object.keys(params).length > 0 ? session.queryBindAsync(statement, params, { format }) : session.queryAsync(statement, { format }),
    );
    response.setHeader('Content-Type', 'text/plain; charset=UTF-8');
    response.setHeader('X-ClickHouse-Format', format);
    response.setHeader('X-ClickHouse-Summary', JSON.stringify({ read_rows: String(result.rowsRead), read_bytes: String(result.bytesRead), written_rows: '0', written_bytes: '0' }));
    response.end(Buffer.from(result.bytes()));
  } catch (error) {
    // chdb hands what a failed query had written to the next query: let a throwaway take it.
    await serially(() => session.queryAsync('SELECT 1', { format: 'TabSeparated' })).catch(() => undefined);
    const message = error instanceof Error ? error.message : String(error);
    const code = /Code: (\d+)/.exec(message)?.[1] ?? '1000';
    response.statusCode = 500;
    response.setHeader('X-ClickHouse-Exception-Code', code);
    response.end(message.startsWith('Code:') ? message : `Code: ${code}. DB::Exception: ${message}`);
  }
}

const server = createServer((request, response) => {
  handle(request, response).catch((error: unknown) => {
    response.statusCode = 500;
    response.end(`Code: 1000. DB::Exception: ${String(error)}`);
  });
});
server.listen(Number(portText), '127.0.0.1', () => console.log('listening'));
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    server.close();
    session.close();
    process.exit(0);
  });
}
