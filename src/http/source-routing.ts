import type { Principal } from '../catalog/access.ts';
import type { Source } from '../catalog/types.ts';
import { AppError } from '../errors.ts';
import type { BodyRouting } from '../ingest/index.ts';
import type { Services } from './services.ts';

const CANONICAL_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type Query = Record<string, string | undefined>;

/**
 * The source a sender names, among the key owner's sources: `?source=`, `?source_name=`, then
 * the body's own fields, then the `x-source` header. Another owner's source answers like a
 * missing one.
 */
export function resolveSource(services: Services, principal: Principal, query: Query, routing: BodyRouting, header: string | undefined): Source {
  if (query.source !== undefined) return byToken(services, principal, query.source, '?source_name=');
  if (query.source_name !== undefined) return byName(services, principal, query.source_name);
  if (routing.source !== undefined) return byToken(services, principal, routing.source, 'a "source_name" field');
  if (routing.sourceName !== undefined) return byName(services, principal, routing.sourceName);
  if (header !== undefined) return byToken(services, principal, header.trim(), '?source_name=');
  throw new AppError(400, 'missing_source', 'say which source: ?source=<uuid>, ?source_name=<name>, a "source" field in the body or an x-source header');
}

function byName(services: Services, principal: Principal, name: string): Source {
  const source = services.catalog.sourceByName(principal.ownerId, name);
  if (!source) throw new AppError(404, 'source_not_found', `no source named "${name.slice(0, 256)}"`);
  return source;
}

/** `byName`: how the sender could have named the source instead, where it put a name as `source`. */
function byToken(services: Services, principal: Principal, token: string, byName: string): Source {
  if (!CANONICAL_UUID.test(token)) {
    const given = token.slice(0, 64);
    throw new AppError(400, 'invalid_source', `source takes a source's UUID (like 3f0c6f4e-8a5e-4c36-9d55-1f2b8f7f1a2b), got "${given}"; to name a source by its name, use ${byName}${byName.startsWith('?') ? encodeURIComponent(given) : ''}`);
  }
  const source = services.catalog.sourceByToken(token.toLowerCase());
  if (!source || source.owner_id !== principal.ownerId) throw new AppError(404, 'source_not_found', `no source ${token}`);
  return source;
}
