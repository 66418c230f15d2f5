import type { FastifyInstance, FastifyRequest } from 'fastify';
import { canIngest, type Principal } from '../../catalog/access.ts';
import type { Source } from '../../catalog/types.ts';
import { AppError } from '../../errors.ts';
import { adapterFor, decodeBody, INGEST_ROUTES, verifyGithubSignature, type DecodedBody, type IngestRoute } from '../../ingest/index.ts';
import { assertEventCount } from '../../ingest/request-limits.ts';
import { encodeEvents } from '../../pipeline/encode-events.ts';
import { queueFull } from '../../pipeline/writer.ts';
import { authenticate, forbidden } from '../auth.ts';
import { countedWrite, countIngestRequests, noteIngestSource, waitsForVisibility } from '../ingest-metrics.ts';
import type { Services } from '../services.ts';
import { resolveSource, type Query } from '../source-routing.ts';

/** The same routes live under each of Logflare's prefixes. */
const PREFIXES = ['/logs', '/api/logs', '/api/events'];

/** Log levels at which every ingestion request is logged. */
const REQUEST_LOG_LEVELS = new Set(['debug', 'trace']);

const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

function checkGithubSignature(source: Source, route: IngestRoute, request: FastifyRequest, body: Buffer): void {
  if (route !== 'github' || source.webhook_secret === null) return;
  const signature = first(request.headers['x-hub-signature-256']);
  if (!verifyGithubSignature(body, signature, source.webhook_secret)) {
    throw new AppError(401, 'invalid_signature', 'X-Hub-Signature-256 is missing or does not match the source webhook secret');
  }
}

export default async function ingestRoutes(app: FastifyInstance, { services }: { services: Services }) {
  // Ingestion reads raw bytes: bodies may be gzip, NDJSON, logplex frames or JSON of any size up to the limit.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: services.limits.maxBodyBytes }, (_request, body, done) => done(null, body));
  // Shed load before reading the body: refused only at the writer, an overloaded server would
  // still spend its time parsing every body it is about to turn away. The connection is closed
  // with the 429: kept alive, it would have to read the body it refuses to reach the next request,
  // and a sender that retries at once kept the server reading refused bodies instead of folding.
  app.addHook('onRequest', (_request, reply, done) => {
    if (!services.writer.saturated) return done();
    reply.header('connection', 'close');
    done(queueFull());
  });
  countIngestRequests(app, services);

  // Everything after decoding happens in `store`, whose promise the handler returns rather than
  // awaits: the parsed body must not be held by a suspended async function while the journal
  // syncs (see EventWriter.write).
  const handler = (route: IngestRoute) => async (request: FastifyRequest) => {
    const principal = authenticate(services.keys, request);
    const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    // Vercel may verify a new drain with an empty POST: nothing to store, nothing wrong.
    if (raw.length === 0 && (route === 'vercel' || route === 'zeit')) return { message: 'Logged!', accepted: 0, rejected: 0 };
    const headers = { contentType: request.headers['content-type'], contentEncoding: first(request.headers['content-encoding']) };
    const decoded = await decodeBody(raw, headers, services.limits.maxBodyBytes, services.limits.request);
    return store(route, request, principal, raw, decoded);
  };

  function store(route: IngestRoute, request: FastifyRequest, principal: Principal, raw: Buffer, body: DecodedBody) {
    const query = request.query as Query;
    const visible = waitsForVisibility(query);
    const { events, routing } = adapterFor(route)!({ body, query, headers: request.headers });
    assertEventCount(events.length, services.limits.request);
    const source = resolveSource(services, principal, query, routing, first(request.headers['x-source']));
    if (!canIngest(principal, source)) throw forbidden(`ingest into source ${source.token}`);
    noteIngestSource(request, source.name);
    checkGithubSignature(source, route, request, raw);

    const { staged, rows, errors } = encodeEvents(events, services.writer.stagingFields(source.token), Date.now() * 1000);
    const accepted = rows.length + (staged?.count ?? 0);
    if (accepted === 0 && errors.length > 0) {
      services.metrics.ingestEvents.inc({ source: source.name, outcome: 'rejected' }, errors.length);
      throw new AppError(400, 'invalid_events', `no event could be stored: ${errors[0]!.message}`, { rejected: errors.length, errors: errors.slice(0, 100) });
    }
    const reply = { message: 'Logged!', accepted, rejected: errors.length, ...(errors.length > 0 ? { errors: errors.slice(0, 100) } : {}) };
    return countedWrite(services, source, { rows, staged }, errors.length, () => reply, visible);
  }

  // Two log lines per request cost a tenth of the main thread at thousands of requests a second:
  // at the default level ingestion logs only what goes wrong; debug and trace log every request.
  // One logger serves every request then: a child per request at another level made pino build
  // its log methods anew for each.
  const quiet = app.log.child({}, { level: 'warn' });
  const options = REQUEST_LOG_LEVELS.has(app.log.level) ? {} : { logLevel: 'warn' as const, childLoggerFactory: () => quiet };
  for (const prefix of PREFIXES) {
    for (const route of INGEST_ROUTES) app.post(route === 'logs' ? prefix : `${prefix}/${route}`, options, handler(route));
  }
}
