import type { FastifyRequest } from 'fastify';
import { AppError } from '../errors.ts';
import type { KeyRing, Principal } from '../catalog/access.ts';

/** The key a request presents: `Authorization: Bearer`, else `X-API-KEY`, else `?api_key=`. */
export function presentedKey(request: FastifyRequest): string | undefined {
  const authorization = request.headers.authorization;
  if (authorization?.toLowerCase().startsWith('bearer ')) return authorization.slice(7).trim() || undefined;
  const header = request.headers['x-api-key'];
  if (typeof header === 'string' && header) return header;
  const query = (request.query as Record<string, unknown> | undefined)?.api_key;
  return typeof query === 'string' && query ? query : undefined;
}

export function authenticate(keys: KeyRing, request: FastifyRequest): Principal {
  const key = presentedKey(request);
  if (!key) throw new AppError(401, 'unauthorized', 'missing API key: send Authorization: Bearer <key>, X-API-KEY or ?api_key=');
  const principal = keys.authenticate(key);
  if (!principal) throw new AppError(401, 'unauthorized', 'invalid API key');
  return principal;
}

export const forbidden = (what: string) => new AppError(403, 'forbidden', `this key may not ${what}`);

/** Replace secrets in a URL before it is logged. */
export function redactUrl(url: string): string {
  return url.replace(/([?&]api_key=)[^&]*/gi, '$1[redacted]');
}
