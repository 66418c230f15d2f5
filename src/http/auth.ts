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
  if (!key) throw new AppError(401, 'unauthorized', missingKeyMessage(request.headers.authorization));
  const principal = keys.authenticate(key);
  if (!principal) throw new AppError(401, 'unauthorized', 'invalid API key');
  return principal;
}

/**
 * An Authorization header without the Bearer scheme is the commonest near miss (`Authorization:
 * <key>`, or a shipper's Basic auth): say so rather than that no key came. The header's value may
 * be the key itself, so only a scheme-looking first word is repeated.
 */
function missingKeyMessage(authorization: string | undefined): string {
  const ways = 'send Authorization: Bearer <key>, X-API-KEY: <key> or ?api_key=<key>';
  if (!authorization?.trim()) return `missing API key: ${ways}`;
  const scheme = /^([A-Za-z][A-Za-z0-9-]{0,19})\s+\S/.exec(authorization.trim())?.[1];
  const what = scheme ? `uses the ${scheme} scheme` : 'has no scheme';
  return `the Authorization header ${what}; Sawmill takes a key there only as Authorization: Bearer <key> (or X-API-KEY: <key>, or ?api_key=<key>)`;
}

export const forbidden = (what: string) => new AppError(403, 'forbidden', `this key may not ${what}`);
