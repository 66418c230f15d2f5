/**
 * The HTTP ceiling: a bare node:http server that does the least an ingest endpoint must do with
 * the same requests (read the body, JSON.parse it, count the events, answer 200 with Sawmill's
 * reply shape) and nothing else: no auth, no routing, no normalisation, no storage.
 * Usage: node --import tsx bench/bare-server.ts <port>; prints "listening <port>".
 */
import { createServer } from 'node:http';

const server = createServer((request, response) => {
  if (request.method === 'GET') {
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    return;
  }
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    let accepted = 0;
    try {
      const body: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      accepted = Array.isArray(body) ? body.length : typeof body === 'object' && body !== null ? 1 : 0;
    } catch {
      response.writeHead(400, { 'content-type': 'application/json' }).end('{"message":"bad json"}');
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ message: 'Logged!', accepted, rejected: 0 }));
  });
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
  const address = server.address();
  console.log(`listening ${typeof address === 'object' && address ? address.port : ''}`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
