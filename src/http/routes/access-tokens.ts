import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { generateKey, hashKey, isValidScope } from '../../catalog/access.ts';
import type { AccessToken } from '../../catalog/types.ts';
import { AppError } from '../../errors.ts';
import type { Services } from '../services.ts';
import { requireManager } from './sources.ts';

const scopeList = z
  .union([z.string(), z.array(z.string())])
  .transform((value) => (Array.isArray(value) ? value : value.split(/[\s,]+/)).filter(Boolean))
  .refine((scopes) => scopes.length > 0, 'at least one scope is required')
  .refine((scopes) => scopes.every(isValidScope), 'scopes are private, ingest, ingest:source:<id>, query, query:endpoint:<id>, metrics');

const lookupInput = z.object({ token: z.string().min(1).max(4_096) });

const tokenInput = z.object({ scopes: scopeList.optional(), description: z.string().max(1_000).nullable().optional() });

/** The token as listed: its key is shown only once, when it is created. */
const tokenView = ({ key_hash: _hash, owner_id: _owner, ...token }: AccessToken) => ({ ...token, scopes: token.scopes.join(' ') });

export default async function accessTokenRoutes(app: FastifyInstance, { services }: { services: Services }) {
  const config = { managementErrors: true };
  const { catalog } = services;

  app.get('/api/access-tokens', { config }, async (request) => {
    const principal = requireManager(services, request);
    return catalog.listAccessTokens(principal.ownerId).map(tokenView);
  });

  app.post('/api/access-tokens', { config }, async (request, reply) => {
    const principal = requireManager(services, request);
    const input = tokenInput.parse(request.body ?? {});
    const key = generateKey();
    const token = await catalog.createAccessToken(principal.ownerId, hashKey(key), input.scopes ?? ['ingest'], input.description ?? null);
    return reply.status(201).send({ ...tokenView(token), token: key });
  });

  /**
   * Which token holds a key, the key in the body: how `sawmill keys revoke <key>` finds the id to
   * revoke, so that the key never travels in a URL, which proxies and access logs keep.
   */
  app.post('/api/access-tokens/lookup', { config }, async (request) => {
    const principal = requireManager(services, request);
    const { token: key } = lookupInput.parse(request.body ?? {});
    const hash = hashKey(key);
    const token = catalog.listAccessTokens(principal.ownerId).find((item) => item.key_hash === hash);
    if (!token) throw new AppError(404, 'not_found', 'no access token has this key (keys set by SAWMILL_API_KEY or SAWMILL_INGEST_KEY are not access tokens)');
    return tokenView(token);
  });

  /** By id, or by the key itself (matched through its hash), as Logflare's API takes it; never logged but as an id. */
  const deleteConfig = { ...config, keyParam: 'token' };
  app.delete<{ Params: { token: string } }>('/api/access-tokens/:token', { config: deleteConfig }, async (request: FastifyRequest<{ Params: { token: string } }>, reply) => {
    const principal = requireManager(services, request);
    const wanted = request.params.token;
    const hash = hashKey(wanted);
    const token = catalog.listAccessTokens(principal.ownerId).find((item) => String(item.id) === wanted || item.key_hash === hash);
    if (!token) throw new AppError(404, 'not_found', 'no such access token (by id or by the key itself)');
    await catalog.deleteAccessToken(token);
    return reply.status(204).send();
  });
}
