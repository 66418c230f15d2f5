import { createHash, hash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Catalog, Endpoint, Source } from './types.ts';

/**
 * Keys and what they may do. Scopes: `private` (everything), `ingest` (any source),
 * `ingest:source:<id>`, `query` (any endpoint), `query:endpoint:<id>`, `metrics` (read /metrics).
 */

export interface Principal {
  ownerId: number;
  scopes: readonly string[];
}

const SCOPE_PATTERN = /^(private|ingest|query|metrics|ingest:source:\d+|query:endpoint:\d+)$/;

export const isValidScope = (scope: string) => SCOPE_PATTERN.test(scope);

export const hashKey = (key: string) => createHash('sha256').update(key).digest('hex');

/** A new random key: 32 bytes, URL-safe. */
export const generateKey = () => randomBytes(32).toString('base64url');

export const canManage = (principal: Principal) => principal.scopes.includes('private');

/** A Prometheus scraper gets a key of its own that can read figures and nothing else. */
export const canReadMetrics = (principal: Principal) => principal.scopes.some((scope) => scope === 'private' || scope === 'metrics');

export function canIngest(principal: Principal, source: Source): boolean {
  if (principal.ownerId !== source.owner_id) return false;
  return principal.scopes.some((scope) => scope === 'private' || scope === 'ingest' || scope === `ingest:source:${source.id}`);
}

export function canQuery(principal: Principal, endpoint: Endpoint): boolean {
  if (principal.ownerId !== endpoint.owner_id) return false;
  return principal.scopes.some((scope) => scope === 'private' || scope === 'query' || scope === `query:endpoint:${endpoint.id}`);
}

/** Keys from the environment belong to the default owner. */
export const DEFAULT_OWNER_ID = 1;

export class KeyRing {
  private readonly configured: Array<{ hash: Buffer; principal: Principal }>;

  /** The keys in force from the environment or the data dir, by their SHA-256 (hex): src/keys-in-force.ts. */
  constructor(
    private readonly catalog: Catalog,
    keys: { privateKeyHash?: string | undefined; ingestKeyHash?: string | undefined },
  ) {
    this.configured = [];
    if (keys.privateKeyHash) this.configured.push({ hash: Buffer.from(keys.privateKeyHash, 'hex'), principal: { ownerId: DEFAULT_OWNER_ID, scopes: ['private'] } });
    if (keys.ingestKeyHash) this.configured.push({ hash: Buffer.from(keys.ingestKeyHash, 'hex'), principal: { ownerId: DEFAULT_OWNER_ID, scopes: ['ingest'] } });
  }

  /** Whether `value` is a key this service accepts now (what the log must not show, wherever it was sent). */
  isKey(value: string): boolean {
    return this.authenticate(value) !== undefined;
  }

  /** The principal a presented key stands for, or undefined. Configured keys compare in constant time. */
  authenticate(key: string): Principal | undefined {
    const presented = digest(key);
    let match: Principal | undefined;
    for (const entry of this.configured) if (timingSafeEqual(entry.hash, presented)) match ??= entry.principal;
    if (match) return match;
    const token = this.catalog.accessTokenByHash(presented.toString('hex'));
    return token ? { ownerId: token.owner_id, scopes: token.scopes } : undefined;
  }
}

/** One-shot hashing: createHash().update().digest() cost three times as much, and every request pays it. */
const digest = (key: string) => hash('sha256', key, 'buffer');
