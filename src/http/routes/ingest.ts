import type { FastifyInstance, FastifyRequest } from 'fastify';
import { canIngest, type Principal } from '../../catalog/access.ts';
import type { Source } from '../../catalog/types.ts';
import { AppError } from '../../errors.ts';
import { adapterFor, decodeBody, INGEST_ROUTES, verifyGithubSignature, type BodyRouting, type IngestRoute } from '../../ingest/index.ts';
import { normalizeEvent } from '../../pipeline/normalize.ts';
import type { LogRow } from '../../warehouse/types.ts';
import { authenticate, forbidden } from '../auth.ts';
import type { Services } from '../services.ts';

/** The same routes live under each of Logflare's prefixes. */
const PREFIXES = ['/logs', '/api/logs', '/api/events'];

const CANONICAL_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type Query = Record<string, string | undefined>;

const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/** `?source=`, `?source_name=`, then the body's own fields, then `x-source`; only the owner's sources. */
function resolveSource(services: Services, principal: Principal, query: Query, routing: BodyRouting, header: string | undefined): Source {
  if (query.source !== undefined) return byToken(services, principal, query.source);
  if (query.source_name !== undefined) return byName(services, principal, query.source_name);
  if (routing.source !== undefined) return byToken(services, principal, routing.source);
  if (routing.sourceName !== undefined) return byName(services, principal, routing.sourceName);
  if (header !== undefined) return byToken(services, principal, header);
  throw new AppError(400, 'missing_source', 'say which source: ?source=<uuid>, ?source_name=<name>, a "source" field in the body or an x-source header');
}

function byName(services: Services, principal: Principal, name: string): Source {
  const source = services.catalog.sourceByName(principal.ownerId, name);
  if (!source) throw new AppError(404, 'source_not_found', `no source named "${name.slice(0, 256)}"`);
  return source;
}

function byToken(services: Services, principal: Principal, token: string): Source {
  if (!CANONICAL_UUID.test(token)) throw new AppError(400, 'invalid_source', `source must be a UUID like 3f0c6f4e-8a5e-4c36-9d55-1f2b8f7f1a2b, got "${token.slice(0, 64)}"`);
  const source = services.catalog.sourceByToken(token.toLowerCase());
  // Another owner's source answers exactly like a missing one.
  if (!source || source.owner_id !== principal.ownerId) throw new AppError(404, 'source_not_found', `no source ${token}`);
  return source;
}

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

  const handler = (route: IngestRoute) => async (request: FastifyRequest) => {
    const principal = authenticate(services.keys, request);
    const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    const query = request.query as Query;
    const decoded = await decodeBody(
      raw,
      { contentType: request.headers['content-type'], contentEncoding: first(request.headers['content-encoding']) },
      services.limits.maxBodyBytes,
    );
    const { events, routing } = adapterFor(route)!({ body: decoded, query, headers: request.headers });
    const source = resolveSource(services, principal, query, routing, first(request.headers['x-source']));
    if (!canIngest(principal, source)) throw forbidden(`ingest into source ${source.token}`);
    checkGithubSignature(source, route, request, raw);

    const now = Date.now() * 1000;
    const rows: LogRow[] = [];
    const errors: Array<{ index: number; message: string }> = [];
    events.forEach((event, index) => {
      const normalized = event.ok ? normalizeEvent(event.event, now) : event;
      if (normalized.ok) rows.push(normalized.row);
      else errors.push({ index, message: normalized.error });
    });
    if (rows.length === 0 && errors.length > 0) {
      throw new AppError(400, 'invalid_events', `no event could be stored: ${errors[0]!.message}`, { rejected: errors.length, errors: errors.slice(0, 100) });
    }
    await services.writer.write(source.token, rows);
    return { message: 'Logged!', accepted: rows.length, rejected: errors.length, ...(errors.length > 0 ? { errors: errors.slice(0, 100) } : {}) };
  };

  for (const prefix of PREFIXES) {
    for (const route of INGEST_ROUTES) app.post(route === 'logs' ? prefix : `${prefix}/${route}`, handler(route));
  }
}
