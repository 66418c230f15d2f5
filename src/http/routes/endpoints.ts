import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ENDPOINT_LANGUAGES, type Endpoint } from '../../catalog/types.ts';
import { AppError } from '../../errors.ts';
import type { EndpointRun } from '../../endpoints/service.ts';
import { toJsonText } from '../../ingest/json-text.ts';
import { authenticate, presentedKey } from '../auth.ts';
import { callerOf } from '../fairness.ts';
import type { Services } from '../services.ts';
import { requireManager } from './sources.ts';

/** Logflare's languages; pg_sql is Logflare's too, but Sawmill has no PostgreSQL warehouse to run it on. */
const language = z.enum(ENDPOINT_LANGUAGES, {
  error: (issue) =>
    issue.input === 'pg_sql'
      ? 'pg_sql (PostgreSQL SQL) is not supported: Sawmill runs bq_sql, ch_sql and lql'
      : `is invalid: use one of ${ENDPOINT_LANGUAGES.join(', ')}`,
});

const endpointFields = z.object({
  name: z.string().trim().min(1, 'must not be empty').max(256),
  query: z.string().min(1, 'must not be empty').max(100_000),
  description: z.string().max(10_000).nullable().optional(),
  language: language.optional(),
  sandboxable: z.boolean().optional(),
  cache_duration_seconds: z.number().int().min(0).max(86_400 * 30).optional(),
  proactive_requerying_seconds: z.number().int().min(0).max(86_400).optional(),
  max_limit: z.number().int().min(1).max(10_000).optional(),
  enable_auth: z.boolean().optional(),
  query_timeout_ms: z.number().int().min(1).max(300_000).nullable().optional(),
});

const previewFields = z.object({
  query: endpointFields.shape.query,
  language: language.optional().default('bq_sql'),
  params: z.record(z.string(), z.string()).optional().default({}),
  max_limit: z.number().int().min(1).max(10_000).optional().default(1000),
});

export const MISSING_PARAMS_HEADER = 'x-sawmill-missing-params';
export const UNKNOWN_PARAMS_HEADER = 'x-sawmill-unknown-params';

const endpointView = ({ owner_id: _owner, ...endpoint }: Endpoint) => endpoint;

/** Query-string and (on POST) JSON-body parameters, every value a string. */
function queryParameters(request: FastifyRequest): Record<string, string> {
  const merged: Record<string, string> = {};
  const sources = [request.query, request.method === 'POST' ? request.body : undefined];
  for (const source of sources) {
    if (!source || typeof source !== 'object' || Array.isArray(source)) continue;
    for (const [name, value] of Object.entries(source)) {
      if (value === null || value === undefined) continue;
      merged[name] = parameterValue(name, value);
    }
  }
  return merged;
}

/** A parameter's text: a string as it is, a list's last value (a repeated `?a=1&a=2`), a record as JSON. */
function parameterValue(name: string, value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) {
    const last: unknown = value.at(-1);
    // Stringifying nested lists recurses once per level: 100,000 of them overflowed the stack (a 500).
    if (typeof last === 'object' && last !== null) throw new AppError(400, 'invalid_parameter', `parameter ${name.slice(0, 128)} is a list of lists or records: pass a string, a number or a boolean`);
    return String(last);
  }
  // toJsonText, not JSON.stringify: a body nested 10,000 deep overflows V8's recursive stringify.
  return toJsonText(value);
}

/** Parameter names as a header value: %-encoded (any name can come in a query string), at most 20. */
const nameList = (names: string[]) => names.slice(0, 20).map(encodeURIComponent).join(', ');

/**
 * The body as Logflare answers it; which `@` parameters ran as NULL for want of a value and which
 * given names the query does not use, in two headers the console and the CLI show.
 */
function sendRun(reply: FastifyReply, run: EndpointRun) {
  if (run.missing.length > 0) void reply.header(MISSING_PARAMS_HEADER, nameList(run.missing));
  if (run.unknown.length > 0) void reply.header(UNKNOWN_PARAMS_HEADER, nameList(run.unknown));
  return reply.type('application/json; charset=utf-8').send(run.body);
}

/** The endpoint each query request ran, for its line in /metrics. */
const endpointNames = new WeakMap<FastifyRequest, string>();

export default async function endpointRoutes(app: FastifyInstance, { services }: { services: Services }) {
  const config = { managementErrors: true };
  const { catalog, endpoints } = services;

  const find = (request: FastifyRequest<{ Params: { token: string } }>) => {
    const principal = requireManager(services, request);
    const endpoint = catalog.getEndpoint(principal.ownerId, request.params.token);
    if (!endpoint) throw new AppError(404, 'not_found', `no endpoint "${request.params.token.slice(0, 256)}" (by token or id)`);
    return endpoint;
  };

  const runQuery = async (request: FastifyRequest<{ Params: { name: string } }>, reply: FastifyReply) => {
    const anonymous = presentedKey(request) === undefined;
    const principal = (anonymous && endpoints.publicPrincipal(request.params.name)) || authenticate(services.keys, request);
    const endpoint = endpoints.find(principal.ownerId, request.params.name);
    if (endpoint) endpointNames.set(request, endpoint.name);
    const parameters = queryParameters(request);
    return sendRun(reply, await services.fairness.run(callerOf(request, principal), services.queryTimeoutMs, () => endpoints.run(principal, request.params.name, parameters)));
  };
  app.addHook('onResponse', (request, reply, done) => {
    if (request.routeOptions.url?.includes('/query/')) {
      services.metrics.endpointSeconds.observe(reply.elapsedTime / 1000, { endpoint: endpointNames.get(request) ?? '', status: String(reply.statusCode) });
    }
    done();
  });
  app.get('/api/endpoints/query/:name', runQuery);
  app.post('/api/endpoints/query/:name', runQuery);
  app.get('/endpoints/query/:name', runQuery);

  // A draft run from the console: the query as edited, not saved over the endpoint callers use.
  app.post('/api/endpoints/preview', async (request, reply) => {
    const principal = requireManager(services, request);
    const { query, language, params, max_limit } = previewFields.parse(request.body ?? {});
    return sendRun(reply, await endpoints.preview(principal.ownerId, { query, language }, params, max_limit));
  });

  app.get('/api/endpoints', { config }, async (request) => {
    const principal = requireManager(services, request);
    return catalog.listEndpoints(principal.ownerId).map(endpointView);
  });

  app.post('/api/endpoints', { config }, async (request, reply) => {
    const principal = requireManager(services, request);
    const input = endpointFields.parse(request.body ?? {});
    return reply.status(201).send(endpointView(await endpoints.create(principal.ownerId, input)));
  });

  app.get<{ Params: { token: string } }>('/api/endpoints/:token', { config }, async (request) => endpointView(find(request)));

  const update = (partial: boolean) => async (request: FastifyRequest<{ Params: { token: string } }>) => {
    const endpoint = find(request);
    const changes = (partial ? endpointFields.partial() : endpointFields).parse(request.body ?? {});
    return endpoints.update(endpoint, changes);
  };
  app.put<{ Params: { token: string } }>('/api/endpoints/:token', { config }, async (request) => endpointView(await update(false)(request)));
  app.patch<{ Params: { token: string } }>('/api/endpoints/:token', { config }, async (request, reply) => {
    await update(true)(request);
    return reply.status(204).send();
  });

  app.delete<{ Params: { token: string } }>('/api/endpoints/:token', { config }, async (request, reply) => {
    await endpoints.delete(find(request));
    return reply.status(204).send();
  });
}
