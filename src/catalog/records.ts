import { randomUUID } from 'node:crypto';
import type { Endpoint, EndpointInput, Source, SourceInput } from './types.ts';

const ENDPOINT_DEFAULTS = {
  description: null,
  sandboxable: false,
  cache_duration_seconds: 0,
  proactive_requerying_seconds: 0,
  max_limit: 1000,
  enable_auth: true,
} as const;

/** A new source as every catalog stores it; the id comes from the catalog. */
export function newSource(id: number, ownerId: number, input: SourceInput): Source {
  const now = new Date().toISOString();
  return {
    id,
    token: randomUUID(),
    owner_id: ownerId,
    name: input.name,
    description: input.description ?? null,
    retention_days: input.retention_days ?? null,
    webhook_secret: input.webhook_secret ?? null,
    inserted_at: now,
    updated_at: now,
  };
}

export function newEndpoint(id: number, ownerId: number, input: EndpointInput): Endpoint {
  const now = new Date().toISOString();
  return { ...ENDPOINT_DEFAULTS, ...input, id, token: randomUUID(), owner_id: ownerId, language: input.language ?? 'bq_sql', inserted_at: now, updated_at: now };
}

/** An endpoint as stored by a Sawmill that knew only BigQuery SQL (no `language`) reads as bq_sql. */
export function storedEndpoint(record: Endpoint): Endpoint {
  return record.language ? record : { ...record, language: 'bq_sql' };
}

/** `record` with `changes` applied, stamped now. */
export function changed<T extends { updated_at: string }>(record: T, changes: NoInfer<Partial<T>>): T {
  return { ...record, ...changes, updated_at: new Date().toISOString() };
}
