import type { FastifyRequest } from 'fastify';
import type { Principal } from '../../catalog/access.ts';
import type { Source } from '../../catalog/types.ts';
import { AppError } from '../../errors.ts';
import { authenticate, forbidden } from '../auth.ts';
import type { Services } from '../services.ts';

/** Reading events (explorer, volume, tail, stats) needs a private key or a key with the `query` scope. */
export function requireReader(services: Services, request: FastifyRequest): Principal {
  const principal = authenticate(services.keys, request);
  if (!principal.scopes.some((scope) => scope === 'private' || scope === 'query')) throw forbidden('read events (needs the private or query scope)');
  return principal;
}

/** A source of the caller's, named by token, numeric id or name (the CLI lets people type names). */
export function readableSource(services: Services, principal: Principal, wanted: string): Source {
  const source = services.catalog.getSource(principal.ownerId, wanted) ?? services.catalog.sourceByName(principal.ownerId, wanted);
  if (!source) throw new AppError(404, 'source_not_found', `no source "${wanted.slice(0, 256)}"`);
  return source;
}
