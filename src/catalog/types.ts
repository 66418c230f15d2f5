/** Catalog records. Timestamps are ISO strings; ids are small integers as in Logflare; tokens are UUIDs. */

export interface Source {
  id: number;
  token: string;
  owner_id: number;
  name: string;
  description: string | null;
  /** Days to keep events; null keeps them forever. */
  retention_days: number | null;
  /** When set, GitHub webhook deliveries must carry a valid X-Hub-Signature-256. */
  webhook_secret: string | null;
  inserted_at: string;
  updated_at: string;
}

/**
 * What an endpoint's query is written in: BigQuery SQL, ClickHouse SQL, or LQL (the explorer's
 * filter language over one source, named by `f:`). Logflare also has `pg_sql`, which Sawmill refuses.
 */
export const ENDPOINT_LANGUAGES = ['bq_sql', 'ch_sql', 'lql'] as const;
export type EndpointLanguage = (typeof ENDPOINT_LANGUAGES)[number];

export interface Endpoint {
  id: number;
  token: string;
  owner_id: number;
  name: string;
  description: string | null;
  query: string;
  language: EndpointLanguage;
  sandboxable: boolean;
  cache_duration_seconds: number;
  proactive_requerying_seconds: number;
  max_limit: number;
  enable_auth: boolean;
  /** This endpoint's query deadline; absent or null means the server's SAWMILL_QUERY_TIMEOUT_MS. */
  query_timeout_ms?: number | null;
  inserted_at: string;
  updated_at: string;
}

export interface AccessToken {
  id: number;
  owner_id: number;
  /** SHA-256 of the key, hex; the key itself is never stored. */
  key_hash: string;
  scopes: string[];
  description: string | null;
  inserted_at: string;
}

export type SourceInput = Pick<Source, 'name'> & Partial<Pick<Source, 'description' | 'retention_days' | 'webhook_secret'>>;
export type EndpointInput = Pick<Endpoint, 'name' | 'query'> &
  Partial<Pick<Endpoint, 'description' | 'language' | 'sandboxable' | 'cache_duration_seconds' | 'proactive_requerying_seconds' | 'max_limit' | 'enable_auth' | 'query_timeout_ms'>>;

/** Where sources, endpoints and access tokens live: a file in the data dir, or a shared database. */
export interface Catalog {
  /** The owner's sources, or every source when no owner is given. */
  listSources(ownerId?: number): Source[];
  /** By token (UUID) or numeric id, among the owner's sources. */
  getSource(ownerId: number, tokenOrId: string): Source | undefined;
  /** By token, whatever the owner; callers check ownership. */
  sourceByToken(token: string): Source | undefined;
  sourceByName(ownerId: number, name: string): Source | undefined;
  createSource(ownerId: number, input: SourceInput): Promise<Source>;
  updateSource(source: Source, changes: Partial<SourceInput>): Promise<Source>;
  deleteSource(source: Source): Promise<void>;

  listEndpoints(ownerId: number): Endpoint[];
  getEndpoint(ownerId: number, tokenOrId: string): Endpoint | undefined;
  endpointByName(ownerId: number, name: string): Endpoint | undefined;
  /** By token, whatever the owner; callers check ownership. */
  endpointByToken(token: string): Endpoint | undefined;
  createEndpoint(ownerId: number, input: EndpointInput): Promise<Endpoint>;
  updateEndpoint(endpoint: Endpoint, changes: Partial<EndpointInput>): Promise<Endpoint>;
  deleteEndpoint(endpoint: Endpoint): Promise<void>;

  listAccessTokens(ownerId: number): AccessToken[];
  accessTokenByHash(keyHash: string): AccessToken | undefined;
  createAccessToken(ownerId: number, keyHash: string, scopes: string[], description: string | null): Promise<AccessToken>;
  deleteAccessToken(token: AccessToken): Promise<void>;
}
